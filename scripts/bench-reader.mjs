// The streaming ONNX reader in wasm (issue 10's goals: >= 1 GB/s of model
// bytes, heap well under 8 MiB whatever the model's size): builds
// tests/c/bench_onnx_stream.c with emcc into build/bench/ when missing or
// older than its sources, runs it under Node on isnet (44 MB) and prints its
// table (streamed in 64 KiB and 4 MiB pieces beside the one-shot reader).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { REPO_ROOT } from './static-server.mjs';
import { assembleChunkedModel, CHUNKED_MODELS } from '../tests/models.mjs';

const SOURCES = [
  'tests/c/bench_onnx_stream.c',
  'wasm/onnx/onnx_stream.c',
  'wasm/onnx/onnx_stream_feed.c',
  'wasm/onnx/onnx_stream_walk.c',
  'wasm/onnx/onnx_stream_frames.c',
  'wasm/onnx/onnx_stream_fields.c',
  'wasm/onnx/onnx_stream_finish.c',
  'wasm/onnx/onnx_rules.c',
  'tests/c/oracle/onnx_reader.c',
  'wasm/base/pb_wire.c',
];
const OUT = path.join(REPO_ROOT, 'build/bench/bench_onnx_stream.js');

export async function run({ log = console.log } = {}) {
  const model = CHUNKED_MODELS.find((m) => m.name === 'isnet_quint8') ?? CHUNKED_MODELS[0];
  await assembleChunkedModel(model);
  const stale =
    !existsSync(OUT) || SOURCES.some((s) => statSync(path.join(REPO_ROOT, s)).mtimeMs > statSync(OUT).mtimeMs);
  if (stale) {
    mkdirSync(path.dirname(OUT), { recursive: true });
    // emcc writes CommonJS; the repository's package is ESM
    writeFileSync(path.join(path.dirname(OUT), 'package.json'), '{ "type": "commonjs" }\n');
    execFileSync(
      'emcc',
      [
        '-O2',
        '-msimd128',
        '-sALLOW_MEMORY_GROWTH=1',
        '-sNODERAWFS=1',
        '-Iwasm/base',
        '-Iwasm/onnx',
        '-Itests/c/oracle',
        ...SOURCES,
        '-o',
        OUT,
      ],
      {
        cwd: REPO_ROOT,
        env: { ...process.env, NODE_PATH: '/usr/share/nodejs' },
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    );
  }
  const out = execFileSync('node', ['--no-experimental-fetch', OUT, path.join(REPO_ROOT, model.path)], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  for (const line of out.trimEnd().split('\n')) log(line);
  log('goals: >= 1000 MB/s streamed, heap peak < 8 MiB (the model itself is never held)');
  await shipped(path.join(REPO_ROOT, model.path), log);
}

/**
 * The same reader as the package ships it (dist/ortkeep-core, through
 * core.inspectStream: each piece copied into the core's 1 MiB scratch),
 * as a load validates (hash known) and as the CLI inspects (hashing too),
 * and the core's whole wasm memory afterwards.
 */
async function shipped(file, log) {
  const { getCore } = await import('../js/core/module.js');
  const core = await getCore();
  const bytes = new Uint8Array(readFileSync(file));
  const sha = core.inspect(bytes).sha256;
  const rate = (known) => {
    const times = [];
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      const s = core.inspectStream(known ? sha : undefined);
      s.feed(bytes);
      s.end();
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    return bytes.length / 1e6 / (times[2] / 1000);
  };
  log(
    `shipped module (JS pieces of 1 MiB): ${rate(true).toFixed(0)} MB/s as a load validates (hash known), ` +
      `${rate(false).toFixed(0)} MB/s with SHA-256 (the CLI); core wasm memory after: ${(core.memoryBytes() / 1048576).toFixed(1)} MiB`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
