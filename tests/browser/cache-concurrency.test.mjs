// Concurrency: per-caller signals on a shared download, aborts during the
// IndexedDB read and session creation, three tabs on one URL, and a long
// download that must not stall unrelated loads, cache.list() or other tabs
// (locks are per key, never cache-wide).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { modelBytes, modelPath, serving, useCacheBrowser } from './cache-env.mjs';

const env = useCacheBrowser();
const DET = modelPath('ppocr_v4_det');
const VAD = modelPath('silero_vad_v5');
const CLS = modelPath('ppocr_v2_cls');

/** Serves DET at `path` throttled to `bytesPerSec`, strong ETag. */
async function slowDet(path, bytesPerSec) {
  const s = serving(path, await modelBytes('ppocr_v4_det'), () => ({ etag: '"v1"', bytesPerSec }));
  env.handler = s.handler;
  return s.seen;
}

test('two callers of one URL with their own signals: aborting one rejects only it; the other gets the model from the one download', async () => {
  await env.reset();
  const seen = await slowDet('/m/shared.onnx', 3e6); // ~1.6 s
  const page = await env.newPage();
  const r = await page.evaluate(async (ref) => {
    const { ortkeep, ortDirect: ort, feeds } = window;
    const a = new AbortController();
    const b = new AbortController();
    // A leaves once its body is coming in (a fixed delay was not: a page
    // held by onnxruntime-web's start on a busy machine ran the timer after
    // the whole load); the body is read at the page's pace, so it is not
    // over while the page is held
    let bodyStarted;
    const started = new Promise((res) => {
      bodyStarted = res;
    });
    const onProgress = (p) => {
      if (p.phase === 'download' && p.loaded > 0) bodyStarted(p.loaded);
    };
    const pa = ortkeep.load('/m/shared.onnx', { signal: a.signal, onProgress });
    const pb = ortkeep.load('/m/shared.onnx', { signal: b.signal });
    const loadedAtAbort = await started;
    const tAbort = performance.now();
    a.abort(new Error('caller A left'));
    const ra = await pa.then(
      () => 'resolved',
      (e) => ({ code: e.code, ms: performance.now() - tAbort }),
    );
    const sb = await pb;
    const reference = await ort.InferenceSession.create(ref);
    const diff = feeds.maxAbsDiff(
      await sb.run(feeds.FEEDS.ppocr_v4_det(ort, 1)),
      await reference.run(feeds.FEEDS.ppocr_v4_det(ort, 1)),
    );
    const out = { ra, diff, tier: sb.info.cache.tier, stored: sb.info.cache.stored, loadedAtAbort };
    await sb.dispose();
    await reference.release();
    return out;
  }, DET);
  assert.equal(r.ra.code, 'ABORTED', `A aborted at byte ${r.loadedAtAbort}: ${JSON.stringify(r.ra)}`);
  assert.ok(r.ra.ms < 200, `caller A waited ${r.ra.ms} ms after its abort`);
  assert.equal(r.diff, 0);
  assert.equal(r.tier, 'memory', 'B joined the load A started');
  assert.equal(seen.length, 1, 'one download for both callers');
  const list = await page.evaluate(() => window.ortkeep.cache.list());
  assert.deepEqual(
    list.map((e) => e.url),
    [`${env.origin}/m/shared.onnx`],
    'the shared download was stored',
  );
  await page.close();
});

