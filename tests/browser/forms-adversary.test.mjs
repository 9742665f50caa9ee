// Optimized forms tried as an adversary would (issue 19), in Chromium with a
// persistent profile, the real IndexedDB and onnxruntime-web, against plain
// onnxruntime-web on the same bytes and inputs. Models from
// tests/fixtures/make_adversary_models.py: each folds a chain of constants,
// so its .onnx form creates clearly faster and is kept once it verifies.
//   - a data file changes on the server while the model file stays
//     byte-identical: the old form (the weight folded inline) is never
//     served again, the outputs follow the new data; and cache: 'no-cache'
//     revalidates that data file too, not only the model file;
//   - that data file's stored copy rots too: it is fetched again under a
//     form chosen from the old bytes, which is retired before any session
//     is made of it (the original serves the new data, both visits);
//   - bytes with their data file handed as bytes (transformers.js): the
//     form is keyed by both, so other data under the same model bytes gets
//     its own form, never the old one;
//   - a form captured with freeDimensionOverrides {batch: 1} is never served
//     to loads with other overrides (or none): batch 3 runs;
//   - two pages loading one model at once: one verifies its form, the other
//     uses the verdict;
//   - with room for the original but not for it and its form (silero v5:
//     2.33 MB, its form 3.31 MB), the original stays and the form is skipped
//     with one QUOTA warning, where storing the form used to evict it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { before, test } from 'node:test';
import { REPO_ROOT } from '../../scripts/static-server.mjs';
import { modelPath, useCacheBrowser } from './cache-env.mjs';

const DIR = path.join(REPO_ROOT, 'build/fixtures/adversary');
const BASE = '/adv';
const env = useCacheBrowser();
/** What the server answers for each path under BASE: {bytes, etag}. */
const served = new Map();

before(() => {
  if (!existsSync(path.join(DIR, 'batch.onnx'))) {
    execFileSync('/usr/bin/python3', [path.join(REPO_ROOT, 'tests/fixtures/make_adversary_models.py'), DIR]);
  }
});

/** Serves `file` of the fixtures at BASE/`as` with a strong ETag of its version. */
function serve(as, file = as, version = 'v1') {
  served.set(`${BASE}/${as}`, { bytes: readFileSync(path.join(DIR, file)), etag: `"${file}-${version}"` });
  env.handler = (req, res, { pathname, serveBytes }) => {
    const s = served.get(pathname);
    if (!s) return false;
    serveBytes(req, res, s.bytes, { etag: s.etag });
    return true;
  };
}

/**
 * In the page: ortkeep.load(url, options) runs two inputs x [rows, 64];
 * then plain onnxruntime-web on the bytes the server holds now (fetched
 * with no-store, data files given as bytes) runs the same. Returns the
 * largest difference, the form info, what the background stored, the
 * warnings.
 */
function loadAndCompare(page, url, { options = {}, rows = 1, dataFiles = [] } = {}) {
  return page.evaluate(
    async ({ url, options, rows, dataFiles }) => {
      const { ortkeep, ortDirect: ort } = window;
      const warnings = [];
      const values = (v) => Float32Array.from({ length: rows * 64 }, (_, i) => v + (i % 97) / 64);
      const xs = [0.5, -0.25].map((v) => new ort.Tensor('float32', values(v), [rows, 64]));
      const bytes = async (u) => new Uint8Array(await (await fetch(u, { cache: 'no-store' })).arrayBuffer());
      // ortkeep first: the capturing loader must be in place before the page's first session
      let s;
      try {
        const onWarning = (w) => warnings.push(w.code);
        s = await ortkeep.load(url, { ort, memory: false, forms: true, ...options, onWarning });
      } catch (e) {
        return { ok: false, stage: 'load', code: e.code, message: e.message, warnings };
      }
      const ours = [];
      let error = null;
      try {
        for (const x of xs) ours.push((await s.run({ x })).y.data);
      } catch (e) {
        error = `${e.code ?? e.name}: ${e.message}`;
      }
      const refOptions = { ...options.sessionOptions };
      const near = (f) => new URL(f, new URL(url, location.href)).href;
      if (dataFiles.length) {
        const files = dataFiles.map(async (f) => ({ path: f, data: await bytes(near(f)) }));
        refOptions.externalData = await Promise.all(files);
      }
      const reference = await ort.InferenceSession.create(await bytes(url), refOptions);
      let diff = 0;
      for (const [i, x] of xs.entries()) {
        const theirs = (await reference.run({ x })).y.data;
        for (let j = 0; j < theirs.length && ours[i]; j++) diff = Math.max(diff, Math.abs(ours[i][j] - theirs[j]));
      }
      await reference.release();
      const background = await s.formsReady;
      const out = {
        ok: !error,
        error,
        diff,
        form: s.info.form,
        tier: s.info.cache.tier,
        stored: background.stored,
        failed: background.failed,
        warnings,
      };
      await s.dispose();
      return out;
    },
    { url, options, rows, dataFiles },
  );
}

