// Optimized forms through load() in Chromium, with real models, a real
// IndexedDB and the real onnxruntime-web (the default JSEP bundle): the first
// load captures onnxruntime's optimized model in ORT format (the tier tried
// first where ortkeep's loader runs onnxruntime-web on the page's thread: it
// is created in place) and stores it once it verified; the second load, after
// a browser restart, is that form at 'disabled', created in place, with
// outputs equal to plain onnxruntime-web on the original. A tolerance no
// output can meet forces each tier to fail: .ort escalates to .onnx, .onnx to
// the original (the sentinel), each verdict persisted. A stored form that rots is dropped, the
// original serves, and the form is made again. Forms that cannot be
// captured turn off with one warning and the model loads.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { PROFILES, REPO_ROOT } from '../../scripts/static-server.mjs';
import { modelBytes, modelPath, serving, useCacheBrowser } from './cache-env.mjs';

// models as vite preview serves them: gzipped as they stream, no Content-Length, weak ETag
const env = useCacheBrowser({ files: PROFILES.vitePreview });
const TOLERANCE = 1e-4;
const PROBE = {
  silero_vad_v5: { inputDims: { input: [1, 256] } },
  silero_vad_legacy: { freeDimensionOverrides: { batch: 1, sequence: 256 } },
  ppocr_v2_cls: {},
};

/** load() with forms, runs two seeds against plain onnxruntime-web on the original. */
function loadAndCompare(page, name, extra = {}) {
  if (process.env.ORTKEEP_PAGE_LOG && !page.logged) {
    page.logged = true;
    page.on('console', (m) => console.log(`[page ${m.type()}] ${m.text()}`));
  }
  return page.evaluate(
    async ([u, n, probe, extraOptions]) => {
      const events = [];
      const warnings = [];
      const options = {
        debug: extraOptions.debug,
        forms: { probe, ...extraOptions.forms },
        onEvent: (e) => events.push(e),
        onWarning: (w) => warnings.push(w.code),
      };
      // onnxruntime-web started on another model first: the page's first creation holds its start-up
      if (extraOptions.startFirst)
        await (await window.ortkeep.load(extraOptions.startFirst, { cache: 'no-store' })).dispose();
      const s = await window.ortkeep.load(u, options);
      const ort = window.ortDirect;
      const reference = await ort.InferenceSession.create(await (await fetch(u, { cache: 'no-store' })).arrayBuffer());
      const diffs = [];
      for (const seed of [1, 2])
        diffs.push(
          window.feeds.maxAbsDiff(
            await s.run(window.feeds.FEEDS[n](ort, seed)),
            await reference.run(window.feeds.FEEDS[n](ort, seed)),
          ),
        );
      await reference.release();
      const background = await s.formsReady;
      const out = {
        form: s.info.form,
        timings: s.info.timings,
        tier: s.info.cache.tier,
        source: s.info.source,
        diffs,
        background,
        events,
        warnings,
        list: await window.ortkeep.cache.list(),
      };
      await s.dispose();
      return out;
    },
    [modelPath(name), name, PROBE[name], extra],
  );
}

