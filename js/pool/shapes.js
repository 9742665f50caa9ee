// Which outputs have a shape known before a run. An output is preallocated
// and pinned only when every dim is a fixed size or a symbol that an input
// dim of this run binds; anything else (an unknown dim, a symbol no input
// names, a shape that depends on values: NonZero, TopK with a computed k, a
// detector's box count) is left to onnxruntime, and the pool adopts what it
// allocated. Never a guess from the previous run.

/** The largest dim trusted for an allocation (onnxruntime-web 1.30 reports an unknown dim as 4294967295). */
export const MAX_DIM = 2 ** 31 - 1;

const fixed = (d) => Number.isSafeInteger(d) && d >= 1 && d <= MAX_DIM;
const symbol = (d) => typeof d === 'string' && d.length > 0;

/**
 * One output's plan from the model's declared dims (the C reader) or, when
 * the model declares none, onnxruntime's metadata: an array of fixed sizes
 * and symbol names, or null (adopt every run).
 * @param {(number|string|null)[]|null|undefined} declared
 * @param {(number|string)[]|undefined} metadata
 */
export function outputPlan(declared, metadata) {
  const dims = declared ?? metadata;
  if (!Array.isArray(dims)) return null;
  return dims.every((d) => fixed(d) || symbol(d)) ? dims.slice() : null;
}

/**
 * Symbol → size from this run's input dims (declared symbols only). A symbol
 * bound to two different sizes binds nothing (onnxruntime will refuse the run).
 */
export function bindSymbols(inputSpecs, inputDims) {
  const bound = new Map();
  const bad = new Set();
  inputSpecs.forEach((spec, i) => {
    const dims = inputDims[i];
    if (!spec.dims || !dims || spec.dims.length !== dims.length) return;
    spec.dims.forEach((d, k) => {
      if (!symbol(d) || bad.has(d)) return;
      const v = Number(dims[k]);
      if (bound.has(d) && bound.get(d) !== v) { bound.delete(d); bad.add(d); return; }
      bound.set(d, v);
    });
  });
  return bound;
}

/** The output's dims for this run, or null when they are not known before it. */
export function resolveDims(plan, bound) {
  if (!plan) return null;
  const out = new Array(plan.length);
  for (let k = 0; k < plan.length; k++) {
    const d = typeof plan[k] === 'string' ? bound.get(plan[k]) : plan[k];
    if (!fixed(d)) return null;
    out[k] = d;
  }
  return out;
}