/** foldw (a weight of its data file folded by the optimizer) loaded cold on a new page: stored with its `.onnx` form. */
async function coldFoldw() {
  await env.reset();
  const url = `${BASE}/foldw.onnx`;
  const data = ['foldw.onnx_data'];
  serve('foldw.onnx');
  serve('foldw.onnx_data');
  const page = await env.newPage();
  const cold = await loadAndCompare(page, url, { dataFiles: data });
  assert.equal(cold.ok, true, JSON.stringify(cold));
  assert.equal(cold.stored, 'onnx', JSON.stringify(cold.failed));
  return { url, data, page };
}

test('a data file changes under a byte-identical model: the form made from the old data is never served again; outputs follow the new data', async () => {
  const { url, data, page } = await coldFoldw();
  const warm = await loadAndCompare(page, url, { dataFiles: data });
  assert.equal(warm.form.chosen, 'verified');
  assert.ok(warm.diff < 1e-4, `the verified form differs from plain by ${warm.diff}`);

  // the server's data file changes; foldw.onnx is the same bytes
  serve('foldw.onnx_data', 'foldw_v2.onnx_data', 'v2');
  const reload = await loadAndCompare(page, url, { dataFiles: data, options: { cache: 'reload' } });
  assert.equal(reload.tier, 'network');
  assert.ok(reload.diff < 1e-4, `reload differs from plain by ${reload.diff}`);
  // the next visits: never the old form (it folded the old weight inline)
  const next = await loadAndCompare(page, url, { dataFiles: data });
  assert.equal(next.tier, 'indexeddb');
  assert.notEqual(next.form.chosen, 'verified', 'the form of the old data file was served');
  assert.ok(next.diff < 1e-4, `served outputs differ from plain on the new data by ${next.diff}`);
  assert.equal(next.stored, 'onnx', `a form of the new bytes is made: ${JSON.stringify(next.failed)}`);
  const after = await loadAndCompare(page, url, { dataFiles: data });
  assert.equal(after.form.chosen, 'verified');
  assert.ok(after.diff < 1e-4, `the new form differs from plain by ${after.diff}`);
  const forms = (await page.evaluate(() => window.ortkeep.cache.list())).filter((e) => e.form === 'onnx');
  assert.equal(forms.length, 1, 'the stale form was replaced, not kept beside');
  await page.close();
});

/**
 * Flips a byte of the first stored chunk of the data file whose key ends in `|data:<loc>` (a record rotten
 * at rest, behind ortkeep's back): its checksum fails on the next read. Returns the entry's name.
 */
