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
import { assembleChunkedModel, CHUNKED_MODELS, REAL_MODELS } from '../tests/models.mjs';

const MODELS = ['silero_vad_v5', 'ppocr_v2_cls', 'ppocr_v4_det', 'isnet_quint8'];

/** A model's file: isnet_quint8 ships in chunks, assembled once under build/. */
async function modelFile(name) {
  const real = REAL_MODELS.find((m) => m.name === name);
  if (real) return path.join(REPO_ROOT, real.path);
  return assembleChunkedModel(CHUNKED_MODELS.find((m) => m.name === name));
}

/**
 * Session-create ms per variant (label → [model bytes, session options]):
 * the variants interleaved round by round, so a load spike on this shared
 * machine hits each alike; each variant's median.
 */
async function interleavedCreateMs(ort, variants, rounds = 5) {
  const ms = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
  for (let i = 0; i < rounds; i++) {
    for (const [label, [bytes, options]] of Object.entries(variants)) {
      const t0 = performance.now();
      const session = await ort.InferenceSession.create(bytes, options);
      ms[label].push(performance.now() - t0);
      await session.release();
    }
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  return Object.fromEntries(Object.entries(ms).map(([k, xs]) => [k, median(xs)]));
}

async function measure() {
  const ort = await import('onnxruntime-web');
  const { captureOptimized, installCaptureLoader } = await import('../js/forms/capture.js');
  ort.env.wasm.numThreads = 1;
  await installCaptureLoader(ort);
  const rows = [];
  for (const name of MODELS) {
    const original = new Uint8Array(await readFile(await modelFile(name)));
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
  return rows;
}

if (process.argv.includes('--child')) {
  process.stdout.write(`${JSON.stringify(await measure())}\n`);
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await run();
}
