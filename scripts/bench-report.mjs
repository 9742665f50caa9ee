// The bench's report, generated: docs/benchmarks.md (every area's table with
// its goals, met or not) and the README's short form (the marked block
// between BLOCK_START and BLOCK_END: the headline ratios against plain
// onnxruntime-web and transformers.js alone) from build/bench.json.
// `npm run bench` calls writeReports() at its end; `node scripts/bench-report.mjs`
// regenerates both from the build/bench.json already there (an area not in
// it reads "not measured in this run", never an old number).
// Each area of build/bench.json is { date, machine, versions, rows }, rows as
// its scripts/bench-*.mjs run() returned them; an older file whose areas are
// bare rows is read with the report's own date.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

export const BLOCK_START = '<!-- bench:start -->';
export const BLOCK_END = '<!-- bench:end -->';
export const NOT_MEASURED = 'not measured in this run';

/** Every area of `npm run bench`, in its order: name (the key in build/bench.json), script, what its numbers are. */
export const AREAS = [
  {
    name: 'model cache',
    module: './bench-cache.mjs',
    about:
      "ms from runtime ready to session ready, medians of fresh pages with the HTTP cache disabled, every column starting onnxruntime-web alike (lower is better). `plain`: `InferenceSession.create(url)`; `cacheapi`: a Cache API cache in the transformers.js style; `idb-blob`: one IndexedDB Blob per model (no chunks, no checks); `cold`: ortkeep as it ships (the form is captured by background work after the caller has its session); `cold-nf`: `forms: false`; `warm`: the original from IndexedDB, every chunk checked; `warm-nv`: the same without the checks; `forms@LEVEL`: a warm load in the form captured at that level, created at `disabled`. The bench starts onnxruntime-web with forms off, so the capturing loader's installation falls inside its forms columns. Sizes in MiB are the core's own memory.",
    bytes: ['coreCold', 'coreWarm'],
  },
  {
    name: "a cold load at the network's pace: paired runs on a 50 Mbit/s link",
    module: './bench-cold.mjs',
    about:
      "ms from runtime ready to session ready on a first visit, a 50 Mbit/s, 20 ms link (the test server paces each body and answers each request 20 ms late; CDP's throttle varied by ~1 s a sample), the HTTP cache disabled: `plain`: onnxruntime-web fetching and creating; `cold`: ortkeep as it ships (forms on), empty cache. They run in pairs, the order alternating, until the pair ratios' 95% interval is within ±1% or the model's limit of pairs; `mean` ± `half` is that interval, and the goal is judged only where the whole interval is on one side of it (else: cannot tell).",
    goals: (row) =>
      Number.isFinite(row.mean)
        ? { coldPerPlain: { measured: row.mean, goal: 1.02, ...(Number.isFinite(row.half) ? { half: row.half } : {}) } }
        : {},
  },
  {
    name: 'bytes from a library: known by their content, served in their form',
    module: './bench-bytes.mjs',
    about:
      "ms, a library's `create(arrayBuffer)` served in the form kept for those bytes; `identify`: identifying the bytes (a fingerprint, the SHA-256), `identifyShare` its share of the load (goal <= 2%).",
    goals: (row) =>
      Number.isFinite(row.identifyShare) ? { identifyShare: { measured: row.identifyShare, goal: 0.02 } } : {},
  },
  {
    name: 'first and second visit: page start to first result',
    module: './bench-visits.mjs',
    about:
      "ms from page start (navigation) to the first result, medians over fresh on-disk profiles, files from the HTTP cache as a plain static host serves them. `ort-start` and `ort-plain`: page start to a tiny model's session from onnxruntime-web's default (JSEP) build and from its plain wasm build, the part no cache removes; `plain`: onnxruntime-web alone; `no-forms`: ortkeep's bundle with `forms: false`; `ortkeep`: as it ships. Goals are ratios to `plain`.",
  },
  {
    name: "the page's main thread: long tasks from page start to the first result",
    module: './bench-main-thread.mjs',
    about:
      "ms, medians over fresh on-disk profiles: `plain`, `proxy` (onnxruntime-web with `env.wasm.proxy = true`) and `ortkeep` (its script-tag bundle as it ships) from page start to the first result; `…Longest`: the longest task on the page's thread in that span, `…Blocking`: the total blocking time (each long task's part over 50 ms); `ratio`: ortkeep's first result against plain's. The `run loop` row: silero v5, a 32 ms frame per call with its state fed back, ms per call on the page's clock, ortkeep's session and plain's in one page in alternating blocks of 50 (ABBA), after 100 untimed calls each. Goals (issue 53): no task over 50 ms, a second visit <= 0.45x plain, a call <= 1.1x plain's.",
  },
  {
    name: 'transformers.js: page start to first result, alone and with ortkeep',
    module: './bench-transformers.mjs',
    about:
      "ms from page start to the first result of a feature-extraction pipeline (bench-bert, 47 MB, device `'wasm'`), transformers.js's web build alone and with `ortkeep/transformers`, both bundled by esbuild as an app ships them, fresh profiles.",
  },
  {
    name: 'peak memory of a load (renderer RSS)',
    module: './bench-memory.mjs',
    about:
      "the renderer's peak RSS (VmHWM) in MiB, medians of fresh browsers; `core*`: the core's own memory (goal < 8 MiB).",
    bytes: ['plain', 'warm', 'cold', 'coreCold', 'coreWarm'],
    goals: (row) => ({
      ...(Number.isFinite(row.warmRatio) ? { warmRatio: { measured: row.warmRatio, goal: 1.05 } } : {}),
      ...(Number.isFinite(row.coreWarm) ? { coreWarmMiB: { measured: row.coreWarm / 1048576, goal: 8 } } : {}),
    }),
  },
  {
    name: 'tensor pool on WebGPU',
    module: './bench-pool.mjs',
    about:
      'ms and GPUBuffers created per run (WebGPU in headless Chromium runs on SwiftShader). `models`: ortkeep with its defaults against `InferenceSession.run` on the same feeds, per model and backend (goals: <= 1.0x on WebGPU, <= 1.03x on wasm).',
    goals: (row) =>
      row.ep && Number.isFinite(row.msRatio) ? { msRatio: { measured: row.msRatio, goal: poolGoal(row.ep) } } : {},
  },
  {
    name: 'tensor pool under transformers.js text generation (per token)',
    module: './bench-generation.mjs',
    about:
      'ms and GPUBuffers per generated token (tiny-gpt2, its past key values fed back), against transformers.js alone.',
  },
  {
    name: 'run() overhead on the wasm EP',
    module: './bench-run-overhead.mjs',
    about: "ms per `run()` through ortkeep against onnxruntime-web's bare `session.run` (goal <= 1.03x).",
    goals: (row) => (Number.isFinite(row.ratio) ? { ratio: { measured: row.ratio, goal: 1.03 } } : {}),
  },
  {
    name: 'streaming ONNX reader (wasm)',
    module: './bench-reader.mjs',
    about: 'printed only (goals: >= 1000 MB/s streamed, heap peak < 8 MiB).',
  },
  {
    name: 'artifact forms: session create (Node)',
    module: './bench-forms.mjs',
    about:
      "ms to create a session in Node's wasm EP: the original at the default level against the captured form at `disabled`.",
  },
];

