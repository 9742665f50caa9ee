// `npm run bench`: measures ortkeep side by side with what a user would pick
// instead, in one run, and prints ratios. Absolute times on a shared 2-core
// machine are noise; the ratios within one run are what to read.
// Each area lives in its own scripts/bench-*.mjs exporting run({log}).
import process from 'node:process';

const AREAS = [
  { name: 'model cache', module: './bench-cache.mjs' },
  { name: 'tensor pool on WebGPU', module: './bench-pool.mjs' },
  { name: 'run() overhead on the wasm EP', module: './bench-run-overhead.mjs' },
  { name: 'streaming ONNX reader (wasm)', module: './bench-reader.mjs' },
];
const only = process.argv.slice(2);

for (const area of AREAS) {
  if (only.length && !only.some((o) => area.module.includes(o))) continue;
  let mod;
  try {
    mod = await import(area.module);
  } catch (e) {
    if (e.code === 'ERR_MODULE_NOT_FOUND') { console.log(`\n## ${area.name}: not built yet`); continue; }
    throw e;
  }
  console.log(`\n## ${area.name}`);
  await mod.run({ log: (line) => console.log(line) });
}
