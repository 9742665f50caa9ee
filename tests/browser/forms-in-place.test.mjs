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

test('a warm .ort form is created in place: onnxruntime-web uses its bytes where they lie in its heap (info.form.inPlace), outputs equal plain onnxruntime-web on the original, and the bytes are freed at release (ten warm load/dispose cycles leave the heap where the second left it)', async () => {
  await env.reset();
  const page = await env.newPage();
  const cold = await storeOrtForm(page);
  assert.equal(cold.capturing, 'ort', 'the .ort tier is tried first where it is created in place');
  assert.equal(cold.background.stored, 'ort', JSON.stringify(cold.background));
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
  await env.reset();
  const page = await env.newPage();
  const cold = await storeOrtForm(page);
  assert.equal(cold.background.stored, 'ort', JSON.stringify(cold.background));
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
