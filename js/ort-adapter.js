// ortkeep's sessions of onnxruntime-web (a peer dependency): finding it,
// creating a load's sessions, and turning its failures into OrtkeepErrors.
// Not yet the only file that touches it: forms create their own sessions
// (forms/capture.js, forms/in-place.js, forms/prepare.js), turns.js and
// dropin/ wrap its InferenceSession, runtime-beside.js starts a second
// instance (js/README.md says which patch lives where).
import { OrtkeepError } from './errors.js';
import { createInPlace, ortModuleOf } from './forms/in-place.js';

/**
 * onnxruntime-web from options.ort, a global `ort` (script tags), or the
 * package import, in that order.
 */
export async function resolveOrt(options = {}) {
  if (options.ort) return realOrt(options.ort);
  if (globalThis.ort?.InferenceSession) return realOrt(globalThis.ort);
  try {
    return realOrt(await import('onnxruntime-web'));
  } catch (e) {
    throw new OrtkeepError(
      'ORT_MISSING',
      'ortkeep: onnxruntime-web was not found; install it (npm i onnxruntime-web), load ort.min.js before ortkeep, or pass load(src, {ort})',
      { cause: e },
    );
  }
}

/**
 * The real onnxruntime-web behind ortkeep's drop-in (ortkeep/onnxruntime-web, a bundler alias, a
 * patched window.ort): its InferenceSession carries the module it wraps; sessions are made there.
 */
export function realOrt(ort) {
  return ort?.InferenceSession?.[Symbol.for('ortkeep.realOrt')] ?? ort;
}

// onnxruntime-web's words when the bytes themselves are no model (1.30:
// ERROR_CODE 7 INVALID_PROTOBUF "Failed to load model because protobuf
// parsing failed", "No graph was found in the protobuf", an .ort form's
// "ORT model verification failed"). Anything else is the options' or this
// build's: no backend for an execution provider, a bad option, and
// ERROR_CODE 10 INVALID_GRAPH, which a valid model this build cannot run
// (an opset too new, a failed shape inference) gives too: dropping it would
// download it again on every load.
const NOT_A_MODEL =
  /ERROR_CODE: 7\b|protobuf parsing failed|No graph was found in the protobuf|ORT model verification failed/;

/**
 * Whether a failed creation says the model bytes are invalid (a stored copy
 * saying so is dropped by the core), not the options or the backend.
 */
export function refusedAsModel(e) {
  return NOT_A_MODEL.test(String(e?.cause?.message ?? e?.message ?? e ?? ''));
}

/** y = Identity(x), x and y float32 [1] (ONNX IR 8, opset 13): ortkeep's own model. */
const TINY_MODEL = 'CAg6NwoQCgF4EgF5IghJZGVudGl0eRIBc1oPCgF4EgoKCAgBEgQKAggBYg8KAXkSCgoICAESBAoCCAFCBAoAEA0=';

/** A fresh copy of ortkeep's 65-byte model (onnxruntime-web may take its buffer). */
export const tinyModel = () => Uint8Array.from(atob(TINY_MODEL), (c) => c.charCodeAt(0));

/**
 * Whether a failed creation is the options' (a log level, any option
 * onnxruntime-web validates, an EP not here): the same options fail on
 * ortkeep's own model too. The options that name the model's own parts
 * (its data files, outputs, dims) are left out of that try.
 */
export async function refusedForOptions(ort, sessionOptions) {
  const { externalData, preferredOutputLocation, freeDimensionOverrides, optimizedModelFilePath, ...rest } =
    sessionOptions ?? {};
  try {
    const session = await ort.InferenceSession.create(tinyModel(), rest);
    await session.release();
    return false;
  } catch {
    return true;
  }
}

/**
 * The model bytes as onnxruntime-web gets them: in a proxy worker
 * (`env.wasm.proxy`) it transfers the model's whole ArrayBuffer, detaching
 * it here, where ortkeep still stores, hashes and keeps those bytes after
 * the creation (every load failed so: "Cannot perform Construct on a
 * detached ArrayBuffer"). So a proxied creation gets a copy of its own.
 */
function ownedByOrt(ort, bytes) {
  if (!inProxyWorker(ort)) return bytes;
  if (ArrayBuffer.isView(bytes)) return bytes.slice();
  return bytes instanceof ArrayBuffer ? bytes.slice(0) : bytes;
}

/**
 * Whether onnxruntime-web's calls cross to its proxy worker: asked, as it
 * asks itself, at every call (`env.wasm.proxy` in a page with a document).
 * Every CPU buffer such a call takes is transferred there: detached here.
 */
export function inProxyWorker(ort) {
  return !!ort.env?.wasm?.proxy && typeof document !== 'undefined';
}

/**
 * Creates an InferenceSession from model bytes; an .ort form (`ortForm`) in
 * onnxruntime-web's own heap where ortkeep's loader runs it on this page
 * (js/forms/in-place.js), else as any bytes.
 */
export async function createSession(ort, bytes, sessionOptions, { ortForm = false } = {}) {
  try {
    const m = ortForm && !inProxyWorker(ort) ? ortModuleOf(ort) : null;
    if (m) {
      // any refusal in place is retried plainly: that creation's outcome is what plain onnxruntime-web gives
      const session = await createInPlace(ort, m, bytes, sessionOptions).catch(() => null);
      if (session) return session;
    }
    return await ort.InferenceSession.create(ownedByOrt(ort, bytes), sessionOptions);
  } catch (e) {
    throw new OrtkeepError(
      'SESSION_CREATE',
      `ortkeep: onnxruntime-web could not create a session: ${e?.message ?? e}`,
      { cause: e },
    );
  }
}
