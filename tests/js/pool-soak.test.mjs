// The tensor pool on the wasm (CPU) backend in Node with onnxruntime-web:
// a decoder-style chain (outputs kept and fed back) equals plain ORT, and a
// soak of 10,000 runs of a real model holds memory flat: our core's wasm
// heap, onnxruntime-web's wasm heap and the JS heap stop growing after
// warm-up, and the pool creates no tensor in steady state.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import v8 from 'node:v8';
import vm from 'node:vm';
import { REPO_ROOT } from '../../scripts/static-server.mjs';
import { makeDecoder } from '../decoder-model.mjs';
import { REAL_MODELS } from '../models.mjs';

// onnxruntime-web does not expose its wasm memory: note every memory made
// (its threaded build imports one made in JS) or exported, before ORT loads.
const memories = [];
const OriginalMemory = WebAssembly.Memory;
WebAssembly.Memory = new Proxy(OriginalMemory, {
  construct(target, args) {
    const m = new target(...args);
    memories.push(m);
    return m;
  },
});
for (const name of ['instantiate', 'instantiateStreaming']) {
  const original = WebAssembly[name];
  WebAssembly[name] = async function (...args) {
    const result = await original.apply(this, args);
    const exports = (result.instance ?? result).exports;
    for (const v of Object.values(exports ?? {})) if (v instanceof WebAssembly.Memory) memories.push(v);
    return result;
  };
}
v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc'); // so heapUsed is measured after a full collection
const ort = await import('onnxruntime-web');
const { load } = await import('../../js/index.js');
const { getCore } = await import('../../js/core/module.js');
ort.env.wasm.numThreads = 1;

const modelPath = (name) => path.join(REPO_ROOT, REAL_MODELS.find((m) => m.name === name).path);

test('wasm EP: a decoder loop with outputs kept and fed back equals plain onnxruntime-web', async () => {
  const bytes = readFileSync(makeDecoder());
  const session = await load(bytes, { ort });
  const reference = await ort.InferenceSession.create(bytes);
  let refState = new Float32Array(8);
  let refPast = new Float32Array(8);
  let kept = null;
  for (let step = 0; step < 12; step++) {
    const x = Float32Array.from({ length: 8 }, (_, i) => Math.sin(step * 3 + i));
    const r = await reference.run({
      x: new ort.Tensor('float32', x, [1, 8]),
      state_in: new ort.Tensor('float32', refState, [1, 8]),
      past: new ort.Tensor('float32', refPast, [1, step + 1, 8]),
    });
    const o = await session.run(
      {
        x: { data: x, dims: [1, 8] },
        state_in: kept?.state_out ?? { data: new Float32Array(8), dims: [1, 8] },
        past: kept?.present ?? { data: new Float32Array(8), dims: [1, 1, 8] },
      },
      { keep: ['state_out', 'present'] },
    );
    if (kept) {
      session.pool.release(kept.state_out);
      session.pool.release(kept.present);
    }
    kept = o;
    assert.deepEqual([...o.y.data], [...r.y.data]);
    assert.deepEqual([...o.present.data], [...r.present.data]);
    assert.deepEqual(o.present.dims, [1, step + 2, 8]);
    session.pool.check();
    refState = r.state_out.data;
    refPast = r.present.data;
  }
  await session.dispose();
  assert.equal(session.pool.stats().liveTensors, 0);
  await reference.release();
});

test('wasm EP soak: 10,000 runs of a real model hold memory flat', async () => {
  const bytes = readFileSync(modelPath('oww_hey_jarvis'));
  const session = await load(bytes, { ort });
  const core = await getCore();
  const reference = await ort.InferenceSession.create(bytes);
  const input = new Float32Array(16 * 96);
  const feeds = { 'x.1': { data: input, dims: [1, 16, 96] } };
  const fill = (k) => {
    for (let i = 0; i < input.length; i++) input[i] = Math.sin(k + i * 0.01);
  };
  const ortMemories = () => memories.filter((m) => m.buffer !== core.m.HEAPU8.buffer);
  const heaps = () => ({ core: core.m.HEAPU8.length, ort: ortMemories().reduce((n, m) => n + m.buffer.byteLength, 0) });

  for (let k = 0; k < 200; k++) {
    fill(k);
    await session.run(feeds);
  }
  gc();
  const before = { ...heaps(), js: process.memoryUsage().heapUsed, stats: session.pool.stats() };
  const t0 = performance.now();
  for (let k = 200; k < 10200; k++) {
    fill(k);
    const out = await session.run(feeds);
    if (k % 2500 === 0) {
      const ref = await reference.run({ 'x.1': new ort.Tensor('float32', input.slice(), [1, 16, 96]) });
      assert.deepEqual([...out['53'].data], [...ref['53'].data], `run ${k} equals plain onnxruntime-web`);
    }
  }
  const ms = (performance.now() - t0) / 10000;
  gc();
  const after = { ...heaps(), js: process.memoryUsage().heapUsed, stats: session.pool.stats() };
  console.log(
    `# soak (${ortMemories().length} ORT memories): ${ms.toFixed(3)} ms/run; core heap ${before.core} -> ${after.core} B; ort heap ${before.ort} -> ${after.ort} B; JS heapUsed ${(before.js / 1e6).toFixed(1)} -> ${(after.js / 1e6).toFixed(1)} MB; pool creates ${before.stats.creates} -> ${after.stats.creates}, passes ${after.stats.passes}`,
  );
  assert.ok(ortMemories().length >= 1 && before.ort > 0, "found onnxruntime-web's wasm memory");
  assert.equal(after.core, before.core, "our core's wasm heap did not grow");
  assert.equal(after.ort, before.ort, "onnxruntime-web's wasm heap did not grow");
  assert.ok(after.js - before.js < 8e6, `JS heap grew ${(after.js - before.js) / 1e6} MB`);
  assert.equal(after.stats.creates, before.stats.creates, 'no pool tensor created in steady state');
  // nothing kept on the wasm EP: every run steps aside from the pool
  assert.equal(after.stats.passes - before.stats.passes, 10000);
  assert.equal(after.stats.liveTensors, 0);
  session.pool.check();
  await session.dispose();
  await reference.release();
});