// Models whose .onnx form creates in about half the original's time here
// (measured 0.3-0.55x for silero, 0.2-0.8x for ppocr_v2_cls on this shared
// machine): a form must beat the original to be kept, so the strict tests
// use the one with the margin.
for (const name of ['silero_vad_v5']) {
  test(`${name}: the second load, after a restart, is the verified .ort form created in place (the tier tried first where it can be) at 'disabled' with the original's outputs`, async () => {
    await env.reset();
    let page = await env.newPage();
    const first = await loadAndCompare(page, name);
    assert.equal(first.tier, 'network');
    assert.equal(first.form.form, 'original');
    assert.equal(first.form.chosen, 'capturing');
    assert.equal(first.form.capturing, 'ort');
    for (const d of first.diffs) assert.ok(d <= TOLERANCE, `capturing session differs by ${d}`);
    // .ort, unless this (shared) machine measured it slower than the original: then .onnx
    const kept = first.background.stored;
    assert.ok(
      kept === 'ort' || (kept === 'onnx' && first.background.failed[0]?.reason === 'form-slower'),
      JSON.stringify(first.background),
    );
    const stored = first.list.find((e) => e.form === kept);
    assert.ok(stored, JSON.stringify(first.list));
    assert.equal(stored.status, 'verified');
    assert.ok(stored.createMs > 0 && stored.createMs < stored.originalCreateMs, JSON.stringify(stored));
    assert.equal(stored.sourceSha256, first.list.find((e) => e.form === 'original').sha256);
    assert.match(stored.key, new RegExp(`\\|form:${kept}\\|ort=1\\.30\\.0;ep=wasm;level=all$`));

    await env.restart();
    env.server.resetCounts();
    page = await env.newPage();
    const second = await loadAndCompare(page, name);
    assert.equal(env.server.count(modelPath(name)), 1, 'only the reference fetch');
    assert.equal(second.tier, 'indexeddb');
    assert.equal(second.form.form, kept);
    assert.equal(second.form.level, 'disabled');
    assert.equal(second.form.chosen, 'verified');
    assert.equal(second.form.inPlace, kept === 'ort', 'an .ort form is created in place');
    assert.ok(second.form.createMs > 0);
    assert.deepEqual(second.source, first.source, 'the source is the original, whatever form serves');
    for (const d of second.diffs) assert.ok(d <= TOLERANCE, `the .${kept} form differs by ${d}`);
    assert.equal(second.background.stored, null, 'nothing captured again');
    // the page's first session also pays onnxruntime-web's start-up: the verification's pair is the comparable one
    console.log(
      `[forms] ${name}: verified .${kept} at 'disabled' created in ${stored.createMs} ms vs the original at 'all' ${stored.originalCreateMs} ms (${(stored.createMs / stored.originalCreateMs).toFixed(2)}x)`,
    );

    // cache.delete removes every form of the model with it
    const left = await page.evaluate(async (u) => {
      await window.ortkeep.cache.delete(u);
      return window.ortkeep.cache.list();
    }, modelPath(name));
    assert.deepEqual(left, []);
    await page.close();
  });
}

test("a verified form's verdict is revised from warm loads: a load whose form created near the original's verified time times the original beside it (not the page's first session); three pairs, tallied in the form's record across pages, keep the form or demote it to a 'form-slower' failure, as their times say", async () => {
  await env.reset();
  const page = await env.newPage();
  const first = await loadAndCompare(page, 'silero_vad_v5');
  const kept = first.background.stored;
  assert.ok(kept, JSON.stringify(first.background));
  const verified = first.list.find((e) => e.form === kept);
  await page.close();
  // CPU throttled 8x: the form creates well past the original's unthrottled
  // verified time, so each warm load asks for the original timed beside it
  const warmPage = async (throttle, startFirst = true) => {
    const p = await env.newPage();
    const cdp = await p.context().newCDPSession(p);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: throttle });
    const out = await loadAndCompare(p, 'silero_vad_v5', startFirst ? { startFirst: modelPath('oww_hey_jarvis') } : {});
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
    await p.close();
    for (const d of out.diffs) assert.ok(d <= TOLERANCE, `differs by ${d}`);
    return out;
  };
  // the page's first model session runs on onnxruntime-web's cold code,
  // just after its start: the core takes no pair from it
  // (ok_form_revise_wanted, SESSION_FACT.FIRST)
  const firstInPage = await warmPage(8, false);
  assert.equal(firstInPage.form.chosen, 'verified', JSON.stringify(firstInPage.form));
  assert.equal(firstInPage.background.revision, undefined, JSON.stringify(firstInPage.background));
  assert.equal(firstInPage.list.find((e) => e.form === kept).revision, undefined);
  const sums = { form: 0, original: 0 };
  let last;
  for (const pairs of [1, 2, 3]) {
    last = await warmPage(8);
    assert.equal(last.form.chosen, 'verified', JSON.stringify(last.form));
    const r = last.background.revision;
    assert.ok(r, `a revision was made: ${JSON.stringify(last.background)}`);
    assert.equal(r.form, kept);
    assert.ok(r.formMs * 1000 >= verified.originalCreateMs * 900, JSON.stringify({ r, verified }));
    sums.form += Math.round(r.formMs * 1000);
    sums.original += Math.round(r.originalMs * 1000);
    console.log(
      `[forms] revision pair ${pairs}: .${kept} ${r.formMs.toFixed(0)} ms vs the original ${r.originalMs.toFixed(0)} ms beside it, 8x CPU throttle`,
    );
    const entry = last.list.find((e) => e.form === kept);
    if (pairs < 3) {
      assert.equal(r.status, 'tallied');
      assert.equal(entry.status, 'verified');
      assert.equal(entry.createMs, verified.createMs, 'the verdict itself stands meanwhile');
      assert.deepEqual(entry.revision, { pairs, formMs: sums.form / 1000, originalMs: sums.original / 1000 });
    }
  }
  // the core's rule (cache/form_tiers.h): demoted when the pairs' ratio and the
  // verification's, together (their geometric mean), pass 105%
  const demoted = (sums.form / sums.original) * (verified.createMs / verified.originalCreateMs) > 1.05 * 1.05;
  const r = last.background.revision;
  const entry = last.list.find((e) => e.form === kept);
  assert.equal(r.status, demoted ? 'demoted' : 'kept', JSON.stringify(sums));
  if (demoted) {
    assert.equal(entry.status, 'failed');
    assert.equal(entry.reason, 'form-slower');
    const next = await warmPage(1);
    assert.equal(next.form.form, 'original', 'the demoted form no longer serves');
  } else {
    assert.equal(entry.status, 'verified');
    assert.equal(entry.revision, undefined, 'the third pair decided: the tally restarts');
  }
  console.log(
    `[forms] revision: ${r.status} (.${kept} ${sums.form / 1000} ms vs original ${sums.original / 1000} ms over 3 pairs; verified at ${verified.createMs} vs ${verified.originalCreateMs} ms)`,
  );
});

