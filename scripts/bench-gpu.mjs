// The tensor pool on a real GPU, without a browser: Node + Dawn (npm `webgpu`)
// + onnxruntime-web's WebGPU EP. Per model, in alternating blocks after a
// warm-up block, each of:
//   plain     onnxruntime-web, CPU tensors in and out (fed-back outputs too)
//   pol       onnxruntime-web, preferredOutputLocation 'gpu-buffer' for the
//             outputs fed back (only models that have such)
//   defaults  ortkeep load(bytes, {ort, executionProviders: ['webgpu']}) + run
//   keep      ortkeep, fed-back outputs kept on the device (`keep`)
//   device    ortkeep, pool: {placement: 'device'}
// ms per run (median of the blocks, min-max), its ratio to plain within each
// block, GPUBuffers created per run (GPUDevice.createBuffer wrapped), the
// upload shim's own cost, and max |Δ| of the last run's outputs vs plain.
// On a machine with no GPU, or only a fallback (software) adapter, it says
// "no GPU adapter" and exits 0: SwiftShader numbers are bench-pool.mjs's.
//
//   node scripts/bench-gpu.mjs [--blocks 5] [--runs 50] [--models a,b] [--ep wasm]
//   node scripts/bench-gpu.mjs --pack DIR    # a folder that runs with no npm/network
// Results go to $BENCH_OUT (default build/bench-gpu/) as bench-gpu.{json,md}.
// `--ep wasm` runs the same harness on the wasm EP (no adapter needed): a
// check of the harness on a machine without a GPU, not a measurement.
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { MODELS, ORT_BUNDLE } from './bench-gpu/models.mjs';

// The packed folder mirrors the repository's layout, so one script serves both.
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const VARIANTS = ['plain', 'pol', 'defaults', 'keep', 'device'];
const VARIANT_LABEL = {
  plain: 'onnxruntime-web, CPU tensors',
  pol: 'onnxruntime-web, preferredOutputLocation',
  defaults: 'ortkeep defaults',
  keep: 'ortkeep, keep fed-back outputs',
  device: "ortkeep, placement 'device'",
};

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const spread = (xs) => ({ median: median(xs), min: Math.min(...xs), max: Math.max(...xs) });

/** Describes the adapter Dawn offers, or why there is none that is a GPU. */
export async function findAdapter(create) {
  let gpu;
  try {
    gpu = create([]);
  } catch (e) {
    return { gpu: null, adapter: null, reason: `Dawn could not start: ${e.message.split('\n')[0]}` };
  }
  let adapter = null;
  try {
    adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
  } catch (e) {
    return { gpu, adapter: null, reason: `requestAdapter failed: ${e.message.split('\n')[0]}` };
  }
  if (!adapter)
    return {
      gpu,
      adapter: null,
      reason: 'requestAdapter() returned null (no Vulkan driver/ICD for a GPU; Dawn needs libvulkan.so.1 and one)',
    };
  const info = adapter.info ?? (await adapter.requestAdapterInfo?.()) ?? {};
  const described = {
    vendor: info.vendor ?? '',
    architecture: info.architecture ?? '',
    device: info.device ?? '',
    description: info.description ?? '',
    isFallbackAdapter: Boolean(info.isFallbackAdapter ?? adapter.isFallbackAdapter),
  };
  if (described.isFallbackAdapter)
    return {
      gpu,
      adapter: null,
      info: described,
      reason: `only a fallback (software) adapter: ${described.description || described.vendor || 'unnamed'}`,
    };
  return { gpu, adapter, info: described };
}

/**
 * Wraps the device's createBuffer (a count) and the queue's writeBuffer:
 * Dawn rejects a SharedArrayBuffer there (and crashes on a typed array viewing
 * one), while onnxruntime-web uploads from its shared wasm memory, so such an
 * upload is copied first; the copies' time is kept apart.
 */
export function instrument(globals) {
  const counters = { created: 0, shimMs: 0, shimCopies: 0 };
  const { GPUDevice, GPUQueue } = globals;
  const createBuffer = GPUDevice.prototype.createBuffer;
  GPUDevice.prototype.createBuffer = function (...args) {
    counters.created++;
    return createBuffer.apply(this, args);
  };
  const writeBuffer = GPUQueue.prototype.writeBuffer;
  GPUQueue.prototype.writeBuffer = function (buffer, offset, data, ...rest) {
    const shared =
      typeof SharedArrayBuffer !== 'undefined' &&
      (data instanceof SharedArrayBuffer || data?.buffer instanceof SharedArrayBuffer);
    if (shared) {
      const t0 = performance.now();
      // slice() of a typed array copies into a new, unshared ArrayBuffer;
      // offsets and sizes keep their meaning
      const copy = data instanceof SharedArrayBuffer ? new Uint8Array(data).slice().buffer : data.slice();
      counters.shimMs += performance.now() - t0;
      counters.shimCopies++;
      return writeBuffer.call(this, buffer, offset, copy, ...rest);
    }
    return writeBuffer.call(this, buffer, offset, data, ...rest);
  };
  return counters;
}