const poolGoal = (ep) => (ep === 'wasm' ? 1.03 : 1.0);

/** An area of build/bench.json as { date, machine, versions, rows }, or null when it is not there. */
export function areaOf(report, name) {
  const a = report?.areas?.[name];
  if (a === undefined) return null;
  if (a && typeof a === 'object' && !Array.isArray(a) && 'rows' in a && 'date' in a) return a;
  return { date: report.date, machine: report.machine, versions: report.versions, rows: a };
}

/** An existing report with a newer partial one: the newer's areas replace the older's, the others stay with their own dates. */
export function mergeReports(older, newer) {
  if (!older?.areas) return newer;
  const areas = {};
  for (const name of new Set([...Object.keys(older.areas), ...Object.keys(newer.areas)])) {
    areas[name] = name in newer.areas ? areaOf(newer, name) : areaOf(older, name);
  }
  const order = (n) => {
    const i = AREAS.findIndex((a) => a.name === n);
    return i < 0 ? AREAS.length : i;
  };
  return {
    ...newer,
    areas: Object.fromEntries(Object.entries(areas).sort(([a], [b]) => order(a) - order(b))),
  };
}

const day = (iso) => (iso ? String(iso).slice(0, 10) : '—');
const when = (iso) => (iso ? `${String(iso).slice(0, 16).replace('T', ' ')} UTC` : '—');
/** A ratio to two decimals, or three where two would round a miss onto its goal (1.053 → '1.053x', not '1.05x'). */
const x = (v, goal) => {
  if (!Number.isFinite(v)) return 'n/a';
  const two = v.toFixed(2);
  return `${goal !== undefined && v > goal && Number(two) <= goal ? v.toFixed(3) : two}x`;
};
/** A goal as written: 1 → '1.0', 0.45 → '0.45'. */
const gl = (g) => (Number.isInteger(g) ? g.toFixed(1) : String(g));
// a ratio with its 95% interval (half: its half-width) is judged only where the whole interval is on one side
const met = (g) => {
  if (!Number.isFinite(g.measured)) return 'not met';
  if (!Number.isFinite(g.half)) return g.measured <= g.goal ? 'met' : 'not met';
  return g.measured + g.half <= g.goal ? 'met' : g.measured - g.half > g.goal ? 'not met' : 'cannot tell';
};
const num = (v) => {
  if (!Number.isFinite(v)) return 'n/a';
  const a = Math.abs(v);
  return a >= 100 ? v.toFixed(0) : a >= 10 ? v.toFixed(1) : v.toFixed(2);
};
const mib = (b) => (Number.isFinite(b) ? `${(b / 1048576).toFixed(1)} MiB` : 'n/a');