/**
 * A stored form (a first visit), then a page throttled 8x whose warm load of
 * it (not the page's first session) has the original timed beside it: that
 * revision's load holds the original's key lock and waits for a background
 * turn, which it cannot get: a load of another model (no-store) is in
 * flight from just after the warm load, its download held at the server
 * until `release()` (or aborted: window.otherAbort). In the page:
 * window.warm (the warm session), window.otherLoad (what that load came
 * to), window.loadOptions.
 */
async function pageWithRevisionWaiting() {
  await env.reset();
  let page = await env.newPage();
  const first = await loadAndCompare(page, 'silero_vad_v5');
  assert.ok(first.background.stored, JSON.stringify(first.background));
  await page.close();
  let release;
  const until = new Promise((resolve) => {
    release = resolve;
  });
  const other = modelPath('ppocr_v2_cls');
  env.handler = serving(other, await modelBytes('ppocr_v2_cls'), () => ({ holdAt: 4096, until })).handler;
  page = await env.newPage();
  // throttled: the warm form creates past the original's verified time, so the load asks for a revision
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 8 });
  try {
    const notHeld = await page.evaluate(
      async ([u, jarvis, otherUrl, probe]) => {
        const { ortkeep } = window;
        const options = { forms: { probe } };
        await (await ortkeep.load(jarvis, { cache: 'no-store' })).dispose(); // not the page's first session
        const warm = await ortkeep.load(u, { ...options, memory: false });
        window.otherAbort = new AbortController();
        window.otherLoad = ortkeep.load(otherUrl, { cache: 'no-store', signal: window.otherAbort.signal }).then(
          (s) => s.dispose().then(() => 'loaded'),
          (e) => `${e.name}:${e.code}`,
        );
        // the warm load's own tail (its manifest's writes) holds the lock
        // first; then the revision takes it and waits for its turn
        await warm.cacheSettled;
        // no caller load of this model in flight: a holder of its lock is the revision (a task later, at 8x)
        const original = (l) => l.name.includes(u) && l.name.endsWith('|form:original');
        let heldByRevision = false;
        for (const t0 = performance.now(); !heldByRevision && performance.now() - t0 < 10000; ) {
          await new Promise((resolve) => setTimeout(resolve, 20));
          heldByRevision = (await navigator.locks.query()).held.some(original);
        }
        Object.assign(window, { warm, loadOptions: options });
        if (heldByRevision) return null;
        // why not: the page's locks, the warm load's background work and the other load, each as it stands
        const now = (p) => Promise.race([p, new Promise((resolve) => setTimeout(resolve, 100, 'pending'))]);
        return {
          locks: await navigator.locks.query(),
          background: await now(warm.formsReady),
          other: await now(window.otherLoad),
        };
      },
      [modelPath('silero_vad_v5'), modelPath('oww_hey_jarvis'), other, PROBE.silero_vad_v5],
    );
    assert.equal(notHeld, null, `the revision holds the model's lock: ${JSON.stringify(notHeld)}`);
  } catch (e) {
    release();
    throw e;
  }
  return {
    page,
    release,
    async end() {
      release();
      const otherLoad = await page.evaluate(() => window.otherLoad);
      await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
      await page.close();
      return otherLoad;
    },
  };
}

