// Which external data files a load fetches, derived from the reader's report
// (the browser tests load and cache them on real files): URLs resolved
// against the model's, the least size each file must have, locations that
// leave its folder refused, the caller's option (URLs fetched and cached,
// bytes passed as given), a set too big for one session refused before
// anything is fetched.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import * as ort from 'onnxruntime-web';
import { load } from '../../js/index.js';
import { REPO_ROOT } from '../../scripts/static-server.mjs';
import { getCore } from '../../js/core/module.js';
import { LOAD_POLICY } from '../../js/core-constants.js';
import { externalDataPlan } from '../../js/external-data.js';

const core = await getCore();
// a report as the C reader writes it: inFolder is the core's verdict
const report = (...entries) => ({
  externalData: entries.map(([location, length = 16, offset = 0]) => ({
    initializer: 'w',
    location,
    inFolder: core.externalInFolder(location),
    offset,
    length,
  })),
});
const MODEL = 'https://cdn.example/models/llm/model.onnx';

test('locations resolve next to the model, one entry per file, with the size its tensors need', () => {
  assert.deepEqual(
    externalDataPlan(
      report(['model.onnx_data', 16, 0], ['model.onnx_data', 100, 64], ['shards/part-2.bin']),
      MODEL,
      {},
    ),
    {
      files: [
        { path: 'model.onnx_data', url: 'https://cdn.example/models/llm/model.onnx_data', minBytes: 164 },
        { path: 'shards/part-2.bin', url: 'https://cdn.example/models/llm/shards/part-2.bin', minBytes: 16 },
      ],
      given: [],
    },
  );
  assert.equal(externalDataPlan(report(), MODEL, {}), null);
  assert.equal(externalDataPlan({}, MODEL, {}), null);
});

test("the caller's externalData: URLs are loaded (and cached), bytes passed as given", () => {
  const bytes = new Uint8Array(4);
  const plan = externalDataPlan(
    report(['a.bin', 8], ['b.bin']),
    MODEL,
    {
      externalData: [
        { path: 'a.bin', data: 'weights/a.bin' },
        { path: 'b.bin', data: bytes },
      ],
    },
    'https://app.example/',
  );
  assert.deepEqual(plan.files, [{ path: 'a.bin', url: 'https://cdn.example/models/llm/weights/a.bin', minBytes: 8 }]);
  assert.deepEqual(plan.given, [{ path: 'b.bin', data: bytes }]);
  // bytes source: a relative URL is the page's
  assert.equal(
    externalDataPlan(
      report(['a.bin']),
      null,
      { externalData: [{ path: 'a.bin', data: 'x/a.bin' }] },
      'https://app.example/p/',
    ).files[0].url,
    'https://app.example/p/x/a.bin',
  );
  assert.throws(
    () => externalDataPlan(report(), MODEL, { externalData: [{ data: 'a' }] }),
    (e) => e.code === 'INVALID_ARG',
  );
});

test("the core's rule: a location stays in the model's folder or is refused", () => {
  for (const good of ['model.onnx_data', 'shards/part-2.bin', 'a.b-c+d', '..data', 'x..y/z'])
    assert.equal(core.externalInFolder(good), true, good);
  for (const bad of [
    '../secrets.bin',
    'a/../../b.bin',
    '/etc/passwd',
    'https://evil.example/w.bin',
    'C:\\w.bin',
    'C:w.bin',
    'a\\b.bin',
    'a//b.bin',
    './a.bin',
    'a/.',
    'a/',
    '',
    'a\nb',
  ]) {
    assert.equal(core.externalInFolder(bad), false, JSON.stringify(bad));
  }
});

test('a location that leaves the folder is EXTERNAL_DATA', () => {
  for (const bad of [
    '../secrets.bin',
    'a/../../b.bin',
    '/etc/passwd',
    'https://evil.example/w.bin',
    'C:\\w.bin',
    'a//b.bin',
    './a.bin',
    '',
  ]) {
    assert.throws(
      () => externalDataPlan(report([bad]), MODEL, {}),
      (e) => e.code === 'EXTERNAL_DATA',
      JSON.stringify(bad),
    );
  }
});

test('bytes with external data and no option are EXTERNAL_DATA naming the file', () => {
  assert.throws(
    () => externalDataPlan(report(['w.bin']), null, {}),
    (e) =>
      e.code === 'EXTERNAL_DATA' &&
      /w\.bin/.test(e.message) &&
      /option externalData: \[\{ path, data \}\]/.test(e.message),
  );
});

