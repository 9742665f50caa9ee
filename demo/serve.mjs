// `npm run demo`: serves the demo on 127.0.0.1 and prints its URL. Headless
// (CI set, or no display), it drives the page in Chromium and prints what
// the page computed instead of waiting for a person.
import process from 'node:process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { launchPersistent } from '../scripts/chromium.mjs';
import { startServer } from '../scripts/static-server.mjs';

const port = Number(process.env.PORT ?? 8737);
const server = await startServer({ port }).catch(() => startServer({ port: 0 }));
const url = `${server.origin}/demo/`;
console.log(`ortkeep demo: ${url}`);

/** The rows each section of the page shows when the demo worked: four loads, the model and its form, the pool on and off, the clip's frames. */
const SECTIONS_AT_LEAST = { loads: 4, cache: 1, pool: 2, chart: 1 };

const headless = !!process.env.CI || !process.env.DISPLAY || process.argv.includes('--headless');
if (!headless) {
  console.log('open it in a browser; Ctrl-C stops the server');
} else {
  // a persistent profile, as a user's browser has (the warm load reads it)
  const dir = await mkdtemp(path.join(tmpdir(), 'ortkeep-demo-'));
  const browser = await launchPersistent(dir, { webgpu: true }); // SwiftShader where there is no GPU
  let result;
  let sections;
  try {
    const page = await browser.newPage();
    page.on('pageerror', (e) => console.error('[page error]', e.message));
    await page.goto(url);
    await page.waitForFunction(() => window.demoResult, null, { timeout: 60000 });
    result = await page.evaluate(() => window.demoResult);
    // what a person sees: every section filled (the page once showed its loads and cache and an
    // empty pool table and chart, and the run still printed a result)
    sections = await page.evaluate(() => ({
      loads: document.querySelectorAll('#loads tbody tr').length,
      cache: document.querySelectorAll('#cache tbody tr').length,
      pool: document.querySelectorAll('#pool tbody tr').length,
      chart: document.querySelectorAll('#frames > div').length,
    }));
    if (process.argv.includes('--screenshot')) await page.screenshot({ path: 'build/demo.png', fullPage: true });
  } finally {
    await browser.close();
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
  const empty = result.error ? [] : Object.entries(SECTIONS_AT_LEAST).filter(([k, n]) => !(sections?.[k] >= n));
  if (result.error || empty.length) {
    console.error(
      `demo failed: ${result.error ?? `sections not filled: ${empty.map(([k, n]) => `${k} (${sections?.[k] ?? 0} of at least ${n})`).join(', ')}`}`,
    );
    process.exitCode = 1;
  } else {
    const m = result.model;
    console.log(`model    ${m.url}\n         sha256 ${m.sha256}, ${m.graphs} graphs, ${m.nodes} nodes`);
    // against the mean of the plain loads taken before the cold load and after the warm one
    const plains = result.loads.filter((l) => l.label.startsWith('plain'));
    const plainMs = plains.reduce((n, l) => n + l.ms, 0) / plains.length;
    console.log(
      `onnxruntime-web start-up (wasm compile, once per page, before the loads below): ${result.onnxruntimeStartMs.toFixed(0)} ms`,
    );
    for (const l of result.loads) {
      const phases = Object.entries(l.phases)
        .filter(([, ms]) => ms > 0)
        .map(([k, ms]) => `${k} ${ms.toFixed(0)}`)
        .join(', ');
      console.log(
        `${l.label.padEnd(22)}${l.ms.toFixed(0).padStart(5)} ms (${(l.ms / plainMs).toFixed(2)}x plain) from ${l.tier} as ${l.form}, ${l.requests} model request${l.requests === 1 ? '' : 's'}; ${phases}`,
      );
    }
    console.log(
      `cache    ${result.cached.map((e) => `${e.key} (${e.form}${e.status ? `, ${e.status === 'verified' ? `verified: created in ${e.createMs.toFixed(0)} ms vs ${e.originalCreateMs.toFixed(0)} ms for the original` : `failed: ${e.reason}`}` : ''}) ${e.bytes} bytes, ${e.hits} hit${e.hits === 1 ? '' : 's'}`).join(';\n         ')}`,
    );
    if (result.forms)
      console.log(
        `forms    stored in the background after the cold load: ${result.forms.stored ?? 'none'}${result.forms.failed.length ? `; failed: ${result.forms.failed.map((f) => `${f.form} (${f.reason})`).join(', ')}` : ''}`,
      );
    for (const r of result.pool)
      console.log(
        `pool     ${r.label.padEnd(32)} ${r.device.padEnd(7)} ${r.ms.toFixed(2)} ms/run, GPUBuffers/run ${r.buffers === null ? 'n/a' : r.buffers.toFixed(2)} ${r.detail}`,
      );
    console.log(`         ${result.poolNote}`);
    console.log(`run      ${result.runs} frames of 32 ms audio, ${result.msPerRun.toFixed(2)} ms per run`);
    console.log(`speech probability per frame:\n         ${result.probabilities.map((p) => p.toFixed(2)).join(' ')}`);
  }
}
