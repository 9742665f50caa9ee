// The demo: load Silero VAD v5 through ortkeep twice — cold (the network,
// stored into IndexedDB as it streams) and warm (IndexedDB, no request) —,
// show the cache's contents and the reader's report, and run the model frame
// by frame over a synthetic clip, carrying the recurrent state from one run
// to the next through the session's tensor pool. window.demoResult is what
// `npm run demo` prints when it drives this page headless.
import * as ort from 'onnxruntime-web';
import { cache, load } from '/js/index.js';

const MODEL_URL = '/node_modules/@ricky0123/vad-web/dist/silero_vad_v5.onnx';
const SAMPLE_RATE = 16000;
const FRAME = 512;
ort.env.wasm.numThreads = 1;

const $ = (id) => document.getElementById(id);
const mib = (n) => `${(n / 1048576).toFixed(2)} MiB`;

/** 2 s of audio: silence, a 300 Hz tone burst with vibrato, silence, a burst. */
function syntheticClip() {
  const clip = new Float32Array(SAMPLE_RATE * 2);
  for (let i = 0; i < clip.length; i++) {
    const t = i / SAMPLE_RATE;
    const voiced = (t > 0.4 && t < 0.9) || (t > 1.3 && t < 1.8);
    const f = 180 + 40 * Math.sin(2 * Math.PI * 5 * t);
    const harmonics = Math.sin(2 * Math.PI * f * t) + 0.5 * Math.sin(4 * Math.PI * f * t) + 0.25 * Math.sin(6 * Math.PI * f * t);
    clip[i] = (voiced ? 0.3 * harmonics : 0) + 0.002 * Math.sin(i * 12.9898);
  }
  return clip;
}

/** One load, timed, with the tier it came from and the requests it sent. */
async function timedLoad(label, options = {}) {
  const before = performance.getEntriesByType('resource').filter((e) => e.name.endsWith('.onnx')).length;
  const t0 = performance.now();
  const session = await load(MODEL_URL, {
    memory: false, ...options,
    onProgress: (p) => { $('status').textContent = `${label}: ${p.phase} ${p.total ? `${Math.round((100 * p.loaded) / p.total)}%` : ''}`; },
  });
  const ms = performance.now() - t0;
  const requests = performance.getEntriesByType('resource').filter((e) => e.name.endsWith('.onnx')).length - before;
  const c = session.info.cache;
  return { session, row: { label, tier: c.tier, ms, requests, stored: c.stored, verified: c.verified, createMs: c.timings.createMs ?? 0, warnings: session.info.warnings } };
}

async function main() {
  // A first visit: nothing of this model stored yet.
  await cache.delete(new URL(MODEL_URL, location.href).href).catch(() => false);
  const cold = await timedLoad('cold');
  await cold.session.dispose();
  const { session, row: warmRow } = await timedLoad('warm');
  const loads = [cold.row, warmRow];
  $('status').textContent = `cold ${cold.row.ms.toFixed(0)} ms, warm ${warmRow.ms.toFixed(0)} ms`;
  $('loads').querySelector('tbody').innerHTML = loads
    .map((r) => `<tr><td>${r.label}</td><td>${r.tier}</td><td>${r.ms.toFixed(0)} ms</td><td>${r.createMs.toFixed(0)} ms</td><td>${r.requests}</td><td>${r.stored ? 'yes' : 'no'}</td><td>${r.verified ? 'yes' : 'no'}</td></tr>`).join('');
  const entries = await cache.list();
  $('cache').querySelector('tbody').innerHTML = entries
    .map((e) => `<tr><td>${escapeHtml(e.key)}</td><td>${mib(e.bytes)}</td><td>${e.form}</td><td>${e.hits}</td><td>${escapeHtml(e.sha256.slice(0, 16))}…</td></tr>`).join('');

  const { model, source } = session.info;
  const rows = [
    ['url', source.url], ['sha256', model.sha256], ['size', mib(source.bytes)],
    ['producer', `${model.producerName} ${model.producerVersion ?? ''}`], ['IR / opsets', `${model.irVersion} / ${JSON.stringify(model.opsetImports)}`],
    ['graphs', `${model.totals.graphs} (${model.totals.graphs - 1} subgraphs), ${model.totals.nodes} nodes`],
    ['control flow', JSON.stringify(model.controlFlow)],
    ['initializers', `${model.totals.initializers}, ${mib(model.totals.initializerBytes)} (${model.totals.subgraphInitializers} in subgraphs)`],
    ['shared initializers', model.sharedInitializers.length ? model.sharedInitializers.map((x) => `${x.name} in ${x.graphs.length} graphs`).join('; ') : 'none'],
    ['inputs', session.inputNames.join(', ')], ['outputs', session.outputNames.join(', ')],
  ];
  $('model').innerHTML = rows.map(([k, v]) => `<dt>${k}</dt><dd>${escapeHtml(String(v))}</dd>`).join('');

  const clip = syntheticClip();
  let state = new ort.Tensor('float32', new Float32Array(2 * 128), [2, 1, 128]);
  const sr = new ort.Tensor('int64', BigInt64Array.from([BigInt(SAMPLE_RATE)]), []);
  const probabilities = [];
  const t0 = performance.now();
  for (let at = 0; at + FRAME <= clip.length; at += FRAME) {
    const out = await session.run({ input: { data: clip.slice(at, at + FRAME), dims: [1, FRAME] }, state, sr });
    probabilities.push(out.output.data[0]);
    state = out.stateN;
  }
  const runMs = (performance.now() - t0) / probabilities.length;
  $('frames').innerHTML = probabilities.map((p) => `<div class="${p > 0.5 ? 'speech' : ''}" style="height:${Math.max(1, p * 100)}%" title="${p.toFixed(3)}"></div>`).join('');
  const pool = session.pool?.stats?.() ?? null;
  $('run-summary').textContent = `${probabilities.length} runs, ${runMs.toFixed(2)} ms per run; frames above 0.5: ${probabilities.filter((p) => p > 0.5).length}`
    + (pool ? `; tensor pool on ${pool.device}: ${pool.creates} tensors created, ${pool.reuses} reused` : '');
  window.demoResult = {
    model: { url: source.url, sha256: model.sha256, bytes: source.bytes, graphs: model.totals.graphs, nodes: model.totals.nodes, initializers: model.totals.initializers, controlFlow: model.controlFlow, sharedInitializers: model.sharedInitializers.length },
    loads, cached: entries.map((e) => ({ key: e.key, bytes: e.bytes, hits: e.hits })), pool,
    runs: probabilities.length, msPerRun: runMs, probabilities: probabilities.map((p) => +p.toFixed(3)),
  };
  await session.dispose();
}

function escapeHtml(s) {
  return s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]));
}

main().catch((e) => {
  $('status').innerHTML = `<span class="error">${escapeHtml(`${e.name}: ${e.message}`)}</span>`;
  window.demoResult = { error: `${e.name} ${e.code ?? ''}: ${e.message}` };
});
