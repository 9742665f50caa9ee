// Peak memory of a load: the renderer process's peak resident set (VmHWM in
// /proc, Linux) over one fresh browser each, from launch to the session
// ready, for
//   plain  fetch + InferenceSession.create (what a user writes without ortkeep)
//   warm   ortkeep served from IndexedDB (read, chunk checks, create)
//   cold   ortkeep with an empty cache (download, SHA-256, store, create)
// interleaved, medians. The ratio to plain is what to read (issue 10's goal:
// warm <= 1.05x plain). Every run starts a new browser on one on-disk
// profile, so IndexedDB persists and no renderer is reused.
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { launchPersistent } from './chromium.mjs';
import { startServer } from './static-server.mjs';
import { assembleChunkedModel, CHUNKED_MODELS, makeBigModel, REAL_MODELS } from '../tests/models.mjs';

const MODELS = [
  { label: 'ppocr_v4_det 4.7 MB', path: REAL_MODELS.find((m) => m.name === 'ppocr_v4_det').path },
  { label: 'isnet_quint8 44 MB', path: CHUNKED_MODELS[0].path, assemble: CHUNKED_MODELS[0] },
  // generated (tests/fixtures/make_big_model.py): 600 MB of weights in two external data files
  {
    label: 'big 600 MB, 2 files',
    path: 'build/fixtures/big600/big.onnx',
    make: ['build/fixtures/big600', 600, 2],
    files: ['big.onnx_data', 'big.onnx_data_1'],
  },
];

const REPEATS = 3;
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

async function procs() {
  const out = [];
  for (const d of await readdir('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const [cmd, stat, status] = await Promise.all([
        readFile(`/proc/${d}/cmdline`, 'utf8'),
        readFile(`/proc/${d}/stat`, 'utf8'),
        readFile(`/proc/${d}/status`, 'utf8'),
      ]);
      const ppid = +stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1];
      const hwm = +(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
      // Chromium rewrites its children's command lines into one space-separated title
      out.push({ pid: +d, ppid, cmd: cmd.split(/[\0 ]/), hwm });
    } catch {
      /* gone */
    }
  }
  return out;
}

/** The peak RSS of the renderers of the browser using profile `dir`. */
async function rendererPeak(dir) {
  const all = await procs();
  const root = all.find(
    (p) => p.cmd.some((a) => a === `--user-data-dir=${dir}`) && !p.cmd.some((a) => a.startsWith('--type=')),
  );
  if (!root) throw new Error('the browser process was not found');
  const kids = new Map();
  for (const p of all) kids.set(p.ppid, [...(kids.get(p.ppid) ?? []), p]);
  let peak = 0;
  const walk = (p) => {
    if (p.cmd.includes('--type=renderer')) peak = Math.max(peak, p.hwm);
    for (const k of kids.get(p.pid) ?? []) walk(k);
  };
  walk(root);
  return peak;
}

async function measure(dir, origin, url, mode, files = []) {
  const context = await launchPersistent(dir);
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    await page.goto(`${origin}/tests/browser/pages/esm.html`);
    await page.waitForFunction(() => window.ready === true);
    const core = await page.evaluate(
      async ({ url, mode, files }) => {
        const { ortkeep, ortDirect: ort } = window;
        if (mode === 'clear') {
          await ortkeep.cache.clear();
          return;
        }
        if (mode === 'plain') {
          // external data as onnxruntime-web's docs show: each file by URL, next to the model
          const externalData = files.map((f) => ({ path: f, data: new URL(f, new URL(url, location.href)).href }));
          const s = await ort.InferenceSession.create(
            new Uint8Array(await (await fetch(url, { cache: 'no-store' })).arrayBuffer()),
            files.length ? { externalData } : {},
          );
          await s.release();
          return;
        }
        const s = await ortkeep.load(url);
        const tier = s.info.cache.tier;
        await s.cacheSettled; // the store behind the caller is part of a cold load's memory
        await s.dispose();
        if ((mode === 'warm') !== (tier === 'indexeddb')) throw new Error(`${mode}: served from ${tier}`);
        // the core's wasm memory after the load (it never shrinks: the load's peak)
        return (await (await import('/js/core/module.js')).getCore()).memoryBytes();
      },
      { url, mode, files },
    );
    return { peak: await rendererPeak(dir), core: core ?? 0 };
  } finally {
    await context.close();
  }
}

export async function run({ log = console.log, only } = {}) {
  if (process.platform !== 'linux') {
    log('peak memory is read from /proc: Linux only');
    return [];
  }
  for (const m of MODELS) if (m.assemble) await assembleChunkedModel(m.assemble);
  for (const m of MODELS) if (m.make && (!only || m.label.includes(only))) makeBigModel(m.make);
  const server = await startServer();
  const dir = await mkdtemp(path.join(tmpdir(), 'ortkeep-bench-memory-'));
  const rows = [];
  try {
    log(`renderer peak RSS (VmHWM), MiB, medians of ${REPEATS} fresh browsers (lower is better)`);
    log(
      `${'model'.padEnd(22)}${'plain'.padStart(8)}${'warm'.padStart(8)}${'cold'.padStart(8)}  warm/plain (goal <= 1.05) cold/plain  core MiB cold/warm (goal < 8)`,
    );
    for (const m of MODELS) {
      if (only && !m.label.includes(only)) continue;
      const url = `/${m.path}`;
      const t = { plain: [], warm: [], cold: [] };
      const core = { cold: 0, warm: 0 };
      const take = (mode, r) => {
        t[mode].push(r.peak);
        if (mode in core) core[mode] = Math.max(core[mode], r.core);
      };
      for (let i = 0; i < REPEATS; i++) {
        await measure(dir, server.origin, url, 'clear');
        take('cold', await measure(dir, server.origin, url, 'cold', m.files));
        // plain and warm alternate which goes first
        for (const mode of i % 2 ? ['warm', 'plain'] : ['plain', 'warm'])
          take(mode, await measure(dir, server.origin, url, mode, m.files));
      }
      const med = Object.fromEntries(Object.entries(t).map(([k, v]) => [k, median(v)]));
      const mib = (b) => (b / 1048576).toFixed(0).padStart(8);
      log(
        `${m.label.padEnd(22)}${mib(med.plain)}${mib(med.warm)}${mib(med.cold)}  ${(med.warm / med.plain).toFixed(3).padStart(25)} ${(med.cold / med.plain).toFixed(3).padStart(10)}  ${(core.cold / 1048576).toFixed(1).padStart(17)}/${(core.warm / 1048576).toFixed(1)}`,
      );
      rows.push({
        model: m.label,
        ...med,
        warmRatio: med.warm / med.plain,
        coldRatio: med.cold / med.plain,
        coreCold: core.cold,
        coreWarm: core.warm,
        samples: t,
      });
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
    await server.close();
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) await run({ only: process.argv[2] });
