// Faults a user can meet: a page closed mid-download, a connection cut at
// 50%, a corrupted stored chunk, a wrong integrity, a model update (new
// ETag), two pages loading one URL at once. Each ends with a correct model
// (outputs equal onnxruntime-web's) or a typed error, and no torn entry.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { NOT_CACHED, PAGE, cutOnceHeld, modelBytes, modelPath, serving, useCacheBrowser } from './cache-env.mjs';

const env = useCacheBrowser();
const MiB = 1 << 20;
const DET = modelPath('ppocr_v4_det'); // 4.7 MB: 5 chunks of 1 MiB

/** Serves `bytes` at `path` with a strong ETag; `plan(n)` → options for the n-th request. */
function serve(path, bytes, plan = () => ({})) {
  const s = serving(path, bytes, (n) => ({ etag: '"v1"', ...plan(n) }));
  env.handler = s.handler;
  return s.seen;
}

test('a page closed mid-download, then reopened: a correct model and no torn entry', async () => {
  await env.reset();
  const bytes = await modelBytes('ppocr_v4_det');
  // The first request stalls after 2.5 MiB (two chunks stored) until the page is gone.
  let release;
  const stalled = new Promise((r) => {
    release = r;
  });
  env.handler = (req, res, { pathname, serveBytes }) => {
    if (pathname !== '/m/closed.onnx') return false;
    if (env.server.count('/m/closed.onnx') === 1) {
      res.writeHead(200, { 'content-length': bytes.length, etag: '"v1"', 'accept-ranges': 'bytes' });
      res.write(bytes.subarray(0, 2.5 * MiB));
      stalled.then(() => res.destroy());
      return true;
    }
    serveBytes(req, res, bytes, { etag: '"v1"' });
    return true;
  };
  const page = await env.newPage();
  page.evaluate(() => window.ortkeep.load('/m/closed.onnx', { chunkSize: 1 << 20 })).catch(() => {});
  await page.waitForFunction(async () => (await window.raw.dump()).chunks.length >= 2, null, {
    timeout: 10000,
    polling: 100,
  });
  await page.close(); // the tab dies holding the download lock
  release();
  const page2 = await env.newPage();
  const r = await page2.evaluate(
    (ref) => window.check('/m/closed.onnx', 'ppocr_v4_det', { chunkSize: 1 << 20 }, ref),
    DET,
  );
  assert.deepEqual(r.diffs, [0, 0]);
  assert.equal(r.cache.tier, 'network');
  const dump = await page2.evaluate(() => window.raw.dump());
  assert.equal(dump.index.length, 1);
  assert.equal(dump.meta.length, 1);
  assert.equal(dump.chunks.length, 5);
  const list = await page2.evaluate(() => window.ortkeep.cache.list());
  assert.equal(list.length, 1);
  assert.equal(list[0].bytes, bytes.length);
  // and it is served from IndexedDB afterwards
  const again = await page2.evaluate(() => window.tryLoad('/m/closed.onnx'));
  assert.equal(again.cache.tier, 'indexeddb');
  await page2.close();
});

test('network cut at 50% (strong ETag): the load resumes with a bare Range request and is correct', async () => {
  await env.reset();
  const bytes = await modelBytes('ppocr_v4_det');
  // the first answer stops halfway and is cut once the page holds that half
  // (a busy page would otherwise have less, and rightly retry from 0)
  const half = cutOnceHeld(Math.floor(bytes.length / 2));
  const seen = serve('/m/cut.onnx', bytes, (n) => (n === 1 ? half.options : {}));
  const page = await env.newPage();
  const checking = page.evaluate(
    (ref) => window.check('/m/cut.onnx', 'ppocr_v4_det', { chunkSize: 1 << 20 }, ref),
    DET,
  );
  await half.cut(page);
  const r = await checking;
  assert.deepEqual(r.diffs, [0, 0]);
  assert.ok(r.warnings.includes('RESUMING'), JSON.stringify(r.warnings));
  assert.equal(seen.length, 2); // the cut GET and the Range resume
  assert.match(seen[1].range, /^bytes=\d+-$/);
  assert.ok(Number(/\d+/.exec(seen[1].range)[0]) >= MiB, seen[1].range);
  assert.equal(seen[1].ifRange, null, 'If-Range is not CORS-safelisted: never sent');
  assert.equal(r.cache.resumedFrom, Number(/\d+/.exec(seen[1].range)[0]));
  const second = await page.evaluate(() => window.tryLoad('/m/cut.onnx'));
  assert.equal(second.cache.tier, 'indexeddb');
  await page.close();
});

