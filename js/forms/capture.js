// captureOptimized: creates the caller's session with onnxruntime's
// optimized-model writer on, through the capturing loader, so the optimized
// artifact comes out of a session creation the page needed anyway.
import { OrtkeepError } from '../errors.js';
import { isNode } from '../platform/node.js';
import { captureFiles, formsOff, originalWasmUrl, pickLoader, readManifest } from './derivation.js';
import { withSink } from './sink.js';
import { selfTest } from './self-test.js';

const LEVELS = new Set(['basic', 'extended', 'layout', 'all']);
/** onnxruntime's session config key (onnxruntime_session_options_config_keys.h kOrtSessionOptionsConfigSaveModelFormat). */
const SAVE_FORMAT = { onnx: 'ONNX', ort: 'ORT' };

/**
 * @typedef {object} CaptureOptions
 * @property {'basic'|'extended'|'layout'|'all'} [level] graphOptimizationLevel the form is optimized at
 * @property {Array<string|object>} [executionProviders] the caller's EPs (an artifact is only good for them)
 * @property {'onnx'|'ort'} [format] which writer: optimized ONNX or ORT format
 * @property {object} [sessionOptions] any other InferenceSession options of the caller
 * @property {'wasm'|'jsep'|'asyncify'|'jspi'} [bundle] which onnxruntime-web bundle the page imports
 *   (Node and onnxruntime-web/wasm: 'wasm'; the default and /all bundles: 'jsep'; /webgpu: 'asyncify')
 * @property {string|URL} [wasmUrl] onnxruntime-web's own .wasm for that bundle, when it cannot be found
 * @property {string|URL} [captureBase] the folder serving a copy of dist/ort-capture/ (default: found from this
 *   module's URL, which bundlers and dev servers rewrite; see js/package-files.js)
 * @property {import('./derivation.js').CaptureManifest} [manifest] the derivation's manifest, if already read
 */

/**
 * @param {object} ort onnxruntime-web
 * @param {Uint8Array} modelBytes the original model
 * @param {CaptureOptions} [options]
 * @returns {Promise<{session: object, bytes: Uint8Array, createMs: number, format: 'onnx'|'ort', level: string, loader: string, found: object}>}
 * @throws {OrtkeepError} FORMS_OFF (details.reason: version-mismatch, derivation-missing,
 *   loader-blocked, loader-mismatch, no-wasm-url, proxy, ort-initialized) before or
 *   instead of a session; FORM_SELF_TEST with details.session when the session was
 *   created but its artifact is not trusted; SESSION_CREATE; INVALID_ARG.
 */
export async function captureOptimized(ort, modelBytes, options = {}) {
  const { level = 'extended', format = 'onnx', executionProviders, sessionOptions = {} } = options;
  if (!LEVELS.has(level)) throw new OrtkeepError('INVALID_ARG', `ortkeep: captureOptimized level must be one of ${[...LEVELS].join(', ')}; got ${level}`);
  if (!SAVE_FORMAT[format]) throw new OrtkeepError('INVALID_ARG', `ortkeep: captureOptimized format must be 'onnx' or 'ort'; got ${format}`);
  const extraSession = { ...(sessionOptions.extra?.session ?? {}) };
  // External initializers break the reload of graphs whose If/Loop bodies hold
  // initializers ("initializer name is not unique"); forms are inline only.
  if (Object.keys(extraSession).some((k) => k.startsWith('optimized_model_external_initializers'))) {
    throw new OrtkeepError('INVALID_ARG', 'ortkeep: captured forms keep initializers inline; remove session.optimized_model_external_initializers_* from the options');
  }
  const { manifest, file } = await installCaptureLoader(ort, options);

  const loadedKey = Symbol.for(manifest.loadedKey);
  const createOptions = {
    ...sessionOptions,
    ...(executionProviders ? { executionProviders } : {}),
    graphOptimizationLevel: level,
    // A name for onnxruntime's writer; the capturing loader sends its bytes to the sink.
    optimizedModelFilePath: `ortkeep-capture.${format}`,
    extra: { ...(sessionOptions.extra ?? {}), session: { ...extraSession, save_model_format: SAVE_FORMAT[format] } },
  };
  let captured;
  try {
    captured = await withSink(manifest.sinkKey, async () => {
      const t0 = performance.now();
      const session = await ort.InferenceSession.create(modelBytes, createOptions);
      return { session, createMs: performance.now() - t0 };
    });
  } catch (e) {
    if (globalThis[loadedKey]?.loader !== file) {
      throw formsOff('ort-initialized', 'onnxruntime-web had loaded its own loader before the capturing one was installed (a session was created first in this page); capture before any other session, then create sessions as usual', e);
    }
    throw new OrtkeepError('SESSION_CREATE', `ortkeep: onnxruntime-web could not create a session with capture on: ${e?.message ?? e}`, { cause: e });
  }
  const { value: { session, createMs }, files } = captured;
  if (files.length !== 1) {
    throw new OrtkeepError('FORM_SELF_TEST', `ortkeep: onnxruntime-web wrote ${files.length} files during capture (1 expected); the session is usable, the form is not`, { details: { session } });
  }
  const { bytes } = files[0];
  let found;
  try {
    found = await selfTest(bytes, format);
  } catch (e) {
    e.details = { ...(e.details ?? {}), session };
    throw e;
  }
  return { session, bytes, createMs, format, level, loader: file, found };
}