test("two loads of one model at once while a revision holds the model's lock, waiting for its turn: both settle, sharing one session, with the original's outputs, and the revision is made once they wait", async () => {
  // The first load waits aside (holds no background work back) for the
  // lock; the second, waiting for the first in the memory tier, must too.
  // Else the revision never gets its turn (pool-real's two-handles test hung
  // so, 2026-12) -- now it gives up after 3 s and is not made.
  const { page, end } = await pageWithRevisionWaiting();
  let r;
  try {
    const done = page.evaluate(async (u) => {
      const { ortkeep, warm, loadOptions } = window;
      const ort = window.ortDirect;
      const both = Promise.all([ortkeep.load(u, loadOptions), ortkeep.load(u, loadOptions)]);
      // the other model's load ends at once: then only these two are callers, both waiting (the revision's
      // 3 s bound runs from its request, so the turn must come well before: no round trip to the server)
      window.otherAbort.abort();
      const settled = await Promise.race([both, new Promise((resolve) => setTimeout(resolve, 30000, null))]);
      if (!settled) return { settled: false, locks: await navigator.locks.query() };
      const [a, b] = settled;
      const reference = await ort.InferenceSession.create(await (await fetch(u, { cache: 'no-store' })).arrayBuffer());
      const diffs = [];
      for (const [s, seed] of [
        [a, 1],
        [b, 2],
      ])
        diffs.push(
          window.feeds.maxAbsDiff(
            await s.run(window.feeds.FEEDS.silero_vad_v5(ort, seed)),
            await reference.run(window.feeds.FEEDS.silero_vad_v5(ort, seed)),
          ),
        );
      await reference.release();
      const background = await warm.formsReady;
      const shared = a.info.cache?.tier === 'memory' || b.info.cache?.tier === 'memory';
      await Promise.all([a.dispose(), b.dispose(), warm.dispose()]);
      return { settled: true, shared, diffs, revision: background.revision ?? null };
    }, modelPath('silero_vad_v5'));
    r = await done;
  } finally {
    assert.equal(await end(), 'OrtkeepError:ABORTED', 'the other load was aborted');
  }
  assert.equal(r.settled, true, `both loads settled within 30 s: ${JSON.stringify(r.locks)}`);
  assert.ok(r.revision, 'the revision got its turn while the two loads waited for its lock, and was made');
  assert.equal(r.shared, true, "the second load shares the first one's session");
  for (const d of r.diffs) assert.ok(d <= TOLERANCE, `differs by ${d}`);
});

