// External data files cached with their model, in Chromium with a
// persistent profile (tests/fixtures/make_external_models.py: one.onnx + one
// data file, two.onnx + two data files, one in a subfolder; stored in 4 KiB
// chunks so each file spans many): discovered with no option and stored as
// one group, the second load (after a browser restart) reads every file with
// zero requests; onnxruntime-web's own externalData option with URLs; a data
// file cut mid-download resumes by range, that file only; a rotten stored
// data chunk is refetched (that file only) and never served; room for the
// model but not its data stores nothing; delete takes the files.
// Outputs equal onnxruntime-web given the same files.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { before, test } from 'node:test';
import { REPO_ROOT } from '../../scripts/static-server.mjs';
import { cutOnceHeld, serving, useCacheBrowser } from './cache-env.mjs';

const DIR = path.join(REPO_ROOT, 'build/fixtures/ext');
const BASE = '/build/fixtures/ext';
const FILES = { one: ['one.onnx_data'], two: ['two.onnx_data', 'shards/two_b.bin'], fold: ['fold.onnx_data'] };
// served as real servers do: the model and `.bin` files chunked (no
// Content-Length), the `.onnx_data` files gzipped as they stream with a weak
// ETag (vite preview, many CDNs); the resume and quota tests answer
// themselves
const env = useCacheBrowser({
  files: (pathname) =>
    !pathname.startsWith(`${BASE}/`)
      ? {}
      : pathname.endsWith('.onnx_data')
        ? { encoding: 'gzip', weakEtag: true }
        : { chunked: true },
});

before(() => {
  if (!existsSync(path.join(DIR, 'fold.onnx')))
    execFileSync('/usr/bin/python3', [path.join(REPO_ROOT, 'tests/fixtures/make_external_models.py'), DIR]);
});

/** Requests the server saw for a model and each of its files. */
const counts = (name, base = BASE) =>
  [`${base}/${name}.onnx`, ...FILES[name].map((f) => `${base}/${f}`)].map((p) => env.server.count(p));

/** load() through ortkeep, then onnxruntime-web on the same files by URL; outputs of two inputs each. */
function loadAndCompare(page, url, files, options = {}) {
  return page.evaluate(
    async ({ url, files, options }) => {
      const { ortkeep, ortDirect: ort } = window;
      const warnings = [];
      const progress = new Set();
      const xs = [0.5, -0.25].map(
        (v) =>
          new ort.Tensor(
            'float32',
            Float32Array.from({ length: 64 }, (_, i) => v + i / 64),
            [1, 64],
          ),
      );
      try {
        const s = await ortkeep.load(url, {
          ort,
          chunkSize: 4096,
          memory: false,
          ...options,
          onWarning: (w) => warnings.push(w.code),
          onProgress: (p) => {
            if (!p.file) return;
            progress.add(p.file);
            // what ortkeep has taken in of each file, for a test to act on mid-download
            if (p.phase === 'download') window.downloaded = { ...window.downloaded, [p.file]: p.loaded };
          },
        });
        const ours = [];
        for (const x of xs) ours.push(Array.from((await s.run({ x })).y.data));
        const info = { cache: s.info.cache, warnings: s.info.warnings };
        const form = s.info.form;
        const formsReady = await s.formsReady;
        await s.dispose();
        return {
          ok: true,
          ours,
          info,
          warnings,
          files: [...progress],
          form,
          stored: formsReady.stored,
          failed: formsReady.failed,
        };
      } catch (e) {
        return { ok: false, code: e.code, message: e.message, details: e.details, warnings };
      }
    },
    { url, files, options },
  );
}

