// `npm run bench`: measures ortkeep side by side with what a user would pick
// instead, in one run, and prints ratios. Absolute times on a shared 2-core
// machine are noise; the ratios within one run are what to read.
// Each area lives in its own scripts/bench-*.mjs exporting run({log}), which
// returns its rows; they land in build/bench.json (machine-readable, with the
// date, the machine and the versions, each area with its own date) as well as
// on stdout, and scripts/bench-report.mjs then writes docs/benchmarks.md and
// the README's table from it. A run of some areas (`npm run bench -- NAME`)
// keeps the other areas of the build/bench.json already there; each area is
// written as it ends, so a run stopped part way keeps what it finished.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { AREAS, mergeReports, readJson, writeReports } from './bench-report.mjs';
import { checkLoad, describeLoad, startLoad } from './bench-load.mjs';
import { CHROMIUM_PATH } from './chromium.mjs';
import { REPO_ROOT } from './static-server.mjs';

const only = process.argv.slice(2);
if (only.includes('--help') || only.includes('-h')) {
  console.log(`npm run bench [-- NAME...]: runs every area, or those whose script name contains a NAME
(e.g. \`npm run bench -- pool\`), prints each table, writes build/bench.json (keeping the areas it did not run)
and from it docs/benchmarks.md and the README's table.
${AREAS.map((a) => `  ${a.module.replace('./', 'scripts/').padEnd(32)} ${a.name}`).join('\n')}`);
  process.exit(0);
}
const version = (pkg) =>
  JSON.parse(readFileSync(path.join(REPO_ROOT, 'node_modules', pkg, 'package.json'), 'utf8')).version;
/** The browser the areas launch, as `chromium --version` names it (null when it does not answer). */
function chromiumVersion() {
  try {
    const out = execFileSync(CHROMIUM_PATH, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    return /Chromium [\d.]+/.exec(out)?.[0] ?? (out.trim() || null);
  } catch {
    return null;
  }
}
const report = {
  date: new Date().toISOString(),
  machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, memoryBytes: os.totalmem(), node: process.version },
  versions: {
    ortkeep: JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')).version,
    'onnxruntime-web': version('onnxruntime-web'),
    chromium: chromiumVersion(),
  },
  areas: {},
};

const out = path.join(REPO_ROOT, 'build/bench.json');
let earlier = null;
try {
  earlier = readJson(out);
} catch (e) {
  console.log(`\n${path.relative(REPO_ROOT, out)} was not readable (${e.message}): written anew, its areas not kept`);
}

// the load this run is under: timed before the first area, between areas and after the last
report.load = await startLoad();
console.log(`\n${describeLoad(report.load)}`);

/** build/bench.json, docs/benchmarks.md and the README's table, as far as the run got: an area lands when it ends. */
function save() {
  // every area of this run carries the run's verdict so far (a later drift makes the earlier areas busy too)
  for (const area of Object.values(report.areas)) area.busy = report.load.busy;
  mkdirSync(path.dirname(out), { recursive: true });
  const merged = mergeReports(earlier, report);
  writeFileSync(out, `${JSON.stringify(merged, null, 2)}\n`);
  writeReports(merged, { root: REPO_ROOT });
}

for (const area of AREAS) {
  if (only.length && !only.some((o) => area.module.includes(o))) continue;
  let mod;
  try {
    mod = await import(area.module);
  } catch (e) {
    if (e.code === 'ERR_MODULE_NOT_FOUND') {
      console.log(`\n## ${area.name}: not built yet`);
      continue;
    }
    throw e;
  }
  console.log(`\n## ${area.name}`);
  const rows = (await mod.run({ log: (line) => console.log(line) })) ?? null;
  report.areas[area.name] = {
    date: new Date().toISOString(),
    machine: report.machine,
    versions: report.versions,
    rows,
  };
  await checkLoad(report.load, area.name);
  console.log(describeLoad(report.load));
  // a run stopped later (a crash, a kill, a time limit) keeps the areas it finished
  save();
}
await checkLoad(report.load, 'after');
console.log(`\n${describeLoad(report.load)}`);
save();
console.log(`\nwrote ${path.relative(REPO_ROOT, out)}, docs/benchmarks.md and the README's table`);