test('data past what one session holds is LIMIT before anything is read (the core plans every file first)', async () => {
  // 5000 MB in two files that do not exist: the first file fits a session,
  // the second would take the set past 4 GiB; reading either would fail
  // otherwise (EXTERNAL_DATA), so LIMIT says nothing was read
  const dir = await mkdtemp(path.join(tmpdir(), 'ortkeep-limit-'));
  try {
    execFileSync('/usr/bin/python3', [
      path.join(REPO_ROOT, 'tests/fixtures/make_big_model.py'),
      dir,
      '5000',
      '2',
      '--no-data',
    ]);
    await assert.rejects(
      load(pathToFileURL(path.join(dir, 'big.onnx')), { ort }),
      (e) =>
        e.code === 'LIMIT' && /wasm32/.test(e.message) && e.message.includes(String(LOAD_POLICY.MAX_SESSION_BYTES)),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('data handed as bytes is named with its model for forms: every file bytes, each path once; one id whatever the order', async () => {
  const { givenDataBytes, identifyWithData } = await import('../../js/sources.js');
  const a = new Uint8Array([1, 2, 3]);
  const b = new Uint8Array(new ArrayBuffer(8), 2, 4).fill(7);
  assert.deepEqual(givenDataBytes(undefined), []);
  assert.deepEqual(givenDataBytes({ externalData: [] }), []);
  assert.deepEqual(
    givenDataBytes({
      externalData: [
        { path: 'w.bin', data: a.buffer },
        { path: 'x.bin', data: b },
      ],
    }).map((d) => [d.path, Array.from(d.bytes)]),
    [
      ['w.bin', [1, 2, 3]],
      ['x.bin', [7, 7, 7, 7]],
    ],
  );
  // a URL or a Blob cannot be named before it is read; a path twice is ambiguous
  assert.equal(
    givenDataBytes({
      externalData: [
        { path: 'w.bin', data: a },
        { path: 'x.bin', data: 'x.bin' },
      ],
    }),
    null,
  );
  assert.equal(givenDataBytes({ externalData: [{ path: 'w.bin', data: new Blob([a]) }] }), null);
  assert.equal(
    givenDataBytes({
      externalData: [
        { path: 'w.bin', data: a },
        { path: 'w.bin', data: b },
      ],
    }),
    null,
  );

  const model = new Uint8Array([9, 9, 9]);
  const combine = (sha, files) => core.givenSourceId(sha, files);
  /** The id of the model with data [path, bytes]... handed as bytes, in that order. */
  const idOf = (...files) =>
    identifyWithData(
      model,
      givenDataBytes({ externalData: files.map(([path, data]) => ({ path, data })) }),
      true,
      combine,
    );
  const ab = await idOf(['w.bin', a], ['x.bin', b]);
  const ba = await idOf(['x.bin', b], ['w.bin', a]);
  const other = await idOf(['w.bin', b], ['x.bin', a]);
  assert.match(ab.sha256, /^[0-9a-f]{64}$/);
  assert.equal(ba.sha256, ab.sha256);
  assert.notEqual(other.sha256, ab.sha256, 'the bytes go with their path');
  const modelSha = Buffer.from(await crypto.subtle.digest('SHA-256', model)).toString('hex');
  assert.equal(await ab.model(), modelSha);
  assert.notEqual(ab.sha256, modelSha);
  assert.equal(await ab.confirm(), ab.sha256);
  assert.equal(await ab.recheck(), ab.sha256);
  a[0] = 0; // the caller's bytes changed after load(): the recheck names other bytes
  assert.notEqual(await ab.recheck(), ab.sha256);
  assert.equal(core.givenSourceId(modelSha, []), modelSha);
  // past what a form can be made of (1 GiB of data), nothing is hashed for it
  assert.equal(core.namesGivenData(2 ** 30), true);
  assert.equal(core.namesGivenData(2 ** 30 + 1), false);
  assert.throws(
    () =>
      core.givenSourceId(modelSha, [
        { path: 'w.bin', sha256: modelSha },
        { path: 'w.bin', sha256: modelSha },
      ]),
    (e) => e.code === 'INVALID_ARG',
  );
});
