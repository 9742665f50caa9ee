// The Emscripten build of the C core, run in Node: its SHA-256 against
// coreutils' sha256sum on real files, and the reader's typed errors.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { getCore } from '../../js/core.js';
import { REPO_ROOT } from '../../scripts/static-server.mjs';
import { REAL_MODELS } from '../models.mjs';

const exec = promisify(execFile);

test('the load machine\'s streaming SHA-256 equals sha256sum on real models', async () => {
  const ort = await import('onnxruntime-web');
  ort.env.wasm.numThreads = 1;
  const { load } = await import('../../js/index.js');
  for (const m of REAL_MODELS.slice(0, 4)) {
    const file = path.join(REPO_ROOT, m.path);
    const expected = (await exec('sha256sum', [file])).stdout.split(' ')[0];
    const s = await load(await readFile(file), { ort, memory: false });
    assert.equal(s.info.source.sha256, expected, m.name);
    assert.equal(s.info.model.sha256, expected, m.name);
    await s.dispose();
  }
});

test('inspect throws a typed error with an offset', async () => {
  const core = await getCore();
  const bytes = await readFile(path.join(REPO_ROOT, REAL_MODELS[0].path));
  assert.throws(() => core.inspect(bytes.subarray(0, 500)), (e) => e.name === 'OrtkeepError' && e.code === 'TRUNCATED' && e.offset > 0);
  assert.throws(() => core.inspect(new Uint8Array(0)), (e) => e.code === 'EMPTY');
});

test('inspect with a known sha256 gives the same report without rehashing; a bad hash is refused', async () => {
  const core = await getCore();
  const bytes = await readFile(path.join(REPO_ROOT, REAL_MODELS[1].path));
  const hashed = core.inspect(bytes);
  const known = core.inspect(bytes, hashed.sha256);
  assert.deepEqual(known, hashed);
  const stand = 'ab'.repeat(32); // the core takes the caller's hash as given: it is not recomputed
  assert.equal(core.inspect(bytes, stand).sha256, stand);
  assert.throws(() => core.inspect(bytes, 'abc'), (e) => e.code === 'INVALID_ARG');
  assert.throws(() => core.inspect(bytes.subarray(0, 300), hashed.sha256), (e) => e.code === 'TRUNCATED');
});