function reference(page, url, files) {
  return page.evaluate(
    async ({ url, files }) => {
      const ort = window.ortDirect;
      const xs = [0.5, -0.25].map(
        (v) =>
          new ort.Tensor(
            'float32',
            Float32Array.from({ length: 64 }, (_, i) => v + i / 64),
            [1, 64],
          ),
      );
      const s = await ort.InferenceSession.create(url, {
        externalData: files.map((f) => ({ path: f, data: new URL(f, new URL(url, location.href)).href })),
      });
      const out = [];
      for (const x of xs) out.push(Array.from((await s.run({ x })).y.data));
      await s.release();
      return out;
    },
    { url, files },
  );
}

for (const name of ['one', 'two']) {
  test(`${name} data file(s) discovered with no option: stored with the model, read back after a restart with zero requests for every file`, async () => {
    await env.reset();
    const url = `${BASE}/${name}.onnx`;
    let page = await env.newPage();
    const cold = await loadAndCompare(page, url, FILES[name]);
    assert.equal(cold.ok, true, `${cold.code}: ${cold.message}`);
    assert.deepEqual(counts(name), [1, ...FILES[name].map(() => 1)]);
    assert.equal(cold.info.cache.tier, 'network');
    assert.equal(cold.info.cache.stored, true);
    assert.deepEqual(cold.files.sort(), [...FILES[name]].sort(), 'progress names each data file');
    const theirs = await reference(page, url, FILES[name]);
    assert.deepEqual(cold.ours, theirs);
    const served = await page.evaluate(
      async (u) =>
        Promise.all(
          u.map(async (x) => {
            const r = await fetch(x, { cache: 'no-store' });
            await r.arrayBuffer();
            return [
              r.headers.get('content-encoding'),
              r.headers.get('content-length'),
              r.headers.get('etag')?.startsWith('W/'),
            ];
          }),
        ),
      [url, `${BASE}/${FILES[name][0]}`],
    );
    assert.deepEqual(
      served,
      [
        [null, null, false],
        ['gzip', null, true],
      ],
      'the model came chunked, the data file gzipped with a weak ETag',
    );
    const list = await page.evaluate(() => window.ortkeep.cache.list());
    assert.equal(list.length, 1, JSON.stringify(list));
    assert.deepEqual(
      list[0].dataFiles.map((f) => [f.path, f.bytes]).sort(),
      FILES[name].map((f) => [f, readFileSync(path.join(DIR, f)).length]).sort(),
    );
    await page.close();

    await env.restart();
    env.server.resetCounts();
    page = await env.newPage();
    const warm = await loadAndCompare(page, url, FILES[name]);
    assert.equal(warm.ok, true, `${warm.code}: ${warm.message}`);
    assert.deepEqual(counts(name), [0, ...FILES[name].map(() => 0)], 'no request for the model or any data file');
    assert.equal(warm.info.cache.tier, 'indexeddb');
    assert.deepEqual(warm.ours, theirs);
    assert.deepEqual(warm.warnings, []);

    // delete takes the files with the model: nothing left in any store
    assert.equal(await page.evaluate((u) => window.ortkeep.cache.delete(u), url), true);
    const dump = await page.evaluate(() => window.raw.dump());
    assert.deepEqual([dump.index.length, dump.meta.length, dump.chunks.length], [0, 0, 0]);
    await page.close();
  });
}

test("onnxruntime-web's own externalData option with a URL: fetched and cached like a discovered file", async () => {
  await env.reset();
  const url = `${BASE}/one.onnx`;
  const option = { sessionOptions: { externalData: [{ path: 'one.onnx_data', data: `${BASE}/one.onnx_data` }] } };
  const page = await env.newPage();
  const cold = await loadAndCompare(page, url, FILES.one, option);
  assert.equal(cold.ok, true, `${cold.code}: ${cold.message}`);
  env.server.resetCounts();
  const warm = await loadAndCompare(page, url, FILES.one, option);
  assert.equal(warm.ok, true, `${warm.code}: ${warm.message}`);
  assert.deepEqual(counts('one'), [0, 0]);
  assert.deepEqual(warm.ours, await reference(page, url, FILES.one));
  await page.close();
});