test('both callers abort: the download stops, no lock is held, nothing is listed; the next load resumes what was stored and is right', async () => {
  await env.reset();
  // the body stops at 2.5 MB until both callers have aborted: the driver waits on
  // the network there, so the complete chunks before it are stored mid-download
  // (on a body that keeps coming faster than the page takes it, they would wait for its end)
  let release;
  const released = new Promise((res) => {
    release = res;
  });
  const s = serving('/m/both.onnx', await modelBytes('ppocr_v4_det'), () => ({
    etag: '"v1"',
    bytesPerSec: 2e6,
    holdAt: 2.5e6,
    until: released,
  }));
  env.handler = s.handler;
  const seen = s.seen;
  const page = await env.newPage();
  const r = await page.evaluate(async () => {
    const { ortkeep } = window;
    const cs = [new AbortController(), new AbortController()];
    const ps = cs.map((c) =>
      ortkeep.load('/m/both.onnx', { signal: c.signal, chunkSize: 1 << 20 }).then(
        () => 'resolved',
        (e) => e.code,
      ),
    );
    // both abort once a chunk is stored (not after a fixed time: onnxruntime-web
    // starting beside the download holds the main thread for a while)
    for (let i = 0; i < 200 && (await window.raw.dump()).chunks.length === 0; i++)
      await new Promise((res) => setTimeout(res, 50));
    cs.forEach((c) => c.abort());
    const codes = await Promise.all(ps);
    await new Promise((res) => setTimeout(res, 300));
    const held = (await navigator.locks.query()).held.map((l) => l.name);
    return { codes, held, list: await ortkeep.cache.list(), dump: await window.raw.dump() };
  });
  release();
  assert.deepEqual(r.codes, ['ABORTED', 'ABORTED']);
  assert.deepEqual(r.held, []);
  assert.deepEqual(r.list, []);
  assert.deepEqual(r.dump.meta, [], 'nothing committed');
  // What arrived is kept (strong ETag: provably the same resource) for a resume.
  assert.equal(r.dump.index.length, 1);
  assert.ok(r.dump.chunks.length >= 1 && r.dump.chunks.length < 5, JSON.stringify(r.dump.chunks));
  const ok = await page.evaluate(
    (ref) => window.check('/m/both.onnx', 'ppocr_v4_det', { chunkSize: 1 << 20 }, ref),
    DET,
  );
  assert.deepEqual(ok.diffs, [0, 0]);
  assert.equal(seen.length, 2);
  assert.equal(seen[1].range, `bytes=${ok.cache.resumedFrom}-`);
  assert.ok(ok.cache.resumedFrom >= r.dump.chunks.length << 20);
  await page.close();
});

for (const [stage, action] of [
  ['the IndexedDB read', 'READ_CHUNKS'],
  ['session creation', 'CREATE_SESSION'],
]) {
  test(`abort during ${stage} of a warm load is honoured at once; the page's next load works`, async () => {
    await env.reset();
    const page = await env.newPage();
    await page.evaluate((u) => window.tryLoad(u), DET);
    const r = await page.evaluate(
      async ([u, act]) => {
        const ac = new AbortController();
        let tAbort = 0;
        const debug = (line) => {
          if (!tAbort && line.startsWith(`ortkeep: ${act}`)) {
            tAbort = performance.now();
            ac.abort();
          }
        };
        const code = await window.ortkeep.load(u, { signal: ac.signal, memory: false, debug }).then(
          () => 'resolved',
          (e) => e.code,
        );
        return { code, ms: performance.now() - tAbort, aborted: tAbort > 0 };
      },
      [DET, action],
    );
    assert.equal(r.aborted, true, `no ${action} action was seen`);
    assert.equal(r.code, 'ABORTED');
    assert.ok(r.ms < 150, `rejected ${r.ms} ms after the abort`);
    const next = await page.evaluate((u) => window.check(u, 'ppocr_v4_det', { memory: false }), DET);
    assert.deepEqual(next.diffs, [0, 0]);
    assert.equal(next.cache.tier, 'indexeddb');
    await page.close();
  });
}

test('three tabs load one URL at once: one download at the server, three right models, one entry', async () => {
  await env.reset();
  const seen = await slowDet('/m/three.onnx', 4e6);
  const pages = await Promise.all([env.newPage(), env.newPage(), env.newPage()]);
  const rs = await Promise.all(
    pages.map((p) => p.evaluate((ref) => window.check('/m/three.onnx', 'ppocr_v4_det', {}, ref), DET)),
  );
  for (const r of rs) assert.deepEqual(r.diffs, [0, 0]);
  assert.deepEqual(rs.map((r) => r.cache.tier).sort(), ['indexeddb', 'indexeddb', 'network']);
  assert.equal(seen.length, 1);
  const dump = await pages[0].evaluate(() => window.raw.dump());
  assert.equal(dump.index.length, 1);
  for (const p of pages) await p.close();
});