function describeMachine(m) {
  if (!m) return 'unknown';
  const parts = [];
  if (m.cpus) parts.push(`${m.cpus} × ${m.model ?? 'CPU'}`);
  if (m.memoryBytes) parts.push(`${(m.memoryBytes / 2 ** 30).toFixed(0)} GiB`);
  if (m.node) parts.push(`Node ${m.node}`);
  return parts.join(', ') || 'unknown';
}
const browserOf = (versions) => versions?.chromium ?? 'unknown';

// ---- the headline rows (README block and the top of docs/benchmarks.md)

/**
 * One headline row: `entries` are {label, measured, goal?, extra?} from the
 * area's rows (their goals are the ones shown once measured); `goal` is what
 * the row shows while its area is not measured.
 */
/** The visits area's row for a visit: ortkeep against plain, per model. */
const visitRow = (which, goal) => ({
  what: `${which === 'second' ? 'Second' : 'First'} visit, page start to first result, vs plain onnxruntime-web`,
  goal,
  area: 'first and second visit: page start to first result',
  entries: (rows) =>
    list(rows)
      .filter((r) => r.visit === which)
      .map((r) => ({
        label: r.model,
        measured: r.goals?.ortkeep?.measured ?? r.ortkeep / r.plain,
        goal: r.goals?.ortkeep?.goal,
      })),
});