/** A fresh cache holding DET in 1 MiB chunks, chunk 3 flipped on disk, the page reloaded, counters reset. */
async function storedThenFlipped() {
  await env.reset();
  const page = await env.newPage();
  await page.evaluate((u) => window.tryLoad(u, { chunkSize: 1 << 20 }), DET);
  await page.evaluate(() => window.raw.flip(3));
  await page.reload();
  await page.waitForFunction(() => window.ready === true);
  env.server.resetCounts();
  return page;
}

test('a stored chunk with flipped bytes is detected, evicted and refetched, never served', async () => {
  const page = await storedThenFlipped();
  const r = await page.evaluate((u) => window.check(u, 'ppocr_v4_det', { chunkSize: 1 << 20 }), DET);
  assert.deepEqual(r.diffs, [0, 0]);
  assert.ok(r.warnings.includes('CORRUPT'));
  assert.equal(r.cache.tier, 'network');
  assert.equal(env.server.count(DET), 2); // the refetch + the reference fetch
  const again = await page.evaluate((u) => window.tryLoad(u), DET);
  assert.equal(again.cache.tier, 'indexeddb');
  await page.close();
});

test('a flipped stored chunk never reaches onnxruntime: the only session is built from the refetched bytes', async () => {
  const page = await storedThenFlipped();
  const r = await page.evaluate(async (u) => {
    const { ortkeep, ortDirect: ort, feeds } = window;
    // Count every onnxruntime-web session created and released in this page
    // but ortkeep's 65-byte one, which starts onnxruntime-web beside the load.
    const created = [];
    const released = new Set();
    const create = ort.InferenceSession.create;
    ort.InferenceSession.create = async function (...args) {
      const s = await create.apply(this, args);
      if (args[0]?.byteLength === 65) return s;
      const id = created.push(s) - 1;
      const release = s.release.bind(s);
      s.release = () => {
        released.add(id);
        return release();
      };
      return s;
    };
    const warnings = [];
    let session;
    try {
      session = await ortkeep.load(u, { chunkSize: 1 << 20, onWarning: (w) => warnings.push(w.code) });
    } finally {
      ort.InferenceSession.create = create;
    }
    const atReturn = {
      created: created.length,
      released: [...released],
      returned: created.indexOf(session.ortSession),
    };
    const reference = await ort.InferenceSession.create(await (await fetch(u, { cache: 'no-store' })).arrayBuffer());
    const diffs = [];
    for (const seed of [1, 2]) {
      diffs.push(
        feeds.maxAbsDiff(
          await session.run(feeds.FEEDS.ppocr_v4_det(ort, seed)),
          await reference.run(feeds.FEEDS.ppocr_v4_det(ort, seed)),
        ),
      );
    }
    await reference.release();
    const cache = session.info.cache;
    await session.dispose();
    return { atReturn, diffs, warnings, cache };
  }, DET);
  assert.deepEqual(r.diffs, [0, 0]);
  assert.ok(r.warnings.includes('CORRUPT'), JSON.stringify(r.warnings));
  assert.equal(r.cache.tier, 'network');
  // Chunks are checked before onnxruntime sees any byte: one session,
  // created from the refetched model, and it is the one returned.
  assert.deepEqual(r.atReturn, { created: 1, released: [], returned: 0 });
  assert.equal(env.server.count(DET), 2); // the refetch + the reference fetch
  const again = await page.evaluate((u) => window.tryLoad(u), DET);
  assert.equal(again.cache.tier, 'indexeddb');
  assert.equal(again.cache.verified, true);
  await page.close();
});

