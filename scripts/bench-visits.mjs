// What a person waits for: page start (navigation) to the first result, on
// a first and a second visit, for
//   plain     onnxruntime-web alone: InferenceSession.create(url), the
//             model from the browser's HTTP cache on later visits
//   no-forms  ortkeep's script-tag bundle, load(url, {forms: false}): the
//             original from IndexedDB on later visits
//   ortkeep   ortkeep as it ships (forms on): the second visit is served in
//             the form the first visit verified, when one was kept
// and onnxruntime-web's own start-up as its own columns (page start to a
// tiny model's session: the part no cache can remove), from the build its
// default entry starts (ort-start: JSEP, 28 MB) and from the plain build
// (ort-plain: 14 MB, what ortkeep starts where a page lists only 'wasm').
// The runtime issue's goals: a second visit <= 0.45x plain, a first <= 0.7x,
// forms: false's second visit <= 1.0x. And a page that loads a small wasm
// model, then a model on WebGPU (SwiftShader here), page start to both
// results: ortkeep starts the plain build for the first and the entry's
// full build beside it for the second on a first visit (<= 1.0x plain), the
// full build at once on the next (<= 0.7x).
// Each repeat is a fresh on-disk profile; every visit is a new tab in it.
// The static server answers as a plain static host does (ETag and
// Last-Modified, no Cache-Control), so onnxruntime-web's files, ortkeep's
// bundle and plain's model come from the HTTP cache as they would, and
// Chromium's wasm code cache is whatever it keeps by itself.
import process from 'node:process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { launchPersistent } from './chromium.mjs';
import { startServer } from './static-server.mjs';
import { REAL_MODELS } from '../tests/models.mjs';

const MODELS = ['silero_vad_v5', 'ppocr_v4_det'].map((name) => REAL_MODELS.find((m) => m.name === name));
const TINY = REAL_MODELS.find((m) => m.name === 'oww_hey_jarvis');
const MODES = ['plain', 'no-forms', 'ortkeep'];
const STARTS = { 'ort-start': 'ort-start', 'ort-plain': 'ort-start-plain' };
const GOALS = { second: { ortkeep: 0.45, 'no-forms': 1.0 }, first: { ortkeep: 0.7 } };
const REPEATS = 3;
/** The wasm-then-WebGPU page: silero on wasm, then openWakeWord's melspectrogram on WebGPU (small: SwiftShader's shaders are not the measure). */
const MIXED = {
  label: 'silero, then melspectrogram on webgpu',
  wasm: REAL_MODELS.find((m) => m.name === 'silero_vad_v5'),
  gpu: REAL_MODELS.find((m) => m.name === 'oww_melspectrogram'),
  goals: { first: { ortkeep: 1.0 }, second: { ortkeep: 0.7 } },
};
export const median = (xs) => {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : NaN;
};

/** One visit in a new tab: its marks (ms from the page's start). */
async function visit(context, origin, query) {
  const page = await context.newPage();
  try {
    await page.goto(`${origin}/tests/browser/pages/visit.html?${new URLSearchParams(query)}`);
    await page.waitForFunction(() => window.result, null, { timeout: 300000, polling: 50 });
    const r = await page.evaluate(() => window.result);
    if (r.error) throw new Error(`visit ${JSON.stringify(query)}: ${r.error}`);
    return r;
  } finally {
    await page.close();
  }
}

/** A fresh profile: the first visit (its background work awaited, as a person who stays a while), then the second. */
export async function twoVisits(origin, query, { webgpu = false } = {}) {
  const dir = await mkdtemp(path.join(tmpdir(), 'ortkeep-visits-'));
  const context = await launchPersistent(dir, { webgpu });
  try {
    const first = await visit(context, origin, { ...query, settle: 1 });
    const second = await visit(context, origin, query);
    return { first, second };
  } finally {
    await context.close();
    await rm(dir, { recursive: true, force: true });
  }
}