function rotDataFile(page, loc) {
  return page.evaluate(async (loc) => {
    const req = (r) =>
      new Promise((resolve, reject) => {
        r.onsuccess = () => resolve(r.result);
        r.onerror = () => reject(r.error);
      });
    const bytesOf = async (v) => new Uint8Array(v instanceof Blob ? await v.arrayBuffer() : v.slice(0));
    const d = await req(indexedDB.open('ortkeep-cache'));
    try {
      const names = await req(d.transaction('index').objectStore('index').getAllKeys());
      for (const name of names) {
        const manifest = await bytesOf(await req(d.transaction('index').objectStore('index').get(name)));
        if (!new TextDecoder('latin1').decode(manifest).includes(`|data:${loc}`)) continue;
        const v = await req(d.transaction('chunks').objectStore('chunks').get([name, 0]));
        const bytes = await bytesOf(v);
        bytes[100] ^= 0x5a;
        const tx = d.transaction('chunks', 'readwrite');
        tx.objectStore('chunks').put(v instanceof Blob ? new Blob([bytes]) : bytes.buffer, [name, 0]);
        await new Promise((resolve, reject) => {
          tx.oncomplete = resolve;
          tx.onerror = () => reject(tx.error);
        });
        return name;
      }
      return null;
    } finally {
      d.close();
    }
  }, loc);
}

test('a rotten chunk of a data file that changed on the server: the data file is fetched again and the form made from the old data is retired before any session; outputs follow the new data both visits', async () => {
  const cold = await coldFoldw();
  const { url, data } = cold;
  let { page } = cold;
  // the server's data file changes (foldw.onnx is the same bytes) and the stored copy of the old one rots
  serve('foldw.onnx_data', 'foldw_v2.onnx_data', 'v2');
  assert.ok(await rotDataFile(page, 'foldw.onnx_data'), 'no stored data file to rot');
  await page.close();
  page = await env.newPage();
  const second = await loadAndCompare(page, url, { dataFiles: data });
  assert.equal(second.ok, true, JSON.stringify(second));
  assert.ok(second.warnings.includes('CORRUPT'), JSON.stringify(second.warnings));
  assert.ok(second.diff < 1e-4, `served outputs differ from plain on the new data by ${second.diff}`);
  assert.notEqual(second.form.chosen, 'verified', 'the form of the old data file was served');
  const third = await loadAndCompare(page, url, { dataFiles: data });
  assert.equal(third.ok, true, JSON.stringify(third));
  assert.equal(third.tier, 'indexeddb');
  assert.ok(third.diff < 1e-4, `served outputs differ from plain on the new data by ${third.diff}`);
  // forms are captured again, of the new bytes
  const fourth = await loadAndCompare(page, url, { dataFiles: data });
  assert.equal(fourth.form.chosen, 'verified', JSON.stringify(fourth.form));
  assert.ok(fourth.diff < 1e-4, `the new form differs from plain by ${fourth.diff}`);
  await page.close();
});

test("forms on, cache: 'no-cache' finds the data file changed: no form serves that load, and the old form never serves after", async () => {
  await env.reset();
  const url = `${BASE}/foldw.onnx`;
  const data = ['foldw.onnx_data'];
  serve('foldw.onnx');
  serve('foldw.onnx_data');
  const page = await env.newPage();
  const cold = await loadAndCompare(page, url, { dataFiles: data });
  assert.equal(cold.stored, 'onnx', JSON.stringify(cold.failed));
  serve('foldw.onnx_data', 'foldw_v2.onnx_data', 'v2');
  const revalidated = await loadAndCompare(page, url, { dataFiles: data, options: { cache: 'no-cache' } });
  assert.equal(revalidated.ok, true, JSON.stringify(revalidated));
  assert.ok(revalidated.diff < 1e-4, `served outputs differ from plain on the new data by ${revalidated.diff}`);
  assert.notEqual(revalidated.form.chosen, 'verified', 'the form of the old data file was served');
  const next = await loadAndCompare(page, url, { dataFiles: data });
  assert.equal(next.tier, 'indexeddb');
  assert.ok(next.diff < 1e-4, `served outputs differ from plain on the new data by ${next.diff}`);
  await page.close();
});

