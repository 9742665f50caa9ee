// The tensor pool on WebGPU in Chromium (--enable-unsafe-webgpu: SwiftShader,
// a CPU "fallback adapter", so small models). GPUBuffers are counted by
// wrapping GPUDevice.prototype.createBuffer / GPUBuffer.prototype.destroy in
// the page (tests/browser/pages/pool.html); references are onnxruntime-web's
// wasm EP. The same suite runs on WebNN in pool-webnn-spec.test.mjs.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { makeDecoder } from '../decoder-model.mjs';
import { PROFILES } from '../../scripts/static-server.mjs';
import { useBrowser } from './browser-env.mjs';
import { assertBadFeeds, assertCallerOwnsOutputs, assertChain, assertShapeChange } from './pool-assertions.mjs';

// models as `vite preview` serves them: gzipped as they stream, no Content-Length, weak ETag
const env = useBrowser({ webgpu: true, files: PROFILES.vitePreview });
let page;

describe('tensor pool on WebGPU (SwiftShader)', () => {
  before(async () => {
    makeDecoder();
    page = await env.newPage('/tests/browser/pages/pool.html');
    page.setDefaultTimeout(120000);
    await page.evaluate(async () => {
      const { ort, ortkeep, gpu, liveOurs } = window;
      const suite = await import('/tests/browser/pages/pool-suite.js');
      window.suite = suite;
      window.dev = {
        // the pinning mechanics on the device (placement 'auto' is pool-placement.test.mjs's)
        // the steady state is measured after the first visit's background
        // form work (its sessions make GPUBuffers of their own)
        open: async (url) => {
          const s = await ortkeep.load(url, { ort, executionProviders: ['webgpu'], pool: { placement: 'device' } });
          await s.formsReady;
          return s;
        },
        created: () => gpu.created,
        liveOurs,
        async makeExternal(data, dims) {
          const device = await ort.env.webgpu.device;
          const buffer = device.createBuffer({
            size: 256,
            usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST,
            label: 'caller',
          });
          device.queue.writeBuffer(buffer, 0, data);
          return ort.Tensor.fromGpuBuffer(buffer, { dataType: 'float32', dims });
        },
        isAlive: (t) => gpu.live.has(t.gpuBuffer),
      };
    });
  });

  test('after warm-up, 200 runs of a real model with new input data create zero GPUBuffers and equal the wasm EP; dispose destroys every pool buffer', async () => {
    const r = await page.evaluate(() => window.suite.steadyState(window.ort, window.dev, 200));
    console.log(
      `# webgpu steady state: ${r.ms.toFixed(1)} ms/run, ${r.createdInLoop} GPUBuffers created in 200 runs, max diff ${r.diff}, pool ${JSON.stringify(r.stats)}`,
    );
    assert.equal(r.createdInLoop, 0);
    assert.ok(r.diff < 1e-4, `max |ours - wasm EP| = ${r.diff}`);
    assert.ok(r.stats.reuses >= 400, `reuses ${r.stats.reuses}`); // input + output pinned, reused every run
    assert.ok(r.liveBefore > 0);
    assert.equal(r.liveAfter, 0, 'every GPUBuffer ortkeep created is destroyed after dispose()');
    assert.equal(r.after.liveTensors, 0);
    assert.equal(r.after.readback.liveTensors, 0);
  });

  test("outputs are the caller's: one read after later runs, or four runs under Promise.all, each equals the wasm EP for its own input", async () => {
    const r = await page.evaluate(() => window.suite.callerOwnsOutputs(window.ort, window.dev));
    console.log(`# webgpu outputs kept by the caller: ${JSON.stringify(r)}`);
    assertCallerOwnsOutputs(r);
  });

  test('a shape change mid-stream re-pins and stays equal to the wasm EP', async () => {
    const r = await page.evaluate(() => window.suite.shapeChange(window.ort, window.dev));
    assertShapeChange(r, 1e-5);
    // present's T+1 is learned once T moved (3 -> 5), then preallocated: never a wrong guess
    assert.equal(r.stats.retries, 0, JSON.stringify(r.stats));
  });

  test('a chained decoder loop (outputs kept on the GPU and fed back) matches the CPU reference', async () => {
    const r = await page.evaluate(() => window.suite.chain(window.ort, window.dev, 8));
    assertChain(r, 'gpu-buffer', 1e-5);
  });

  test('bad feeds give typed errors naming the input; later runs still work; caller-owned buffers survive', async () => {
    const r = await page.evaluate(() => window.suite.badFeeds(window.ort, window.dev));
    assertBadFeeds(r);
  });
});
