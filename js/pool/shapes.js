// The model's shapes, handed to the C pool, which owns every verdict on
// them (tensor_pool.h, SHAPES): fixed-dim checks, symbol binding per run,
// which outputs are preallocated and pinned and which are adopted. JS only
// encodes what the model declares: symbol names become ids (interned per
// pool), anything else that is not a size becomes "unknown".
import { POOL_LIMIT } from '../core-constants.js';
import { SLOT } from './pool-core.js';
import { ONNX_TO_ORT_TYPE, onnxType } from './dtypes.js';

const { DIM_UNKNOWN, DIM_SYMBOL_BASE } = POOL_LIMIT;

/**
 * Declared dims as the C pool reads them: a size, DIM_UNKNOWN, or a symbol's
 * code; null when the rank itself is unknown.
 * @param {(number|string|null)[]|null|undefined} dims
 * @param {Map<string, number>} symbols name → id, grown here
 */
export function encodeDims(dims, symbols) {
  if (!Array.isArray(dims)) return null;
  return dims.map((d) => {
    if (typeof d === 'string' && d.length > 0) {
      if (!symbols.has(d)) symbols.set(d, symbols.size);
      return DIM_SYMBOL_BASE - symbols.get(d);
    }
    return Number.isSafeInteger(d) && d >= 0 ? d : DIM_UNKNOWN; // > MAX_DIM: C reads it as unknown
  });
}

/**
 * Input and output specs of a session: what the model file declares (the C
 * reader's report: dims null = no shape, [] = a scalar) and onnxruntime's
 * metadata (same index as its names), both handed to the C pool, which keeps
 * only what they agree on. `dims` is what errors show and what a bare typed
 * array takes: the model's when the reader declared the slot, else the
 * runtime's (whose [] says nothing: onnxruntime-web reports no shape as []).
 */
export function slotSpecs(names, declared, metadata) {
  const byName = new Map((declared ?? []).map((s) => [s.name, s]));
  return names.map((name, i) => {
    const model = byName.get(name) ?? null;
    const meta = metadata?.[i];
    const runtime =
      meta && meta.isTensor !== false && Array.isArray(meta.shape)
        ? { type: meta.type ?? null, dims: [...meta.shape] }
        : null;
    const type = ONNX_TO_ORT_TYPE[model?.elemType] ?? runtime?.type ?? null;
    const dims = model ? (model.dims ?? null) : runtime?.dims.length ? runtime.dims : null;
    return { name, type, dims, model, runtime };
  });
}

/** Declares every input and output of `pool` (a PoolCore): the model's word, then the runtime's. */
export function declareSlots(pool, inputSpecs, outputSpecs) {
  const symbols = new Map();
  const declare = (kind, s, i) => {
    if (s.model)
      pool.declare(kind, i, onnxType(ONNX_TO_ORT_TYPE[s.model.elemType] ?? null), encodeDims(s.model.dims, symbols));
    if (s.runtime) pool.declareRuntime(kind, i, onnxType(s.runtime.type), encodeDims(s.runtime.dims, symbols));
    if (!s.model && !s.runtime) pool.declare(kind, i, onnxType(s.type), null);
  };
  inputSpecs.forEach((s, i) => declare(SLOT.input, s, i));
  outputSpecs.forEach((s, j) => declare(SLOT.output, s, j));
}
