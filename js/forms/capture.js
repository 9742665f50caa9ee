// captureOptimized: creates the caller's session with onnxruntime's
// optimized-model writer on, through the capturing loader (installed once per
// page by js/forms/capture-loader.js), so the optimized artifact comes out of
// a session creation the page needed anyway.
import { OrtkeepError } from '../errors.js';
import { captureLoader } from './capture-loader.js';
import { withSink } from './capture-sink.js';
import { formsOff } from './forms-off.js';
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
 * @property {string|URL} [loaderUrl] the page's onnxruntime-web loader (.mjs), when a version ortkeep's build did
 *   not derive from must be derived in the page and its loader cannot be found
 * @property {import('./capture-loader.js').CaptureManifest} [manifest] the build's manifest, if already read
 * @property {import('./capture-loader.js').CaptureLoader} [loader] the loader captureLoader() installed
 */

/**
 * @param {object} ort onnxruntime-web
 * @param {Uint8Array} modelBytes the original model
 * @param {CaptureOptions} [options]
 * @returns {Promise<{session: object, bytes: Uint8Array, createMs: number, format: 'onnx'|'ort', level: string, loader: string, found: object}>}
 * @throws {OrtkeepError} FORMS_OFF (details.reason: those of captureLoader(), and ort-initialized) before or
 *   instead of a session; FORM_SELF_TEST with details.session when the session was
 *   created but its artifact is not trusted; SESSION_CREATE; INVALID_ARG.
 */
export async function captureOptimized(ort, modelBytes, options = {}) {
  const { level = 'extended', format = 'onnx', executionProviders, sessionOptions = {} } = options;
  if (!LEVELS.has(level))
    throw new OrtkeepError(
      'INVALID_ARG',
      `ortkeep: captureOptimized level must be one of ${[...LEVELS].join(', ')}; got ${level}`,
    );
  if (!SAVE_FORMAT[format])
    throw new OrtkeepError('INVALID_ARG', `ortkeep: captureOptimized format must be 'onnx' or 'ort'; got ${format}`);
  const extraSession = { ...(sessionOptions.extra?.session ?? {}) };
  // External initializers break the reload of graphs whose If/Loop bodies hold
  // initializers ("initializer name is not unique"); forms are inline only.
  if (Object.keys(extraSession).some((k) => k.startsWith('optimized_model_external_initializers'))) {
    throw new OrtkeepError(
      'INVALID_ARG',
      'ortkeep: captured forms keep initializers inline; remove session.optimized_model_external_initializers_* from the options',
    );
  }
  const loader = options.loader ?? (await captureLoader(ort, options));
  const loadedKey = Symbol.for(loader.loadedKey);
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
    captured = await withSink(loader.sinkKey, async () => {
      const t0 = performance.now();
      const session = await ort.InferenceSession.create(modelBytes, createOptions);
      return { session, createMs: performance.now() - t0 };
    });
  } catch (e) {
    if (globalThis[loadedKey]?.loader !== loader.file) {
      throw formsOff(
        'ort-initialized',
        'onnxruntime-web had started with its own loader before ortkeep installed the capturing one ' +
          "(a session was created before ortkeep's first load() in this page); the next page load gets forms if its first " +
          "onnxruntime-web session comes from ortkeep (await ortkeep's first load() before creating sessions with onnxruntime-web directly)",
        e,
      );
    }
    throw new OrtkeepError(
      'SESSION_CREATE',
      `ortkeep: onnxruntime-web could not create a session with capture on: ${e?.message ?? e}`,
      { cause: e },
    );
  }
  const {
    value: { session, createMs },
    files,
  } = captured;
  if (files.length !== 1) {
    throw new OrtkeepError(
      'FORM_SELF_TEST',
      `ortkeep: onnxruntime-web wrote ${files.length} files during capture (1 expected); the session is usable, the form is not`,
      { details: { session } },
    );
  }
  const { bytes } = files[0];
  let found;
  try {
    found = await selfTest(bytes, format);
  } catch (e) {
    e.details = { ...(e.details ?? {}), session };
    throw e;
  }
  return { session, bytes, createMs, format, level, loader: loader.file, found };
}

/** The loader's installation as captureOptimized's callers knew it (tests, the bench). */
export const installCaptureLoader = captureLoader;