const HEADLINES = [
  visitRow('second', '≤ 0.45x'),
  visitRow('first', '≤ 0.7x'),
  {
    what: 'Second visit through transformers.js, vs transformers.js alone',
    goal: '≤ 0.6x',
    area: 'transformers.js: page start to first result, alone and with ortkeep',
    entries: (rows) =>
      list(rows)
        .filter((r) => r.visit === 'second')
        .map((r) => ({ label: 'bench-bert', measured: r.ratio ?? r.ortkeep / r.alone, goal: r.goal })),
  },
  {
    what: 'Warm load in its verified form, vs plain onnxruntime-web',
    goal: '≤ 0.5x',
    area: 'model cache',
    entries: (rows) =>
      list(rows)
        .filter((r) => r.goals?.formPerPlain)
        .map((r) => ({ label: `${r.model}, ${r.link}`, ...r.goals.formPerPlain })),
  },
  {
    what: 'Warm load of the original from IndexedDB (every chunk checked), vs plain onnxruntime-web',
    area: 'model cache',
    entries: (rows) => list(rows).map((r) => ({ label: `${r.model}, ${r.link}`, measured: r.warm / r.plain })),
  },
  {
    what: 'Cold load (download, hash, stored behind the session), vs plain onnxruntime-web',
    goal: '≤ 1.05x, ≤ 1.02x on a 50 Mbit/s link',
    area: 'model cache',
    entries: (rows) =>
      list(rows)
        .filter((r) => r.goals?.coldPerPlain)
        .map((r) => ({ label: `${r.model}, ${r.link}`, ...r.goals.coldPerPlain })),
  },
  {
    what: 'Cold load on a 50 Mbit/s link, paired runs (mean ratio ± its 95% interval), vs plain onnxruntime-web',
    goal: '≤ 1.02x',
    area: "a cold load at the network's pace: paired runs on a 50 Mbit/s link",
    entries: (rows) =>
      list(rows).map((r) => ({
        label: r.model,
        measured: r.mean,
        goal: 1.02,
        ...(Number.isFinite(r.half) ? { half: r.half } : {}),
        extra: `± ${Number.isFinite(r.half) ? r.half.toFixed(3) : '?'}, ${r.pairs} pairs: ${r.verdict}`,
      })),
  },
  {
    what: 'Tensor pool on WebGPU (SwiftShader), time per run vs plain `session.run`',
    goal: '≤ 1.0x',
    area: 'tensor pool on WebGPU',
    entries: (rows) =>
      list(rows?.models)
        .filter((r) => r.ep === 'webgpu')
        .map((r) => ({
          label: r.model,
          measured: r.msRatio,
          goal: poolGoal(r.ep),
          extra: Number.isFinite(r.oursBuffers)
            ? `${r.oursBuffers.toFixed(2)} vs ${r.plainBuffers?.toFixed(2) ?? 'n/a'} GPUBuffers/run`
            : undefined,
        })),
  },
  {
    what: 'Tensor pool on a real GPU (`npm run bench:gpu`), time per run vs plain',
    goal: '≤ 1.0x',
    gpu: true,
    entries: (report) =>
      list(report?.rows)
        .filter((r) => r.variant === 'defaults')
        .map((r) => ({ label: r.label ?? r.model, measured: r.ratio?.median, goal: 1.0 })),
  },
  {
    what: 'Peak memory of a warm load (renderer RSS), vs plain onnxruntime-web',
    goal: '≤ 1.05x',
    area: 'peak memory of a load (renderer RSS)',
    entries: (rows) => list(rows).map((r) => ({ label: r.model, measured: r.warmRatio, goal: 1.05 })),
  },
];

const list = (v) => (Array.isArray(v) ? v : []);

/** A real-GPU report (build/bench-gpu/bench-gpu.json) counts only when it ran on WebGPU with an adapter. */
const realGpu = (gpu) => (gpu && gpu.ep === 'webgpu' && gpu.adapter && list(gpu.rows).length ? gpu : null);

/** The headline rows: { what, date, measured (text), goal (text), met (text) }. */
export function headlines(report, { gpu } = {}) {
  return HEADLINES.map((h) => {
    let source;
    let date;
    let busy = false;
    if (h.gpu) {
      source = realGpu(gpu);
      date = source?.date;
    } else {
      const area = areaOf(report, h.area);
      source = area?.rows;
      date = area?.date;
      busy = !!area?.busy;
    }
    const entries = source ? h.entries(source) : [];
    if (!entries.length) return { what: h.what, date: '—', measured: NOT_MEASURED, goal: h.goal ?? '—', met: '—' };
    const goals = [...new Set(entries.filter((e) => e.goal !== undefined).map((e) => `≤ ${gl(e.goal)}x`))];
    const judged = entries.filter((e) => e.goal !== undefined);
    const count = judged.filter((e) => met(e) === 'met').length;
    return {
      what: h.what,
      date: day(date),
      measured: entries
        .map(
          (e) =>
            `${e.label} ${x(e.measured, e.goal)}${e.goal !== undefined && goals.length > 1 ? ` (≤ ${gl(e.goal)}x)` : ''}${e.extra ? ` (${e.extra})` : ''}`,
        )
        .join('; '),
      goal: goals.length ? goals.join(', ') : '—',
      // a busy machine flatters ortkeep (scripts/bench-load.mjs): such a run's ratios judge no goal
      met: busy
        ? 'busy run: not judged'
        : judged.length
          ? count === judged.length
            ? 'met'
            : count
              ? `${count} of ${judged.length} met`
              : 'not met'
          : '—',
    };
  });
}

function headlineTable(report, opts) {
  return [
    '| what | measured (ratio) | goal | goal met | run |',
    '|---|---|---|---|---|',
    ...headlines(report, opts).map((h) => `| ${h.what} | ${h.measured} | ${h.goal} | ${h.met} | ${h.date} |`),
  ];
}