test('bytes with their data file handed as bytes (as transformers.js hands them): a form bound to both serves the second load; other data under byte-identical model bytes never gets it', async () => {
  await env.reset();
  serve('foldw.onnx');
  serve('foldw.onnx_data');
  serve('foldw_v2.onnx_data');
  const page = await env.newPage();
  const r = await page.evaluate(async (base) => {
    const { ortkeep, ortDirect: ort } = window;
    const bytes = async (u) => new Uint8Array(await (await fetch(u, { cache: 'no-store' })).arrayBuffer());
    const x = new ort.Tensor(
      'float32',
      Float32Array.from({ length: 64 }, (_, i) => 0.5 + i / 64),
      [1, 64],
    );
    // each load gets fresh copies, as a library reading them again would
    const visit = async (dataFile) => {
      const model = await bytes(`${base}/foldw.onnx`);
      const externalData = [{ path: 'foldw.onnx_data', data: await bytes(`${base}/${dataFile}`) }];
      const s = await ortkeep.load(model, { ort, memory: false, forms: true, externalData });
      const ours = (await s.run({ x })).y.data;
      const plain = await ort.InferenceSession.create(await bytes(`${base}/foldw.onnx`), {
        externalData: [{ path: 'foldw.onnx_data', data: await bytes(`${base}/${dataFile}`) }],
      });
      const theirs = (await plain.run({ x })).y.data;
      await plain.release();
      const diff = theirs.reduce((d, v, i) => Math.max(d, Math.abs(v - ours[i])), 0);
      const out = {
        diff,
        ours: Array.from(ours),
        form: s.info.form,
        source: s.info.source,
        background: await s.formsReady,
      };
      await s.dispose();
      const modelSha = Array.from(new Uint8Array(await crypto.subtle.digest('SHA-256', model)), (b) =>
        b.toString(16).padStart(2, '0'),
      ).join('');
      return { ...out, modelSha };
    };
    const visits = [];
    for (const f of [
      'foldw.onnx_data',
      'foldw.onnx_data',
      'foldw_v2.onnx_data',
      'foldw_v2.onnx_data',
      'foldw.onnx_data',
    ])
      visits.push(await visit(f));
    // the same model bytes with the v2 data as a Blob (not named): no form of them serves, none is made
    const model = await bytes(`${base}/foldw.onnx`);
    const blob = new Blob([await bytes(`${base}/foldw_v2.onnx_data`)]);
    const s = await ortkeep.load(model, {
      ort,
      memory: false,
      forms: true,
      externalData: [{ path: 'foldw.onnx_data', data: blob }],
    });
    const ours = (await s.run({ x })).y.data;
    const asBlob = { form: s.info.form, same: ours.every((v, k) => Math.abs(v - visits[3].ours[k]) < 1e-4) };
    await s.dispose();
    return { visits, asBlob, keys: (await ortkeep.cache.list()).map((e) => ({ key: e.key, form: e.form })) };
  }, BASE);
  const [cold, warm, other, otherWarm, back] = r.visits;
  for (const [i, v] of r.visits.entries()) assert.ok(v.diff < 1e-4, `visit ${i} differs from plain by ${v.diff}`);
  assert.equal(cold.form.chosen, 'capturing', JSON.stringify(cold.form));
  assert.equal(cold.background.stored, 'onnx', JSON.stringify(cold.background));
  assert.equal(warm.form.chosen, 'verified', JSON.stringify(warm.form));
  assert.equal(warm.form.level, 'disabled');
  assert.equal(warm.source.sha256, warm.modelSha, "the source's SHA-256 is the model's own");
  // the model bytes are the same; the data is not: the first form (its weight folded inline) is not theirs
  assert.notEqual(other.form.chosen, 'verified', 'the form of the other data file was served');
  assert.equal(other.background.stored, 'onnx', JSON.stringify(other.background));
  assert.equal(otherWarm.form.chosen, 'verified');
  assert.equal(back.form.chosen, 'verified', 'each data file keeps its own form');
  assert.equal(r.asBlob.form.chosen, 'off', JSON.stringify(r.asBlob.form));
  assert.equal(r.asBlob.same, true, 'data as a Blob: the outputs of that data');
  const forms = r.keys.filter((e) => e.form === 'onnx');
  assert.equal(forms.length, 2, JSON.stringify(r.keys));
  assert.ok(
    forms.every((e) => e.key.startsWith('sha256:') && !e.key.startsWith(`sha256:${cold.modelSha}|`)),
    `keyed by the model and its data together, not the model alone: ${JSON.stringify(r.keys)}`,
  );
  assert.ok(
    r.keys.every((e) => e.form !== 'original'),
    'the bytes themselves are never stored',
  );
  await page.close();
});

