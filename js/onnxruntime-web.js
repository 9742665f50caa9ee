// ortkeep/onnxruntime-web: the installed onnxruntime-web with InferenceSession
// replaced by ortkeep's (js/dropin/inference-session.js). Tensor, env and
// everything else are onnxruntime-web's own objects, so `instanceof` holds.
//
// A bundler alias `onnxruntime-web` → `ortkeep/onnxruntime-web` gives every
// library in an app the cache, the forms and the pool. This file reaches the
// real package through ortkeep's package.json "imports" (#onnxruntime-web),
// which the alias does not rewrite, so the entry never imports itself.
import * as ort from '#onnxruntime-web';
import { makeInferenceSession } from './dropin/inference-session.js';

export * from '#onnxruntime-web';

/** onnxruntime-web's InferenceSession API, created through ortkeep's load(). */
export const InferenceSession = makeInferenceSession(ort, { entry: 'default' });

/** onnxruntime-web's default export (its API object), with the same InferenceSession. */
export default Object.freeze({ ...(ort.default ?? ort), InferenceSession });
