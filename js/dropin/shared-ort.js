// Makes an onnxruntime-web module that other code already imported create
// its sessions through ortkeep: its InferenceSession.create is replaced in
// place (the class is shared by whoever imported the module, so a library
// that captured `ort.InferenceSession` at its own import gets ortkeep too).
// ortkeep itself keeps the original create (js/ort-adapter.js realOrt), so
// its own sessions never come back here.
import { makeInferenceSession } from './inference-session.js';

const REAL = Symbol.for('ortkeep.realOrt');

/**
 * @param {object} ort an onnxruntime-web module namespace (or window.ort)
 * @param {{defaults?: () => object, source?: (source: unknown, options: object) => {source: unknown, options: object}}} [how]
 * @returns {object} the real side: `ort` with the original InferenceSession.create
 */
export function routeSessionsThroughOrtkeep(ort, how = {}) {
  const Shared = ort.InferenceSession;
  if (Shared[REAL]) return Shared[REAL]; // done already (two imports of the entry)
  const originalCreate = Shared.create;
  const realSide = Object.freeze({
    ...ort,
    InferenceSession: Object.freeze({ create: (...args) => originalCreate.apply(Shared, args) }),
  });
  const DropIn = makeInferenceSession(realSide, how);
  Shared.create = (...args) => DropIn.create(...args);
  Object.defineProperty(Shared, REAL, { value: realSide });
  return realSide;
}