test('a form of bytes counts every load it serves (hits, lastUsed, stored); under a tight budget the form in use outlives an unused one', async () => {
  await env.reset();
  serve('batch.onnx');
  const url = `${BASE}/batch.onnx`;
  /** load(bytes) with forms in `page`: which form served, what the background stored. */
  const visit = (page, options = {}) =>
    page.evaluate(
      async ({ url, options }) => {
        const { ortkeep, ortDirect: ort } = window;
        const model = new Uint8Array(await (await fetch(url, { cache: 'no-store' })).arrayBuffer());
        const s = await ortkeep.load(model, { ort, memory: false, forms: true, ...options });
        const out = { chosen: s.info.form.chosen, stored: (await s.formsReady).stored };
        await s.dispose();
        return out;
      },
      { url, options },
    );
  // a fresh page each time: what cache.list() shows is what IndexedDB holds
  const listed = async () => {
    const page = await env.newPage();
    const list = await page.evaluate(() => window.ortkeep.cache.list());
    await page.close();
    return list.filter((e) => e.form === 'ort');
  };
  const page = await env.newPage();
  const used = await visit(page);
  assert.equal(used.stored, 'ort', JSON.stringify(used));
  const unusedOptions = { sessionOptions: { freeDimensionOverrides: { batch: 1 } } };
  const unused = await visit(page, unusedOptions);
  assert.equal(unused.stored, 'ort', JSON.stringify(unused));
  const made = await listed();
  assert.equal(made.length, 2, JSON.stringify(made));
  // the overrides are in the unused form's context (;opts=), not in the used one's
  const before = made.find((e) => !e.key.includes(';opts='));
  assert.ok(before && made.some((e) => e.key.includes(';opts=')), JSON.stringify(made.map((e) => e.key)));
  const usedKey = before.key;
  assert.equal(before.hits, 0);
  const lastUsed = [];
  for (let i = 0; i < 2; i++) {
    const warm = await visit(page);
    assert.equal(warm.chosen, 'verified', JSON.stringify(warm));
    lastUsed.push((await listed()).find((e) => e.key === usedKey));
  }
  assert.equal(lastUsed[0].hits, 1, JSON.stringify(lastUsed));
  assert.equal(lastUsed[1].hits, 2, JSON.stringify(lastUsed));
  assert.ok(lastUsed[0].lastUsed > before.lastUsed, JSON.stringify([before, lastUsed]));
  assert.ok(lastUsed[1].lastUsed > lastUsed[0].lastUsed, JSON.stringify(lastUsed));
  const other = (await listed()).find((e) => e.key !== usedKey);
  assert.equal(other.hits, 0, 'the form made with other options served nothing');
  await page.close();

  // Room for one form beside the original of another load: the form in use
  // stays, the unused one (made after it) goes.
  const fresh = await env.newPage();
  const all = await fresh.evaluate(() => window.ortkeep.cache.list());
  const held = all.reduce((n, e) => n + e.bytes, 0);
  const modelSize = served.get(url).bytes.length;
  await fresh.evaluate((budget) => window.ortkeep.cache._configure({ budget }), held + modelSize - 1);
  try {
    const r = await fresh.evaluate(async (u) => {
      const s = await window.ortkeep.load(u, { ort: window.ortDirect, memory: false, forms: false });
      const { tier, stored } = s.info.cache;
      await s.cacheSettled;
      await s.dispose();
      return { tier, stored, list: await window.ortkeep.cache.list() };
    }, url);
    assert.equal(r.tier, 'network');
    const kept = r.list.filter((e) => e.form === 'ort').map((e) => e.key);
    assert.deepEqual(kept, [usedKey], JSON.stringify(r.list.map((e) => [e.key, e.form, e.lastUsed, e.hits])));
  } finally {
    await fresh.evaluate(() => window.ortkeep.cache._configure({ budget: 0 }));
  }
  await fresh.close();
});

