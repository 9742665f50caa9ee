// transformers.js as an app runs it (its web build, the app's code unchanged
// but for `import 'ortkeep/transformers'`): a feature-extraction pipeline,
// page start (navigation) to the first result, on a first and a second
// visit, for transformers.js alone (its own downloads, kept in its Cache
// API) and with ortkeep (the model in ortkeep's IndexedDB cache, served in
// the form verified on the first visit). Each repeat is a fresh on-disk
// profile per mode; every visit is a new tab in it. The model:
// tests/fixtures/make_hf_models.py's bench-bert (a MiniLM-sized embedding
// table, 47 MB). The runtime issue's goals: second visit <= 0.6x alone,
// first visit <= 1.0x. Both sides bundled, as apps ship them: transformers.js's
// web build, and ortkeep/transformers bundled here by esbuild (its ~75
// source modules unbundled, each revalidated on a second visit, cost
// ~+0.15x on both visits).
import { build } from 'esbuild';
import process from 'node:process';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { launchPersistent } from './chromium.mjs';
import { REPO_ROOT, startServer } from './static-server.mjs';

const MODEL = 'bench-bert';
const MODES = ['alone', 'ortkeep'];
const REPEATS = 3;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** One visit in a new tab: ms from the page's start to the first result, and what served the model. */
async function visit(context, origin, mode, settle) {
  const page = await context.newPage();
  try {
    await page.goto(`${origin}/tests/browser/pages/transformers.html${mode === 'ortkeep' ? '?ortkeep=bundle' : ''}`);
    await page.waitForFunction(() => window.ready === true, null, { timeout: 120000, polling: 20 });
    return await page.evaluate(
      async ({ model, settle }) => {
        const { pipeline } = window.transformers;
        const extractor = await pipeline('feature-extraction', model, { dtype: 'fp32', device: 'wasm' });
        await extractor('ortkeep keeps models in the browser cache', { pooling: 'mean', normalize: true });
        const ms = performance.now();
        const info = extractor.model.sessions.model.info;
        // the person stays a while: what the page still stores (and verifies) is done
        let forms = null;
        if (settle && info) {
          const r = await extractor.model.sessions.model.formsReady;
          forms = r.stored ?? r.failed.map((f) => `${f.form}:${f.reason}`).join(',');
          await (await import('/js/index.js')).cache.settled();
        }
        return { ms, served: info ? `${info.cache?.tier}/${info.form?.chosen}` : null, forms };
      },
      { model: MODEL, settle },
    );
  } finally {
    await page.close();
  }
}

/**
 * The models (tests/fixtures/make_hf_models.py, with bench-bert) and
 * ortkeep/transformers as an app's bundler emits it, in build/: what a
 * transformers.html?ortkeep=bundle page imports.
 */
export async function buildApp() {
  execFileSync('/usr/bin/python3', [
    path.join(REPO_ROOT, 'tests/fixtures/make_hf_models.py'),
    path.join(REPO_ROOT, 'build/hf-models'),
    '--bench',
  ]);
  // ortkeep/transformers as an app's bundler emits it (transformers.js and
  // onnxruntime-web stay the page's); in build/ so that its '../dist/' is ortkeep's dist/
  await build({
    entryPoints: [path.join(REPO_ROOT, 'js/transformers.js')],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    external: ['@huggingface/transformers', 'onnxruntime-web', 'onnxruntime-web/*'],
    outfile: path.join(REPO_ROOT, 'build/ortkeep-transformers.bench.mjs'),
    logLevel: 'warning',
  });
}

export async function run({ log = console.log, repeats = REPEATS } = {}) {
  await buildApp();
  const server = await startServer();
  const t = { first: { alone: [], ortkeep: [] }, second: { alone: [], ortkeep: [] } };
  const served = [];
  const kept = []; // what the first visit's background work kept (or why not)
  try {
    for (let i = 0; i < repeats; i++) {
      for (const mode of i % 2 ? [...MODES].reverse() : MODES) {
        const dir = await mkdtemp(path.join(tmpdir(), 'ortkeep-bench-transformers-'));
        const context = await launchPersistent(dir);
        try {
          const first = await visit(context, server.origin, mode, true);
          t.first[mode].push(first.ms);
          if (first.forms) kept.push(first.forms);
          const second = await visit(context, server.origin, mode, false);
          t.second[mode].push(second.ms);
          if (mode === 'ortkeep') served.push(second.served);
        } finally {
          await context.close();
          await rm(dir, { recursive: true, force: true });
        }
      }
    }
  } finally {
    await server.close();
  }
  log(`transformers.js feature-extraction (${MODEL}, 47 MB), device 'wasm': medians over ${repeats} fresh profiles,`);
  log('ms from page start to the first result; ortkeep/alone against the goals');
  log(`${'visit'.padEnd(8)}${'alone'.padStart(8)}${'ortkeep'.padStart(9)}  ortkeep/alone  goal`);
  const rows = [];
  for (const which of ['first', 'second']) {
    const a = median(t[which].alone);
    const o = median(t[which].ortkeep);
    const goal = which === 'first' ? 1.0 : 0.6;
    rows.push({ visit: which, alone: a, ortkeep: o, ratio: o / a, goal, samples: t[which] });
    log(
      `${which.padEnd(8)}${a.toFixed(0).padStart(8)}${o.toFixed(0).padStart(9)}  ${(o / a).toFixed(2).padStart(13)}  <= ${goal}${which === 'second' ? `   served: ${served.join(' ')}` : `   forms kept: ${kept.join(' ')}`}`,
    );
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
