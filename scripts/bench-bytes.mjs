// Bytes a library hands over (InferenceSession.create(arrayBuffer), as
// vad-web, imgly and transformers.js do): ortkeep knows them by their
// content (SHA-256, WebCrypto) and serves the verified form it keeps under
// that key. Side by side on fresh pages of one profile, the bytes already in
// the page (the library fetched and kept them its own way):
//   plain     onnxruntime-web's create(bytes)
//   no-forms  ortkeep.load(bytes, {forms: false}): the original through ortkeep
//   form      ortkeep.load(bytes) as it ships, the second time: the form kept
//             for these bytes, read from IndexedDB
//   identify  what knowing the bytes cost that load (session.info.timings.identifyMs):
//             past 16 MiB the fingerprint's glance, the main thread's share of
//             the full SHA-256 that runs beside the load in a worker, and any
//             wait for it (js/sources.js); below, the full SHA-256
//   sha256    the full SHA-256 of the bytes alone, on the main thread
// The issue's goal: identifying the bytes costs at most 2% of that load.
// One more row: isnet with its weights moved to an external data file
// (tests/fixtures/externalize.py) handed as bytes beside the model, as
// transformers.js hands a model past 2 GB: the form is keyed by both, so
// both are identified.
import process from 'node:process';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { MODELS, openBench, startRuntime } from './bench-cache.mjs';
import { REPO_ROOT } from './static-server.mjs';
import { CHUNKED_MODELS } from '../tests/models.mjs';

const EXTERNAL = 'build/models/isnet_quint8-external';
const ROWS = [
  ...MODELS,
  {
    label: 'isnet, data as bytes',
    path: `${EXTERNAL}/model.onnx`,
    data: `${EXTERNAL}/model.onnx_data`,
    repeats: 3,
  },
];

const MODES = ['plain', 'no-forms', 'form'];
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

/** One measurement on a fresh page: ms from runtime ready to session ready (bytes in hand). */
async function measure(context, origin, url, mode, data = null, formKept = true) {
  const page = await context.newPage();
  try {
    await page.goto(`${origin}/tests/browser/pages/esm.html`);
    await page.waitForFunction(() => window.ready === true);
    await startRuntime(page, mode !== 'plain');
    return await page.evaluate(
      async ({ url, mode, data, formKept }) => {
        const { ortkeep, ortDirect: ort } = window;
        const bytes = new Uint8Array(await (await fetch(url)).arrayBuffer());
        // the model's weights beside it as bytes, under the name the model gives them
        const given = data
          ? {
              externalData: [
                { path: 'model.onnx_data', data: new Uint8Array(await (await fetch(data)).arrayBuffer()) },
              ],
            }
          : {};
        if (mode === 'prime') {
          await ortkeep.cache.clear();
          const s = await ortkeep.load(bytes, given);
          const r = await s.formsReady;
          await s.dispose();
          return { stored: r.stored, failed: r.failed };
        }
        const t0 = performance.now();
        const session =
          mode === 'plain'
            ? await ort.InferenceSession.create(bytes, given)
            : await ortkeep.load(bytes, mode === 'no-forms' ? { ...given, forms: false } : given);
        const ms = performance.now() - t0;
        const out = { ms };
        if (mode === 'form') {
          if (formKept && session.info.form.chosen !== 'verified')
            throw new Error(`expected the verified form, got ${JSON.stringify(session.info.form)}`);
          out.identifyMs = session.info.timings.identifyMs;
          await session.dispose();
          const t1 = performance.now();
          await crypto.subtle.digest('SHA-256', bytes);
          for (const d of given.externalData ?? []) await crypto.subtle.digest('SHA-256', d.data);
          out.sha256Ms = performance.now() - t1;
          return out;
        }
        await (session.dispose ? session.dispose() : session.release());
        return out;
      },
      { url, mode, data, formKept },
    );
  } finally {
    await page.close();
  }
}

export async function run({ log = console.log } = {}) {
  const bench = await openBench('bytes');
  const { server, context } = bench;
  const rows = [];
  try {
    log('medians of fresh pages, ms from runtime ready to session ready, the bytes already in the page');
    log(
      `${'model'.padEnd(22)}${MODES.map((h) => h.padStart(9)).join('')}${'identify'.padStart(10)}${'sha256'.padStart(9)}  form/plain no-forms/plain identify/form (goal <= 2%)`,
    );
    if (!existsSync(path.join(REPO_ROOT, EXTERNAL, 'model.onnx'))) {
      execFileSync('/usr/bin/python3', [
        path.join(REPO_ROOT, 'tests/fixtures/externalize.py'),
        path.join(REPO_ROOT, CHUNKED_MODELS[0].path),
        path.join(REPO_ROOT, EXTERNAL),
      ]);
    }
    for (const m of ROWS) {
      const url = `/${m.path}`;
      const data = m.data ? `/${m.data}` : null;
      const prime = await measure(context, server.origin, url, 'prime', data);
      const t = Object.fromEntries([...MODES, 'identify', 'sha256'].map((k) => [k, []]));
      for (let i = 0; i < m.repeats; i++) {
        // the order turns each repeat (page-cache and tier-up effects)
        for (let j = 0; j < MODES.length; j++) {
          const mode = MODES[(i + j) % MODES.length];
          const r = await measure(context, server.origin, url, mode, data, !!prime.stored);
          t[mode].push(r.ms);
          if (mode === 'form') {
            t.identify.push(r.identifyMs);
            t.sha256.push(r.sha256Ms);
          }
        }
      }
      const med = Object.fromEntries(Object.entries(t).map(([k, v]) => [k, median(v)]));
      const row = {
        model: m.label,
        form: prime.stored,
        ...med,
        repeats: m.repeats,
        identifyShare: med.identify / med.form,
      };
      rows.push(row);
      const ratio = (a, b) => (a / b).toFixed(2).padStart(10);
      // no form kept (judged slower): "form" is ortkeep as it ships, the caller's bytes serving
      const kept = prime.stored
        ? `(.${prime.stored} form)`
        : `(no form kept: ${prime.failed.map((f) => `.${f.form} ${f.reason}`).join(', ')})`;
      log(
        `${m.label.padEnd(22)}${MODES.map((k) => med[k].toFixed(0).padStart(9)).join('')}${med.identify.toFixed(1).padStart(10)}${med.sha256.toFixed(1).padStart(9)}  ${ratio(med.form, med.plain)}    ${ratio(med['no-forms'], med.plain)}    ${(row.identifyShare * 100).toFixed(2).padStart(8)}%   ${kept}`,
      );
    }
  } finally {
    await bench.close();
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
