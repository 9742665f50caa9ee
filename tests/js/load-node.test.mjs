// load()/run() in Node with onnxruntime-web's wasm backend: the same API the
// browser uses, on bytes instead of URLs. Outputs must equal ORT's own.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import * as ort from 'onnxruntime-web';
import { load, OrtkeepError } from '../../js/index.js';
import { REPO_ROOT } from '../../scripts/static-server.mjs';
import { FEEDS, maxAbsDiff } from '../browser/pages/feeds.js';
import { REAL_MODELS } from '../models.mjs';

ort.env.wasm.numThreads = 1;
const modelBytes = (name) => readFile(path.join(REPO_ROOT, REAL_MODELS.find((m) => m.name === name).path));

for (const name of ['silero_vad_v5', 'silero_vad_legacy', 'ppocr_v2_cls']) {
  test(`${name}: load(bytes).run() equals onnxruntime-web`, async () => {
    const bytes = await modelBytes(name);
    const session = await load(bytes, { ort });
    const reference = await ort.InferenceSession.create(bytes);
    assert.deepEqual([...session.inputNames], [...reference.inputNames]);
    assert.deepEqual([...session.outputNames], [...reference.outputNames]);
    const { createHash } = await import('node:crypto');
    assert.equal(session.info.source.sha256, createHash('sha256').update(bytes).digest('hex'));
    assert.equal(session.info.model.sha256, session.info.source.sha256);
    for (const seed of [1, 2]) {
      const ours = await session.run(FEEDS[name](ort, seed));
      const theirs = await reference.run(FEEDS[name](ort, seed));
      assert.equal(maxAbsDiff(ours, theirs), 0);
    }
    await session.dispose();
    await reference.release();
  });
}

test('bad feeds give typed errors naming the input, and the session still works', async () => {
  const session = await load(await modelBytes('silero_vad_v5'), { ort });
  const good = FEEDS.silero_vad_v5(ort, 1);
  const expectError = async (feeds, code, re) => {
    await assert.rejects(session.run(feeds), (e) => e instanceof OrtkeepError && e.code === code && re.test(e.message));
  };
  await expectError({ input: good.input, state: good.state }, 'BAD_FEED', /'sr' is missing/);
  await expectError({ ...good, bogus: good.sr }, 'BAD_FEED', /'bogus' is not an input/);
  await expectError(
    { ...good, sr: new ort.Tensor('float32', new Float32Array([16000]), []) },
    'SHAPE',
    /'sr' must be int64/,
  );
  await expectError(
    { ...good, state: new ort.Tensor('float32', new Float32Array(256), [2, 128]) },
    'SHAPE',
    /'state' must have rank 3/,
  );
  await expectError(
    { ...good, state: new ort.Tensor('float32', new Float32Array(2 * 64), [2, 1, 64]) },
    'SHAPE',
    /'state' dim 2 must be 128/,
  );
  const out = await session.run(good);
  assert.ok(out.output.data[0] >= 0 && out.output.data[0] <= 1);
  await session.dispose();
  await assert.rejects(session.run(good), (e) => e.code === 'DISPOSED');
});

test('a truncated model rejects with TRUNCATED before onnxruntime sees it', async () => {
  const bytes = await modelBytes('silero_vad_v5');
  await assert.rejects(
    load(bytes.subarray(0, bytes.length - 1000), { ort }),
    (e) => e instanceof OrtkeepError && e.code === 'TRUNCATED',
  );
});

test('integrity: a matching sha256 loads, a wrong one is refused', async () => {
  const bytes = await modelBytes('ppocr_v2_cls');
  const { createHash } = await import('node:crypto');
  const good = `sha256-${createHash('sha256').update(bytes).digest('base64')}`;
  const session = await load(bytes, { ort, integrity: good });
  await session.dispose();
  const bad = `sha256-${createHash('sha256').update('other').digest('base64')}`;
  await assert.rejects(load(bytes, { ort, integrity: bad }), (e) => e.code === 'INTEGRITY');
  await assert.rejects(load(bytes, { ort, integrity: 'md5-abc' }), (e) => e.code === 'INVALID_ARG');
});

test('integrity as SRI reads it: the strongest algorithm present decides, any of its digests passes', async () => {
  const bytes = await modelBytes('ppocr_v2_cls');
  const { createHash } = await import('node:crypto');
  const sri = (alg, b) => `${alg}-${createHash(alg).update(b).digest('base64')}`;
  const wrong = Buffer.from('another model');
  // a right sha512 beside a wrong sha256: sha512 is stronger, it passes
  let s = await load(bytes, { ort, memory: false, integrity: `${sri('sha256', wrong)} ${sri('sha512', bytes)}` });
  await s.dispose();
  // two sha384 digests, the second right
  s = await load(bytes, { ort, memory: false, integrity: `${sri('sha384', wrong)} ${sri('sha384', bytes)}` });
  await s.dispose();
  // a wrong sha512 beside a right sha256: refused
  await assert.rejects(
    load(bytes, { ort, memory: false, integrity: `${sri('sha256', bytes)} ${sri('sha512', wrong)}` }),
    (e) => e instanceof OrtkeepError && e.code === 'INTEGRITY',
  );
});

test('sources: Node paths (relative, absolute) and file: URLs read the file; wrong kinds are typed errors', async () => {
  const { pathToFileURL } = await import('node:url');
  const rel = REAL_MODELS.find((m) => m.name === 'ppocr_v2_cls').path;
  const cwd = process.cwd();
  process.chdir(REPO_ROOT);
  try {
    const a = await load(rel, { ort, memory: false });
    const b = await load(`./${rel}`, { ort, memory: false });
    const c = await load(path.join(REPO_ROOT, rel), { ort, memory: false });
    const d = await load(pathToFileURL(path.join(REPO_ROOT, rel)), { ort, memory: false });
    for (const s of [a, b, c, d]) {
      assert.equal(s.info.cache.tier, 'file');
      assert.equal(s.info.cache.stored, false);
      assert.equal(s.info.source.sha256, a.info.source.sha256);
      await s.dispose();
    }
    await assert.rejects(
      load('does/not/exist.onnx', { ort }),
      (e) => e instanceof OrtkeepError && e.code === 'NETWORK',
    );
  } finally {
    process.chdir(cwd);
  }
  await assert.rejects(load(42, { ort }), (e) => e.code === 'INVALID_SOURCE');
  await assert.rejects(load('', { ort }), (e) => e.code === 'INVALID_SOURCE' && /names no model/.test(e.message));
  await assert.rejects(load('ftp://example.test/m.onnx', { ort }), (e) => e.code === 'INVALID_SOURCE');
});

test("runtime: a value it does not know is a typed INVALID_ARG before anything loads; 'full' and 'after-visit' load as 'auto' in Node", async () => {
  const bytes = await modelBytes('silero_vad_v5');
  await assert.rejects(
    load(bytes, { ort, runtime: 'jsep' }),
    (e) =>
      e instanceof OrtkeepError &&
      e.code === 'INVALID_ARG' &&
      /runtime must be 'auto', 'full' or 'after-visit'/.test(e.message),
  );
  for (const runtime of ['full', 'after-visit']) {
    const session = await load(bytes, { ort, runtime });
    assert.ok(session.inputNames.length > 0);
    await session.dispose();
  }
});
