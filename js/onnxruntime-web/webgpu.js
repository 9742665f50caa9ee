// ortkeep/onnxruntime-web/webgpu: onnxruntime-web/webgpu with InferenceSession
// replaced by ortkeep's, as js/onnxruntime-web.js does for the main entry (an
// alias that rewrites subpaths too, as esbuild's does, lands here).
import * as ort from '#onnxruntime-web/webgpu';
import { makeInferenceSession } from '../dropin/inference-session.js';

export * from '#onnxruntime-web/webgpu';

/** onnxruntime-web's InferenceSession API, created through ortkeep's load(). */
export const InferenceSession = makeInferenceSession(ort, { entry: 'webgpu' });

/** onnxruntime-web's default export (its API object), with the same InferenceSession. */
export default Object.freeze({ ...(ort.default ?? ort), InferenceSession });
