// A store that survives the page (issue 36): a model with 64 MB of external
// data in two files, its page gone right after load() resolved, before the
// model's commit (the one transaction that commits the model and its files
// together) could start. Every chunk of both data files was stored before
// the session was served, and the model's own bytes too: the next page asks
// the network for nothing, and the model keeps its own SHA-256.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { before, test } from 'node:test';
import { REPO_ROOT } from '../../scripts/static-server.mjs';
import { makeBigModel } from '../models.mjs';
import { useCacheBrowser } from './cache-env.mjs';

const DIR = 'build/fixtures/big64x2';
const FILES = ['big.onnx', 'big.onnx_data', 'big.onnx_data_1'];
const env = useCacheBrowser();
before(() => makeBigModel([DIR, 64, 2]));

test('a page gone before its model committed: the next visit fetches nothing, the stored model and data files resumed whole', async () => {
  await env.reset();
  const url = `/${DIR}/big.onnx`;
  let page = await env.newPage();
  const first = await page.evaluate(async (u) => {
    // the model's commit never starts: the page dies first
    window.faults.plan = { holdWhat: 'committing a model' };
    const s = await window.ortkeep.load(u, { memory: false });
    return { tier: s.info.cache.tier, sha256: s.info.source.sha256 };
  }, url);
  assert.equal(first.tier, 'network');
  const want = createHash('sha256')
    .update(readFileSync(path.join(REPO_ROOT, DIR, 'big.onnx')))
    .digest('hex');
  assert.equal(first.sha256, want);
  await page.close({ runBeforeUnload: false });

  env.server.resetCounts();
  page = await env.newPage();
  const second = await page.evaluate(async (u) => {
    const warnings = [];
    const s = await window.ortkeep.load(u, { memory: false, onWarning: (w) => warnings.push(w.code) });
    const out = await s.run({
      ids: new window.ortDirect.Tensor('int64', BigInt64Array.from([0n, 5n, 77n, 8191n]), [4]),
    });
    await s.cacheSettled;
    const r = {
      cache: s.info.cache,
      sha256: s.info.source.sha256,
      warnings,
      y: [out.y0.data[2 * 1024 + 3], out.y1.data[3 * 1024 + 1023]],
    };
    await s.dispose();
    return r;
  }, url);
  const requests = FILES.map((f) => env.server.count(`/${DIR}/${f}`));
  assert.deepEqual(requests, [0, 0, 0], `requests for ${FILES.join(', ')} on the second visit`);
  assert.equal(second.sha256, want, "the resumed model's SHA-256");
  assert.equal(second.cache.resumedFrom, readFileSync(path.join(REPO_ROOT, DIR, 'big.onnx')).length);
  assert.equal(second.cache.stored, true);
  assert.deepEqual(second.warnings, []);
  // the generator's rows (make_big_model.py): row r, column c = (r * 1024 + c) % 65521 / 65521 - 0.5
  const row = (r, c) => Math.fround(Math.fround(((r * 1024 + c) % 65521) / 65521) - 0.5);
  assert.deepEqual(second.y, [row(77, 3), row(8191, 1023)]);
  // and committed: a third visit reads all from IndexedDB
  const third = await page.evaluate(async (u) => {
    const s = await window.ortkeep.load(u, { memory: false });
    const tier = s.info.cache.tier;
    await s.dispose();
    return tier;
  }, url);
  assert.equal(third, 'indexeddb');
  assert.deepEqual(
    FILES.map((f) => env.server.count(`/${DIR}/${f}`)),
    [0, 0, 0],
  );
  await page.close();
});
