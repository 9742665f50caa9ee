#!/usr/bin/env node
// Derives capturing copies of the installed onnxruntime-web's Emscripten
// loaders into dist/ort-capture/ (build output, never committed): the fast
// path of js/forms/capture-loader.js for the onnxruntime-web ortkeep is built
// with (a page running another version derives its own loader in the page).
// The edits are js/forms/loader-patch.js's: names read off each loader's
// text, every edit matching exactly once, or this script exits non-zero and
// writes nothing (the last good derivation stays).
//
//   node scripts/derive-capture-loader.mjs            node_modules/onnxruntime-web -> dist/ort-capture/
//   ORTKEEP_DERIVE_FROM=DIR ORTKEEP_DERIVE_TO=OUT …   another installed package (tests derive every alias)
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { deriveLoaderText, LOADED_KEY, loaderNames, SINK_KEY } from '../js/forms/loader-patch.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ORT_DIR = process.env.ORTKEEP_DERIVE_FROM ?? path.join(ROOT, 'node_modules/onnxruntime-web');
const OUT_DIR = process.env.ORTKEEP_DERIVE_TO ?? path.join(ROOT, 'dist/ort-capture');

export { LOADED_KEY, SINK_KEY };

/** Each loader and the onnxruntime-web bundles that load it (1.22 has no asyncify/jspi loader). */
export const LOADER_FILES = {
  'ort-wasm-simd-threaded.mjs': ['ort.wasm*.mjs', 'ort.node.min.mjs'],
  'ort-wasm-simd-threaded.jsep.mjs': ['ort.mjs', 'ort.min.mjs', 'ort.bundle.min.mjs', 'ort.all*.mjs'],
  'ort-wasm-simd-threaded.asyncify.mjs': ['ort.webgpu*.mjs'],
  'ort-wasm-simd-threaded.jspi.mjs': ['ort.jspi*.mjs'],
};

const sha256 = (text) => createHash('sha256').update(text).digest('hex');

async function readIfThere(file) {
  try {
    return await readFile(file, 'utf8');
  } catch (e) {
    if (e.code === 'ENOENT') return null;
    throw e;
  }
}

async function main() {
  const version = JSON.parse(await readFile(path.join(ORT_DIR, 'package.json'), 'utf8')).version;
  const derived = {};
  for (const [file, bundles] of Object.entries(LOADER_FILES)) {
    const text = await readIfThere(path.join(ORT_DIR, 'dist', file));
    if (text == null) continue;
    derived[file] = {
      text: deriveLoaderText(text, { version, file }),
      names: loaderNames(text, file),
      bundles,
      sourceSha256: sha256(text),
    };
  }
  if (!derived['ort-wasm-simd-threaded.mjs'] || !derived['ort-wasm-simd-threaded.jsep.mjs']) {
    throw new Error(`onnxruntime-web ${version} at ${ORT_DIR} has no ort-wasm-simd-threaded(.jsep).mjs loader`);
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
    manifest.loaders[file] = {
      wasm: file.replace(/\.mjs$/, '.wasm'),
      bundles: d.bundles,
      sourceSha256: d.sourceSha256,
      sha256: sha256(text),
    };
  }
  await writeFile(path.join(tmp, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  await rm(OUT_DIR, { recursive: true, force: true });
  await rename(tmp, OUT_DIR);
  process.stderr.write(
    `derive-capture-loader: ${Object.keys(derived).length} loaders for onnxruntime-web ${version} → ${path.relative(ROOT, OUT_DIR)}/\n`,
  );
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((e) => {
    process.stderr.write(`derive-capture-loader: FAILED: ${e.message}\n`);
    process.exit(1);
  });
}