test("options onnxruntime-web refuses (webgpu in a page with no WebGPU adapter, bad options) fail SESSION_CREATE and keep the stored model: the next load with 'wasm' is served from IndexedDB with the network refused", async () => {
  await env.reset();
  const bytes = await modelBytes('silero_vad_v5');
  const url = '/m/options.onnx';
  let offline = false;
  env.handler = (req, res, { pathname, serveBytes }) => {
    if (pathname !== url) return false;
    if (offline)
      req.socket.destroy(); // fetch() rejects, as offline
    else serveBytes(req, res, bytes, { etag: '"v1"' });
    return true;
  };
  const stored = await env.newPage();
  const first = await stored.evaluate((u) => window.tryLoad(u), url);
  assert.equal(first.ok, true, JSON.stringify(first));
  assert.equal(first.cache.stored, true);
  await stored.close();
  const page = await env.newPage(); // nothing of the model in this page's memory
  const refused = [
    { executionProviders: ['webgpu'] },
    { graphOptimizationLevel: 'bogus' },
    { freeDimensionOverrides: { batch: -1 } },
  ];
  for (const options of refused) {
    const r = await page.evaluate(([u, o]) => window.tryLoad(u, o), [url, options]);
    assert.equal(r.ok, false, JSON.stringify(options));
    assert.equal(r.code, 'SESSION_CREATE', `${JSON.stringify(options)}: ${r.message}`);
    assert.deepEqual(r.warnings, [], `${JSON.stringify(options)}: the stored copy is not refused`);
  }
  assert.equal(env.server.count(url), 1, 'only the first download reached the server');
  assert.equal((await page.evaluate(() => window.raw.dump())).index.length, 1, 'the stored model is still there');
  offline = true;
  const wasm = await page.evaluate((u) => window.tryLoad(u, { executionProviders: ['wasm'] }), url);
  assert.equal(wasm.ok, true, JSON.stringify(wasm));
  assert.equal(wasm.cache.tier, 'indexeddb');
  assert.deepEqual(wasm.warnings, []);
  assert.equal(env.server.count(url), 1);
  await page.close();
});

test('a wrong integrity is a typed INTEGRITY error and nothing is stored', async () => {
  await env.reset();
  const page = await env.newPage();
  const wrong = `sha256-${Buffer.alloc(32, 7).toString('base64')}`;
  const r = await page.evaluate(([u, integrity]) => window.tryLoad(u, { integrity, chunkSize: 1 << 20 }), [DET, wrong]);
  assert.equal(r.ok, false);
  assert.equal(r.name, 'OrtkeepError');
  assert.equal(r.code, 'INTEGRITY');
  assert.deepEqual(await page.evaluate(() => window.raw.dump()), { index: [], meta: [], chunks: [] });
  // the right integrity loads, content-addressed
  const bytes = await modelBytes('ppocr_v4_det');
  const good = `sha256-${(await import('node:crypto')).createHash('sha256').update(bytes).digest('base64')}`;
  const ok = await page.evaluate(([u, integrity]) => window.tryLoad(u, { integrity }), [DET, good]);
  assert.equal(ok.ok, true);
  assert.match(ok.cache.key, /^sha256:[0-9a-f]{64}\|form:original$/);
  await page.close();
});