/**
 * Makes onnxruntime-web use the capturing loader in this realm, if it can:
 * call it before the page's first session (onnxruntime-web picks its loader
 * once). captureOptimized calls it too. Unarmed, the loader behaves as the
 * original, so every other session is unaffected.
 * @param {object} ort onnxruntime-web
 * @param {Pick<CaptureOptions, 'bundle'|'wasmUrl'|'captureBase'|'manifest'>} [options]
 * @returns {Promise<{manifest: import('./derivation.js').CaptureManifest, file: string}>}
 * @throws {OrtkeepError} FORMS_OFF
 */
export async function installCaptureLoader(ort, options = {}) {
  if (ort.env?.wasm?.proxy) throw formsOff('proxy', 'onnxruntime-web runs in a proxy worker (env.wasm.proxy), where the capturing loader cannot be reached');
  let files = captureFiles(options.captureBase);
  let manifest = options.manifest;
  if (!manifest) ({ manifest, files } = await readManifest(files));
  const { file, wasm } = pickLoader(ort, manifest, options.bundle ?? (isNode ? 'wasm' : 'jsep'));
  await installLoader(ort, manifest, files, file, wasm, options.wasmUrl);
  return { manifest, file };
}

/**
 * Points onnxruntime-web at the derived loader (and the unchanged .wasm),
 * unless it is already live in this realm. onnxruntime-web reads wasmPaths
 * once, when its first session initializes the module.
 */
async function installLoader(ort, manifest, files, file, wasm, wasmUrl) {
  const live = globalThis[Symbol.for(manifest.loadedKey)];
  if (live) {
    if (live.loader !== file || live.version !== manifest.onnxruntimeWeb) {
      throw formsOff('loader-mismatch', `the capturing loader running here is ${live.loader} (${live.version}), not ${file} (${manifest.onnxruntimeWeb}); pass the bundle this page imports`);
    }
    return;
  }
  let loaderUrl;
  try {
    loaderUrl = files.loader(file).href;
    // A loader that cannot be imported (a CSP that forbids it, a missing file)
    // must be found out here: pointed at it, onnxruntime-web's initialization
    // would fail for good in this page.
    await import(/* @vite-ignore */ /* webpackIgnore: true */ loaderUrl);
  } catch (e) {
    throw formsOff('loader-blocked', `the capturing loader ${loaderUrl ?? file} could not be imported (${e?.message ?? e}); a Content-Security-Policy script-src must allow it, and it must be served (forms.captureBase: the folder serving a copy of node_modules/ortkeep/dist/ort-capture/)`, e);
  }
  const wasmBinary = ort.env.wasm.wasmBinary;
  let wasmHref;
  if (!wasmBinary) {
    const found = await originalWasmUrl(ort, wasm, wasmUrl);
    wasmHref = found.url;
    if (!wasmHref) {
      throw formsOff('no-wasm-url', `cannot find onnxruntime-web's ${wasm}${found.tried.length ? ` (no wasm binary at ${found.tried.join(', ')})` : ''}; `
        + `tell onnxruntime-web where it is served before load(): ort.env.wasm.wasmPaths = { wasm: url } (in Vite: import url from 'onnxruntime-web/${wasm}?url'), `
        + `or ort.env.wasm.wasmPaths = '/path/to/onnxruntime-web/dist/'; or pass load(src, { forms: { wasmUrl: url } })`);
    }
  }
  ort.env.wasm.wasmPaths = wasmHref ? { mjs: loaderUrl, wasm: wasmHref } : { mjs: loaderUrl };
}