export async function run({ log = console.log, repeats = REPEATS, models = MODELS } = {}) {
  const server = await startServer();
  const rows = [];
  try {
    log('medians over fresh profiles, ms from page start to the first result (lower is better); ratios against plain');
    log(
      `${'model'.padEnd(16)}${'visit'.padEnd(8)}${Object.keys(STARTS)
        .map((k) => k.padStart(10))
        .join(
          '',
        )}${MODES.map((m) => m.padStart(10)).join('')}  no-forms/plain  ortkeep/plain  goals met  served (ortkeep)`,
    );
    for (const m of models) {
      const t = { first: {}, second: {} };
      for (const k of Object.keys(STARTS)) [t.first[k], t.second[k]] = [[], []];
      const served = [];
      for (const mode of MODES) t.first[mode] = [];
      for (const mode of MODES) t.second[mode] = [];
      for (let i = 0; i < repeats; i++) {
        for (const [k, mode] of Object.entries(STARTS)) {
          const start = await twoVisits(server.origin, { mode, model: `/${TINY.path}` });
          t.first[k].push(start.first.marks.session);
          t.second[k].push(start.second.marks.session);
        }
        for (const mode of MODES) {
          const r = await twoVisits(server.origin, { mode, model: `/${m.path}`, name: m.name });
          t.first[mode].push(r.first.marks.result);
          t.second[mode].push(r.second.marks.result);
          if (mode === 'ortkeep') served.push(`${r.second.tier}/${r.second.form}`);
        }
      }
      for (const which of ['first', 'second']) {
        const med = Object.fromEntries(Object.entries(t[which]).map(([k, v]) => [k, median(v)]));
        const goals = Object.fromEntries(
          Object.entries(GOALS[which]).map(([k, goal]) => [k, { measured: med[k] / med.plain, goal }]),
        );
        const met = Object.entries(goals)
          .map(([k, g]) => `${k} ${g.measured <= g.goal ? 'met' : 'not met'} (<= ${g.goal})`)
          .join(', ');
        const row = { model: m.name, visit: which, ...med, goals, repeats, samples: t[which] };
        if (which === 'second') row.served = served;
        rows.push(row);
        log(
          `${m.name.padEnd(16)}${which.padEnd(8)}${Object.keys(STARTS)
            .map((k) => med[k].toFixed(0).padStart(10))
            .join(
              '',
            )}${MODES.map((k) => med[k].toFixed(0).padStart(10)).join('')}  ${(med['no-forms'] / med.plain).toFixed(2).padStart(14)}  ${(med.ortkeep / med.plain).toFixed(2).padStart(13)}  ${met}  ${which === 'second' ? served.join(' ') : ''}`,
        );
      }
    }
    rows.push(...(await mixedRows(server.origin, repeats, log)));
  } finally {
    await server.close();
  }
  return rows;
}

/** The wasm-then-WebGPU page, plain and ortkeep: page start to both results. */
async function mixedRows(origin, repeats, log) {
  const t = { first: { plain: [], ortkeep: [] }, second: { plain: [], ortkeep: [] } };
  for (let i = 0; i < repeats; i++)
    for (const mode of ['plain', 'ortkeep']) {
      const query = {
        mode,
        model: `/${MIXED.wasm.path}`,
        name: MIXED.wasm.name,
        gpuModel: `/${MIXED.gpu.path}`,
        gpuName: MIXED.gpu.name,
      };
      const r = await twoVisits(origin, query, { webgpu: true });
      t.first[mode].push(r.first.marks.both);
      t.second[mode].push(r.second.marks.both);
    }
  const rows = [];
  for (const which of ['first', 'second']) {
    const med = { plain: median(t[which].plain), ortkeep: median(t[which].ortkeep) };
    const goal = MIXED.goals[which].ortkeep;
    const goals = { ortkeep: { measured: med.ortkeep / med.plain, goal } };
    rows.push({ model: MIXED.label, visit: which, ...med, goals, repeats, samples: t[which] });
    log(
      `${MIXED.label} (page start to both results), ${which} visit: plain ${med.plain.toFixed(0)} ms, ortkeep ${med.ortkeep.toFixed(0)} ms: ${goals.ortkeep.measured.toFixed(2)}x (goal <= ${goal}: ${goals.ortkeep.measured <= goal ? 'met' : 'not met'})`,
    );
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