test("a revision that gets no background turn in 3 s (a load of another model stays in flight: its download is held) lets go of the model's lock: a load of the model meanwhile settles, the revision is not made, the form still serves", async () => {
  // Without the bound, the revision waits for the other load to end while
  // holding the key lock, so every load of the model waits with it (other
  // tabs' too): for as long as the app keeps a call in flight.
  const { page, end } = await pageWithRevisionWaiting();
  const printed = [];
  page.on('console', (m) => ['warning', 'error'].includes(m.type()) && printed.push(m.text()));
  let r;
  try {
    r = await page.evaluate(async (u) => {
      const { ortkeep, warm, loadOptions } = window;
      let otherDone = false;
      window.otherLoad.then(() => (otherDone = true));
      const t0 = performance.now();
      const s = await Promise.race([
        ortkeep.load(u, loadOptions),
        new Promise((resolve) => setTimeout(resolve, 30000, null)),
      ]);
      const ms = performance.now() - t0;
      if (!s) return { settled: false, ms, locks: await navigator.locks.query() };
      const background = await warm.formsReady;
      const form = s.info.form;
      await Promise.all([s.dispose(), warm.dispose()]);
      return { settled: true, ms, otherDone, revision: background.revision ?? null, form };
    }, modelPath('silero_vad_v5'));
  } finally {
    assert.equal(await end(), 'loaded', 'the other load ends once its body comes');
  }
  assert.equal(r.settled, true, `the load settled within 30 s: ${JSON.stringify(r.locks)}`);
  assert.equal(r.otherDone, false, "with the other model's download still held");
  assert.equal(r.revision, null, 'the revision was given up');
  assert.equal(r.form.chosen, 'verified', 'the form still serves');
  assert.deepEqual(printed, [], 'the revision given up prints nothing');
  console.log(`[forms] a load behind a revision with no turn settled in ${r.ms.toFixed(0)} ms (8x CPU throttle)`);
});

test("silero_vad_legacy (initializers inside its If bodies) converges within two loads, across a restart: the second load serves what the first decided, with the original's outputs", async () => {
  await env.reset();
  let page = await env.newPage();
  const first = await loadAndCompare(page, 'silero_vad_legacy');
  assert.equal(first.form.capturing, 'ort');
  // decided in the first load's background: a verified form, or every tier failed (whichever this machine measured)
  const decided = first.background.stored ?? 'original';
  if (decided === 'original')
    assert.deepEqual(
      first.background.failed.map((f) => f.form),
      ['ort', 'onnx'],
    );
  else assert.ok(['onnx', 'ort'].includes(decided));
  for (const f of first.background.failed)
    assert.equal(f.reason, 'form-slower', 'legacy round-trips: only speed can rule a form out');
  await env.restart();
  page = await env.newPage();
  const second = await loadAndCompare(page, 'silero_vad_legacy');
  assert.equal(second.form.form, decided);
  assert.equal(second.form.chosen, decided === 'original' ? 'original' : 'verified');
  assert.equal(second.background.stored, null, 'nothing captured on the second load');
  for (const d of second.diffs) assert.ok(d <= TOLERANCE, `differs by ${d}`);
  console.log(
    `[forms] silero_vad_legacy: converged to ${decided}${first.background.failed.length ? ` (${JSON.stringify(first.background.failed)})` : ''}`,
  );
  await page.close();
});

test('every tier failing (probe shapes that do not fit the model: unverifiable): .ort (first where it is created in place) escalates to .onnx, .onnx to the original; persisted across a restart', async () => {
  await env.reset();
  let page = await env.newPage();
  // 7 channels where the model takes 3: the original itself refuses the probes
  const first = await loadAndCompare(page, 'ppocr_v2_cls', { forms: { probe: { inputDims: { x: [1, 7, 48, 192] } } } });
  assert.equal(first.form.capturing, 'ort');
  assert.equal(first.background.stored, null);
  assert.deepEqual(first.background.failed, [
    { form: 'ort', reason: 'form-unverifiable' },
    { form: 'onnx', reason: 'form-unverifiable' },
  ]);
  assert.deepEqual(first.events, [
    { type: 'form-escalated', from: 'ort', to: 'onnx', reason: 'form-unverifiable' },
    { type: 'form-escalated', from: 'onnx', to: 'original', reason: 'form-unverifiable' },
  ]);
  const failed = first.list
    .filter((e) => e.form !== 'original')
    .map((e) => [e.form, e.status, e.reason, e.bytes])
    .sort();
  assert.deepEqual(failed, [
    ['onnx', 'failed', 'form-unverifiable', 0],
    ['ort', 'failed', 'form-unverifiable', 0],
  ]);

  await env.restart();
  page = await env.newPage();
  const second = await loadAndCompare(page, 'ppocr_v2_cls');
  assert.equal(second.tier, 'indexeddb');
  assert.equal(second.form.form, 'original');
  assert.equal(second.form.chosen, 'original', 'the sentinel: nothing captured again');
  assert.equal(second.background.stored, null);
  assert.deepEqual(second.events, []);
  for (const d of second.diffs) assert.equal(d, 0);
  await page.close();
});