/** Reads any output (CPU or device tensor, ours or onnxruntime-web's) to a CPU array. */
async function readOut(t) {
  if (t == null) return null;
  if (t.location === undefined || t.location === 'cpu' || t.location === 'cpu-pinned') {
    try {
      if (t.data) return t.data;
    } catch {
      /* a device tensor: its data getter refuses */
    }
  }
  return await t.getData();
}

function maxDelta(a, b) {
  if (!a || !b || a.length !== b.length) return Number.POSITIVE_INFINITY;
  let m = 0;
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs(Number(a[i]) - Number(b[i]));
    if (d > m || Number.isNaN(d)) m = Number.isNaN(d) ? Number.POSITIVE_INFINITY : d;
  }
  return m;
}

/**
 * Makes one variant of one model: `block(runs)` runs a fresh sequence
 * (a generation for fed-back models) of `runs` runs with inputs that depend
 * only on the run's index, times it, and returns the last run's outputs.
 */
async function makeVariant(kind, model, bytes, { ort, ortkeep, ep }) {
  const tensor = (f) => new ort.Tensor(f.type, f.data, f.dims);
  const fb = model.feedback ?? {};
  const fbOutputs = Object.keys(fb);
  const inputsAt = Array.from({ length: 4 }, (_, k) => model.inputs(k)); // made once: the fill is not timed
  const plainFeed = (f) => ({ data: f.data, dims: f.dims }); // ortkeep's CPU feed form
  if (kind === 'plain' || kind === 'pol') {
    const options = { executionProviders: [ep] };
    if (kind === 'pol') {
      const s0 = await ort.InferenceSession.create(bytes, options);
      const loc = Object.fromEntries(s0.outputNames.map((n) => [n, fb[n] ? 'gpu-buffer' : 'cpu']));
      await s0.release();
      options.preferredOutputLocation = loc;
    }
    const s = await ort.InferenceSession.create(bytes, options);
    return {
      async block(runs) {
        let state = model.initial
          ? Object.fromEntries(Object.entries(model.initial()).map(([k, v]) => [k, tensor(v)]))
          : {};
        let prev = null;
        let last = null;
        const t0 = performance.now();
        for (let k = 0; k < runs; k++) {
          const feeds = { ...state };
          for (const [n, f] of Object.entries(inputsAt[k % 4])) feeds[n] = tensor(f);
          const o = await s.run(feeds);
          for (const n of s.outputNames) if (!fb[n]) await readOut(o[n]); // CPU already; nothing for pol's GPU ones
          if (prev && kind === 'pol') for (const n of fbOutputs) prev[n].dispose();
          state = Object.fromEntries(fbOutputs.map((n) => [fb[n], o[n]]));
          prev = o;
          last = o;
        }
        const ms = (performance.now() - t0) / runs;
        const outs = {};
        for (const n of s.outputNames) outs[n] = Array.from(await readOut(last[n]));
        if (kind === 'pol') for (const n of fbOutputs) last[n].dispose();
        return { ms, outs };
      },
      release: () => s.release(),
    };
  }
  const loadOptions = { ort, executionProviders: [ep], memory: false };
  if (kind === 'device') loadOptions.pool = { placement: 'device' };
  const s = await ortkeep.load(bytes, loadOptions);
  await s.formsReady;
  const keep = kind === 'keep' ? fbOutputs : [];
  const feedsAt = inputsAt.map((fs) => Object.fromEntries(Object.entries(fs).map(([n, f]) => [n, plainFeed(f)])));
  return {
    async block(runs) {
      let state = model.initial
        ? Object.fromEntries(Object.entries(model.initial()).map(([n, f]) => [n, plainFeed(f)]))
        : {};
      let kept = null;
      let last = null;
      const t0 = performance.now();
      for (let k = 0; k < runs; k++) {
        const o = await s.run({ ...state, ...feedsAt[k % 4] }, keep.length ? { keep } : undefined);
        if (kept) for (const n of keep) s.pool.release(kept[n]);
        kept = keep.length ? o : null;
        state = Object.fromEntries(fbOutputs.map((n) => [fb[n], o[n]])); // kept device tensors, or CPU ort.Tensors
        last = o;
      }
      const ms = (performance.now() - t0) / runs;
      const outs = {};
      for (const n of s.outputNames) outs[n] = Array.from(await readOut(last[n]));
      if (kept) for (const n of keep) s.pool.release(kept[n]);
      return { ms, outs, stats: s.pool.stats() };
    },
    release: () => s.dispose(),
  };
}