test('a data file cut mid-download resumes by range, that file only; the second load is all from IndexedDB', async () => {
  await env.reset();
  const bytes = readFileSync(path.join(DIR, 'two.onnx_data'));
  // the first answer stops halfway and is cut once ortkeep has taken in
  // those bytes: a browser may drop bytes still in flight when a connection
  // breaks, and what never arrived cannot be resumed from
  const half = cutOnceHeld(Math.floor(bytes.length / 2));
  const s = serving(`${BASE}/two.onnx_data`, bytes, (n) => ({
    etag: '"d1"',
    ...(n === 1 ? half.options : {}),
  }));
  env.handler = s.handler;
  const page = await env.newPage();
  await page.evaluate(() => {
    window.downloaded = {};
  });
  const loading = loadAndCompare(page, `${BASE}/two.onnx`, FILES.two);
  await half.cut(page, () => window.downloaded['two.onnx_data']);
  const cold = await loading;
  assert.equal(cold.ok, true, `${cold.code}: ${cold.message}`);
  assert.ok(cold.warnings.includes('RESUMING'), JSON.stringify(cold.warnings));
  assert.equal(s.seen.length, 2);
  assert.match(s.seen[1].range, /^bytes=\d+-$/);
  assert.ok(Number(/\d+/.exec(s.seen[1].range)[0]) > 0);
  assert.deepEqual(
    counts('two').filter((_, i) => i !== 1),
    [1, 1],
    'the model and the other file: one request each',
  );
  assert.deepEqual(cold.ours, await reference(page, `${BASE}/two.onnx`, FILES.two));
  env.server.resetCounts();
  s.seen.length = 0;
  const warm = await loadAndCompare(page, `${BASE}/two.onnx`, FILES.two);
  assert.equal(warm.info.cache.tier, 'indexeddb');
  assert.equal(s.seen.length, 0);
  assert.deepEqual(
    counts('two').filter((_, i) => i !== 1),
    [0, 0],
  );
  await page.close();
});

test('a rotten stored data chunk is detected, that file alone refetched, never served', async () => {
  await env.reset();
  const url = `${BASE}/two.onnx`;
  let page = await env.newPage();
  const cold = await loadAndCompare(page, url, FILES.two);
  assert.equal(cold.ok, true, `${cold.code}: ${cold.message}`);
  const theirs = await reference(page, url, FILES.two);
  // the entries' names follow their creation: the model, then its files in order
  const flipped = await page.evaluate(() => window.raw.flip(5, 1000, 1));
  assert.ok(flipped);
  await page.close();
  env.server.resetCounts();
  page = await env.newPage();
  const warm = await loadAndCompare(page, url, FILES.two);
  assert.equal(warm.ok, true, `${warm.code}: ${warm.message}`);
  assert.ok(warm.warnings.includes('CORRUPT'), JSON.stringify(warm.warnings));
  assert.deepEqual(counts('two'), [0, 1, 0], 'only the rotten file is fetched again');
  assert.deepEqual(warm.ours, theirs);
  env.server.resetCounts();
  const again = await loadAndCompare(page, url, FILES.two);
  assert.deepEqual(counts('two'), [0, 0, 0]);
  assert.deepEqual(again.warnings, []);
  await page.close();
});

/** Serves the fixtures under `base` with Content-Length and a strong ETag (as a plain static server does). */
function serveWithLength(base) {
  env.handler = (req, res, { pathname, serveBytes }) => {
    if (!pathname.startsWith(`${base}/`)) return false;
    serveBytes(req, res, readFileSync(path.join(DIR, pathname.slice(base.length + 1))), {
      etag: `"${pathname.length}"`,
    });
    return true;
  };
}

