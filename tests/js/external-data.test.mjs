// The externalData option ortkeep derives from the reader's report (the
// browser test runs it on a real model and data file): URLs resolved against
// the model's, locations that leave its folder refused, the caller's option
// kept, a set too big for one session refused before anything is fetched.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { getCore } from '../../js/core.js';
import { LOAD_POLICY } from '../../js/core-constants.js';
import { externalDataOption } from '../../js/external-data.js';

const core = await getCore();
// a report as the C reader writes it: inFolder is the core's verdict
const report = (...entries) => ({ externalData: entries.map(([location, length = 16]) => ({ initializer: 'w', location, inFolder: core.externalInFolder(location), offset: 0, length })) });
const MODEL = 'https://cdn.example/models/llm/model.onnx';

test('locations resolve next to the model, one entry per file', () => {
  assert.deepEqual(externalDataOption(report(['model.onnx_data'], ['model.onnx_data'], ['shards/part-2.bin']), MODEL, {}), [
    { path: 'model.onnx_data', data: 'https://cdn.example/models/llm/model.onnx_data' },
    { path: 'shards/part-2.bin', data: 'https://cdn.example/models/llm/shards/part-2.bin' },
  ]);
  assert.equal(externalDataOption(report(), MODEL, {}), null);
  assert.equal(externalDataOption({}, MODEL, {}), null);
  assert.equal(externalDataOption(report(['a.bin']), MODEL, { externalData: [{ path: 'a.bin', data: 'x' }] }), null, "the caller's option stands");
});

test("the core's rule: a location stays in the model's folder or is refused", () => {
  for (const good of ['model.onnx_data', 'shards/part-2.bin', 'a.b-c+d', '..data', 'x..y/z']) assert.equal(core.externalInFolder(good), true, good);
  for (const bad of ['../secrets.bin', 'a/../../b.bin', '/etc/passwd', 'https://evil.example/w.bin', 'C:\\w.bin', 'C:w.bin', 'a\\b.bin', 'a//b.bin', './a.bin', 'a/.', 'a/', '', 'a\nb']) {
    assert.equal(core.externalInFolder(bad), false, JSON.stringify(bad));
  }
});

test('a location that leaves the folder is EXTERNAL_DATA', () => {
  for (const bad of ['../secrets.bin', 'a/../../b.bin', '/etc/passwd', 'https://evil.example/w.bin', 'C:\\w.bin', 'a//b.bin', './a.bin', '']) {
    assert.throws(() => externalDataOption(report([bad]), MODEL, {}), (e) => e.code === 'EXTERNAL_DATA', JSON.stringify(bad));
  }
});

test('bytes with external data and no option are EXTERNAL_DATA naming the file', () => {
  assert.throws(() => externalDataOption(report(['w.bin']), null, {}), (e) => e.code === 'EXTERNAL_DATA' && /w\.bin/.test(e.message) && /sessionOptions\.externalData/.test(e.message));
});

test('data past what one session holds is LIMIT before anything is fetched', () => {
  const half = LOAD_POLICY.MAX_SESSION_BYTES / 2;
  assert.ok(externalDataOption(report(['a.bin', half], ['b.bin', half]), MODEL, {}));
  assert.throws(() => externalDataOption(report(['a.bin', half], ['b.bin', half + 1]), MODEL, {}), (e) => e.code === 'LIMIT' && /wasm32/.test(e.message));
});
