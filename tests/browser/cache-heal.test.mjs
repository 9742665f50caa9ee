// The cache heals and never wedges: a lost chunk or report, a database
// deleted by another tab, an indexedDB.open that never answers, a
// transaction that aborts, no IndexedDB at all, and a tab killed after any
// one of the real driver's transactions. Each ends with a correct model
// (outputs equal onnxruntime-web's) or a typed error, and the state of the
// cache after is checked record by record.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PAGE, modelPath, useCacheBrowser } from './cache-env.mjs';

const env = useCacheBrowser();
const DET = modelPath('ppocr_v4_det'); // 4.7 MB: 5 chunks of 1 MiB
const VAD = modelPath('silero_vad_v5');
const MiB1 = { chunkSize: 1 << 20 };

/** A fresh cache holding DET in 1 MiB chunks; returns a new page and the raw records. */
async function stored() {
  await env.reset();
  let page = await env.newPage();
  const first = await page.evaluate(([u, o]) => window.tryLoad(u, o), [DET, MiB1]);
  assert.equal(first.cache.stored, true);
  await page.close();
  page = await env.newPage();
  env.server.resetCounts();
  return page;
}

async function assertOneWholeEntry(page, chunks = 5) {
  const dump = await page.evaluate(() => window.raw.dump());
  assert.equal(dump.index.length, 1, JSON.stringify(dump));
  assert.deepEqual(dump.meta, dump.index);
  assert.equal(dump.chunks.length, chunks, JSON.stringify(dump.chunks));
  assert.ok(dump.chunks.every(([name]) => name === dump.index[0]));
}

for (const lost of [2, 'meta']) {
  test(`a lost ${lost === 'meta' ? 'report record' : 'chunk record'}: the entry is dropped, refetched once, then a hit`, async () => {
    const page = await stored();
    const dropped = await page.evaluate((what) => window.raw.drop(what), lost);
    const r = await page.evaluate((ref) => window.check(ref, 'ppocr_v4_det', { chunkSize: 1 << 20 }), DET);
    assert.deepEqual(r.diffs, [0, 0]);
    assert.equal(r.cache.tier, 'network');
    assert.equal(r.cache.stored, true);
    assert.ok(r.warnings.includes('CORRUPT'), JSON.stringify(r.warnings));
    assert.equal(env.server.count(DET), 2); // ortkeep's refetch + check()'s reference
    await assertOneWholeEntry(page);
    assert.notEqual(await page.evaluate(() => window.raw.name()), dropped, 'a new entry name');
    const again = await page.evaluate((u) => window.tryLoad(u), DET);
    assert.equal(again.cache.tier, 'indexeddb');
    const list = await page.evaluate(() => window.ortkeep.cache.list());
    assert.equal(list.length, 1);
    await page.close();
  });
}

test('a database deleted by another tab: this page reopens it, stores, and says so truthfully', async () => {
  await env.reset();
  const a = await env.newPage();
  assert.equal((await a.evaluate((u) => window.tryLoad(u), VAD)).cache.stored, true);
  const b = await env.newPage();
  assert.equal(
    await b.evaluate(() => window.raw.deleteDatabase()),
    'deleted',
    'ortkeep closes its connection on versionchange',
  );
  await b.close();
  const r = await a.evaluate(([u, o]) => window.tryLoad(u, o), [DET, MiB1]);
  assert.equal(r.ok, true, r.message);
  assert.equal(r.cache.tier, 'network');
  assert.equal(r.cache.stored, true);
  await assertOneWholeEntry(a);
  const urls = (await a.evaluate(() => window.ortkeep.cache.list())).map((e) => e.url);
  assert.deepEqual(urls, [env.origin + DET]);
  await a.close();
  const c = await env.newPage();
  env.server.resetCounts();
  assert.equal((await c.evaluate((u) => window.tryLoad(u), DET)).cache.tier, 'indexeddb');
  assert.equal(env.server.count(DET), 0);
  await c.close();
});

test('indexedDB.open that never answers (queued behind a blocked delete): uncached with a warning, typed cache API errors, then it recovers', async () => {
  await env.reset();
  const stuck = await env.newPage();
  await stuck.evaluate(() => window.ortkeep.cache.list()); // ortkeep's database exists, empty
  await stuck.evaluate(() => window.raw.holdOpen());
  assert.equal(await stuck.evaluate(() => window.raw.deleteDatabase()), 'blocked');
  const page = await env.newPage();
  await page.evaluate(() => window.ortkeep.cache._configure({ openTimeoutMs: 400 }));
  const r = await page.evaluate((ref) => window.check(ref, 'silero_vad_v5'), VAD);
  assert.deepEqual(r.diffs, [0, 0]);
  assert.deepEqual(r.warnings, ['CACHE_UNAVAILABLE']);
  assert.equal(r.cache.stored, false);
  const timed = await page.evaluate(async () => {
    const t0 = performance.now();
    const e = await window.ortkeep.cache.list().then(
      () => null,
      (x) => ({ name: x.name, code: x.code }),
    );
    return { e, ms: performance.now() - t0 };
  });
  assert.deepEqual(timed.e, { name: 'OrtkeepError', code: 'CACHE_UNAVAILABLE' });
  assert.ok(timed.ms < 3000, `cache.list() gave up after ${timed.ms} ms`);
  // The stuck tab lets go: the delete completes, the next load opens and stores.
  await stuck.evaluate(() => window.raw.releaseHold());
  await stuck.close();
  const after = await page.evaluate((u) => window.tryLoad(u), VAD);
  assert.equal(after.ok, true, after.message);
  assert.equal(after.cache.stored, true);
  assert.deepEqual(after.warnings, []);
  assert.equal((await page.evaluate((u) => window.tryLoad(u, { memory: false }), VAD)).cache.tier, 'indexeddb');
  await page.close();
});