test('room for the model but not its data: served, QUOTA, nothing of it stored', async () => {
  await env.reset();
  serveWithLength('/q');
  const page = await env.newPage();
  // The cache's byte budget, not the origin's quota: navigator.storage.estimate()
  // lags a cleared database by seconds here, so a quota override is a race;
  // the budget goes through the same eviction plan (and the C tests drive
  // the quota itself, also a write that fails with QuotaExceededError).
  await page.evaluate(() => window.ortkeep.cache._configure({ budget: 20000 }));
  try {
    const r = await loadAndCompare(page, '/q/two.onnx', FILES.two);
    assert.equal(r.ok, true, `${r.code}: ${r.message}`);
    assert.ok(r.warnings.includes('QUOTA'), JSON.stringify(r.warnings));
    assert.deepEqual(counts('two', '/q'), [1, 1, 1]);
    assert.equal(r.info.cache.stored, false);
    assert.deepEqual(r.ours, await reference(page, '/q/two.onnx', FILES.two));
    const dump = await page.evaluate(() => window.raw.dump());
    assert.deepEqual([dump.index.length, dump.meta.length, dump.chunks.length], [0, 0, 0], JSON.stringify(dump));
  } finally {
    await page.evaluate(() => window.ortkeep.cache._configure({ budget: 0 }));
    await page.close();
  }
});

test('a data file answered by an SPA fallback (200 text/html) is EXTERNAL_DATA naming the file; nothing committed', async () => {
  await env.reset();
  env.handler = (req, res, { pathname, serveBytes }) => {
    if (pathname !== '/spa/one.onnx_data') return false;
    serveBytes(req, res, Buffer.from('<!doctype html><title>app</title>'), { html: true });
    return true;
  };
  const model = readFileSync(path.join(DIR, 'one.onnx'));
  const inner = env.handler;
  env.handler = (req, res, ctx) => {
    if (ctx.pathname === '/spa/one.onnx') {
      ctx.serveBytes(req, res, model, { etag: '"m"' });
      return true;
    }
    return inner(req, res, ctx);
  };
  const page = await env.newPage();
  const r = await loadAndCompare(page, '/spa/one.onnx', FILES.one);
  assert.equal(r.ok, false);
  assert.equal(r.code, 'EXTERNAL_DATA', r.message);
  assert.match(r.message, /one\.onnx_data/);
  assert.match(r.message, /HTML/);
  const list = await page.evaluate(() => window.ortkeep.cache.list());
  assert.deepEqual(list, []);
  await page.close();
});

test("forms: onnxruntime's optimized .onnx of such a model reads the original's data files; verified, then served from IndexedDB after a restart with no request", async () => {
  await env.reset();
  const url = `${BASE}/fold.onnx`;
  let page = await env.newPage();
  const cold = await loadAndCompare(page, url, FILES.fold, { forms: true });
  assert.equal(cold.ok, true, `${cold.code}: ${cold.message}`);
  assert.equal(cold.form.capturing, 'onnx');
  assert.equal(cold.stored, 'onnx', JSON.stringify(cold.failed)); // no .ort: the ORT format has no external data
  const theirs = await reference(page, url, FILES.fold);
  await page.close();
  await env.restart();
  env.server.resetCounts();
  page = await env.newPage();
  const warm = await loadAndCompare(page, url, FILES.fold, { forms: true });
  assert.equal(warm.ok, true, `${warm.code}: ${warm.message}`);
  assert.deepEqual(
    { form: warm.form.form, level: warm.form.level, chosen: warm.form.chosen },
    { form: 'onnx', level: 'disabled', chosen: 'verified' },
  );
  assert.equal(warm.info.cache.tier, 'indexeddb');
  assert.deepEqual(counts('fold'), [0, 0], 'no request for the model or its data file');
  const diff = Math.max(...warm.ours.flat().map((v, i) => Math.abs(v - theirs.flat()[i])));
  assert.ok(diff < 1e-4, `max abs diff ${diff}`); // folding reorders float sums
  await page.close();
});

