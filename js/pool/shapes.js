// The model's shapes, handed to the C pool, which owns every verdict on
// them (tensor_pool.h, SHAPES): fixed-dim checks, symbol binding per run,
// which outputs are preallocated and pinned and which are adopted. JS only
// encodes what the model declares: symbol names become ids (interned per
// pool), anything else that is not a size becomes "unknown".
import { POOL_LIMIT } from '../core-constants.js';
import { PoolCore, SLOT } from '../tensor-pool.js';
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
 * reader's report), else onnxruntime's metadata (same index as its names).
 */
export function slotSpecs(names, declared, metadata) {
  const byName = new Map((declared ?? []).map((s) => [s.name, s]));
  return names.map((name, i) => {
    const d = byName.get(name);
    const meta = metadata?.[i];
    const type = ONNX_TO_ORT_TYPE[d?.elemType] ?? (meta?.isTensor !== false ? meta?.type : undefined) ?? null;
    return { name, type, dims: d?.dims ?? (Array.isArray(meta?.shape) ? meta.shape : null) };
  });
}

/** Declares every input and output of `pool` (a PoolCore) from the specs. */
export function declareSlots(pool, inputSpecs, outputSpecs) {
  const symbols = new Map();
  inputSpecs.forEach((s, i) => pool.declare(SLOT.input, i, onnxType(s.type), encodeDims(s.dims, symbols)));
  outputSpecs.forEach((s, j) => pool.declare(SLOT.output, j, onnxType(s.type), encodeDims(s.dims, symbols)));
}

/**
 * Which outputs of a model have a declared shape (C's verdict), so they stay
 * on the device, from the reader's report, before any session exists.
 * @returns {boolean[]} by report.outputs index
 */
export function deviceOutputs(core, report) {
  const inputs = slotSpecs((report.inputs ?? []).map((s) => s.name), report.inputs);
  const outputs = slotSpecs((report.outputs ?? []).map((s) => s.name), report.outputs);
  const pool = new PoolCore(core, { inputs: inputs.length, outputs: outputs.length, budgetBytes: 0 });
  try {
    declareSlots(pool, inputs, outputs);
    return outputs.map((_, j) => pool.outputDeclared(j));
  } finally {
    pool.free();
  }
}
