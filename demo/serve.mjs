// `npm run demo`: serves the demo on 127.0.0.1 and prints its URL. Headless
// (CI set, or no display), it drives the page in Chromium and prints what
// the page computed instead of waiting for a person.
import process from 'node:process';
import { launchBrowser } from '../scripts/chromium.mjs';
import { startServer } from '../scripts/static-server.mjs';

const port = Number(process.env.PORT ?? 8737);
const server = await startServer({ port }).catch(() => startServer({ port: 0 }));
const url = `${server.origin}/demo/`;
console.log(`ortkeep demo: ${url}`);

const headless = !!process.env.CI || !process.env.DISPLAY || process.argv.includes('--headless');
if (!headless) {
  console.log('open it in a browser; Ctrl-C stops the server');
} else {
  const browser = await launchBrowser();
  let result;
  try {
    const page = await browser.newPage();
    page.on('pageerror', (e) => console.error('[page error]', e.message));
    await page.goto(url);
    await page.waitForFunction(() => window.demoResult, null, { timeout: 60000 });
    result = await page.evaluate(() => window.demoResult);
    if (process.argv.includes('--screenshot')) await page.screenshot({ path: 'build/demo.png', fullPage: true });
  } finally {
    await browser.close();
    await server.close();
  }
  if (result.error) {
    console.error(`demo failed: ${result.error}`);
    process.exitCode = 1;
  } else {
    const m = result.model;
    console.log(`model    ${m.url}\n         sha256 ${m.sha256}, ${m.bytes} bytes, ${m.graphs} graphs, ${m.nodes} nodes, ${m.initializers} initializers, control flow ${JSON.stringify(m.controlFlow)}`);
    console.log(`load     ${result.timings.totalMs.toFixed(0)} ms (bytes ${result.timings.bytesMs.toFixed(0)}, read ${result.timings.readMs.toFixed(0)}, create session ${result.timings.createMs.toFixed(0)})`);
    console.log(`run      ${result.runs} frames of 32 ms audio, ${result.msPerRun.toFixed(2)} ms per run`);
    console.log(`speech probability per frame:\n         ${result.probabilities.map((p) => p.toFixed(2)).join(' ')}`);
  }
}
