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
//             wait for it (js/util/bytes-identity.js); below, the full SHA-256
//   sha256    the full SHA-256 of the bytes alone, on the main thread
// The goal: identifying the bytes costs at most 2% of that load.
import process from 'node:process';
import { MODELS, openBench, startRuntime } from './bench-cache.mjs';

const MODES = ['plain', 'no-forms', 'form'];
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

/** One measurement on a fresh page: ms from runtime ready to session ready (bytes in hand). */
async function measure(context, origin, url, mode) {
  const page = await context.newPage();
  try {
    await page.goto(`${origin}/tests/browser/pages/esm.html`);
    await page.waitForFunction(() => window.ready === true);
    await startRuntime(page, mode !== 'plain');
    return await page.evaluate(
      async ({ url, mode }) => {
        const { ortkeep, ortDirect: ort } = window;
        const bytes = new Uint8Array(await (await fetch(url)).arrayBuffer());
        if (mode === 'prime') {
          await ortkeep.cache.clear();
          const s = await ortkeep.load(bytes);
          const r = await s.formsReady;
          await s.dispose();
          return { stored: r.stored, failed: r.failed };
        }
        const t0 = performance.now();
        const session =
          mode === 'plain'
            ? await ort.InferenceSession.create(bytes)
            : await ortkeep.load(bytes, mode === 'no-forms' ? { forms: false } : {});
        const ms = performance.now() - t0;
        const out = { ms };
        if (mode === 'form') {
          if (session.info.form.chosen !== 'verified')
            throw new Error(`expected the verified form, got ${JSON.stringify(session.info.form)}`);
          out.identifyMs = session.info.timings.identifyMs;
          await session.dispose();
          const t1 = performance.now();
          await crypto.subtle.digest('SHA-256', bytes);
          out.sha256Ms = performance.now() - t1;
          return out;
        }
        await (session.dispose ? session.dispose() : session.release());
        return out;
      },
      { url, mode },
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
    for (const m of MODELS) {
      const url = `/${m.path}`;
      const prime = await measure(context, server.origin, url, 'prime');
      if (!prime.stored) {
        log(`${m.label.padEnd(22)}no form kept for these bytes (${JSON.stringify(prime.failed)})`);
        continue;
      }
      const t = Object.fromEntries([...MODES, 'identify', 'sha256'].map((k) => [k, []]));
      for (let i = 0; i < m.repeats; i++) {
        // the order turns each repeat (page-cache and tier-up effects)
        for (let j = 0; j < MODES.length; j++) {
          const mode = MODES[(i + j) % MODES.length];
          const r = await measure(context, server.origin, url, mode);
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
      log(
        `${m.label.padEnd(22)}${MODES.map((k) => med[k].toFixed(0).padStart(9)).join('')}${med.identify.toFixed(1).padStart(10)}${med.sha256.toFixed(1).padStart(9)}  ${ratio(med.form, med.plain)}    ${ratio(med['no-forms'], med.plain)}    ${(row.identifyShare * 100).toFixed(2).padStart(8)}%   (.${prime.stored} form)`,
      );
    }
  } finally {
    await bench.close();
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
