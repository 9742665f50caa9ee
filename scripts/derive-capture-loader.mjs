#!/usr/bin/env node
// Derives capturing copies of the installed onnxruntime-web's Emscripten
// loaders into dist/ort-capture/ (build output, never committed).
//
// Why: the wasm build of onnxruntime has no file system, so the bytes of
// `optimizedModelFilePath` reach Emscripten's no-filesystem fd_write stub
// (which only knows stdout/stderr and throws a TypeError for any other fd)
// and fd_close returns ENOSYS. The derived loader sends writes and closes of
// any fd other than 1/2 to a sink that ortkeep arms on globalThis for the
// duration of one session creation; unarmed, it behaves exactly like the
// original. The .wasm binaries are not touched.
//
// Patching is by exact text, per onnxruntime-web version and loader: every
// pattern must occur exactly once, or this script exits non-zero and writes
// nothing for that version. A new onnxruntime-web version needs a new entry
// in LOADERS (names read off its minified loaders), never a fuzzier match.
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { LOADED_KEY, SINK_KEY } from '../js/forms/derivation.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// Overridable so tests can derive from a doctored package into a scratch dir.
const ORT_DIR = process.env.ORTKEEP_DERIVE_FROM ?? path.join(ROOT, 'node_modules/onnxruntime-web');
const OUT_DIR = process.env.ORTKEEP_DERIVE_TO ?? path.join(ROOT, 'dist/ort-capture');

export { LOADED_KEY, SINK_KEY };

/**
 * The minified names in each loader, per onnxruntime-web version: the
 * pthread flag and proxy call (calls from worker threads are proxied to the
 * main thread, where the sink lives), the memory-view refresher, the
 * HEAPU32/HEAPU8 views, fd_write's parameters and the fd_close/fd_write stubs.
 */
export const LOADERS = {
  '1.30.0': {
    'ort-wasm-simd-threaded.mjs': { wasm: 'ort-wasm-simd-threaded.wasm', bundles: ['ort.wasm*.mjs', 'ort.node.min.mjs'],
      pthread: 'n', proxy: 'U', views: 'v', u32: 'D', u8: 'A', close: 'Rb', write: 'Vb', args: ['a', 'b', 'd', 'c'] },
    'ort-wasm-simd-threaded.jsep.mjs': { wasm: 'ort-wasm-simd-threaded.jsep.wasm', bundles: ['ort.mjs', 'ort.min.mjs', 'ort.bundle.min.mjs', 'ort.all*.mjs'],
      pthread: 'm', proxy: 'P', views: 'u', u32: 'D', u8: 'B', close: 'Bc', write: 'Fc', args: ['a', 'b', 'd', 'c'] },
    'ort-wasm-simd-threaded.asyncify.mjs': { wasm: 'ort-wasm-simd-threaded.asyncify.wasm', bundles: ['ort.webgpu*.mjs'],
      pthread: 'n', proxy: 'M', views: 'u', u32: 'C', u8: 'x', close: 'Qc', write: 'Uc', args: ['a', 'b', 'c', 'd'] },
    'ort-wasm-simd-threaded.jspi.mjs': { wasm: 'ort-wasm-simd-threaded.jspi.wasm', bundles: ['ort.jspi*.mjs'],
      pthread: 'n', proxy: 'M', views: 't', u32: 'B', u8: 'z', close: 'Gc', write: 'Kc', args: ['a', 'b', 'c', 'd'] },
  },
};

