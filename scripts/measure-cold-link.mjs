// Where a cold load's time goes on a throttled link (the cache bench's
// 50 Mbit/20 ms), plain onnxruntime-web against ortkeep: for each load, the
// model request's own timing as the browser saw it (request start, first
// byte, last byte: Resource Timing), then what came after the last byte
// until the session was ready, and ortkeep's phases (session.info timings).
// `node scripts/measure-cold-link.mjs [MODEL...] [--repeats=N] [--modes=plain,cold,cold-nf]`
// (MODEL: isnet_quint8, isnet_fp16, ppocr_v4_det; default isnet_quint8).
import process from 'node:process';
import { openBench, startRuntime } from './bench-cache.mjs';
import { CHUNKED_MODELS, REAL_MODELS } from '../tests/models.mjs';

const arg = (name, dflt) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? dflt;
const repeats = Number(arg('repeats', 3));
const modes = arg('modes', 'plain,cold,cold-nf').split(',');
const names = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const LINK = { offline: false, latency: 20, downloadThroughput: 50e6 / 8, uploadThroughput: 50e6 / 8 };
const models = (names.length ? names : ['isnet_quint8']).map(
  (n) => CHUNKED_MODELS.find((m) => m.name === n) ?? REAL_MODELS.find((m) => m.name === n),
);

async function once(context, origin, url, mode) {
  const page = await context.newPage();
  try {
    await page.goto(`${origin}/tests/browser/pages/esm.html`);
    await page.waitForFunction(() => window.ready === true);
    if (mode !== 'plain') await page.evaluate(() => window.ortkeep.cache.clear());
    await startRuntime(page, mode !== 'plain');
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    await cdp.send('Network.emulateNetworkConditions', LINK);
    return await page.evaluate(
      async ({ url, mode }) => {
        const { ortkeep, ortDirect: ort } = window;
        performance.clearResourceTimings();
        const t0 = performance.now();
        let session;
        if (mode === 'plain')
          session = await ort.InferenceSession.create(new Uint8Array(await (await fetch(url)).arrayBuffer()));
        else session = await ortkeep.load(url, mode === 'cold' ? {} : { forms: false });
        const ready = performance.now();
        const entries = performance.getEntriesByType('resource').filter((e) => e.startTime >= t0 - 1);
        const model = entries.filter((e) => e.name.endsWith(url));
        const last = model.at(-1);
        const out = {
          totalMs: ready - t0,
          requests: entries.map(
            (e) => `${e.name.split('/').pop()} ${(e.startTime - t0).toFixed(0)}-${(e.responseEnd - t0).toFixed(0)}`,
          ),
          firstByteMs: last ? last.responseStart - t0 : null,
          lastByteMs: last ? last.responseEnd - t0 : null,
          afterBodyMs: last ? ready - last.responseEnd : null,
          timings: session.info?.cache?.timings ?? null,
        };
        if (session.cacheSettled) await session.cacheSettled;
        await (session.dispose ? session.dispose() : session.release());
        return out;
      },
      { url, mode },
    );
  } finally {
    await page.close();
  }
}

const bench = await openBench('cold-link');
try {
  for (const m of models) {
    const url = `/${m.path}`;
    console.log(`\n${m.name} at 50 Mbit/20 ms, ${repeats} each, alternating`);
    for (let i = 0; i < repeats; i++)
      for (const mode of i % 2 ? [...modes].reverse() : modes) {
        const r = await once(bench.context, bench.server.origin, url, mode);
        const ph = r.timings
          ? Object.entries(r.timings)
              .filter(([, v]) => typeof v === 'number' && v >= 1)
              .map(([k, v]) => `${k.replace(/Ms$/, '')} ${v.toFixed(0)}`)
              .join(', ')
          : '';
        console.log(
          `${mode.padEnd(8)} total ${r.totalMs.toFixed(0).padStart(6)}  first byte ${r.firstByteMs?.toFixed(0)}  last byte ${r.lastByteMs?.toFixed(0)}  after it ${r.afterBodyMs?.toFixed(0)}  [${ph}]  requests: ${r.requests.join('; ')}`,
        );
      }
  }
} finally {
  await bench.close();
}