test('a data file on a CORS-only CDN (preflights refused, headers hidden), named by the externalData option: cached, then read with no request', async () => {
  await env.reset();
  const url = `${BASE}/one.onnx`;
  const data = `${env.cdn.origin}${BASE}/one.onnx_data`;
  const option = { sessionOptions: { externalData: [{ path: 'one.onnx_data', data }] } };
  const page = await env.newPage();
  const cold = await loadAndCompare(page, url, FILES.one, option);
  assert.equal(cold.ok, true, `${cold.code}: ${cold.message}`);
  assert.equal(cold.info.cache.stored, true);
  assert.equal(env.cdn.count(`${BASE}/one.onnx_data`), 1);
  const warm = await loadAndCompare(page, url, FILES.one, option);
  assert.equal(warm.info.cache.tier, 'indexeddb');
  assert.equal(env.cdn.count(`${BASE}/one.onnx_data`), 1, 'the data file came from IndexedDB');
  assert.deepEqual(warm.ours, await reference(page, url, FILES.one));
  await page.close();
});

test('a tab killed after each transaction of a cold load with two data files: never a model without its files; the next page loads right and leaves one whole group', async () => {
  const url = `${BASE}/two.onnx`;
  const chunkSize = 16384;
  const sizes = [url, ...FILES.two.map((f) => `${BASE}/${f}`)].map((p) => readFileSync(path.join(REPO_ROOT, p)).length);
  const wholeChunks = sizes.reduce((n, b) => n + Math.ceil(b / chunkSize), 0);
  let crashes = 0;
  for (let n = 1; n < 40; n++) {
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
    const loading = page
      .evaluate(([u, o]) => window.tryLoad(u, o), [url, { chunkSize, memory: false }])
      .catch(() => null);
    let poll;
    let stuck;
    const done = await Promise.race([
      loading.then(() => 'finished'),
      new Promise((resolve) => {
        poll = setInterval(() => {
          if (crashed) resolve('crashed');
        }, 10);
      }),
      // a load that neither finishes nor reaches its crash fails here, never hangs the run
      // (once, in a fresh clone's full run on a busy machine, this loop never ended; not seen since)
      new Promise((resolve) => {
        stuck = setTimeout(() => resolve('stuck'), 120_000);
      }),
    ]);
    clearInterval(poll);
    clearTimeout(stuck);
    const writes = await Promise.race([
      page.evaluate(() => window.faults.log.slice()).catch(() => []),
      new Promise((resolve) => setTimeout(() => resolve(['(the page did not answer)']), 10_000)),
    ]);
    assert.notEqual(
      done,
      'stuck',
      `write ${n}: the load neither finished nor crashed in 120 s (${JSON.stringify(writes)})`,
    );
    await page.close({ runBeforeUnload: false });
    if (done === 'finished') {
      // the model and its two files commit in ONE transaction
      assert.equal(writes.filter((w) => w === 'committing a model').length, 1, JSON.stringify(writes));
      break;
    }
    crashes++;
    const next = await env.newPage();
    // what the killed tab left: a committed model always has both files
    const left = await next.evaluate(() => window.ortkeep.cache.list());
    for (const e of left)
      assert.equal(e.dataFiles?.length, 2, `after write ${n} (${crashed.what}): ${JSON.stringify(left)}`);
    const r = await loadAndCompare(next, url, FILES.two, { chunkSize });
    assert.equal(r.ok, true, `after write ${n} (${crashed.what}): ${r.code}: ${r.message}`);
    assert.deepEqual(r.ours, await reference(next, url, FILES.two));
    const list = await next.evaluate(() => window.ortkeep.cache.list());
    assert.equal(list.length, 1);
    assert.equal(list[0].dataFiles.length, 2);
    const dump = await next.evaluate(() => window.raw.dump());
    assert.deepEqual(
      [dump.index.length, dump.meta.length, dump.chunks.length],
      [3, 1, wholeChunks],
      `after write ${n}: ${JSON.stringify(dump)}`,
    );
    await next.close();
  }
  assert.ok(crashes >= 8, `crashed after ${crashes} transactions`);
});
