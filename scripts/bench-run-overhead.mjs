// run() overhead on the wasm EP: ortkeep's Session.run against a bare
// onnxruntime-web session.run on the same model and the same inputs, in one
// page, in interleaved blocks (so drift hits both alike); median ms per run
// and the ratio (goal <= 1.03). On a shared 2-core machine that ratio swings
// by +-20% run to run, so the bench also times ortkeep's layer alone:
// run() with onnxruntime's session.run answering a stored result at once,
// many thousand runs, as microseconds and as a share of the bare run. With
// no `keep` on the wasm EP the pool steps aside (js/pool/pass-through.js):
// the row says how many runs did. `--node [--blocks N] [--runs N] [--before
// DIR/js/index.js]`: the same in Node (runNode below).
import process from 'node:process';
import { REAL_MODELS } from '../tests/models.mjs';

const MODELS = ['silero_vad_v5', 'ppocr_v2_cls'];

export async function run({ log = console.log, blocks = 12, perBlock = 20 } = {}) {
  // imported here: --node needs no browser
  const { launchBrowser } = await import('./chromium.mjs');
  const { startServer } = await import('./static-server.mjs');
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
          // which path the runs took: stepped aside (no keep on wasm) or through the pool
          const { passes, creates, reuses } = ours.pool.stats();
          await bare.release();
          await ours.dispose();
          const spread = (xs) => ({ min: Math.min(...xs), max: Math.max(...xs) });
          return {
            bare: med(t.bare),
            ours: med(t.ours),
            layer: med(layer),
            path: { passes, pooled: creates + reuses },
            spread: { bare: spread(t.bare), ours: spread(t.ours), layer: spread(layer) },
          };
        },
        { url, name, blocks, perBlock },
      );
      const row = { model: name, ...r, ratio: r.ours / r.bare, layerRatio: 1 + r.layer / r.bare };
      rows.push(row);
      log(
        `${name.padEnd(16)}${r.bare.toFixed(3).padStart(9)}${r.ours.toFixed(3).padStart(9)}   ${row.ratio.toFixed(3)}   (layer alone ${(r.layer * 1000).toFixed(1)} us/run = ${row.layerRatio.toFixed(3)}x; block spread bare ${r.spread.bare.min.toFixed(2)}-${r.spread.bare.max.toFixed(2)}, ortkeep ${r.spread.ours.min.toFixed(2)}-${r.spread.ours.max.toFixed(2)} ms; pool stepped aside on ${r.path.passes} runs, pooled inputs ${r.path.pooled})`,
      );
    }
    return rows;
  } finally {
    await browser.close();
    await server.close();
  }
}

/**
 * The same in Node (onnxruntime-web's wasm backend, one thread), where a quiet
 * machine is easier to find than for a browser: bare onnxruntime-web, a second
 * bare session (the spread between two identical sessions), ortkeep's own
 * onnxruntime session called directly, and ortkeep's run(), in interleaved
 * blocks whose order rotates, each ratio taken within its block; then the
 * layer alone as above. `before`: the path of another ortkeep's js/index.js
 * (e.g. an older commit's js/ extracted under build/), timed beside it.
 */