/** The exact edits for one loader: [what, find, replace]. */
export function editsFor(version, file, n) {
  const [fd, iov, iovcnt, pnum] = n.args;
  const sink = `globalThis[Symbol.for(${JSON.stringify(SINK_KEY)})]`;
  const loaded = `globalThis[Symbol.for(${JSON.stringify(LOADED_KEY)})]`;
  const factory = 'async function ortWasmThreaded(moduleArg={}){';
  const closeStub = `function ${n.close}(a){return ${n.pthread}?${n.proxy}(21,1,a):52}`;
  const writeHead = `function ${n.write}(${n.args.join()}){if(${n.pthread})return ${n.proxy}(25,1,${n.args.join()});${iov}>>>=0;${iovcnt}>>>=0;${pnum}>>>=0;`;
  return [
    // Says which derivation is live in this realm: ortkeep checks it after
    // session creation (onnxruntime-web may have loaded another loader first);
    // heapBytes() reads the wasm memory's size, for session.info.memory.
    ['factory', factory, `${factory}${loaded}={...${JSON.stringify({ version, loader: file })},heapBytes:()=>(${n.views}(),${n.u8}).length};`],
    // fd_close: with the sink armed, any fd but stdout/stderr closes cleanly.
    ['fd_close', closeStub,
      `function ${n.close}(a){if(${n.pthread})return ${n.proxy}(21,1,a);var ortkeepSink=${sink};if(ortkeepSink&&a!==1&&a!==2){ortkeepSink.close(a);return 0}return 52}`],
    // fd_write: with the sink armed, copy each iovec of any fd but stdout/stderr.
    ['fd_write', writeHead,
      `${writeHead}var ortkeepSink=${sink};if(ortkeepSink&&${fd}!==1&&${fd}!==2){for(var ortkeepN=0,ortkeepI=0;ortkeepI<${iovcnt};ortkeepI++){var ortkeepP=(${n.views}(),${n.u32})[${iov}>>>2>>>0],ortkeepL=(${n.views}(),${n.u32})[${iov}+4>>>2>>>0];${iov}+=8;ortkeepSink.write(${fd},(${n.views}(),${n.u8}).slice(ortkeepP,ortkeepP+ortkeepL));ortkeepN+=ortkeepL}(${n.views}(),${n.u32})[${pnum}>>>2>>>0]=ortkeepN;return 0}`],
  ];
}

const sha256 = (text) => createHash('sha256').update(text).digest('hex');

/** Applies edits to one loader's text; throws naming the pattern that is not there exactly once. */
export function deriveLoader(text, version, file, names) {
  if (text.includes('ortkeepSink')) throw new Error(`${file}: the input is already a derived loader`);
  let out = text;
  for (const [what, find, replace] of editsFor(version, file, names)) {
    const first = out.indexOf(find);
    const count = first < 0 ? 0 : out.split(find).length - 1;
    if (count !== 1) {
      throw new Error(`${file}: the ${what} pattern occurs ${count} times (exactly 1 expected) in onnxruntime-web ${version}: ${find}`);
    }
    out = out.slice(0, first) + replace + out.slice(first + find.length);
  }
  return out;
}

async function main() {
  const version = JSON.parse(await readFile(path.join(ORT_DIR, 'package.json'), 'utf8')).version;
  const table = LOADERS[version];
  if (!table) {
    throw new Error(`onnxruntime-web ${version} is installed, but capturing loaders are derived only for ${Object.keys(LOADERS).join(', ')}; `
      + 'add its names to LOADERS in scripts/derive-capture-loader.mjs (or install a supported version)');
  }
  const derived = {};
  for (const [file, names] of Object.entries(table)) {
    const text = await readFile(path.join(ORT_DIR, 'dist', file), 'utf8');
    derived[file] = { text: deriveLoader(text, version, file, names), names, sourceSha256: sha256(text) };
  }
  // Every loader derived before anything is written: a failure leaves no half set.
  const tmp = `${OUT_DIR}.tmp`;
  await rm(tmp, { recursive: true, force: true });
  await mkdir(tmp, { recursive: true });
  const manifest = { onnxruntimeWeb: version, sinkKey: SINK_KEY, loadedKey: LOADED_KEY, loaders: {} };
  for (const [file, d] of Object.entries(derived)) {
    const banner = `// Derived by ortkeep's scripts/derive-capture-loader.mjs from onnxruntime-web ${version} dist/${file} (sha256 ${d.sourceSha256}); MIT, Microsoft Corporation.\n`;
    const text = banner + d.text;
    await writeFile(path.join(tmp, file), text);
    manifest.loaders[file] = { wasm: d.names.wasm, bundles: d.names.bundles, sourceSha256: d.sourceSha256, sha256: sha256(text) };
  }
  await writeFile(path.join(tmp, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  await rm(OUT_DIR, { recursive: true, force: true });
  await rename(tmp, OUT_DIR);
  process.stderr.write(`derive-capture-loader: ${Object.keys(derived).length} loaders for onnxruntime-web ${version} → ${path.relative(ROOT, OUT_DIR)}/\n`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((e) => {
    process.stderr.write(`derive-capture-loader: FAILED: ${e.message}\n`);
    process.exit(1);
  });
}