test('a stored form that rots is dropped (form-dropped), the original serves, and the form is made and verified again', async () => {
  await env.reset();
  let page = await env.newPage();
  const first = await loadAndCompare(page, 'silero_vad_v5');
  const kept = first.background.stored;
  assert.ok(kept, JSON.stringify(first.background));
  // flip a byte of the stored form's first chunk: the form's manifest is
  // the version-5 record (cache/cache_manifest.c)
  const flipped = await page.evaluate(async () => {
    const d = await new Promise((resolve, reject) => {
      const r = indexedDB.open('ortkeep-cache');
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => reject(r.error);
    });
    const all = (store, fn) =>
      new Promise((resolve, reject) => {
        const r = d.transaction(store).objectStore(store)[fn]();
        r.onsuccess = () => resolve(r.result);
        r.onerror = () => reject(r.error);
      });
    const [names, values] = [await all('index', 'getAllKeys'), await all('index', 'getAll')];
    d.close();
    for (let n = 0; n < names.length; n++) {
      const v = values[n];
      const bytes = new Uint8Array(v instanceof Blob ? await v.arrayBuffer() : v);
      if (bytes[4] === 5 && (await window.raw.dump()).chunks.some(([c]) => c === names[n]))
        return window.raw.flip(0, 1000, n);
    }
    return null;
  });
  assert.ok(flipped);
  await page.close();
  page = await env.newPage();
  const second = await loadAndCompare(page, 'silero_vad_v5');
  for (const d of second.diffs) assert.ok(d <= TOLERANCE);
  assert.equal(second.tier, 'indexeddb');
  assert.equal(second.form.form, 'original');
  assert.deepEqual(second.events.slice(0, 1), [{ type: 'form-dropped', form: kept, reason: 'checksum' }]);
  assert.equal(second.form.capturing, kept);
  // made and verified again (a tier can only fail on speed here: the rest are the same bytes)
  for (const f of second.background.failed) assert.equal(f.reason, 'form-slower');
  assert.ok(second.background.stored || second.background.failed.length, JSON.stringify(second.background));
  await page.close();
});

for (const [what, base] of [
  ['derived for another onnxruntime-web', '/build/test-capture-other/'],
  ['missing', '/nowhere/'],
]) {
  test(`a build's capturing loader ${what}: the page's own loader is derived in the page; forms on, no warning`, async () => {
    // a derivation made for another onnxruntime-web: its manifest, stamped 1.29.0
    const manifest = JSON.parse(await readFile(path.join(REPO_ROOT, 'dist/ort-capture/manifest.json'), 'utf8'));
    await mkdir(path.join(REPO_ROOT, 'build/test-capture-other'), { recursive: true });
    await writeFile(
      path.join(REPO_ROOT, 'build/test-capture-other/manifest.json'),
      JSON.stringify({ ...manifest, onnxruntimeWeb: '1.29.0' }),
    );
    await env.reset();
    const page = await env.newPage();
    const messages = [];
    page.on('console', (m) => {
      if (m.type() === 'warning') messages.push(m.text());
    });
    const r = await loadAndCompare(page, 'ppocr_v2_cls', { forms: { captureBase: base } });
    assert.equal(r.form.chosen, 'capturing', JSON.stringify(r.form));
    for (const d of r.diffs) assert.equal(d, 0);
    assert.deepEqual(
      messages.filter((m) => /artifact forms are off/.test(m)),
      [],
    );
    await page.close();
  });
}