export async function runNode({ log = console.log, blocks = 16, perBlock = 50, before = null } = {}) {
  const { readFile } = await import('node:fs/promises');
  const { pathToFileURL } = await import('node:url');
  const ort = await import('onnxruntime-web');
  const ortkeep = await import('../js/index.js');
  const { FEEDS } = await import('../tests/browser/pages/feeds.js');
  const older = before ? await import(pathToFileURL(before).href) : null;
  ort.env.wasm.numThreads = 1;
  const med = (xs) => xs.slice().sort((a, b) => a - b)[xs.length >> 1];
  const span = (xs) => `${Math.min(...xs).toFixed(2)}-${Math.max(...xs).toFixed(2)}`;
  const rows = [];
  for (const name of MODELS) {
    const bytes = await readFile(new URL(`../${REAL_MODELS.find((m) => m.name === name).path}`, import.meta.url));
    const inputs = Array.from({ length: 20 }, (_, k) => FEEDS[name](ort, k + 1));
    const opts = { ort, executionProviders: ['wasm'], memory: false, forms: false };
    const bare = await ort.InferenceSession.create(bytes, { executionProviders: ['wasm'] });
    const bare2 = await ort.InferenceSession.create(bytes, { executionProviders: ['wasm'] });
    const ours = await ortkeep.load(bytes, opts);
    const old = older ? await older.load(bytes, opts) : null;
    const inner = ours.ortSession.run.bind(ours.ortSession);
    const S = { bare: (f) => bare.run(f), bare2: (f) => bare2.run(f), inner, ortkeep: (f) => ours.run(f) };
    if (old) S.before = (f) => old.run(f);
    const K = Object.keys(S);
    const time = async (fn) => {
      const t0 = performance.now();
      for (let i = 0; i < perBlock; i++) await fn(inputs[i % inputs.length]);
      return ((performance.now() - t0) / perBlock) * 1000;
    };
    for (let w = 0; w < 3; w++) for (const k of K) await time(S[k]);
    const us = Object.fromEntries(K.map((k) => [k, []]));
    const ratio = Object.fromEntries(K.map((k) => [k, []]));
    const orders = K.map((_, i) => [...K.slice(i), ...K.slice(0, i)]);
    orders.push(...orders.map((o) => o.slice().reverse()));
    for (let b = 0; b < blocks; b++) {
      const got = {};
      for (const k of orders[b % orders.length]) got[k] = await time(S[k]);
      for (const k of K) {
        us[k].push(got[k]);
        ratio[k].push(got[k] / got.bare);
      }
    }
    const layer = { ortkeep: [], before: [] };
    const stubbed = old ? { ortkeep: ours, before: old } : { ortkeep: ours };
    for (const s of Object.values(stubbed)) {
      const stored = await s.ortSession.run(inputs[0]);
      s.ortSession.run = async () => stored;
    }
    for (let r = 0; r < 10; r++) {
      for (const k of r % 2 ? Object.keys(stubbed).reverse() : Object.keys(stubbed)) {
        const t0 = performance.now();
        for (let i = 0; i < 5000; i++) await stubbed[k].run(inputs[i % inputs.length]);
        layer[k].push(((performance.now() - t0) / 5000) * 1000);
      }
    }
    const { passes } = ours.pool.stats();
    const row = { model: name, us: {}, ratio: {}, layer: {}, passes };
    for (const k of K) row.us[k] = med(us[k]);
    for (const k of K.slice(1)) row.ratio[k] = { median: med(ratio[k]), span: span(ratio[k]) };
    for (const k of Object.keys(stubbed)) row.layer[k] = { median: med(layer[k]), span: span(layer[k]) };
    rows.push(row);
    log(
      `${name}: us per run ${K.map((k) => `${k} ${row.us[k].toFixed(1)}`).join(', ')}; ratio to bare (median, min-max over ${blocks} blocks of ${perBlock}) ` +
        `${K.slice(1)
          .map((k) => `${k} ${row.ratio[k].median.toFixed(3)} (${row.ratio[k].span})`)
          .join(', ')}; ` +
        `layer alone us/run ${Object.keys(stubbed)
          .map((k) => `${k} ${row.layer[k].median.toFixed(2)} (${row.layer[k].span})`)
          .join(', ')}; stepped aside on ${passes} runs`,
    );
    await bare.release();
    await bare2.release();
    await ours.dispose();
    await old?.dispose();
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const arg = (flag) => {
    const i = process.argv.indexOf(flag);
    return i > 0 ? process.argv[i + 1] : undefined;
  };
  if (process.argv.includes('--node')) {
    await runNode({
      blocks: Number(arg('--blocks') ?? 16),
      perBlock: Number(arg('--runs') ?? 50),
      before: arg('--before') ?? null,
    });
  } else await run();
}
