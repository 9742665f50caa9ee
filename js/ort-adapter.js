// The one place that talks to onnxruntime-web (a peer dependency): finding
// it, creating sessions, and turning its failures into OrtkeepErrors.
import { OrtkeepError } from './errors.js';

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

/** Creates an InferenceSession from model bytes. */
export async function createSession(ort, bytes, sessionOptions) {
  try {
    return await ort.InferenceSession.create(bytes, sessionOptions);
  } catch (e) {
    throw new OrtkeepError(
      'SESSION_CREATE',
      `ortkeep: onnxruntime-web could not create a session: ${e?.message ?? e}`,
      { cause: e },
    );
  }
}