/** The README's block (without its markers). */
export function readmeBlock(report, opts = {}) {
  const ran = report?.date;
  return [
    ran
      ? `Generated by \`npm run bench\` from its last run (${day(ran)}; ${describeMachine(report.machine)}, ${browserOf(report.versions)}, onnxruntime-web ${report.versions?.['onnxruntime-web'] ?? '?'}). Lower is better; read the ratios, not the times. Every table, with the spread and goals: [docs/benchmarks.md](docs/benchmarks.md).`
      : 'Generated by `npm run bench` (each row from its last run; none yet in this checkout). Lower is better; read the ratios, not the times. Every table, with the spread and goals: [docs/benchmarks.md](docs/benchmarks.md).',
    '',
    ...headlineTable(report, opts),
  ].join('\n');
}

/** The README with its marked block rewritten. */
export function replaceBlock(readme, block) {
  const start = readme.indexOf(BLOCK_START);
  const end = readme.indexOf(BLOCK_END);
  if (start < 0 || end < start) throw new Error(`README.md has no ${BLOCK_START} … ${BLOCK_END} block`);
  return `${readme.slice(0, start + BLOCK_START.length)}\n${block}\n${readme.slice(end)}`;
}

// ---- docs/benchmarks.md

const SKIP = new Set(['samples', 'spread', 'goals', 'goal', 'ratios', 'forms']);

/** The columns of a table of rows: scalars and lists of strings, in first-seen order. */
function columns(rows) {
  const cols = [];
  for (const r of rows)
    for (const [k, v] of Object.entries(r)) {
      if (SKIP.has(k) || cols.includes(k)) continue;
      const scalar = v === null || ['number', 'string', 'boolean'].includes(typeof v);
      const strings = Array.isArray(v) && v.every((s) => typeof s === 'string');
      if (scalar || strings) cols.push(k);
    }
  return cols;
}

function cell(v, k, spec) {
  if (v === undefined || v === null) return '';
  if (Array.isArray(v)) return v.join(' ');
  if (typeof v === 'number') return spec.bytes?.includes(k) ? mib(v) : num(v);
  return String(v).replaceAll('|', '\\|');
}

function goalsOf(row, spec) {
  const g = { ...(spec.goals?.(row) ?? {}), ...(row.goals ?? {}) };
  if (row.goal !== undefined && Number.isFinite(row.ratio) && !row.goals)
    g.ratio = { measured: row.ratio, goal: row.goal };
  return g;
}

function rowsTable(rows, spec, busy = false) {
  if (!rows.length) return ['(no rows)'];
  const cols = columns(rows);
  const withGoals = rows.some((r) => Object.keys(goalsOf(r, spec)).length);
  const head = [...cols, ...(withGoals ? ['goals'] : [])];
  return [
    `| ${head.join(' | ')} |`,
    `|${head.map(() => '---').join('|')}|`,
    ...rows.map((r) => {
      const cells = cols.map((k) => cell(r[k], k, spec));
      if (withGoals)
        cells.push(
          Object.entries(goalsOf(r, spec))
            .map(([k, g]) => `${k} ${num(g.measured)} (≤ ${gl(g.goal)}): ${busy ? 'busy run' : met(g)}`)
            .join('; ') || '—',
        );
      return `| ${cells.join(' | ')} |`;
    }),
  ];
}

function areaTables(rows, spec, busy) {
  if (rows === null || rows === undefined) return ['No table: this area prints its results only (see its output).'];
  if (Array.isArray(rows)) return rowsTable(rows, spec, busy);
  if (typeof rows === 'object') {
    const out = [];
    for (const [k, v] of Object.entries(rows)) {
      if (v === null || v === undefined) continue;
      out.push('', `\`${k}\`:`, '');
      out.push(...rowsTable(Array.isArray(v) ? v : [v], spec, busy));
    }
    return out.slice(1);
  }
  return [String(rows)];
}

