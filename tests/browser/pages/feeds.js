// Deterministic inputs for the real test models, built in the page with the
// page's own onnxruntime-web. Served to test pages, the demo and the bench.

/** A deterministic PRNG (mulberry32) so every run feeds the same inputs. */
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A float32 tensor of deterministic noise in [-1, 1). */
export function noise(ort, dims, seed = 1) {
  const next = rng(seed);
  const data = new Float32Array(dims.reduce((a, b) => a * b, 1));
  for (let i = 0; i < data.length; i++) data[i] = next() * 2 - 1;
  return new ort.Tensor('float32', data, dims);
}

/** 512 samples of a 440 Hz tone with noise, as a VAD would see at 16 kHz. */
export function audio(ort, samples = 512, seed = 1) {
  const next = rng(seed);
  const data = new Float32Array(samples);
  for (let i = 0; i < samples; i++) data[i] = 0.5 * Math.sin((2 * Math.PI * 440 * i) / 16000) + 0.05 * (next() * 2 - 1);
  return new ort.Tensor('float32', data, [1, samples]);
}

const zeros = (ort, dims) => new ort.Tensor('float32', new Float32Array(dims.reduce((a, b) => a * b, 1)), dims);
const sr = (ort) => new ort.Tensor('int64', BigInt64Array.from([16000n]), []);

/** name → (ort, seed) → feeds */
export const FEEDS = {
  silero_vad_v5: (ort, seed) => ({ input: audio(ort, 512, seed), state: zeros(ort, [2, 1, 128]), sr: sr(ort) }),
  silero_vad_legacy: (ort, seed) => ({
    input: audio(ort, 512, seed),
    sr: sr(ort),
    h: zeros(ort, [2, 1, 64]),
    c: zeros(ort, [2, 1, 64]),
  }),
  ppocr_v4_det: (ort, seed) => ({ x: noise(ort, [1, 3, 64, 64], seed) }),
  ppocr_v2_cls: (ort, seed) => ({ x: noise(ort, [1, 3, 48, 192], seed) }),
  ppocr_v4_rec: (ort, seed) => ({ x: noise(ort, [1, 3, 48, 160], seed) }),
  oww_melspectrogram: (ort, seed) => ({ input: noise(ort, [1, 1280], seed) }),
};

/**
 * A run's outputs as CPU tensors of `ort` (GPU ones read back, then disposed: back to the pool that
 * made them), where each lay, and whether every one was `ort`'s own Tensor.
 */
export async function onCpu(ort, out) {
  const cpu = {};
  const locations = [];
  let own = true;
  for (const [k, t] of Object.entries(out)) {
    locations.push(t.location);
    own &&= t instanceof ort.Tensor;
    cpu[k] = t.location === 'gpu-buffer' ? new ort.Tensor(t.type, await t.getData(true), t.dims) : t;
    if (t.location === 'gpu-buffer') t.dispose();
  }
  return { cpu, locations, own };
}

/** Largest absolute difference between two output maps (Infinity if they differ in shape). */
export function maxAbsDiff(a, b) {
  let worst = 0;
  for (const name of Object.keys(b)) {
    const x = a[name];
    const y = b[name];
    if (!x || x.dims.join() !== y.dims.join() || x.type !== y.type) return Infinity;
    for (let i = 0; i < y.data.length; i++) {
      const d = Math.abs(Number(x.data[i]) - Number(y.data[i]));
      if (!(d <= worst)) worst = Number.isNaN(d) ? Infinity : d;
    }
  }
  return worst;
}