test('a form captured with freeDimensionOverrides {batch: 1} is never served to a load without them or with batch 3', async () => {
  await env.reset();
  const url = `${BASE}/batch.onnx`;
  serve('batch.onnx');
  const page = await env.newPage();
  if (process.env.ORTKEEP_PAGE_LOG) page.on('console', (m) => console.log(`[page ${m.type()}] ${m.text()}`));
  const one = { sessionOptions: { freeDimensionOverrides: { batch: 1 } } };
  const cold = await loadAndCompare(page, url, { options: one });
  assert.equal(cold.ok, true, JSON.stringify(cold));
  assert.equal(cold.stored, 'ort', JSON.stringify(cold));
  const warm = await loadAndCompare(page, url, { options: one });
  assert.equal(warm.form.chosen, 'verified', 'the batch-1 loads get their form');
  assert.ok(warm.diff < 1e-4, `the form differs from plain by ${warm.diff}`);

  const none = await loadAndCompare(page, url, { rows: 3 });
  assert.equal(none.ok, true, none.error);
  assert.notEqual(none.form.chosen, 'verified', 'no form of its own yet: the batch-1 form was served');
  assert.ok(none.diff < 1e-4, `differs from plain by ${none.diff}`);
  const batch3 = { sessionOptions: { freeDimensionOverrides: { batch: 3 } } };
  const three = await loadAndCompare(page, url, { rows: 3, options: batch3 });
  assert.equal(three.ok, true, three.error);
  assert.notEqual(three.form.chosen, 'verified');
  assert.ok(three.diff < 1e-4, `differs from plain by ${three.diff}`);
  // each set of options keeps its own form
  const forms = (await page.evaluate(() => window.ortkeep.cache.list())).filter((e) => e.form === 'ort');
  assert.equal(new Set(forms.map((f) => f.key)).size, forms.length);
  assert.ok(forms.length >= 2, JSON.stringify(forms.map((f) => f.key)));
  await page.close();
});

test('room for the original but not for it and its form: the original stays, the form is skipped with one QUOTA warning', async () => {
  await env.reset();
  const page = await env.newPage();
  // The cache's byte budget, not the origin's quota: a CDP quota override races
  // navigator.storage.estimate(), which lags a cleared database (a fresh clone stored
  // the form under it); the budget takes the same eviction plan in the core.
  await page.evaluate(() => window.ortkeep.cache._configure({ budget: 4_200_000 }));
  try {
    const r = await page.evaluate(async (url) => {
      const { ortkeep, ortDirect: ort, feeds } = window;
      const visit = async () => {
        const warnings = [];
        const forms = { probe: { inputDims: { input: [1, 256] } } };
        const s = await ortkeep.load(url, { ort, memory: false, forms, onWarning: (w) => warnings.push(w.code) });
        const bytes = await (await fetch(url, { cache: 'no-store' })).arrayBuffer();
        const reference = await ort.InferenceSession.create(bytes);
        const feed = () => feeds.FEEDS.silero_vad_v5(ort, 1);
        const diff = feeds.maxAbsDiff(await s.run(feed()), await reference.run(feed()));
        await reference.release();
        const background = await s.formsReady;
        const { tier, stored } = s.info.cache;
        const out = { tier, stored, form: s.info.form, background, warnings, diff };
        await s.dispose();
        return { ...out, list: (await ortkeep.cache.list()).map((e) => e.form) };
      };
      return [await visit(), await visit()];
    }, modelPath('silero_vad_v5'));
    const [first, second] = r;
    assert.equal(first.stored, true);
    assert.equal(first.form.chosen, 'capturing');
    assert.equal(first.background.stored, null, JSON.stringify(first));
    assert.deepEqual(first.warnings, ['QUOTA'], 'one warning, for the form');
    assert.deepEqual(first.list, ['original'], 'the original stays; no form');
    assert.equal(first.diff, 0);
    assert.equal(second.tier, 'indexeddb', 'the original serves the next load');
    assert.deepEqual(second.list, ['original']);
    assert.equal(second.diff, 0);
  } finally {
    await page.evaluate(() => window.ortkeep.cache._configure({ budget: 0 }));
  }
  await page.close();
});

