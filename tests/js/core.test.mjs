// The Emscripten build of the C core, run in Node: streaming SHA-256 against
// coreutils' sha256sum on real files, for several chunkings.
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

test('streaming sha256 equals sha256sum on real models, any chunking', async () => {
  const core = await getCore();
  for (const m of REAL_MODELS.slice(0, 4)) {
    const file = path.join(REPO_ROOT, m.path);
    const expected = (await exec('sha256sum', [file])).stdout.split(' ')[0];
    const bytes = await readFile(file);
    for (const chunk of [1 << 20, 65536, 4097, 63]) {
      if (chunk < 4096 && bytes.length > 2e6) continue; // tiny chunks only on the small model
      const h = core.sha256();
      for (let at = 0; at < bytes.length; at += chunk) h.update(bytes.subarray(at, at + chunk));
      assert.equal(h.digestHex(), expected, `${m.name} in ${chunk}-byte chunks`);
    }
  }
});

test('sha256 of nothing and of "abc"', async () => {
  const core = await getCore();
  const empty = core.sha256();
  assert.equal(empty.digestHex(), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  const abc = core.sha256();
  abc.update(new TextEncoder().encode('abc'));
  assert.equal(abc.digestHex(), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
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
