// What onnxruntime-web (the installed version, its wasm backend under Node)
// says when it refuses a creation, as refusedAsModel reads it: the bytes
// are no model (a stored copy saying so is dropped), or the options are
// refused (a stored copy is kept).
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import * as ort from 'onnxruntime-web';
import { createSession, refusedAsModel } from '../../js/ort-adapter.js';
import { REPO_ROOT } from '../../scripts/static-server.mjs';
import { REAL_MODELS } from '../models.mjs';

ort.env.wasm.numThreads = 1;
const model = () => readFile(path.join(REPO_ROOT, REAL_MODELS.find((m) => m.name === 'silero_vad_legacy').path));

/** The OrtkeepError createSession throws for these bytes and options. */
async function refusal(bytes, options = {}) {
  try {
    const s = await createSession(ort, bytes, options);
    await s.release();
  } catch (e) {
    assert.equal(e.code, 'SESSION_CREATE');
    return e;
  }
  assert.fail(`created: ${JSON.stringify(options)}`);
}

test('bytes that are no model: refused as a model', async () => {
  const good = new Uint8Array(await model());
  const ortHeader = new Uint8Array(2000).fill(3);
  ortHeader.set([0x10, 0, 0, 0, 0x4f, 0x52, 0x54, 0x4d]); // an .ort file's identifier, then garbage
  for (const [what, bytes] of [
    ['garbage', new Uint8Array(1000).fill(7)],
    ['truncated', good.subarray(0, good.length >> 1)],
    ['empty graph', new Uint8Array([8, 7])],
    ['a broken .ort', ortHeader],
  ]) {
    const e = await refusal(bytes);
    assert.equal(refusedAsModel(e), true, `${what}: ${e.message}`);
  }
});

test("options onnxruntime-web refuses: not the model's fault", async () => {
  const good = new Uint8Array(await model());
  for (const options of [
    { executionProviders: ['webgpu'] },
    { executionProviders: ['nope'] },
    { graphOptimizationLevel: 'bogus' },
    { freeDimensionOverrides: { batch: -1 } },
    { executionMode: 'bogus' },
  ]) {
    const e = await refusal(good, options);
    assert.equal(refusedAsModel(e), false, `${JSON.stringify(options)}: ${e.message}`);
  }
  assert.equal(refusedAsModel(null), false);
});