/** Runs every variant of one model in alternating blocks; one row per variant. */
async function benchModel(model, { ort, ortkeep, ep, counters, blocks, runs, log }) {
  const bytes = new Uint8Array(readFileSync(path.join(ROOT, model.path)));
  const kinds = VARIANTS.filter((k) =>
    k === 'pol' ? model.feedback && ep === 'webgpu' : k !== 'keep' || model.feedback,
  );
  const variants = {};
  for (const k of kinds) variants[k] = await makeVariant(k, model, bytes, { ort, ortkeep, ep });
  const measure = async (k, n) => {
    const c0 = counters.created;
    const s0 = counters.shimMs;
    const r = await variants[k].block(n);
    return { ...r, buffers: (counters.created - c0) / n, shimMs: (counters.shimMs - s0) / n };
  };
  // warm-up: shaders, placement verdicts, a decoder's learned growth
  for (const k of kinds) await measure(k, runs);
  const results = Object.fromEntries(kinds.map((k) => [k, []]));
  for (let b = 0; b < blocks; b++) {
    const order = kinds.map((_, i) => kinds[(i + b) % kinds.length]);
    if (b % 2) order.reverse();
    for (const k of order) results[k].push(await measure(k, runs));
  }
  const rows = kinds.map((k) => {
    const rs = results[k];
    const ms = spread(rs.map((r) => r.ms));
    const ratio = spread(rs.map((r, b) => r.ms / results.plain[b].ms));
    const buffers = spread(rs.map((r) => r.buffers));
    const shim = spread(rs.map((r) => r.shimMs));
    let delta = 0;
    for (const [b, r] of rs.entries())
      for (const [n, v] of Object.entries(r.outs)) delta = Math.max(delta, maxDelta(v, results.plain[b].outs[n]));
    const stats = rs.at(-1).stats;
    return {
      model: model.name,
      label: model.label,
      variant: k,
      variantLabel: VARIANT_LABEL[k],
      ms,
      ratio,
      buffers,
      shimMs: shim,
      maxAbsDelta: delta,
      placement: stats?.placement ?? null,
      poolDevice: stats?.device ?? null,
    };
  });
  for (const v of Object.values(variants)) await v.release();
  for (const r of rows) log(formatRow(r));
  return rows;
}

const f2 = (x) => (x >= 100 ? x.toFixed(1) : x.toFixed(x >= 10 ? 2 : 3));
const fmtSpread = (s, f = f2) => `${f(s.median)} (${f(s.min)}-${f(s.max)})`;
const fmtX = (s) => `${s.median.toFixed(2)}x (${s.min.toFixed(2)}-${s.max.toFixed(2)})`;
const fmtDelta = (d) => (d === 0 ? '0' : d.toExponential(1));
const HEADER = ['model', 'variant', 'ms/run', 'vs plain', 'GPUBuffers/run', 'shim ms/run', 'max |Δ|', 'placement'];
const cells = (r) => [
  r.label,
  r.variantLabel,
  fmtSpread(r.ms),
  fmtX(r.ratio),
  r.buffers.median.toFixed(2),
  r.shimMs.median.toFixed(3),
  fmtDelta(r.maxAbsDelta),
  r.placement ?? '',
];
const WIDTHS = [26, 40, 24, 20, 15, 12, 9, 10];
const formatRow = (r) =>
  cells(r)
    .map((c, i) => (i < 2 ? c.padEnd(WIDTHS[i]) : c.padStart(WIDTHS[i])))
    .join(' ');

function markdown(report) {
  const lines = [
    `# ortkeep pool on ${report.adapter ? 'a GPU' : report.ep}: npm run bench:gpu`,
    '',
    report.adapter
      ? `Adapter: ${report.adapter.vendor} ${report.adapter.architecture} ${report.adapter.device} (${report.adapter.description})`
      : `EP: ${report.ep} (no GPU adapter: a check of the harness, not a measurement)`,
    '',
    `${report.node}, onnxruntime-web ${report.ortVersion}, webgpu (Dawn) ${report.webgpuVersion}; ${report.blocks} alternating blocks x ${report.runs} runs per variant after a warm-up block; median of the blocks (min-max); ratio to plain taken within each block. Shim: copying uploads out of shared wasm memory for Dawn (counted in the time, also shown alone).`,
    '',
    `| ${HEADER.join(' | ')} |`,
    `|${HEADER.map(() => '---').join('|')}|`,
    ...report.rows.map((r) => `| ${cells(r).join(' | ')} |`),
    '',
  ];
  return lines.join('\n');
}