test("a page's first load goes on beside the capturing loader's installation (its manifest held 1.5 s): the lookup and download run meanwhile, the load's sessions wait for it (loaderMs), and the form is captured through it and verified", async () => {
  const manifest = await readFile(path.join(REPO_ROOT, 'dist/ort-capture/manifest.json'));
  await env.reset();
  let asked = 0;
  env.handler = (req, res, { pathname }) => {
    if (pathname !== '/dist/ort-capture/manifest.json') return false;
    asked++;
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(manifest);
    }, 1500);
    return true;
  };
  const page = await env.newPage();
  const r = await loadAndCompare(page, 'ppocr_v2_cls');
  await page.close();
  env.handler = null;
  assert.equal(asked, 1);
  // the download and the C reader's check ran before the loader was in: only the session waited
  assert.equal(typeof r.timings.loaderMs, 'number', JSON.stringify(r.timings));
  assert.ok(r.timings.loaderMs > 500, JSON.stringify(r.timings));
  assert.equal(typeof r.timings.downloadMs, 'number');
  for (const d of r.diffs) assert.equal(d, 0);
  // onnxruntime-web started with the capturing loader (a session made before it would not have,
  // and the capture would turn forms off): the form is captured and verified, or judged slower
  assert.equal(r.form.chosen, 'capturing', JSON.stringify(r.form));
  assert.deepEqual(r.warnings, []);
  assert.ok(
    r.background.stored || r.background.failed.every((f) => f.reason === 'form-slower'),
    JSON.stringify(r.background),
  );
});

test("a model that arrives stamped for this runtime, EPs and level loads at 'disabled' with no capture; a foreign or stale stamp is ignored and reported", async () => {
  // stamped copies of ppocr_v2_cls written here (the stamp is the C core's encoder)
  const { getCore } = await import('../../js/core/module.js');
  const core = await getCore();
  const original = await modelBytes('ppocr_v2_cls');
  const sha = createHash('sha256').update(original).digest('hex');
  const dir = path.join(REPO_ROOT, 'build/test-stamps');
  await mkdir(dir, { recursive: true });
  const stamp = (fields) =>
    Buffer.concat([
      original,
      core.stampTail({
        producer: 'test',
        ort: '1.30.0',
        ep: 'wasm',
        level: 'all',
        source: sha,
        artifact: sha,
        ...fields,
      }),
    ]);
  await writeFile(path.join(dir, 'intact.onnx'), stamp({}));
  await writeFile(path.join(dir, 'foreign.onnx'), stamp({ ep: 'webgpu' }));
  await writeFile(path.join(dir, 'stale.onnx'), stamp({ artifact: 'ab'.repeat(32) }));
  await env.reset();
  const page = await env.newPage();
  const r = await page.evaluate(async (ref) => {
    const ort = window.ortDirect;
    const out = {};
    let reference = null;
    for (const name of ['intact', 'foreign', 'stale']) {
      const events = [];
      const s = await window.ortkeep.load(`/build/test-stamps/${name}.onnx`, {
        forms: true,
        onEvent: (e) => events.push(e),
      });
      // after ortkeep's first load: onnxruntime-web picks its loader at its first session
      reference ??= await ort.InferenceSession.create(ref);
      let diff = 0;
      for (const seed of [1, 2])
        diff = Math.max(
          diff,
          window.feeds.maxAbsDiff(
            await s.run(window.feeds.FEEDS.ppocr_v2_cls(ort, seed)),
            await reference.run(window.feeds.FEEDS.ppocr_v2_cls(ort, seed)),
          ),
        );
      out[name] = { form: s.info.form, events, diff };
      await s.formsReady;
      await s.dispose();
    }
    await reference.release();
    return out;
  }, modelPath('ppocr_v2_cls'));
  assert.equal(r.intact.form.chosen, 'stamped');
  assert.equal(r.intact.form.level, 'disabled');
  assert.deepEqual(r.intact.events, []);
  assert.ok(r.intact.diff <= TOLERANCE, `stamped at 'disabled' differs by ${r.intact.diff}`);
  assert.equal(r.foreign.form.chosen, 'capturing', JSON.stringify(r.foreign));
  assert.deepEqual(r.foreign.events[0], {
    type: 'stamp-ignored',
    reason: 'foreign',
    stamp: { ort: '1.30.0', ep: 'webgpu', level: 'all' },
  });
  assert.equal(r.stale.form.chosen, 'capturing');
  assert.equal(r.stale.events[0].type, 'stamp-ignored');
  assert.equal(r.stale.events[0].reason, 'stale');
  await page.close();
});

