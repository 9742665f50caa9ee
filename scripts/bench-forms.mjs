// Artifact forms (issue 9), in Node with the real onnxruntime-web: session
// creation from the original at its default level against the captured
// optimized .onnx and .ort at 'disabled', interleaved, median of 5, as a
// ratio (what a warm load from a cached form would save in creation). Runs
// in a child process: onnxruntime-web picks its (capturing) loader once per
// process, before any session.
import { spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { REPO_ROOT } from './static-server.mjs';
import { REAL_MODELS } from '../tests/models.mjs';

const MODELS = ['silero_vad_v5', 'ppocr_v2_cls', 'ppocr_v4_det'];

async function measure() {
  const ort = await import('onnxruntime-web');
  const { captureOptimized, installCaptureLoader } = await import('../js/forms/capture.js');
  const { interleavedCreateMs } = await import('../tests/browser/pages/create-timing.js');
  ort.env.wasm.numThreads = 1;
  await installCaptureLoader(ort);
  const rows = [];
  for (const name of MODELS) {
    const original = new Uint8Array(
      await readFile(path.join(REPO_ROOT, REAL_MODELS.find((m) => m.name === name).path)),
    );
    const forms = {};
    for (const format of ['onnx', 'ort']) {
      const c = await captureOptimized(ort, original, { format, level: 'extended', executionProviders: ['wasm'] });
      await c.session.release();
      forms[format] = c.bytes;
    }
    const ms = await interleavedCreateMs(ort, {
      original: [original, {}],
      onnx: [forms.onnx, { graphOptimizationLevel: 'disabled' }],
      ort: [forms.ort, { graphOptimizationLevel: 'disabled' }],
    });
    rows.push({
      model: name,
      originalMs: ms.original,
      onnxMs: ms.onnx,
      ortMs: ms.ort,
      onnxRatio: ms.onnx / ms.original,
      ortRatio: ms.ort / ms.original,
    });
  }
  return rows;
}

export async function run({ log = console.log } = {}) {
  const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child'], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    maxBuffer: 1 << 24,
  });
  if (child.status !== 0) throw new Error(`bench-forms: ${child.stderr}`);
  const rows = JSON.parse(child.stdout.trim().split('\n').at(-1));
  log(
    "session create, Node wasm EP, median of 5 interleaved: original at the default level vs the captured form (extended) at 'disabled'",
  );
  log(
    `${'model'.padEnd(16)}${'original'.padStart(10)}${'.onnx'.padStart(10)}${'ratio'.padStart(8)}${'.ort'.padStart(10)}${'ratio'.padStart(8)}`,
  );
  for (const r of rows) {
    log(
      `${r.model.padEnd(16)}${r.originalMs.toFixed(1).padStart(10)}${r.onnxMs.toFixed(1).padStart(10)}${r.onnxRatio.toFixed(2).padStart(8)}${r.ortMs.toFixed(1).padStart(10)}${r.ortRatio.toFixed(2).padStart(8)}`,
    );
  }
  log(
    "(not yet a warm load: forms are not stored by load(); the issue's goal, warm <= 0.6x plain onnxruntime-web, needs that)",
  );
  return rows;
}

if (process.argv.includes('--child')) {
  process.stdout.write(`${JSON.stringify(await measure())}\n`);
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await run();
}