test('a long download does not stall an unrelated load, cache.list() or another tab', async () => {
  await env.reset();
  // the long download stops halfway until this test lets it go: whatever
  // waited for it (a page-wide lock, a busy IndexedDB connection) cannot
  // finish before that
  let release;
  const until = new Promise((resolve) => {
    release = resolve;
  });
  const bytes = await modelBytes('ppocr_v4_det');
  const long = serving('/m/long.onnx', bytes, () => ({ etag: '"v1"', holdAt: bytes.length >> 1, until }));
  env.handler = long.handler;
  const a = await env.newPage();
  const b = await env.newPage();
  await a.evaluate(() => {
    window.longLoad = window.tryLoad('/m/long.onnx').then((r) => {
      window.longDone = true;
      return r;
    });
  });
  while (long.seen.length === 0) await new Promise((res) => setTimeout(res, 50)); // the long download is under way
  const stalled = new Promise((_, reject) => {
    setTimeout(() => reject(new Error('the unrelated loads waited for the held download')), 180000).unref();
  });
  const unrelated = Promise.all([
    a.evaluate(async (u) => {
      const r = await window.tryLoad(u);
      const tList = performance.now();
      const list = await window.ortkeep.cache.list();
      return {
        ok: r.ok,
        tier: r.cache?.tier,
        listMs: performance.now() - tList,
        listed: list.map((e) => new URL(e.url).pathname),
        longStillRunning: !window.longDone,
      };
    }, VAD),
    b.evaluate(async (u) => {
      const r = await window.tryLoad(u, { memory: false });
      const tList = performance.now();
      await window.ortkeep.cache.list();
      return { ok: r.ok, tier: r.cache?.tier, listMs: performance.now() - tList };
    }, CLS),
  ]);
  const [sameTab, otherTab] = await Promise.race([unrelated, stalled]);
  const longStill = await a.evaluate(() => !window.longDone);
  release();
  const done = await a.evaluate(() => window.longLoad);
  assert.equal(sameTab.ok, true);
  assert.equal(otherTab.ok, true);
  assert.equal(sameTab.longStillRunning, true, 'the unrelated load finished while the long one was held');
  assert.equal(longStill, true, 'the other tab finished while the long one was held');
  // cache.list() reads the index only, never behind a download's transactions
  assert.ok(
    sameTab.listMs < 1000 && otherTab.listMs < 1000,
    `cache.list() took ${sameTab.listMs} / ${otherTab.listMs} ms`,
  );
  assert.ok(
    sameTab.listed.includes(VAD) && !sameTab.listed.includes('/m/long.onnx'),
    `list shows committed models, not the one in flight: ${sameTab.listed}`,
  );
  assert.equal(done.ok, true);
  assert.equal(done.cache.stored, true);
  await a.close();
  await b.close();
});

