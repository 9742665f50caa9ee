// The demo: a real model (Silero VAD v5) loaded three ways — ortkeep cold
// (network, stored into IndexedDB as it streams, onnxruntime's optimized form
// captured and verified in the background), ortkeep warm (IndexedDB, no
// request, the verified form at 'disabled') and plain onnxruntime-web — with
// their phases side by side; the
// cache's contents with delete buttons; then runs with the tensor pool
// against plain session.run (GPUBuffers per run on WebGPU when this browser
// has it, the wasm EP otherwise) and the model run frame by frame over a
// synthetic clip. window.demoResult is what `npm run demo` prints headless.
import * as ort from 'onnxruntime-web';
import { cache } from '/js/index.js';
import { hasWebGpu, ortkeepLoad, perRun, plainLoad } from './loads.js';
import * as show from './render.js';

const MODEL_URL = '/node_modules/@ricky0123/vad-web/dist/silero_vad_v5.onnx';
const SAMPLE_RATE = 16000;
const FRAME = 512;
// Optimized forms, as the README's first example loads them (the probe
// ladder finds silero's input shapes itself: js/forms/probe.js)
const FORMS = true;
ort.env.wasm.numThreads = 1;

/** 2 s of audio: silence, a 300 Hz tone burst with vibrato, silence, a burst. */
function syntheticClip() {
  const clip = new Float32Array(SAMPLE_RATE * 2);
  for (let i = 0; i < clip.length; i++) {
    const t = i / SAMPLE_RATE;
    const voiced = (t > 0.4 && t < 0.9) || (t > 1.3 && t < 1.8);
    const f = 180 + 40 * Math.sin(2 * Math.PI * 5 * t);
    const harmonics =
      Math.sin(2 * Math.PI * f * t) + 0.5 * Math.sin(4 * Math.PI * f * t) + 0.25 * Math.sin(6 * Math.PI * f * t);
    clip[i] = (voiced ? 0.3 * harmonics : 0) + 0.002 * Math.sin(i * 12.9898);
  }
  return clip;
}

const frameFeeds = (clip, at, state) => ({
  input: new ort.Tensor('float32', clip.slice(at, at + FRAME), [1, FRAME]),
  state,
  sr: new ort.Tensor('int64', BigInt64Array.from([BigInt(SAMPLE_RATE)]), []),
});

async function showCache() {
  const entries = await cache.list();
  show.cacheTable(entries, async (key) => {
    await cache.delete(key);
    await showCache();
  });
  return entries;
}

/** The pool on and off: ms and GPUBuffers per run, same frames, in alternating blocks. */
async function comparePool(clip, webgpu) {
  const executionProviders = webgpu ? ['webgpu'] : ['wasm'];
  const zeroState = () => new ort.Tensor('float32', new Float32Array(256), [2, 1, 128]);
  const frameAt = (k) => (k * FRAME) % (clip.length - FRAME);
  const { session } = await ortkeepLoad(ort, MODEL_URL, 'pool', undefined, { executionProviders });
  // the first WebGPU load captures and verifies its own form in the background (sessions and
  // GPUBuffers of their own): the comparison starts once that is over
  await session.formsReady;
  const plain = await ort.InferenceSession.create(MODEL_URL, { executionProviders });
  const steps = {
    on: (k) => session.run(frameFeeds(clip, frameAt(k), zeroState())),
    off: (k) => plain.run(frameFeeds(clip, frameAt(k), zeroState())),
  };
  const sum = { on: { ms: 0, buffers: 0 }, off: { ms: 0, buffers: 0 } };
  const blocks = 4;
  for (let b = 0; b < blocks; b++) {
    for (const k of b % 2 ? ['off', 'on'] : ['on', 'off']) {
      const r = await perRun(steps[k], 10, b === 0 ? 6 : 1);
      sum[k].ms += r.ms / blocks;
      sum[k].buffers += r.buffers / blocks;
    }
  }
  const stats = session.pool.stats();
  await session.dispose();
  await plain.release();
  const device = webgpu ? 'webgpu' : 'wasm';
  return {
    rows: [
      {
        label: 'ortkeep (tensor pool on)',
        device: stats.device,
        ms: sum.on.ms,
        buffers: webgpu ? sum.on.buffers : null,
        // placement 'auto' keeps the faster of device and CPU tensors over the first runs: on
        // SwiftShader either can win, and with 'cpu' the pool reuses almost nothing
        detail: `placement ${stats.placement}: ${stats.creates} pool tensors created, ${stats.reuses} reused`,
      },
      {
        label: 'plain onnxruntime-web (no pool)',
        device,
        ms: sum.off.ms,
        buffers: webgpu ? sum.off.buffers : null,
        detail: '',
      },
    ],
    note: webgpu
      ? 'WebGPU: GPUBuffers created per steady-state run, counted by wrapping GPUDevice.createBuffer; alternating blocks of 10 runs.'
      : 'This browser has no WebGPU adapter: the wasm EP, where the pool pins CPU tensors (no GPUBuffers to count).',
  };
}