/** docs/benchmarks.md, whole. */
export function benchmarksPage(report, opts = {}) {
  const lines = [
    '# Benchmarks',
    '',
    '<!-- Generated by scripts/bench-report.mjs from build/bench.json: `npm run bench` rewrites this page. Do not edit by hand. -->',
    '',
  ];
  if (report?.date) {
    lines.push(
      `The last \`npm run bench\`: ${when(report.date)}.`,
      '',
      `- machine: ${describeMachine(report.machine)}`,
      `- browser: ${browserOf(report.versions)} (headless; WebGPU on SwiftShader)`,
      `- onnxruntime-web ${report.versions?.['onnxruntime-web'] ?? '?'}, ortkeep ${report.versions?.ortkeep ?? '?'}`,
      '',
      "An area that the last run left out keeps the table of the run that measured it, with that run's date.",
      '',
    );
  } else {
    lines.push('No `npm run bench` has run in this checkout yet: every area below is not measured.', '');
  }
  lines.push(
    'Absolute times on a shared machine are noise; read the ratios within one run, lower is better, and',
    're-measure on your own hardware before relying on a time ([limits.md](limits.md#how-to-read-the-numbers)).',
    '`npm run bench -- NAME` runs the areas whose script name contains NAME; `node scripts/bench-report.mjs`',
    "rewrites this page and the README's table from `build/bench.json` (its medians' spread and samples are there too).",
    '',
    '## Headline ratios',
    '',
    ...headlineTable(report, opts),
  );
  for (const spec of AREAS) {
    lines.push('', `## ${spec.name}`, '', `\`${spec.module.replace('./', 'scripts/')}\`: ${spec.about}`, '');
    const area = areaOf(report, spec.name);
    if (!area) {
      lines.push(`${NOT_MEASURED[0].toUpperCase()}${NOT_MEASURED.slice(1)}.`);
      continue;
    }
    lines.push(`Measured ${when(area.date)}.`);
    const other = [];
    if (area.machine && JSON.stringify(area.machine) !== JSON.stringify(report.machine))
      other.push(describeMachine(area.machine));
    if (area.versions && JSON.stringify(area.versions) !== JSON.stringify(report.versions))
      other.push(
        `${browserOf(area.versions)}, onnxruntime-web ${area.versions['onnxruntime-web'] ?? '?'}, ortkeep ${area.versions.ortkeep ?? '?'}`,
      );
    if (other.length) lines.push(`(Not the last run's set-up: ${other.join('; ')}.)`);
    if (area.busy)
      lines.push(
        '',
        '**Busy run**: the machine was not quiet (scripts/bench-load.mjs: the CPU loop drifted over 10%, or the load average was over half a core before the run); a busy machine flatters ortkeep, so no goal below is judged from it.',
      );
    lines.push('', ...areaTables(area.rows, spec, !!area.busy));
  }
  const gpu = realGpu(opts.gpu);
  lines.push('', '## On a real GPU: `npm run bench:gpu`', '');
  lines.push(
    gpu
      ? `Its last run on a GPU adapter (${when(gpu.date)}, ${[gpu.adapter?.vendor, gpu.adapter?.architecture, gpu.adapter?.description].filter(Boolean).join(' ') || 'adapter'}) is in \`build/bench-gpu/bench-gpu.md\`; the headline row above reads it.`
      : 'Not measured: no run of `npm run bench:gpu` on a GPU adapter in this checkout ([pool.md](pool.md#on-a-real-gpu-npm-run-benchgpu)).',
  );
  return `${lines.join('\n')}\n`;
}

// ---- files

export function readJson(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    if (e.code === 'ENOENT') return null;
    throw e;
  }
}

/** Writes docs/benchmarks.md and README.md's block under root from a report (null: nothing measured yet). */
export function writeReports(report, { root, gpu = readJson(path.join(root, 'build/bench-gpu/bench-gpu.json')) } = {}) {
  const opts = { gpu };
  writeFileSync(path.join(root, 'docs/benchmarks.md'), benchmarksPage(report, opts));
  const readmePath = path.join(root, 'README.md');
  const readme = readFileSync(readmePath, 'utf8');
  const next = replaceBlock(readme, readmeBlock(report, opts));
  if (next !== readme) writeFileSync(readmePath, next);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const file = path.join(root, 'build/bench.json');
  const report = existsSync(file) ? readJson(file) : null;
  writeReports(report, { root });
  console.log(
    `wrote docs/benchmarks.md and README.md's table from ${report ? path.relative(root, file) : 'no build/bench.json (nothing measured yet)'}`,
  );
}