export async function bench({ blocks = 5, runs = 50, models, ep = 'webgpu', out, log = console.log } = {}) {
  // Node 20 blocks on V8's background compile of onnxruntime-web's 28 MB wasm
  // whenever its event loop runs empty: a live timer keeps it turning.
  const keepAlive = setInterval(() => {}, 50);
  try {
    const pkg = (p) => JSON.parse(readFileSync(path.join(ROOT, 'node_modules', p, 'package.json'), 'utf8')).version;
    // everything the bench needs is imported and found before the adapter is asked for
    const { create, globals } = await import('webgpu');
    // the JSEP build (its WebGPU EP): in Node `onnxruntime-web` resolves to a
    // wasm-only build and `onnxruntime-web/webgpu` to the asyncify one
    const ort = await import(pathToFileURL(path.join(ROOT, ORT_BUNDLE)).href);
    const ortkeep = await import('../js/index.js');
    const chosen = MODELS.filter((m) => !models || models.includes(m.name));
    if (chosen.some((m) => m.name === 'kv_decoder') && !existsSync(path.join(ROOT, MODELS[0].path))) {
      const { makeDecoder } = await import('../tests/decoder-model.mjs');
      makeDecoder();
    }
    for (const m of chosen)
      if (!existsSync(path.join(ROOT, m.path))) throw new Error(`bench-gpu: missing model ${m.path}`);
    ort.env.wasm.numThreads = 1;
    ort.env.logLevel = 'error';

    let adapterInfo = null;
    let gpu = null;
    let counters = { created: 0, shimMs: 0, shimCopies: 0 };
    if (ep === 'webgpu') {
      const found = await findAdapter(create);
      gpu = found.gpu;
      if (!found.adapter) {
        log(`no GPU adapter: ${found.reason}`);
        return { gpu: false, reason: found.reason, info: found.info ?? null };
      }
      adapterInfo = found.info;
      log(
        `adapter: vendor ${adapterInfo.vendor || '?'}, architecture ${adapterInfo.architecture || '?'}, device ${adapterInfo.device || '?'}, description ${adapterInfo.description || '?'}`,
      );
      Object.assign(globalThis, globals);
      // Node 20 has no navigator; onnxruntime-web's WebGPU EP asks navigator.gpu
      if (!globalThis.navigator) globalThis.navigator = {};
      Object.defineProperty(globalThis.navigator, 'gpu', { value: gpu, configurable: true });
      ort.env.webgpu.adapter = found.adapter;
      counters = instrument(globals);
    }
    log(
      `${blocks} alternating blocks x ${runs} runs per variant after a warm-up block; ms/run median of blocks (min-max)`,
    );
    log(HEADER.map((c, i) => (i < 2 ? c.padEnd(WIDTHS[i]) : c.padStart(WIDTHS[i]))).join(' '));
    const rows = [];
    for (const m of chosen) rows.push(...(await benchModel(m, { ort, ortkeep, ep, counters, blocks, runs, log })));
    const report = {
      date: new Date().toISOString(),
      node: process.version,
      ortVersion: pkg('onnxruntime-web'),
      webgpuVersion: pkg('webgpu'),
      ep,
      adapter: adapterInfo,
      blocks,
      runs,
      shimCopies: counters.shimCopies,
      rows,
    };
    const dir = out ?? process.env.BENCH_OUT ?? process.env.OUT ?? path.join(ROOT, 'build/bench-gpu');
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, 'bench-gpu.json'), `${JSON.stringify(report, null, 2)}\n`);
    await writeFile(path.join(dir, 'bench-gpu.md'), markdown(report));
    log(`wrote ${path.join(dir, 'bench-gpu.json')} and bench-gpu.md`);
    for (const r of rows)
      if (r.maxAbsDelta > 1e-3)
        log(`WARNING: ${r.label}, ${r.variantLabel}: outputs differ from plain by ${r.maxAbsDelta}`);
    return { gpu: ep === 'webgpu', report };
  } finally {
    clearInterval(keepAlive);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      pack: { type: 'string' },
      blocks: { type: 'string', default: '5' },
      runs: { type: 'string', default: '50' },
      models: { type: 'string' },
      ep: { type: 'string', default: 'webgpu' },
    },
  });
  if (values.pack) {
    const { pack } = await import('./bench-gpu/pack.mjs');
    await pack(path.resolve(values.pack));
  } else {
    await bench({
      blocks: Number(values.blocks),
      runs: Number(values.runs),
      models: values.models?.split(','),
      ep: values.ep,
    });
  }
  // Dawn's instance keeps the process alive while referenced
  process.exit(0);
}
