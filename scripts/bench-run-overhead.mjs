// run() overhead on the wasm EP: ortkeep's Session.run against a bare
// onnxruntime-web session.run on the same model and the same inputs, in one
// page, in interleaved blocks (so drift hits both alike); median ms per run
// and the ratio (goal <= 1.03). On a shared 2-core machine that ratio swings
// by +-20% run to run, so the bench also times ortkeep's layer alone:
// run() with onnxruntime's session.run answering a stored result at once,
// many thousand runs, as microseconds and as a share of the bare run.
import process from 'node:process';
import { launchBrowser } from './chromium.mjs';
import { startServer } from './static-server.mjs';
import { REAL_MODELS } from '../tests/models.mjs';

const MODELS = ['silero_vad_v5', 'ppocr_v2_cls'];

export async function run({ log = console.log, blocks = 12, perBlock = 20 } = {}) {
  const server = await startServer();
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage();
    await page.goto(`${server.origin}/tests/browser/pages/pool.html`);
    await page.waitForFunction(() => window.ready === true, null, { timeout: 30000 });
    page.setDefaultTimeout(600000);
    log('wasm EP, median ms per run over interleaved blocks (ortkeep run() vs bare session.run, same inputs)');
    log(`${'model'.padEnd(16)}${'bare'.padStart(9)}${'ortkeep'.padStart(9)}   ratio`);
    const rows = [];
    for (const name of MODELS) {
      const url = `/${REAL_MODELS.find((m) => m.name === name).path}`;
      const r = await page.evaluate(
        async ({ url, name, blocks, perBlock }) => {
          const { ort, ortkeep, feeds } = window;
          const bare = await ort.InferenceSession.create(url, { executionProviders: ['wasm'] });
          const ours = await ortkeep.load(url, { ort, executionProviders: ['wasm'], memory: false });
          await ours.formsReady; // steady state: after the first visit's background form work
          const inputs = Array.from({ length: perBlock }, (_, k) => feeds.FEEDS[name](ort, k + 1));
          const time = async (fn) => {
            const t0 = performance.now();
            for (const f of inputs) await fn(f);
            return (performance.now() - t0) / perBlock;
          };
          const runBare = (f) => bare.run(f);
          const runOurs = (f) => ours.run(f);
          await time(runBare);
          await time(runOurs); // warm-up
          const t = { bare: [], ours: [] };
          for (let b = 0; b < blocks; b++) {
            for (const k of b % 2 ? ['ours', 'bare'] : ['bare', 'ours'])
              t[k].push(await time(k === 'bare' ? runBare : runOurs));
          }
          const med = (xs) => xs.slice().sort((a, b) => a - b)[xs.length >> 1];
          // the layer alone: same feeds, onnxruntime's answer stored
          const stored = await ours.ortSession.run(inputs[0]);
          const realRun = ours.ortSession.run;
          ours.ortSession.run = async () => stored;
          const layer = [];
          for (let r = 0; r < 5; r++) {
            const t0 = performance.now();
            for (let i = 0; i < 2000; i++) await ours.run(inputs[i % perBlock]);
            layer.push((performance.now() - t0) / 2000);
          }
          ours.ortSession.run = realRun;
          await bare.release();
          await ours.dispose();
          const spread = (xs) => ({ min: Math.min(...xs), max: Math.max(...xs) });
          return {
            bare: med(t.bare),
            ours: med(t.ours),
            layer: med(layer),
            spread: { bare: spread(t.bare), ours: spread(t.ours), layer: spread(layer) },
          };
        },
        { url, name, blocks, perBlock },
      );
      const row = { model: name, ...r, ratio: r.ours / r.bare, layerRatio: 1 + r.layer / r.bare };
      rows.push(row);
      log(
        `${name.padEnd(16)}${r.bare.toFixed(3).padStart(9)}${r.ours.toFixed(3).padStart(9)}   ${row.ratio.toFixed(3)}   (layer alone ${(r.layer * 1000).toFixed(1)} us/run = ${row.layerRatio.toFixed(3)}x; block spread bare ${r.spread.bare.min.toFixed(2)}-${r.spread.bare.max.toFixed(2)}, ortkeep ${r.spread.ours.min.toFixed(2)}-${r.spread.ours.max.toFixed(2)} ms)`,
      );
    }
    return rows;
  } finally {
    await browser.close();
    await server.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
