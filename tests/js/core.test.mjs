// The Emscripten build of the C core, run in Node: its SHA-256 against
// coreutils' sha256sum on real files, and the reader's typed errors.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { getCore } from '../../js/core/module.js';
import { REPO_ROOT } from '../../scripts/static-server.mjs';
import { REAL_MODELS } from '../models.mjs';

const exec = promisify(execFile);

test("the load machine's streaming SHA-256 equals sha256sum on real models", async () => {
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
  assert.throws(
    () => core.inspect(bytes.subarray(0, 500)),
    (e) => e.name === 'OrtkeepError' && e.code === 'TRUNCATED' && e.offset > 0,
  );
  assert.throws(
    () => core.inspect(new Uint8Array(0)),
    (e) => e.code === 'EMPTY',
  );
});

test('inspect with a known sha256 gives the same report without rehashing; a bad hash is refused', async () => {
  const core = await getCore();
  const bytes = await readFile(path.join(REPO_ROOT, REAL_MODELS[1].path));
  const hashed = core.inspect(bytes);
  const known = core.inspect(bytes, hashed.sha256);
  // the stamp's integrity needs the hash of the bytes before it: only a hashing pass says it
  const { stamp, ...rest } = hashed;
  assert.equal(stamp, null);
  assert.deepEqual(known, rest);
  const stand = 'ab'.repeat(32); // the core takes the caller's hash as given: it is not recomputed
  assert.equal(core.inspect(bytes, stand).sha256, stand);
  assert.throws(
    () => core.inspect(bytes, 'abc'),
    (e) => e.code === 'INVALID_ARG',
  );
  assert.throws(
    () => core.inspect(bytes.subarray(0, 300), hashed.sha256),
    (e) => e.code === 'TRUNCATED',
  );
});

test('inspectStream: the same report from any piece sizes, typed errors from feed and end, and the stream freed', async () => {
  const core = await getCore();
  const bytes = await readFile(path.join(REPO_ROOT, REAL_MODELS[1].path));
  const expected = createHash('sha256').update(bytes).digest('hex');
  const whole = core.inspect(bytes);
  assert.equal(whole.sha256, expected);
  for (const size of [1 << 10, 7777, 1 << 20, 3 << 20]) {
    const s = core.inspectStream();
    for (let at = 0; at < bytes.length; at += size) s.feed(bytes.subarray(at, at + size));
    assert.deepEqual(s.end(), whole, `pieces of ${size}`);
    assert.throws(
      () => s.feed(bytes),
      (e) => e.code === 'STATE',
    );
  }
  const cut = core.inspectStream();
  cut.feed(bytes.subarray(0, 1000));
  assert.throws(
    () => cut.end(),
    (e) => e.code === 'TRUNCATED' && e.offset > 0,
  );
  const junk = core.inspectStream();
  assert.throws(
    () => junk.feed(new Uint8Array([8, 7, 0x0f])),
    (e) => e.code === 'BAD_WIRE_TYPE' && e.offset === 2,
  );
  assert.throws(
    () => junk.end(),
    (e) => e.code === 'STATE',
  );
  // every stream above was freed by end() or by its error: the C heap is
  // back where it was, so a thousand more do not grow wasm memory
  const before = core.memoryBytes();
  for (let i = 0; i < 1000; i++) {
    const s = core.inspectStream(i % 2 ? whole.sha256 : undefined);
    s.feed(bytes.subarray(0, 4096));
    s.abort();
  }
  assert.equal(core.memoryBytes(), before);
});
