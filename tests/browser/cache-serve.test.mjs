// A download is served before it is committed (cache/ok_load.h,
// DONE_STORING): on a fast link nothing is written while the body streams;
// at its end the chunks are sent at once, before the session (STORE_AHEAD),
// never waited for by it, and settled and committed behind the caller; on a
// slow link chunks are stored while the body still arrives (so a killed tab
// resumes); cache.list() waits for the page's own stores; a page closed
// before its store ends leaves nothing torn and the next visit is right.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { modelBytes, modelPath, serving, useCacheBrowser } from './cache-env.mjs';

const env = useCacheBrowser();
const DET = modelPath('ppocr_v4_det');

/** In the page: a load's action names in order (its `debug` lines), what the caller saw when it got its session, then the next load. */
async function ordered(url, options) {
  const lines = [];
  const s = await window.ortkeep.load(url, { ...options, debug: (l) => lines.push(l.split(' ')[1]) });
  const storeAtResolve = await Promise.race([s.cacheSettled.then(() => 'over'), Promise.resolve('under way')]);
  const storedAtResolve = s.info.cache.stored;
  const listed = (await window.ortkeep.cache.list()).map((e) => e.url);
  const settled = await s.cacheSettled;
  const stored = s.info.cache.stored;
  await s.dispose();
  const out = await window.check(url, 'ppocr_v4_det');
  return { lines, storeAtResolve, storedAtResolve, listed, settled, stored, out };
}

const withOrdered = async (page) => page.evaluate(`window.ordered = ${ordered.toString()}`);

test('a fast link: the chunk is sent before the session, not waited for; the commit ends behind the caller; cache.list() waits for it', async () => {
  await env.reset();
  const page = await env.newPage();
  // one chunk bigger than the model: it can only be cut at the body's end, so
  // the order does not depend on how the network is paced here
  await withOrdered(page);
  const r = await page.evaluate((url) => window.ordered(url, { chunkSize: 8 << 20, forms: false }), DET);
  // the machine's order: the chunk (sent, not acked), the session, DONE, then the commit
  const writes = r.lines.filter((x) => ['CREATE_SESSION', 'DONE', 'STORE_CHUNK', 'COMMIT'].includes(x));
  assert.deepEqual(writes, ['STORE_CHUNK', 'CREATE_SESSION', 'DONE', 'COMMIT'], r.lines.join(' '));
  // and what the caller saw: its session, with the store still going on
  assert.equal(r.storeAtResolve, 'under way');
  assert.equal(r.storedAtResolve, true, 'stored: under way');
  assert.deepEqual(r.listed, [`${env.origin}${DET}`], 'cache.list() waited for the store');
  assert.equal(r.settled, true);
  assert.equal(r.stored, true);
  assert.equal(r.out.cache.tier, 'indexeddb', 'the next load hits');
  assert.deepEqual(r.out.diffs, [0, 0]);
  await page.close();
});

test('a slow link: chunks are stored while the body still arrives; the last goes with the body end', async () => {
  await env.reset();
  // 1 MB/s, and onnxruntime-web started before the load: started beside the download on a
  // fresh page it holds the main thread for seconds on a loaded machine, the body piles up
  // meanwhile and is then read with no wait left to store in (2 of 8 runs failed at 2 MB/s
  // here, and CI failed once at 1 MB/s with 2 chunks stored). What this test asks is the
  // store's policy on a slow link, not how long the runtime's start holds the page.
  const s = serving('/m/slow.onnx', await modelBytes('ppocr_v4_det'), () => ({ etag: '"v1"', bytesPerSec: 1e6 }));
  env.handler = s.handler;
  const page = await env.newPage();
  await page.evaluate(async (url) => {
    const s = await window.ortDirect.InferenceSession.create(url);
    await s.release();
  }, modelPath('silero_vad_v5'));
  await withOrdered(page);
  const r = await page.evaluate(() => window.ordered('/m/slow.onnx', { chunkSize: 1 << 20, forms: false }));
  const before = r.lines.slice(0, r.lines.indexOf('DONE'));
  const during = before.filter((x) => x === 'STORE_CHUNK').length;
  // 4.7 MB in 1 MiB chunks: 5 chunks; the network left time for at least 3 of the first 4
  assert.ok(during >= 3, `chunks stored during the download: ${during} (${r.lines.join(' ')})`);
  assert.equal(r.settled, true);
  assert.deepEqual(r.out.diffs, [0, 0]);
  await page.close();
});

test('a page closed before its store ends: nothing torn; the next visit is right and leaves one committed entry', async () => {
  await env.reset();
  env.server.resetCounts();
  let page = await env.newPage();
  const first = await page.evaluate(async (url) => {
    const s = await window.ortkeep.load(url, { chunkSize: 8 << 20, forms: false });
    return { tier: s.info.cache.tier };
  }, DET);
  assert.equal(first.tier, 'network');
  await page.close(); // the store may or may not have landed: either is fine, a torn one is not
  page = await env.newPage();
  const r = await page.evaluate(async (url) => {
    const out = await window.check(url, 'ppocr_v4_det');
    return { out, dump: await window.raw.dump(), listed: (await window.ortkeep.cache.list()).length };
  }, DET);
  assert.deepEqual(r.out.diffs, [0, 0]);
  assert.ok(['network', 'indexeddb'].includes(r.out.cache.tier));
  assert.equal(r.out.cache.stored, true);
  assert.equal(r.listed, 1);
  assert.equal(r.dump.index.length, 1, 'one entry, committed');
  await page.close();
});
