// ortkeep's WebNN pool adapter (js/devices/webnn.js) against a WebNN
// MLContext/MLTensor implemented from the specification
// (tests/browser/pages/webnn-spec-context.js), because this Chromium ships no
// WebNN backend: navigator.ml.createContext fails on every device. The
// adapter code is the one a real WebNN device runs (createTensor, writeTensor,
// readTensor into pooled arrays, ort.Tensor.fromMLTensor as feeds and
// preallocated fetches); what stands in is the context and onnxruntime-web's
// WebNN EP, whose dispatch computes the model on CPU. Same suite as WebGPU.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { makeDecoder } from '../decoder-model.mjs';
import { makeShapesModel } from '../shapes-model.mjs';
import { PROFILES } from '../../scripts/static-server.mjs';
import { useBrowser } from './browser-env.mjs';
import { assertBadFeeds, assertCallerOwnsOutputs, assertChain, assertShapeChange } from './pool-assertions.mjs';

// models as `vite preview` serves them: gzipped as they stream, no Content-Length, weak ETag
const env = useBrowser({ files: PROFILES.vitePreview });
let page;

describe('tensor pool on WebNN (specification-interface MLContext, CPU dispatch)', () => {
  before(async () => {
    makeDecoder();
    makeShapesModel();
    page = await env.newPage('/tests/browser/pages/pool.html');
    page.setDefaultTimeout(60000);
    await page.evaluate(async () => {
      const { ort, ortkeep } = window;
      const suite = await import('/tests/browser/pages/pool-suite.js');
      const { SpecMLContext, SpecDispatchSession } = await import('/tests/browser/pages/webnn-spec-context.js');
      const context = new SpecMLContext();
      window.suite = suite;
      window.webnnContext = context;
      window.dev = {
        async open(url) {
          const bytes = new Uint8Array(await (await fetch(url)).arrayBuffer());
          const shim = await SpecDispatchSession.create(ort, context, url);
          const model = await ortkeep.inspect(bytes);
          return new ortkeep.Session(ort, shim, { model }, { pool: { device: 'webnn', context, placement: 'device' } }); // the stand-in EP takes MLTensor feeds only
        },
        created: () => context.created,
        liveOurs: () => [...context.live].filter((t) => t.label !== 'caller').length,
        async makeExternal(data, dims) {
          const t = await context.createTensor({
            dataType: 'float32',
            shape: dims,
            readable: true,
            writable: true,
            label: 'caller',
          });
          context.writeTensor(t, data);
          return ort.Tensor.fromMLTensor(t, { dataType: 'float32', dims });
        },
        isAlive: (t) => !t.mlTensor.destroyed,
      };
    });
  });

  test('after warm-up, 200 runs of a real model create zero MLTensors and equal the wasm EP; dispose destroys every pool tensor', async () => {
    const r = await page.evaluate(() => window.suite.steadyState(window.ort, window.dev, 200));
    console.log(
      `# webnn (spec interface) steady state: ${r.ms.toFixed(2)} ms/run, ${r.createdInLoop} MLTensors created in 200 runs, max diff ${r.diff}`,
    );
    assert.equal(r.createdInLoop, 0);
    assert.ok(r.diff < 1e-6, `max diff ${r.diff}`);
    assert.ok(r.stats.reuses >= 400, `reuses ${r.stats.reuses}`);
    assert.equal(r.stats.device, 'webnn');
    assert.ok(r.liveBefore > 0);
    assert.equal(r.liveAfter, 0);
  });

  test("outputs are the caller's: one read after later runs, or four runs under Promise.all, each equals the wasm EP for its own input", async () => {
    const r = await page.evaluate(() => window.suite.callerOwnsOutputs(window.ort, window.dev));
    console.log(`# webnn outputs kept by the caller: ${JSON.stringify(r)}`);
    assertCallerOwnsOutputs(r);
  });

  test('a shape change mid-stream re-pins (exact-descriptor tensors) and stays equal to the wasm EP', async () => {
    const r = await page.evaluate(() => window.suite.shapeChange(window.ort, window.dev));
    assertShapeChange(r, 1e-6);
  });

  test('a chained decoder loop (MLTensors kept and fed back) matches the CPU reference', async () => {
    const r = await page.evaluate(() => window.suite.chain(window.ort, window.dev, 8));
    assertChain(r, 'ml-tensor', 1e-6);
  });

  test('bad feeds give typed errors naming the input; later runs still work; caller-owned MLTensors survive', async () => {
    const r = await page.evaluate(() => window.suite.badFeeds(window.ort, window.dev));
    assertBadFeeds(r);
  });

  test('value-dependent and symbolic outputs (tests/fixtures/make_shapes.py): NonZero adopted every run, the symbolic output pinned per size; equal to the wasm EP, shapes included', async () => {
    // WebNN has no zero-size tensors (the spec refuses a 0 dim), so no
    // all-zero x here; a real WebNN EP leaves NonZero to onnxruntime's CPU EP.
    const r = await page.evaluate(async () => {
      const { ort, dev } = window;
      const url = '/build/models/shapes.onnx';
      const s = await dev.open(url);
      const reference = await ort.InferenceSession.create(url, { executionProviders: ['wasm'] });
      const plain = (out) =>
        Object.fromEntries(
          Object.entries(out).map(([k, t]) => [k, { dims: [...t.dims], data: Array.from(t.data, Number) }]),
        );
      const runs = [];
      for (const x of [
        [1, 0, 2, 0, 0],
        [0, 0, 0, 3, 0],
        [1, 2, 3],
        [0, 3, 0, 0, 0, 0, 7],
        [5, 0, 1, 0, 2],
        [1, 0, 2],
      ]) {
        const ours = plain(await s.run({ x: { data: Float32Array.from(x), dims: [x.length] } }));
        const theirs = plain(await reference.run({ x: new ort.Tensor('float32', Float32Array.from(x), [x.length]) }));
        runs.push({ ours, theirs });
      }
      const stats = s.pool.stats();
      const ok = s.pool.check();
      await s.dispose();
      await reference.release();
      return { runs, stats, ok };
    });
    for (const { ours, theirs } of r.runs) assert.deepEqual(ours, theirs);
    assert.deepEqual(
      r.runs.map((x) => x.ours.idx.dims[1]),
      [2, 1, 3, 2, 3, 2],
    );
    assert.equal(r.stats.device, 'webnn');
    assert.ok(r.stats.adopts >= 6, `NonZero adopted every run: ${JSON.stringify(r.stats)}`);
    assert.ok(
      r.stats.reuses + r.stats.takes >= 2,
      `the symbolic output and x come back for sizes seen before: ${JSON.stringify(r.stats)}`,
    );
    assert.equal(r.ok, true);
  });

  test('the spec context itself refuses what the spec refuses', async () => {
    const r = await page.evaluate(async () => {
      const c = window.webnnContext;
      const out = [];
      const attempt = async (f) => {
        try {
          await f();
          out.push('ok');
        } catch (e) {
          out.push(e.name);
        }
      };
      await attempt(() => c.createTensor({ dataType: 'float32', shape: [0, 2] }));
      await attempt(() => c.createTensor({ dataType: 'complex', shape: [2] }));
      const t = await c.createTensor({ dataType: 'float32', shape: [2] });
      await attempt(() => c.writeTensor(t, new Float32Array(2))); // not writable
      await attempt(() => c.readTensor(t)); // not readable
      t.destroy();
      t.destroy();
      const u = await c.createTensor({ dataType: 'float32', shape: [2], readable: true, writable: true });
      await attempt(() => c.writeTensor(u, new Float32Array(3)));
      u.destroy();
      await attempt(() => c.readTensor(u));
      return out;
    });
    assert.deepEqual(r, ['TypeError', 'TypeError', 'TypeError', 'TypeError', 'TypeError', 'TypeError']);
  });
});
