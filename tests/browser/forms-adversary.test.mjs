// Optimized forms tried as an adversary would (issue 19), in Chromium with a
// persistent profile, the real IndexedDB and onnxruntime-web, against plain
// onnxruntime-web on the same bytes and inputs. Models from
// tests/fixtures/make_adversary_models.py: each folds a chain of constants,
// so its .onnx form creates clearly faster and is kept once it verifies.
//   - a form captured with freeDimensionOverrides {batch: 1} is never served
//     to loads with other overrides (or none): batch 3 runs.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { before, test } from 'node:test';
import { REPO_ROOT } from '../../scripts/static-server.mjs';
import { useCacheBrowser } from './cache-env.mjs';

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
  return page.evaluate(async ({ url, options, rows, dataFiles }) => {
    const { ortkeep, ortDirect: ort } = window;
    const warnings = [];
    const xs = [0.5, -0.25].map((v) => new ort.Tensor('float32', Float32Array.from({ length: rows * 64 }, (_, i) => v + (i % 97) / 64), [rows, 64]));
    const bytes = async (u) => new Uint8Array(await (await fetch(u, { cache: 'no-store' })).arrayBuffer());
    // ortkeep first: the capturing loader must be in place before the page's first session
    let s;
    try {
      s = await ortkeep.load(url, { ort, memory: false, forms: true, ...options, onWarning: (w) => warnings.push(w.code) });
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
    if (dataFiles.length) refOptions.externalData = await Promise.all(dataFiles.map(async (f) => ({ path: f, data: await bytes(new URL(f, new URL(url, location.href)).href) })));
    const reference = await ort.InferenceSession.create(await bytes(url), refOptions);
    let diff = 0;
    for (const [i, x] of xs.entries()) {
      const theirs = (await reference.run({ x })).y.data;
      for (let j = 0; j < theirs.length && ours[i]; j++) diff = Math.max(diff, Math.abs(ours[i][j] - theirs[j]));
    }
    await reference.release();
    const background = await s.formsReady;
    const out = { ok: !error, error, diff, form: s.info.form, tier: s.info.cache.tier, stored: background.stored, failed: background.failed, warnings };
    await s.dispose();
    return out;
  }, { url, options, rows, dataFiles });
}

test('a form captured with freeDimensionOverrides {batch: 1} is never served to a load without them or with batch 3', async () => {
  await env.reset();
  const url = `${BASE}/batch.onnx`;
  serve('batch.onnx');
  const page = await env.newPage();
  if (process.env.ORTKEEP_PAGE_LOG) page.on('console', (m) => console.log(`[page ${m.type()}] ${m.text()}`));
  const one = { sessionOptions: { freeDimensionOverrides: { batch: 1 } } };
  const cold = await loadAndCompare(page, url, { options: one });
  assert.equal(cold.ok, true, JSON.stringify(cold));
  assert.equal(cold.stored, 'onnx', JSON.stringify(cold));
  const warm = await loadAndCompare(page, url, { options: one });
  assert.equal(warm.form.chosen, 'verified', 'the batch-1 loads get their form');
  assert.ok(warm.diff < 1e-4, `the form differs from plain by ${warm.diff}`);

  const none = await loadAndCompare(page, url, { rows: 3 });
  assert.equal(none.ok, true, none.error);
  assert.notEqual(none.form.chosen, 'verified', 'no form of its own yet: the batch-1 form was served');
  assert.ok(none.diff < 1e-4, `differs from plain by ${none.diff}`);
  const three = await loadAndCompare(page, url, { rows: 3, options: { sessionOptions: { freeDimensionOverrides: { batch: 3 } } } });
  assert.equal(three.ok, true, three.error);
  assert.notEqual(three.form.chosen, 'verified');
  assert.ok(three.diff < 1e-4, `differs from plain by ${three.diff}`);
  // each set of options keeps its own form
  const forms = (await page.evaluate(() => window.ortkeep.cache.list())).filter((e) => e.form === 'onnx');
  assert.equal(new Set(forms.map((f) => f.key)).size, forms.length);
  assert.ok(forms.length >= 2, JSON.stringify(forms.map((f) => f.key)));
  await page.close();
});
