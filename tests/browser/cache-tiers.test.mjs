// The tiers: network → IndexedDB (zero network bytes, across a browser
// restart) → memory (same page, reference-counted), and the management API.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PROFILES } from '../../scripts/static-server.mjs';
import { PAGE, modelPath, useCacheBrowser } from './cache-env.mjs';

// The models come the way vite preview serves them: gzipped as they stream,
// no Content-Length, no byte ranges, a weak ETag.
const env = useCacheBrowser({ files: PROFILES.vitePreview });
const VAD = modelPath('silero_vad_v5');
const DET = modelPath('ppocr_v4_det');

test('second load comes from IndexedDB with zero network requests; outputs equal onnxruntime-web', async () => {
  await env.reset();
  const page = await env.newPage();
  const first = await page.evaluate((u) => window.check(u, 'silero_vad_v5'), VAD);
  assert.deepEqual(first.diffs, [0, 0]);
  assert.equal(first.cache.tier, 'network');
  assert.equal(first.cache.stored, true);
  assert.deepEqual(first.phases, ['download', 'verify', 'create-session']);
  assert.equal(env.server.count(VAD), 2); // ortkeep + the reference fetch in check()
  const served = await page.evaluate(async (u) => {
    const r = await fetch(u, { cache: 'no-store' });
    await r.arrayBuffer();
    return [r.headers.get('content-encoding'), r.headers.get('content-length'), r.headers.get('etag')?.slice(0, 2)];
  }, VAD);
  assert.deepEqual(served, ['gzip', null, 'W/'], 'the profile is in force');
  env.server.resetCounts();
  await page.close();

  const page2 = await env.newPage();
  env.server.resetCounts();
  const second = await page2.evaluate((u) => window.tryLoad(u), VAD);
  assert.equal(env.server.count(VAD), 0, 'no request for the model');
  assert.equal(second.cache.tier, 'indexeddb');
  assert.equal(second.cache.bytes, 2327524);
  assert.equal(second.cache.key, `url:${env.origin}${VAD}|form:original`);
  assert.ok(second.cache.timings.totalMs > 0);
  const again = await page2.evaluate((u) => window.check(u, 'silero_vad_v5'), VAD);
  assert.deepEqual(again.diffs, [0, 0]);
  assert.equal(again.cache.tier, 'indexeddb');
  assert.ok(again.phases.includes('read-cache'));
  assert.match(first.sha256, /^[0-9a-f]{64}$/); // so the equality below is not undefined === undefined
  assert.equal(again.sha256, first.sha256);
  await page2.close();
});

test('the cache survives a browser restart', async () => {
  await env.reset();
  let page = await env.newPage();
  await page.evaluate((u) => window.tryLoad(u), DET);
  await env.restart();
  env.server.resetCounts();
  page = await env.newPage();
  const r = await page.evaluate((u) => window.check(u, 'ppocr_v4_det'), DET);
  assert.equal(r.cache.tier, 'indexeddb');
  assert.deepEqual(r.diffs, [0, 0]);
  assert.equal(env.server.count(DET), 1); // only the reference fetch in check()
  await page.close();
});