test("a page's first load starts onnxruntime-web beside it (a 65-byte session of ortkeep's): started while the download is held halfway; the model's creation finds it over; a second load starts nothing; a later page starts it beside its IndexedDB read", async () => {
  await env.reset();
  let release;
  const until = new Promise((resolve) => {
    release = resolve;
  });
  const bytes = await modelBytes('ppocr_v4_det');
  const held = serving('/m/held.onnx', bytes, () => ({ etag: '"v1"', holdAt: bytes.length >> 1, until }));
  env.handler = held.handler;
  const page = await env.newPage();
  await page.evaluate(() => {
    window.logSessions();
    window.first = window.ortkeep.load('/m/held.onnx');
  });
  // without the start beside it, onnxruntime-web starts only once the download is whole: never, while it is held
  const startedWhileHeld = await page
    .waitForFunction(() => window.creates.some((c) => c.done), null, { timeout: 60000, polling: 50 })
    .then(
      () => true,
      () => false,
    );
  const whileHeld = await page.evaluate(() => window.creates.map((c) => ({ ...c })));
  const stillHeld = held.seen.length === 1;
  release();
  const r = await page.evaluate(
    async ({ vad }) => {
      const { ortkeep, ortDirect: ort, feeds } = window;
      const s = await window.first;
      const reference = await ort.InferenceSession.create(await (await fetch('/m/held.onnx')).arrayBuffer());
      const diff = feeds.maxAbsDiff(
        await s.run(feeds.FEEDS.ppocr_v4_det(ort, 1)),
        await reference.run(feeds.FEEDS.ppocr_v4_det(ort, 1)),
      );
      await reference.release();
      const out = {
        diff,
        timings: s.info.timings,
        creates: window.creates.map((c) => c.bytes),
      };
      await s.formsReady;
      const second = await ortkeep.load(vad, { forms: false });
      out.afterSecond = window.creates.map((c) => c.bytes);
      await second.dispose();
      await s.dispose();
      return out;
    },
    { vad: VAD },
  );
  await page.close();
  // a later page reads the model from IndexedDB: onnxruntime-web (the plain build: runtime-choice.js) starts beside the read
  const warm = await env.newPage();
  const later = await warm.evaluate(async () => {
    window.logSessions();
    const s = await window.ortkeep.load('/m/held.onnx');
    const out = {
      tier: s.info.cache.tier,
      creates: window.creates.map((c) => c.bytes),
      startMs: s.info.timings.startMs ?? null,
    };
    await s.dispose();
    return out;
  });
  await warm.close();
  assert.equal(later.tier, 'indexeddb');
  assert.deepEqual(later.creates, [65, bytes.length], 'the start, then the model');
  assert.ok(startedWhileHeld, `onnxruntime-web started while the download was held: ${JSON.stringify(whileHeld)}`);
  assert.ok(stillHeld, 'one request, held at the time');
  assert.deepEqual(whileHeld, [{ bytes: 65, done: true }]);
  assert.ok(r.diff <= 1e-4, `outputs differ by ${r.diff}`);
  // ortkeep's 65 bytes, the model, the test's reference: nothing else before the second load
  assert.deepEqual(r.creates.slice(0, 3), [65, bytes.length, bytes.length]);
  // the start was over before the download was whole: nothing left to wait for at the creation
  assert.equal(r.timings.startMs, undefined, JSON.stringify(r.timings));
  assert.equal(r.afterSecond.filter((b) => b === 65).length, 1, `a second load starts nothing: ${r.afterSecond}`);
});

test("a page's first download that is whole before onnxruntime-web has started: the model's creation waits for the start, timed apart as startMs", async () => {
  await env.reset();
  const bytes = await modelBytes('silero_vad_v5');
  env.handler = serving('/m/quick.onnx', bytes, () => ({ etag: '"v1"' })).handler;
  const page = await env.newPage();
  const r = await page.evaluate(async () => {
    const { ortkeep, ortDirect: ort, feeds } = window;
    // ortkeep's 65-byte start is held until the download is whole and 300 ms more
    let whole;
    const downloaded = new Promise((resolve) => {
      whole = resolve;
    });
    window.logSessions((n) => (n === 65 ? downloaded.then(() => new Promise((res) => setTimeout(res, 300))) : null));
    const s = await ortkeep.load('/m/quick.onnx', {
      onProgress: (p) => p.phase === 'download' && p.total && p.loaded === p.total && whole(),
    });
    const reference = await ort.InferenceSession.create(await (await fetch('/m/quick.onnx')).arrayBuffer());
    const diff = feeds.maxAbsDiff(
      await s.run(feeds.FEEDS.silero_vad_v5(ort, 1)),
      await reference.run(feeds.FEEDS.silero_vad_v5(ort, 1)),
    );
    await reference.release();
    const out = { diff, timings: s.info.timings, creates: window.creates.map((c) => c.bytes) };
    await s.dispose();
    return out;
  });
  await page.close();
  assert.ok(r.diff <= 1e-5, `outputs differ by ${r.diff}`);
  assert.deepEqual(r.creates.slice(0, 2), [65, bytes.length]);
  // the wait is its own phase: at least the 300 ms the start was held past the download
  assert.equal(typeof r.timings.startMs, 'number', JSON.stringify(r.timings));
  assert.ok(r.timings.startMs >= 250, JSON.stringify(r.timings));
  assert.equal(typeof r.timings.createMs, 'number');
});