test("cache: 'no-cache' revalidates each data file, not only the model file: a data file that changed is fetched, served and stored", async () => {
  await env.reset();
  const url = `${BASE}/foldw.onnx`;
  const data = ['foldw.onnx_data'];
  serve('foldw.onnx');
  serve('foldw.onnx_data');
  const page = await env.newPage();
  const noForms = { forms: false };
  const cold = await loadAndCompare(page, url, { dataFiles: data, options: noForms });
  assert.equal(cold.ok, true, JSON.stringify(cold));
  serve('foldw.onnx_data', 'foldw_v2.onnx_data', 'v2');
  env.server.resetCounts();
  const revalidated = await loadAndCompare(page, url, { dataFiles: data, options: { ...noForms, cache: 'no-cache' } });
  assert.equal(revalidated.tier, 'indexeddb', 'the model file answered 304');
  assert.ok(revalidated.diff < 1e-4, `served outputs differ from plain on the new data file by ${revalidated.diff}`);
  // ours (a conditional request) and the reference's
  assert.equal(env.server.count(`${BASE}/foldw.onnx_data`), 2);
  env.server.resetCounts();
  const next = await loadAndCompare(page, url, { dataFiles: data, options: noForms });
  assert.ok(next.diff < 1e-4, `differs from plain by ${next.diff}`);
  // the one request is the reference's: ours came from IndexedDB
  assert.equal(env.server.count(`${BASE}/foldw.onnx_data`), 1);
  await page.close();
});

test('two pages load one model at once: one of them verifies its form, the other uses that verdict', async () => {
  await env.reset();
  const url = `${BASE}/batch.onnx`;
  serve('batch.onnx');
  const pages = [await env.newPage(), await env.newPage()];
  const results = await Promise.all(
    pages.map((page) =>
      page.evaluate(async (u) => {
        const { ortkeep, ortDirect: ort } = window;
        let creates = 0;
        const create = ort.InferenceSession.create;
        ort.InferenceSession.create = (...args) => {
          if (args[0]?.byteLength !== 65) creates++; // not ortkeep's start of onnxruntime-web beside the load
          return create.apply(ort.InferenceSession, args);
        };
        const s = await ortkeep.load(u, { ort, memory: false, forms: true });
        const background = await s.formsReady;
        const out = { creates, chosen: s.info.form.chosen, background };
        await s.dispose();
        return out;
      }, url),
    ),
  );
  // each page creates the caller's session; one page captures the form
  // (one session, under the key's lock) and verifies it (the form's session
  // and three more: original, form again, original); the other waits for
  // the lock, finds that verdict and creates nothing more
  const creates = results.map((r) => r.creates);
  const backgrounds = JSON.stringify(results.map((r) => r.background));
  console.log(`[forms-adversary] two pages at once: sessions created ${JSON.stringify(creates)}, ${backgrounds}`);
  // the other page uses that verdict: in its background work, or (its lock wait outlasting the
  // capture and verification, as on a busy machine) served that verified form at once
  for (const r of results)
    assert.ok(
      r.background.stored === 'ort' || (r.chosen === 'verified' && r.creates === 1 && !r.background.failed.length),
      JSON.stringify(r),
    );
  assert.ok(
    results.some((r) => r.background.stored === 'ort'),
    `one page captured and verified: ${backgrounds}`,
  );
  assert.ok(creates[0] + creates[1] <= 2 + 1 + 4, `both pages captured or verified: ${JSON.stringify(creates)}`);
  assert.equal(Math.min(...creates), 1, `both pages captured: ${JSON.stringify(creates)}`);
  for (const page of pages) await page.close();
});
