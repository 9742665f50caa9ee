#!/usr/bin/env node
// What capturing a form adds to a cold load, in Chromium: load(url) in a
// fresh profile (nothing cached, onnxruntime-web started fresh in a new
// page) with forms on against forms: false, interleaved, median of N. Timed
// from the call to load() to its session (the form is verified and stored
// after that, off the caller's path; formsReady is awaited outside the
// timing so the runs do not overlap).
//   node scripts/measure-forms-cold.mjs [runs=5] [model …]
import { launchBrowser } from './chromium.mjs';
import { startServer } from './static-server.mjs';
import { REAL_MODELS } from '../tests/models.mjs';

const runs = Number(process.argv[2] ?? 5);
const models = process.argv.length > 3 ? process.argv.slice(3) : ['silero_vad_v5', 'ppocr_v4_det'];

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const server = await startServer();
const browser = await launchBrowser();
try {
  for (const name of models) {
    const url = `/${REAL_MODELS.find((m) => m.name === name).path}`;
    const ms = { on: [], off: [] };
    for (let i = 0; i < runs; i++) {
      for (const side of i % 2 ? ['off', 'on'] : ['on', 'off']) {
        const context = await browser.newContext();
        const page = await context.newPage();
        await page.goto(`${server.origin}/tests/browser/pages/esm.html`);
        await page.waitForFunction(() => window.ready === true);
        const r = await page.evaluate(
          async ([u, forms]) => {
            const t0 = performance.now();
            const s = await window.ortkeep.load(u, forms ? { forms: true } : { forms: false });
            const t = performance.now() - t0;
            await s.formsReady;
            return { ms: t, chosen: s.info.form.chosen };
          },
          [url, side === 'on'],
        );
        if ((side === 'on') !== (r.chosen === 'capturing')) throw new Error(`${name} ${side}: forms ${r.chosen}`);
        ms[side].push(r.ms);
        await context.close();
      }
    }
    const on = median(ms.on);
    const off = median(ms.off);
    console.log(
      `${name}: cold load() ms, median of ${runs}: forms on ${on.toFixed(0)}, off ${off.toFixed(0)}: ${(on / off).toFixed(3)}x` +
        ` (on: ${ms.on.map((x) => x.toFixed(0)).join(' ')}; off: ${ms.off.map((x) => x.toFixed(0)).join(' ')})`,
    );
  }
} finally {
  await browser.close();
  await server.close();
}