test("the server's model changes (new ETag): new bytes fetched, the old entry evicted", async () => {
  await env.reset();
  const v1 = await modelBytes('silero_vad_v5');
  const v2 = await modelBytes('silero_vad_legacy');
  let current = { bytes: v1, etag: '"v1"' };
  const statuses = [];
  env.handler = (req, res, { pathname, serveBytes }) => {
    if (pathname !== '/m/model.onnx') return false;
    res.on('finish', () => statuses.push(res.statusCode));
    serveBytes(req, res, current.bytes, { etag: current.etag });
    return true;
  };
  const page = await env.newPage();
  const a = await page.evaluate(
    (ref) => window.check('/m/model.onnx', 'silero_vad_v5', { cache: 'no-cache' }, ref),
    modelPath('silero_vad_v5'),
  );
  assert.deepEqual(a.diffs, [0, 0]);
  const b = await page.evaluate(() => window.tryLoad('/m/model.onnx', { cache: 'no-cache' }));
  assert.equal(b.cache.tier, 'indexeddb');
  assert.deepEqual(statuses, [200, 304], 'the second load revalidated with a conditional request');
  current = { bytes: v2, etag: '"v2"' };
  const c = await page.evaluate(
    (ref) => window.check('/m/model.onnx', 'silero_vad_legacy', { cache: 'no-cache' }, ref),
    modelPath('silero_vad_legacy'),
  );
  assert.deepEqual(c.diffs, [0, 0]);
  assert.equal(c.cache.tier, 'network');
  assert.deepEqual(statuses.slice(2), [200], 'the changed ETag was answered with the new bytes');
  const list = await page.evaluate(() => window.ortkeep.cache.list());
  assert.equal(list.length, 1);
  assert.equal(list[0].etag, '"v2"');
  assert.equal(list[0].bytes, v2.length);
  assert.equal((await page.evaluate(() => window.raw.dump())).index.length, 1);
  const d = await page.evaluate(() => window.tryLoad('/m/model.onnx'));
  assert.equal(d.cache.tier, 'indexeddb');
  await page.close();
});

test('two pages load one URL at once: one download at the server', async () => {
  await env.reset();
  const bytes = await modelBytes('ppocr_v4_det');
  // Slow enough that both pages are waiting while the first downloads.
  env.handler = async (req, res, { pathname }) => {
    if (pathname !== '/m/shared.onnx') return false;
    res.writeHead(200, { 'content-length': bytes.length, etag: '"v1"' });
    for (let at = 0; at < bytes.length; at += 512 * 1024) {
      res.write(bytes.subarray(at, at + 512 * 1024));
      await new Promise((r) => setTimeout(r, 40));
    }
    res.end();
    return true;
  };
  const [p1, p2] = [await env.newPage(), await env.newPage()];
  const run = (p) => p.evaluate((ref) => window.check('/m/shared.onnx', 'ppocr_v4_det', {}, ref), DET);
  const [r1, r2] = await Promise.all([run(p1), run(p2)]);
  assert.equal(env.server.count('/m/shared.onnx'), 1);
  assert.deepEqual(
    [r1.diffs, r2.diffs],
    [
      [0, 0],
      [0, 0],
    ],
  );
  assert.deepEqual([r1.cache.tier, r2.cache.tier].sort(), ['indexeddb', 'network']);
  await p1.close();
  await p2.close();
});

test('a page whose CSP refuses blob: workers: a fast download is stored by the page itself; the next visit is served from IndexedDB', async () => {
  await env.reset();
  const bytes = await modelBytes('ppocr_v4_det');
  const seen = serve('/m/csp.onnx', bytes);
  const csp =
    "default-src 'self'; script-src 'self' 'unsafe-inline' blob: 'wasm-unsafe-eval'; " +
    "connect-src 'self' blob: data:; worker-src 'none'";
  const models = env.handler;
  env.handler = (req, res, ctx) => {
    if (ctx.pathname !== PAGE) return models(req, res, ctx);
    res.setHeader('Content-Security-Policy', csp);
    // never cached: a later page's revalidated copy (304) would keep this CSP and refuse its workers
    return ctx.serveFile(req, res, ctx.pathname, NOT_CACHED).then(() => true);
  };
  const page = await env.newPage();
  const r = await page.evaluate(async (ref) => {
    const refused = [];
    document.addEventListener('securitypolicyviolation', (e) => refused.push(e.effectiveDirective));
    const out = await window.check('/m/csp.onnx', 'ppocr_v4_det', { chunkSize: 1 << 20 }, ref);
    return { ...out, refused };
  }, DET);
  assert.deepEqual(r.diffs, [0, 0]);
  assert.equal(r.cache.stored, true, JSON.stringify(r.cache));
  assert.ok(r.refused.includes('worker-src'), `the store worker was refused: ${JSON.stringify(r.refused)}`);
  const again = await page.evaluate(() => window.tryLoad('/m/csp.onnx'));
  assert.equal(again.cache.tier, 'indexeddb', JSON.stringify(again));
  assert.equal(seen.length, 1);
  await page.close();
});