test('the cache opens as ortkeep is imported only where an earlier visit stored one; the first load uses that connection', async () => {
  await env.reset();
  // every IndexedDB open a page makes, named, from before its first script;
  // and when the open ahead's databases() has answered (its open, if any, is
  // called in that answer's callback: decided one task later, whatever the pace)
  const spied = async () => {
    const page = await env.context.newPage();
    await page.addInitScript(() => {
      window.opens = [];
      window.listed = false;
      const open = IDBFactory.prototype.open;
      IDBFactory.prototype.open = function (name, ...rest) {
        window.opens.push(name);
        return open.call(this, name, ...rest);
      };
      const databases = IDBFactory.prototype.databases;
      IDBFactory.prototype.databases = function () {
        const answer = databases.call(this);
        answer.finally(() => setTimeout(() => (window.listed = true), 0));
        return answer;
      };
    });
    await page.goto(env.origin + PAGE);
    await page.waitForFunction(() => window.ready === true, null, { timeout: 20000 });
    await page.waitForFunction(() => window.listed === true, null, { timeout: 20000 });
    return page;
  };
  // an origin that never stored: ortkeep's import touches no storage
  const blank = await env.context.newPage();
  await blank.goto(`${env.origin}/package.json`);
  await blank.evaluate(
    () =>
      new Promise((resolve, reject) => {
        const r = indexedDB.deleteDatabase('ortkeep-cache');
        r.onsuccess = resolve;
        r.onerror = () => reject(r.error);
        r.onblocked = () => reject(new Error('blocked'));
      }),
  );
  await blank.close();
  let page = await spied();
  const fresh = await page.evaluate(async () => {
    const opens = [...window.opens]; // before the listing below (it is watched too)
    return { opens, dbs: (await indexedDB.databases()).map((d) => d.name) };
  });
  assert.deepEqual(fresh, { opens: [], dbs: [] });
  const stored = await page.evaluate((u) => window.tryLoad(u), VAD);
  assert.equal(stored.cache.tier, 'network');
  assert.equal(stored.cache.stored, true);
  await page.close();
  // an origin that did: open before any load, and the load opens nothing more
  page = await spied();
  assert.deepEqual(await page.evaluate(() => [...window.opens]), ['ortkeep-cache']);
  const warm = await page.evaluate((u) => window.tryLoad(u), VAD);
  assert.equal(warm.cache.tier, 'indexeddb');
  assert.deepEqual(await page.evaluate(() => [...window.opens]), ['ortkeep-cache']);
  await page.close();
});

test('memory tier: the same key in one page shares the live session; dispose of the last reference releases it', async () => {
  await env.reset();
  const page = await env.newPage();
  const r = await page.evaluate(async (u) => {
    const a = await window.ortkeep.load(u);
    const b = await window.ortkeep.load(u);
    const c = await window.ortkeep.load(u, { cache: 'reload' });
    const same = a.ortSession === b.ortSession;
    const fresh = c.ortSession !== a.ortSession;
    await a.dispose();
    let bRuns = true;
    try {
      await b.run(window.feeds.FEEDS.silero_vad_v5(window.ortDirect, 1));
    } catch {
      bRuns = false;
    }
    let aRuns = true;
    try {
      await a.run(window.feeds.FEEDS.silero_vad_v5(window.ortDirect, 1));
    } catch (e) {
      aRuns = e.code;
    }
    await b.dispose();
    const d = await window.ortkeep.load(u);
    const afterRelease = d.ortSession !== b.ortSession;
    await c.dispose();
    await d.dispose();
    return {
      same,
      fresh,
      tiers: [a.info.cache.tier, b.info.cache.tier, c.info.cache.tier, d.info.cache.tier],
      bRuns,
      aRuns,
      afterRelease,
    };
  }, VAD);
  assert.deepEqual(r, {
    same: true,
    fresh: true,
    tiers: ['network', 'memory', 'network', 'indexeddb'],
    bRuns: true,
    aRuns: 'DISPOSED',
    afterRelease: true,
  });
  await page.close();
});

test('management API: list, delete by URL, clear, estimate', async () => {
  await env.reset();
  const page = await env.newPage();
  const r = await page.evaluate(
    async ([a, b]) => {
      const { cache } = window.ortkeep;
      await window.tryLoad(a);
      await window.tryLoad(b);
      const list = await cache.list();
      const est = await cache.estimate();
      const deleted = await cache.delete(a);
      const deletedAgain = await cache.delete(a);
      const afterDelete = (await cache.list()).map((e) => e.url);
      await cache.clear();
      return {
        list,
        est,
        deleted,
        deletedAgain,
        afterDelete,
        afterClear: await cache.list(),
        raw: await window.raw.dump(),
      };
    },
    [VAD, DET],
  );
  assert.equal(r.list.length, 2);
  for (const e of r.list) {
    assert.equal(e.form, 'original');
    assert.ok(e.bytes > 1e6 && e.lastUsed > 1.7e12 && /^[0-9a-f]{64}$/.test(e.sha256));
  }
  assert.ok(r.est.cachedBytes >= r.list[0].bytes + r.list[1].bytes && r.est.entries === 2 && r.est.quota > 0);
  assert.equal(r.deleted, true);
  assert.equal(r.deletedAgain, false);
  assert.deepEqual(r.afterDelete, [env.origin + DET]);
  assert.deepEqual(r.afterClear, []);
  assert.deepEqual(r.raw, { index: [], meta: [], chunks: [] });
  await page.close();
});

