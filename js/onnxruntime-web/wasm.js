// ortkeep/onnxruntime-web/wasm: onnxruntime-web/wasm with InferenceSession
// replaced by ortkeep's, as js/onnxruntime-web.js does for the main entry (an
// alias that rewrites subpaths too, as esbuild's does, lands here).
import * as ort from '#onnxruntime-web/wasm';
import { makeInferenceSession } from '../dropin/inference-session.js';

export * from '#onnxruntime-web/wasm';

/** onnxruntime-web's InferenceSession API, created through ortkeep's load(). */
export const InferenceSession = makeInferenceSession(ort, { entry: 'wasm' });

/** onnxruntime-web's default export (its API object), with the same InferenceSession. */
export default Object.freeze({ ...(ort.default ?? ort), InferenceSession });