/**
 * Starts onnxruntime-web's wasm once (compile + instantiate), so no load
 * below pays it alone; through ortkeep with forms on, since onnxruntime-web
 * picks its loader (the capturing one) at its first session.
 */
async function startOnnxruntime() {
  const t0 = performance.now();
  const s = await ortkeepLoad(ort, MODEL_URL, 'start', undefined, { forms: FORMS, cache: 'no-store' });
  await s.session.dispose();
  return performance.now() - t0;
}

async function main() {
  const webgpu = await hasWebGpu();
  // A first visit: nothing of this model stored yet.
  await cache.delete(new URL(MODEL_URL, location.href).href).catch(() => false);
  const startMs = await startOnnxruntime();
  // plain onnxruntime-web just before the cold load and again after the warm
  // one: a page's first loads run onnxruntime-web's wasm while V8 still
  // optimizes it, so one plain sample at another moment says little
  const plainBefore = await plainLoad(ort, MODEL_URL, ['wasm'], 'plain, before cold');
  await plainBefore.session.release();
  const cold = await ortkeepLoad(ort, MODEL_URL, 'ortkeep, cold', (p) => show.progress('cold load', p), {
    forms: FORMS,
  });
  show.status('checking the optimized form in the background…');
  const background = await cold.session.formsReady;
  await cold.session.dispose();
  const warm = await ortkeepLoad(ort, MODEL_URL, 'ortkeep, warm', (p) => show.progress('warm load', p), {
    forms: FORMS,
  });
  const plainAfter = await plainLoad(ort, MODEL_URL, ['wasm'], 'plain, after warm');
  await plainAfter.session.release();
  const loads = [plainBefore.row, cold.row, warm.row, plainAfter.row];
  show.loads(loads);
  show.status(
    `cold ${cold.row.ms.toFixed(0)} ms from ${cold.row.tier}, warm ${warm.row.ms.toFixed(0)} ms from ${warm.row.tier}, plain onnxruntime-web ${plainBefore.row.ms.toFixed(0)} and ${plainAfter.row.ms.toFixed(0)} ms (after onnxruntime-web's own start-up, ${startMs.toFixed(0)} ms, once per page)`,
  );
  const entries = await showCache();

  const clip = syntheticClip();
  const poolCompare = await comparePool(clip, webgpu);
  show.pool(poolCompare.rows, poolCompare.note);

  const session = warm.session;
  let state = new ort.Tensor('float32', new Float32Array(2 * 128), [2, 1, 128]);
  const probabilities = [];
  const t0 = performance.now();
  for (let at = 0; at + FRAME <= clip.length; at += FRAME) {
    const out = await session.run(frameFeeds(clip, at, state));
    probabilities.push(out.output.data[0]);
    state = new ort.Tensor('float32', Float32Array.from(out.stateN.data), [2, 1, 128]); // outputs are pooled: copy what is carried
  }
  const msPerRun = (performance.now() - t0) / probabilities.length;
  show.frames(
    probabilities,
    `${probabilities.length} runs, ${msPerRun.toFixed(2)} ms per run; frames above 0.5: ${probabilities.filter((p) => p > 0.5).length}`,
  );
  const { model, source } = session.info;
  window.demoResult = {
    model: {
      url: source.url,
      sha256: model.sha256,
      bytes: source.bytes,
      graphs: model.totals.graphs,
      nodes: model.totals.nodes,
    },
    onnxruntimeStartMs: startMs,
    loads,
    forms: { stored: background.stored, failed: background.failed, events: background.events },
    cached: entries.map((e) => ({
      key: e.key,
      bytes: e.bytes,
      form: e.form,
      hits: e.hits,
      ...(e.status
        ? { status: e.status, createMs: e.createMs, originalCreateMs: e.originalCreateMs, reason: e.reason }
        : {}),
    })),
    pool: poolCompare.rows,
    poolNote: poolCompare.note,
    runs: probabilities.length,
    msPerRun,
    probabilities: probabilities.map((p) => +p.toFixed(3)),
  };
  await session.dispose();
}

main().catch((e) => {
  show.status(`${e.name}: ${e.message}`, true);
  window.demoResult = { error: `${e.name} ${e.code ?? ''}: ${e.message}` };
});