/**
 * ppocr_v4_det stored in 1 MiB Blob records, then loaded on a second page
 * (`before` runs there first): outputs equal onnxruntime-web's, and the
 * sizes of the Blobs the page read itself and of those it handed its read worker.
 */
async function warmRead(before) {
  await env.reset();
  const page = await env.newPage();
  const first = await page.evaluate((u) => window.check(u, 'ppocr_v4_det', { chunkSize: 1 << 20 }), DET);
  assert.deepEqual(first.diffs, [0, 0]);
  await page.evaluate(() => window.ortkeep.cache.settled());
  await page.close();

  const page2 = await env.newPage();
  await page2.evaluate(() => {
    window.pageReads = [];
    window.workerReads = [];
    let readAsked;
    window.readAsked = new Promise((resolve) => {
      readAsked = resolve;
    });
    const read = Blob.prototype.arrayBuffer;
    Blob.prototype.arrayBuffer = function () {
      window.pageReads.push(this.size);
      if (this.size > 1e6) readAsked();
      return read.call(this);
    };
    const post = Worker.prototype.postMessage;
    Worker.prototype.postMessage = function (data, ...rest) {
      if (data?.blob instanceof Blob) window.workerReads.push(data.blob.size);
      if (data?.blob?.size > 1e6) readAsked();
      return post.call(this, data, ...rest);
    };
  });
  await before(page2);
  const again = await page2.evaluate((u) => window.check(u, 'ppocr_v4_det', { chunkSize: 1 << 20 }), DET);
  assert.deepEqual(again.diffs, [0, 0]);
  assert.equal(again.cache.tier, 'indexeddb', JSON.stringify(again.cache));
  assert.ok(again.phases.includes('read-cache'));
  const bytes = again.cache.bytes;
  assert.ok(bytes > 4_000_000, `the model is ${bytes} bytes`);
  const { pageReads, workerReads } = await page2.evaluate(() => ({
    pageReads: window.pageReads,
    workerReads: window.workerReads,
  }));
  await page2.close();
  return { bytes, page: pageReads.filter((n) => n >= bytes / 2), worker: workerReads.filter((n) => n >= bytes / 2) };
}

test("a warm load's Blob records are read in a worker, not on the page's thread, while onnxruntime-web is yet to start; outputs equal onnxruntime-web", async () => {
  // onnxruntime-web's start (ortkeep's 65-byte session) waits until the model's read is asked for:
  // a start over first leaves the page's thread free, and the page reads (ok_read_beside)
  const r = await warmRead((page) =>
    page.evaluate(() => window.logSessions((b) => (b === 65 ? window.readAsked : null))),
  );
  assert.deepEqual(r.page, [], `the model's records were read on the page (${r.page.join(', ')})`);
  assert.equal(r.worker.length, 1, `the read worker read the model once (${r.worker.join(', ')})`);
});

test("an app that started onnxruntime-web itself: the warm read is the page's own (its thread is free: no worker's start and hop); outputs equal onnxruntime-web", async () => {
  // the app's own session, before its first load through ortkeep
  const r = await warmRead((page) =>
    page.evaluate(async (u) => {
      const bytes = await (await fetch(u)).arrayBuffer();
      await (await window.ortDirect.InferenceSession.create(bytes)).release();
    }, DET),
  );
  assert.deepEqual(r.worker, [], `the read worker read the model (${r.worker.join(', ')})`);
  assert.equal(r.page.length, 1, `the page read the model once (${r.page.join(', ')})`);
});
