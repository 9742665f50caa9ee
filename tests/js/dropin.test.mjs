// ortkeep/onnxruntime-web in Node (onnxruntime-web's own Node build): the
// package's self-reference resolves the entry and its subpaths; Tensor and
// env are onnxruntime-web's; InferenceSession.create() takes a path, bytes and
// the (buffer, byteOffset, byteLength, options) overload, flat options, and
// its sessions run equal to onnxruntime-web's with its run() overloads.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import * as real from 'onnxruntime-web';
import * as realWasm from 'onnxruntime-web/wasm';
import * as ort from 'ortkeep/onnxruntime-web';
import * as ortWasm from 'ortkeep/onnxruntime-web/wasm';
import { REPO_ROOT } from '../../scripts/static-server.mjs';
import { FEEDS, maxAbsDiff } from '../browser/pages/feeds.js';
import { REAL_MODELS } from '../models.mjs';

real.env.wasm.numThreads = 1;
const MODEL = path.join(REPO_ROOT, REAL_MODELS.find((m) => m.name === 'silero_vad_v5').path);

test("the entries re-export onnxruntime-web's own objects; only InferenceSession is ortkeep's", () => {
  for (const [ours, theirs] of [
    [ort, real],
    [ortWasm, realWasm],
  ]) {
    const names = Object.keys(theirs).filter((k) => k !== 'InferenceSession' && k !== 'default');
    assert.ok(names.length > 3);
    for (const k of names) assert.equal(ours[k], theirs[k], k);
    assert.notEqual(ours.InferenceSession, theirs.InferenceSession);
  }
  assert.equal(ort.Tensor, real.Tensor);
  assert.equal(ort.env, real.env);
});

test('create(path), create(bytes) and create(buffer, byteOffset, byteLength, options) run equal to onnxruntime-web', async () => {
  const bytes = await readFile(MODEL);
  const reference = await real.InferenceSession.create(new Uint8Array(bytes));
  const packed = new Uint8Array(bytes.length + 10);
  packed.set(bytes, 7);
  const sessions = [
    await ort.InferenceSession.create(MODEL, { graphOptimizationLevel: 'all', memory: false }),
    await ort.InferenceSession.create(new Uint8Array(bytes), { executionProviders: ['wasm'], memory: false }),
    await ort.InferenceSession.create(packed.buffer, 7, bytes.length, { logSeverityLevel: 3, memory: false }),
  ];
  const theirs = await reference.run(FEEDS.silero_vad_v5(real, 1));
  for (const s of sessions) {
    assert.ok(s instanceof ort.InferenceSession);
    assert.deepEqual([...s.inputNames], [...reference.inputNames]);
    assert.deepEqual(s.outputMetadata, reference.outputMetadata);
    const ours = await s.run(FEEDS.silero_vad_v5(ort, 1));
    assert.equal(maxAbsDiff(ours, theirs), 0);
    assert.ok(ours.output instanceof real.Tensor);
    const some = await s.run(FEEDS.silero_vad_v5(ort, 1), { output: null }, { tag: 'node' });
    assert.deepEqual(Object.keys(some), ['output']);
    await s.release();
  }
  await reference.release();
});

test('an unknown option or a bad overload is INVALID_ARG', async () => {
  await assert.rejects(
    ort.InferenceSession.create(MODEL, { graphOptimizationLevl: 'all' }),
    (e) =>
      e.name === 'OrtkeepError' && e.code === 'INVALID_ARG' && /did you mean 'graphOptimizationLevel'/.test(e.message),
  );
  await assert.rejects(ort.InferenceSession.create(new ArrayBuffer(4), 2, 9), { code: 'INVALID_ARG' });
  await assert.rejects(ort.InferenceSession.create(42), { code: 'INVALID_ARG' });
});

test("the package's entries resolve: ortkeep/onnxruntime-web and its subpaths, ortkeep/transformers", () => {
  const js = (p) => new URL(`../../js/${p}`, import.meta.url).href;
  assert.equal(import.meta.resolve('ortkeep/onnxruntime-web'), js('onnxruntime-web.js'));
  for (const sub of ['wasm', 'webgpu', 'all', 'jspi', 'webgl']) {
    assert.equal(import.meta.resolve(`ortkeep/onnxruntime-web/${sub}`), js(`onnxruntime-web/${sub}.js`));
  }
  assert.equal(import.meta.resolve('ortkeep/transformers'), js('transformers.js'));
});