test("prepare's output (onnxruntime-node, verified in onnxruntime-web under Node) is loaded by the browser through its manifest, at 'disabled', with the original's outputs", async () => {
  const { prepare } = await import('../../js/forms/prepare.js');
  const out = path.join(REPO_ROOT, 'build/test-prepared');
  await prepare(path.join(REPO_ROOT, modelPath('ppocr_v2_cls')), {
    out,
    level: 'extended',
    ep: 'wasm',
    freeDimensionOverrides: {
      'p2o.DynamicDimension.0': 1,
      'p2o.DynamicDimension.1': 48,
      'p2o.DynamicDimension.2': 192,
    },
  });
  await env.reset();
  env.server.resetCounts();
  const page = await env.newPage();
  const r = await page.evaluate(async (u) => {
    const s = await window.ortkeep.load(u, {
      manifest: '/build/test-prepared/ch_ppocr_mobile_v2.0_cls_infer.ortkeep.json',
    });
    const ort = window.ortDirect;
    const reference = await ort.InferenceSession.create(u);
    let diff = 0;
    for (const seed of [1, 2])
      diff = Math.max(
        diff,
        window.feeds.maxAbsDiff(
          await s.run(window.feeds.FEEDS.ppocr_v2_cls(ort, seed)),
          await reference.run(window.feeds.FEEDS.ppocr_v2_cls(ort, seed)),
        ),
      );
    const out = { form: s.info.form, cache: s.info.cache, diff };
    await s.dispose();
    await reference.release();
    return out;
  }, modelPath('ppocr_v2_cls'));
  assert.equal(r.form.chosen, 'prepared', JSON.stringify(r));
  assert.equal(r.form.level, 'disabled');
  assert.match(r.cache.key, /^sha256:[0-9a-f]{64}\|form:original$/, 'cached under the integrity prepare recorded');
  assert.ok(r.diff <= TOLERANCE, `differs by ${r.diff}`);
  assert.equal(env.server.count(modelPath('ppocr_v2_cls')), 1, 'the original is fetched only by the reference');
  await page.close();
});

test("an onnxruntime-web whose InferenceSession is frozen (it cannot be made to take turns): forms off with one FORMS_OFF, nothing captured; the load and the page's own session run as plain onnxruntime-web's", async () => {
  await env.reset();
  const page = await env.newPage();
  const r = await page.evaluate(async (url) => {
    const ort = window.ortDirect;
    Object.freeze(ort.InferenceSession);
    const create = ort.InferenceSession.create;
    const warnings = [];
    const onWarning = (w) => warnings.push({ code: w.code, reason: w.reason });
    const loads = [];
    for (let i = 0; i < 2; i++) loads.push(await window.ortkeep.load(url, { forms: true, onWarning }));
    const own = await ort.InferenceSession.create(url);
    const feeds = (seed) => window.feeds.FEEDS.silero_vad_v5(ort, seed);
    const diffs = [];
    for (const s of loads) diffs.push(window.feeds.maxAbsDiff(await s.run(feeds(1)), await own.run(feeds(1))));
    await window.ortkeep.cache.settled();
    return {
      warnings,
      diffs,
      form: loads[0].info.form,
      untouched: ort.InferenceSession.create === create,
      stored: (await window.ortkeep.cache.list()).map((e) => ({ key: e.key, form: e.form })),
    };
  }, modelPath('silero_vad_v5'));
  assert.deepEqual(r.warnings, [{ code: 'FORMS_OFF', reason: 'frozen' }], 'said once, for the page');
  assert.ok(
    r.diffs.every((d) => d <= TOLERANCE),
    String(r.diffs),
  );
  assert.equal(r.form.chosen, 'off', JSON.stringify(r.form));
  assert.match(r.form.why, /frozen/);
  assert.equal(r.untouched, true, "the frozen class's create is onnxruntime-web's own");
  assert.ok(r.stored.length > 0, 'the original is stored');
  assert.deepEqual(
    r.stored.filter((e) => e.form === 'onnx' || e.form === 'ort'),
    [],
    `no form stored: ${JSON.stringify(r.stored)}`,
  );
  await page.close();
});