test('a transaction that aborts once: the load is right and uncached with CACHE_ERROR, no lock stays held, the next load stores', async () => {
  await env.reset();
  const page = await env.newPage();
  await page.evaluate(() => {
    window.faults.plan = { abortAt: 2 };
    window.faults.writes = 0;
  });
  const r = await page.evaluate((ref) => window.check(ref, 'ppocr_v4_det', { chunkSize: 1 << 20 }), DET);
  assert.deepEqual(r.diffs, [0, 0]);
  assert.ok(r.warnings.includes('CACHE_ERROR'), JSON.stringify(r.warnings));
  assert.equal(r.cache.stored, false);
  const held = await page.evaluate(async () => (await navigator.locks.query()).held.map((l) => l.name));
  assert.deepEqual(held, []);
  await page.evaluate(() => {
    window.faults.plan = null;
  });
  const again = await page.evaluate(([u, o]) => window.tryLoad(u, { ...o, memory: false }), [DET, MiB1]);
  assert.equal(again.ok, true, again.message);
  assert.equal(again.cache.stored, true);
  await assertOneWholeEntry(page);
  assert.equal((await page.evaluate((u) => window.tryLoad(u, { memory: false }), DET)).cache.tier, 'indexeddb');
  await page.close();
});

test('no usable IndexedDB: loads work uncached with CACHE_UNAVAILABLE; list/delete/clear/estimate are typed CACHE_UNAVAILABLE', async () => {
  await env.reset();
  const page = await env.context.newPage();
  await page.addInitScript(() => {
    IDBFactory.prototype.open = () => {
      throw new DOMException('IndexedDB is disabled here', 'InvalidStateError');
    };
  });
  await page.goto(env.origin + PAGE);
  await page.waitForFunction(() => window.ready === true);
  const r = await page.evaluate((ref) => window.check(ref, 'silero_vad_v5'), VAD);
  assert.deepEqual(r.diffs, [0, 0]);
  assert.deepEqual(r.warnings, ['CACHE_UNAVAILABLE']);
  assert.equal(r.cache.stored, false);
  const errors = await page.evaluate(async () => {
    const { cache } = window.ortkeep;
    const out = {};
    for (const [name, call] of [
      ['list', () => cache.list()],
      ['delete', () => cache.delete('x')],
      ['clear', () => cache.clear()],
      ['estimate', () => cache.estimate()],
    ]) {
      out[name] = await call().then(
        () => 'resolved',
        (e) => `${e.name}:${e.code}`,
      );
    }
    return out;
  });
  for (const v of Object.values(errors)) assert.equal(v, 'OrtkeepError:CACHE_UNAVAILABLE', JSON.stringify(errors));
  await page.close();
});

test("a tab killed after each of the real driver's transactions in turn: the next load is right and the cache holds one whole entry", async () => {
  let crashes = 0;
  for (let n = 1; n < 20; n++) {
    await env.reset();
    const page = await env.newPage();
    let crashed = null;
    await page.exposeFunction('crashNow', (k, what) => {
      crashed = { k, what };
    });
    await page.evaluate((k) => {
      window.faults.plan = { crashAfter: k };
      window.faults.writes = 0;
    }, n);
    const loading = page.evaluate(([u, o]) => window.tryLoad(u, o), [DET, MiB1]).catch(() => null);
    let poll;
    const done = await Promise.race([
      loading.then(() => 'finished'),
      new Promise((resolve) => {
        poll = setInterval(() => {
          if (crashed) resolve('crashed');
        }, 10);
      }),
    ]);
    clearInterval(poll);
    const writes = await page.evaluate(() => window.faults.log.slice()).catch(() => []);
    await page.close({ runBeforeUnload: false });
    if (done === 'finished') {
      assert.ok(n > 3, `the cold load made ${n - 1} writes: ${JSON.stringify(writes)}`);
      break;
    }
    crashes++;
    const next = await env.newPage();
    const r = await next.evaluate((ref) => window.check(ref, 'ppocr_v4_det', { chunkSize: 1 << 20 }), DET);
    assert.deepEqual(r.diffs, [0, 0], `after a crash following write ${n} (${crashed.what})`);
    // Committed before the crash: a hit; otherwise fetched again and stored.
    assert.equal(
      r.cache.tier,
      crashed.what === 'committing a model' ? 'indexeddb' : 'network',
      `write ${n}: ${crashed.what}`,
    );
    await assertOneWholeEntry(next);
    await next.close();
  }
  assert.ok(crashes >= 6, `crashed after ${crashes} transactions`);
});
