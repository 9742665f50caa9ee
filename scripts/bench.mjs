// `npm run bench`: measures ortkeep side by side with what a user would pick
// instead, in one run, and prints ratios. Absolute times on a shared 2-core
// machine are noise; the ratios within one run are what to read.
// Each area lives in its own scripts/bench-*.mjs exporting run({log}), which
// returns its rows; all of them land in build/bench.json (machine-readable,
// with the date, the machine and the versions) as well as on stdout.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { REPO_ROOT } from './static-server.mjs';

const AREAS = [
  { name: 'model cache', module: './bench-cache.mjs' },
  { name: 'bytes from a library: known by their content, served in their form', module: './bench-bytes.mjs' },
  { name: 'first and second visit: page start to first result', module: './bench-visits.mjs' },
  { name: 'transformers.js: page start to first result, alone and with ortkeep', module: './bench-transformers.mjs' },
  { name: 'peak memory of a load (renderer RSS)', module: './bench-memory.mjs' },
  { name: 'tensor pool on WebGPU', module: './bench-pool.mjs' },
  { name: 'tensor pool under transformers.js text generation (per token)', module: './bench-generation.mjs' },
  { name: 'run() overhead on the wasm EP', module: './bench-run-overhead.mjs' },
  { name: 'streaming ONNX reader (wasm)', module: './bench-reader.mjs' },
  { name: 'artifact forms: session create (Node)', module: './bench-forms.mjs' },
];
const only = process.argv.slice(2);
if (only.includes('--help') || only.includes('-h')) {
  console.log(`npm run bench [-- NAME...]: runs every area, or those whose script name contains a NAME
(e.g. \`npm run bench -- pool\`), prints each table and writes build/bench.json.
${AREAS.map((a) => `  ${a.module.replace('./', 'scripts/').padEnd(32)} ${a.name}`).join('\n')}`);
  process.exit(0);
}
const version = (pkg) =>
  JSON.parse(readFileSync(path.join(REPO_ROOT, 'node_modules', pkg, 'package.json'), 'utf8')).version;
const report = {
  date: new Date().toISOString(),
  machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, memoryBytes: os.totalmem(), node: process.version },
  versions: {
    ortkeep: JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')).version,
    'onnxruntime-web': version('onnxruntime-web'),
  },
  areas: {},
};

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
  report.areas[area.name] = (await mod.run({ log: (line) => console.log(line) })) ?? null;
}
const out = path.join(REPO_ROOT, 'build/bench.json');
mkdirSync(path.dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
console.log(`\nwrote ${path.relative(REPO_ROOT, out)}`);
