// Finds the capturing loader derived at build time (dist/ort-capture/, made
// by scripts/derive-capture-loader.mjs) and decides whether it may be used
// with the onnxruntime-web this page runs. Any doubt turns forms off with a
// typed FORMS_OFF error that names the reason; nothing here touches ort.
import { OrtkeepError } from '../errors.js';
import { isNode, readFileUrl } from '../platform/node.js';
import { captureUrls, installedUrl, isWasm, siblingOrtWasmUrl } from '../package-files.js';

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

/**
 * @typedef {object} CaptureFiles where the derivation's files are served
 * @property {URL} manifest
 * @property {(file: string) => URL} loader
 * @property {boolean} given whether the caller named the folder (forms.captureBase)
 */

/**
 * The derivation's files: in the folder forms.captureBase names, else where
 * package-files.js finds them (a built app renames each file).
 * @param {string|URL} [captureBase]
 * @returns {CaptureFiles}
 */
export function captureFiles(captureBase) {
  if (captureBase != null) {
    const base = new URL(String(captureBase), globalThis.location?.href);
    return { manifest: new URL('manifest.json', base), loader: (file) => new URL(file, base), given: true };
  }
  const { manifest, loaders } = captureUrls();
  return { manifest, loader: (file) => loaders[file] ?? new URL(file, manifest), given: false };
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
 * Reads dist/ort-capture/manifest.json; where a dev server moved this module,
 * from the install path (package-files.js), and then the loaders too.
 * @param {CaptureFiles} files
 * @returns {Promise<{manifest: CaptureManifest, files: CaptureFiles}>}
 */
export async function readManifest(files) {
  let first;
  try {
    return { manifest: await readJsonUrl(files.manifest), files };
  } catch (e) {
    first = e;
  }
  const installed = !files.given && installedUrl(files.manifest);
  if (installed) {
    try {
      const manifest = await readJsonUrl(installed);
      return { manifest, files: { ...files, manifest: installed, loader: (file) => installedUrl(files.loader(file)) ?? new URL(file, installed) } };
    } catch { /* the first failure is the one to report */ }
  }
  // a bundler inlines the small manifest as a data: URL, which a CSP's connect-src may refuse
  const url = files.manifest.protocol === 'data:' ? 'the manifest a bundler inlined as a data: URL (a Content-Security-Policy connect-src must allow data:)' : files.manifest;
  const fix = files.given
    ? 'forms.captureBase must be the URL of a folder serving a copy of node_modules/ortkeep/dist/ort-capture/ (its manifest.json and loaders)'
    : "serve a copy of node_modules/ortkeep/dist/ort-capture/ and pass its URL: load(url, { forms: { captureBase: '/ort-capture/' } }); in a checkout of ortkeep, npm run build makes it";
  throw formsOff('derivation-missing', `no capturing loader at ${url} (${first?.message ?? first}); ${fix}`, first);
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
 * changed, only the JS loader is. What the page told onnxruntime-web
 * (env.wasm.wasmPaths, or forms.wasmUrl) is taken as given; failing that,
 * the module resolver (Node's package exports; an import map in a page), then
 * onnxruntime-web installed beside ortkeep (package-files.js). A guess is used
 * only once it answers with a wasm binary: pointed at anything else,
 * onnxruntime-web's initialization fails for good in this page.
 * @returns {Promise<{url?: string, tried: string[]}>}
 */
export async function originalWasmUrl(ort, wasmFile, explicit) {
  if (explicit) return { url: String(explicit), tried: [] };
  const paths = ort.env.wasm.wasmPaths;
  if (typeof paths === 'string') return { url: new URL(wasmFile, new URL(paths, globalThis.location?.href)).href, tried: [] };
  if (paths?.wasm) return { url: String(paths.wasm.href ?? paths.wasm), tried: [] };
  if (isNode) {
    try {
      return { url: import.meta.resolve(`onnxruntime-web/${wasmFile}`), tried: [] };
    } catch {
      return { tried: [`onnxruntime-web/${wasmFile}`] };
    }
  }
  const guesses = [];
  try {
    guesses.push(new URL(wasmFile, import.meta.resolve('onnxruntime-web')).href);
  } catch { /* no import map */ }
  // a script tag's onnxruntime-web looks next to its own script (a CDN URL
  // pins its version there, which a guess beside ortkeep's would not)
  const script = ort === globalThis.ort ? ortScriptUrl() : null;
  if (script) guesses.push(new URL(wasmFile, script).href);
  guesses.push(siblingOrtWasmUrl(wasmFile).href);
  for (const url of guesses) if (await answersWasm(url)) return { url, tried: guesses };
  return { tried: guesses };
}

/** The URL of the page's onnxruntime-web script (ort.min.js, ort.webgpu.min.js, …), if one is there. */
function ortScriptUrl() {
  if (typeof document === 'undefined') return null;
  for (const el of document.querySelectorAll('script[src]')) {
    try {
      const url = new URL(el.src, document.baseURI);
      if (/\/ort(\.[\w-]+)*\.js$/.test(url.pathname)) return url;
    } catch { /* not a URL */ }
  }
  return null;
}

/**
 * Whether a URL answers with a wasm binary. HEAD first (no body: the page
 * fetches this file again in a moment, tens of MB): served and not text (an
 * SPA fallback is text/html). A server that refuses HEAD gets a GET whose
 * first four bytes must be the wasm magic, then the body is dropped.
 */
async function answersWasm(url) {
  try {
    const head = await fetch(url, { method: 'HEAD' });
    if (head.ok) return !/^text\//i.test(head.headers.get('content-type') ?? '');
    if (head.status !== 405 && head.status !== 501) return false;
  } catch { /* try GET */ }
  try {
    const response = await fetch(url);
    if (!response.ok || !response.body) return false;
    const reader = response.body.getReader();
    const first = new Uint8Array(4);
    let n = 0;
    while (n < 4) {
      const { value, done } = await reader.read();
      if (done) break;
      const take = value.subarray(0, 4 - n);
      first.set(take, n);
      n += take.byteLength;
    }
    reader.cancel().catch(() => {});
    return n === 4 && isWasm(first);
  } catch {
    return false;
  }
}