/**
 * Loads det from `url` in a fresh page whose workers crash (terminated, an
 * error event, as a worker that ran out of memory) `when`: 'start', on the
 * first message each is sent (before it arrives); 'store', when ortkeep's
 * store worker is sent its first chunk to store (the reply then never comes). Each worker's kind is
 * read from its source (the store worker's handles 'pieces'), so the test
 * knows the store worker was the one that crashed.
 */
async function loadWithWorkersCrashing(url, when) {
  const bytes = await modelBytes('ppocr_v4_det');
  const seen = serve(url, bytes);
  const page = await env.newPage();
  const r = await page.evaluate(
    async ({ url, when, ref }) => {
      const Real = window.Worker;
      const realCreate = URL.createObjectURL;
      const blobs = new Map(); // blob: URL -> its Blob (ortkeep's workers start from source text)
      URL.createObjectURL = (b) => {
        const u = realCreate.call(URL, b);
        blobs.set(u, b);
        return u;
      };
      const kinds = [];
      const crashed = [];
      const storesSent = [];
      const posted = []; // every message's type, in order (the failure's account)
      window.Worker = class extends Real {
        constructor(src, ...rest) {
          super(src, ...rest);
          const kind = blobs
            .get(String(src))
            ?.text()
            .then((t) => (t.includes("'pieces'") ? 'store' : 'other'));
          kinds.push(kind);
          const crash = async () => {
            this.terminate();
            this.dispatchEvent(new Event('error', { cancelable: true }));
            crashed.push(await kind);
          };
          let sent = 0;
          // every chunk's store sent to a worker is counted; the message that
          // crashes it never arrives ('start': its first of any kind, so no
          // work reached it; 'store': the first chunk's store)
          this.postMessage = (m, t) => {
            posted.push(m?.t);
            if (m?.t === 'store') storesSent.push(m.chunk);
            if (when === 'start' && ++sent === 1) return crash();
            if (when === 'store' && m?.t === 'store' && storesSent.length === 1) return crash();
            return super.postMessage(m, t);
          };
        }
      };
      try {
        const out = await window.check(url, 'ppocr_v4_det', { chunkSize: 1 << 20 }, ref);
        return { ...out, kinds: await Promise.all(kinds), crashed, storesSent, posted };
      } finally {
        window.Worker = Real;
        URL.createObjectURL = realCreate;
      }
    },
    { url, when, ref: DET },
  );
  assert.deepEqual(r.diffs, [0, 0]);
  assert.equal(r.cache.stored, true, JSON.stringify(r.cache));
  const dump = await page.evaluate(() => window.raw.dump());
  assert.equal(dump.index.length, 1, JSON.stringify(dump));
  assert.equal(dump.chunks.length, 5, JSON.stringify(dump.chunks));
  const again = await page.evaluate((u) => window.tryLoad(u), url);
  assert.equal(again.cache.tier, 'indexeddb', JSON.stringify(again));
  assert.equal(seen.length, 1, 'one download: the crash cost no request');
  await page.close();
  return r;
}

test("ortkeep's workers crash before their first message arrives, mid-download: the page stores every chunk itself; the model whole, one entry, served from IndexedDB next, one request", async () => {
  await env.reset();
  const r = await loadWithWorkersCrashing('/m/worker-gone.onnx', 'start');
  assert.ok(r.crashed.includes('store'), `the download started the store worker, and it crashed: ${JSON.stringify(r)}`);
  assert.deepEqual(r.storesSent, [], 'no chunk went to the crashed worker');
});

test("the store worker crashes with a chunk's store sent and unanswered: the page stores that chunk and the rest itself; the model whole, one entry, served from IndexedDB next, one request", async () => {
  await env.reset();
  const r = await loadWithWorkersCrashing('/m/worker-gone-mid-store.onnx', 'store');
  assert.deepEqual(r.crashed, ['store'], JSON.stringify(r));
  assert.equal(r.storesSent.length, 1, 'one store went to the worker, then none (it is gone)');
});
