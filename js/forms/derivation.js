// Finds the capturing loader derived at build time (dist/ort-capture/, made
// by scripts/derive-capture-loader.mjs) and decides whether it may be used
// with the onnxruntime-web this page runs. Any doubt turns forms off with a
// typed FORMS_OFF error that names the reason; nothing here touches ort.
import { OrtkeepError } from '../errors.js';
import { isNode, readFileUrl } from '../platform/node.js';

/** globalThis keys the derived loaders share with ortkeep (Symbol.for keys cross realms' module copies). */
export const SINK_KEY = 'ortkeep.capture.sink';
export const LOADED_KEY = 'ortkeep.capture.loaded';

/** onnxruntime-web's wasm memory in bytes, when a derived loader runs it (else null). */
export function ortHeapBytes() {
  try {
    return globalThis[Symbol.for(LOADED_KEY)]?.heapBytes?.() ?? null;
  } catch {
    return null;
  }
}

/** Loader used by each bundle family: the Node and wasm-only bundles load the
 * plain loader; the default/all bundles the JSEP one; the webgpu bundle asyncify. */
export const LOADER_FOR_BUNDLE = {
  wasm: 'ort-wasm-simd-threaded.mjs',
  jsep: 'ort-wasm-simd-threaded.jsep.mjs',
  asyncify: 'ort-wasm-simd-threaded.asyncify.mjs',
  jspi: 'ort-wasm-simd-threaded.jspi.mjs',
};

/**
 * @typedef {object} CaptureManifest
 * @property {string} onnxruntimeWeb the version the loaders were derived from
 * @property {string} sinkKey Symbol.for key of the sink the loaders write to
 * @property {string} loadedKey Symbol.for key a derived loader sets when it runs
 * @property {Record<string, {wasm: string, sha256: string, sourceSha256: string}>} loaders
 */

/** @param {string} reason @param {string} message @param {unknown} [cause] */
export function formsOff(reason, message, cause) {
  return new OrtkeepError('FORMS_OFF', `ortkeep: artifact forms are off (${reason}): ${message}`, { details: { reason }, ...(cause === undefined ? {} : { cause }) });
}

/** Where dist/ort-capture/ is, next to this package's dist/. */
export function defaultCaptureBase() {
  return new URL('../../dist/ort-capture/', import.meta.url);
}

/** JSON from a URL: a file: URL read from disk in Node, else fetched (HTTP errors thrown). */
export async function readJsonUrl(url) {
  const u = new URL(String(url));
  if (isNode && u.protocol === 'file:') return JSON.parse(new TextDecoder().decode(await readFileUrl(u)));
  const response = await fetch(u);
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  return response.json();
}

/**
 * Reads dist/ort-capture/manifest.json.
 * @param {URL} base
 * @returns {Promise<CaptureManifest>}
 */
export async function readManifest(base) {
  const url = new URL('manifest.json', base);
  try {
    return await readJsonUrl(url);
  } catch (e) {
    throw formsOff('derivation-missing', `no capturing loader at ${url} (${e?.message ?? e}); run npm run build, or serve dist/ort-capture/ next to ortkeep's dist/`, e);
  }
}

/**
 * Which derived loader to use and whether it fits the running onnxruntime-web.
 * @param {object} ort onnxruntime-web
 * @param {CaptureManifest} manifest
 * @param {keyof LOADER_FOR_BUNDLE} bundle
 * @returns {{file: string, wasm: string}}
 */
export function pickLoader(ort, manifest, bundle) {
  const running = ort?.env?.versions?.web;
  if (running !== manifest.onnxruntimeWeb) {
    throw formsOff('version-mismatch', `the capturing loader was derived from onnxruntime-web ${manifest.onnxruntimeWeb}, this page runs ${running ?? 'an unknown version'}; rebuild ortkeep against it`);
  }
  const file = LOADER_FOR_BUNDLE[bundle];
  const entry = file && manifest.loaders?.[file];
  if (!entry) throw formsOff('derivation-missing', `no capturing loader for the '${bundle}' bundle in the derivation`);
  return { file, wasm: entry.wasm };
}

/**
 * The URL of onnxruntime-web's own .wasm for a loader: the binary is never
 * changed, only the JS loader is. Taken from ort.env.wasm.wasmPaths when the
 * page set them, else from the module resolver (Node's package exports; an
 * import map in a page).
 * @returns {string|undefined}
 */
export function originalWasmUrl(ort, wasmFile, explicit) {
  if (explicit) return String(explicit);
  const paths = ort.env.wasm.wasmPaths;
  if (typeof paths === 'string') return new URL(wasmFile, new URL(paths, globalThis.location?.href)).href;
  if (paths?.wasm) return String(paths.wasm.href ?? paths.wasm);
  try {
    if (isNode) return import.meta.resolve(`onnxruntime-web/${wasmFile}`);
    return new URL(wasmFile, import.meta.resolve('onnxruntime-web')).href;
  } catch {
    return undefined;
  }
}
