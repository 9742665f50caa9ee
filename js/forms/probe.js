// Probe inputs and output comparison for the round trip of an artifact form
// (issue 9 item 3): a form is trusted only when a session created from it
// answers like the original on the same deterministic inputs. Pure JS, no
// onnxruntime import: feeds are plain records the caller wraps in its own
// ort.Tensor, so the same code serves onnxruntime-web and -node, Node and
// browsers. The dtype table is the core's (js/pool/dtypes.js).
import { OrtkeepError } from '../errors.js';
import { ONNX_TO_ORT_TYPE, TYPED_ARRAYS } from '../pool/dtypes.js';
import { PROBE } from '../core-constants.js';

/** The core's default tolerance (cache/form_policy.h, in millionths). */
export const DEFAULT_TOLERANCE = Object.freeze({ rtol: PROBE.RTOL_PPM / 1e6, atol: PROBE.ATOL_PPM / 1e6 });

/** Run options for a probe: a failed run comes back as an error, not also as onnxruntime's log line in the console
 * (a BERT probed with token ids 0..3 fails its 2-row token-type table before 0..1 is tried). */
export const QUIET_RUN = { logSeverityLevel: 4 }; // not frozen: onnxruntime-web fills in the defaults it lacks

/** mulberry32: small, fast, and the same sequence on every platform. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FLOAT_TYPES = new Set(['float32', 'float64', 'float16']);
/** Integer types the generator fills with 0..3 (index-like inputs stay in range). */
const INT_TYPES = new Set(['int8', 'uint8', 'int16', 'uint16', 'int32', 'uint32', 'int64', 'uint64']);

/**
 * Deterministic probe feeds from ortkeep's reader report (session.info.model,
 * or core.inspect(bytes)): report.inputs = [{name, elemType (ONNX
 * TensorProto.DataType), dims: Array<number|string|null>|null}].
 *
 * Shapes: a symbolic dim (a string) takes freeDimensionOverrides[name], else
 * 1; an unknown dim (null) is 1; a missing dims list is [1]; [] is a scalar.
 * `inputDims[inputName]` (an ortkeep extension) gives one input's whole shape
 * and wins over all of that: the way to reach dims a model leaves unnamed.
 *
 * Values: float32/float64/float16 from a seeded PRNG in [-1, 1) (feed set i
 * uses seed + i); integer types 0..3 from the same PRNG, so index-like inputs
 * (gather indices, a class id) stay in range; bool alternates (starting at
 * i % 2); int64/uint64 as BigInt64Array/BigUint64Array; float16 as a
 * Float16Array where the platform has one, else its bits in a Uint16Array
 * (what onnxruntime-web takes for 'float16'); string as 'p0'..'p3'. Other
 * types (bfloat16, float8, 4-bit, complex) throw INVALID_ARG.
 *
 * Whether a model *runs* on these feeds is the caller's to find out. Measured
 * with onnxruntime-web 1.30: silero_vad_v5 (input dims [null, null]) and
 * silero_vad_legacy ([batch, sequence]) fail at the default length 1 (a
 * reflect Pad needs >= 2 samples); their int64 scalar `sr` gets 0..3, which
 * is not 16000, so both take their 8 kHz branch, and there both run with
 * 256 samples (inputDims {input: [1, 256]}, or freeDimensionOverrides
 * {sequence: 256} for legacy); v5's 8 kHz branch refuses 512. Conv nets such
 * as the PP-OCR models run at their all-1 defaults but a realistic size
 * (freeDimensionOverrides for their p2o.DynamicDimension.* names) probes
 * more of the graph. Noise can also be a weak probe: PP-OCRv4 det finds no
 * text in it, so all its outputs stay below ~2e-5 and another seed's outputs
 * pass compareOutputs at the default atol (1e-4); use a smaller atol there.
 *
 * @param {{inputs: Array<{name: string, elemType: number, dims: Array<number|string|null>|null}>}} report
 * @param {{count?: number, freeDimensionOverrides?: Record<string, number>, seed?: number,
 *          inputDims?: Record<string, number[]>, intSpan?: number}} [options]
 *   intSpan: integers are 0..intSpan-1 (4; 2 reaches a BERT's token_type_ids, whose table has 2 rows)
 * @returns {Array<Record<string, {type: string, data: ArrayLike<unknown>, dims: number[]}>>}
 *   `count` feed sets: plain records, not ort.Tensor (wrap them with the caller's ort)
 */
export function probeFeeds(
  report,
  { count = 3, freeDimensionOverrides = {}, seed = 1, inputDims = {}, intSpan = 4 } = {},
) {
  if (!report || !Array.isArray(report.inputs)) {
    throw new OrtkeepError(
      'INVALID_ARG',
      'ortkeep: probeFeeds needs the reader report (core.inspect(bytes) or session.info.model) with its inputs',
    );
  }
  if (!Number.isInteger(count) || count < 0)
    throw new OrtkeepError('INVALID_ARG', `ortkeep: probeFeeds count must be a non-negative integer, not ${count}`);
  const specs = report.inputs.map((input) => {
    const type = ONNX_TO_ORT_TYPE[input.elemType];
    if (!type || !(type === 'string' || FLOAT_TYPES.has(type) || INT_TYPES.has(type) || type === 'bool')) {
      throw new OrtkeepError(
        'INVALID_ARG',
        `ortkeep: cannot make probe values for input '${input.name}' of type ${type ?? `ONNX ${input.elemType}`}; supported: float32, float64, float16, bool, string and the integer types`,
      );
    }
    return { name: input.name, type, dims: shapeOf(input, freeDimensionOverrides, inputDims) };
  });
  const sets = [];
  for (let i = 0; i < count; i++) {
    const next = prng(seed + i);
    const set = {};
    for (const { name, type, dims } of specs)
      set[name] = {
        type,
        data: fill(
          type,
          dims.reduce((a, b) => a * b, 1),
          next,
          i,
          intSpan,
        ),
        dims: [...dims],
      };
    sets.push(set);
  }
  return sets;
}

function shapeOf(input, overrides, inputDims) {
  const given = inputDims[input.name];
  if (given !== undefined) {
    if (!Array.isArray(given) || !given.every((d) => Number.isInteger(d) && d >= 0)) {
      throw new OrtkeepError(
        'INVALID_ARG',
        `ortkeep: inputDims['${input.name}'] must be an array of non-negative integers`,
      );
    }
    return given;
  }
  if (input.dims == null) return [1];
  return input.dims.map((d) => {
    if (typeof d === 'number' && d >= 0) return d;
    if (typeof d === 'string') {
      const v = overrides[d];
      if (v === undefined) return 1;
      if (!Number.isInteger(v) || v < 0)
        throw new OrtkeepError(
          'INVALID_ARG',
          `ortkeep: freeDimensionOverrides['${d}'] must be a non-negative integer, not ${v}`,
        );
      return v;
    }
    return 1; // null: a dim the model does not name or fix
  });
}

function fill(type, n, next, set, intSpan) {
  if (type === 'string') return Array.from({ length: n }, () => `p${Math.floor(next() * 4)}`);
  if (type === 'bool') return Uint8Array.from({ length: n }, (_, k) => (k + set) & 1);
  if (INT_TYPES.has(type)) {
    const Ctor = TYPED_ARRAYS[type];
    const big = Ctor === BigInt64Array || Ctor === BigUint64Array;
    const data = new Ctor(n);
    for (let k = 0; k < n; k++) {
      const v = Math.floor(next() * intSpan);
      data[k] = big ? BigInt(v) : v;
    }
    return data;
  }
  const values = new Float64Array(n);
  for (let k = 0; k < n; k++) values[k] = next() * 2 - 1;
  if (type === 'float16') {
    if (typeof globalThis.Float16Array === 'function') return new globalThis.Float16Array(values);
    return Uint16Array.from(values, toHalfBits);
  }
  return new TYPED_ARRAYS[type](values);
}

/**
 * Runs each feed set through `run(feeds)` (async, returning onnxruntime
 * outputs: name → Tensor-like {type, dims, data}) one set at a time, and
 * copies every output out (data and dims copied; a tensor on a device is read
 * with getData()), so the caller may dispose its tensors. runProbes itself
 * disposes nothing: run() may hand back tensors it still owns.
 * @param {(feeds: Record<string, {type: string, data: ArrayLike<unknown>, dims: number[]}>) => Promise<Record<string, {type: string, dims: readonly number[], data?: ArrayLike<unknown>, location?: string, getData?: () => Promise<ArrayLike<unknown>>}>>} run
 * @param {ReturnType<typeof probeFeeds>} feedSets
 * @returns {Promise<Array<Record<string, {type: string, dims: number[], data: ArrayLike<unknown>}>>>}
 */
export async function runProbes(run, feedSets) {
  const results = [];
  for (const feeds of feedSets) {
    const outputs = await run(feeds);
    const copy = {};
    for (const [name, t] of Object.entries(outputs ?? {})) {
      const onDevice = t.location && t.location !== 'cpu' && t.location !== 'cpu-pinned';
      const data = onDevice && typeof t.getData === 'function' ? await t.getData() : t.data;
      copy[name] = { type: t.type, dims: Array.from(t.dims, Number), data: data.slice() };
    }
    results.push(copy);
  }
  return results;
}

/**
 * Compares two runProbes() results (expected = the original model's).
 * Equal when both hold the same feed sets with the same output names, and
 * every output has the same type and dims and every element satisfies
 * |a - b| <= atol + rtol * |a| (a expected; by default the core's tolerance,
 * rtol 1e-3 and atol 1e-4: PROBE in js/core-constants.js; float32/float64/float16, where
 * NaN equals NaN at the same place and an infinity equals itself), integers,
 * bools and strings exactly.
 *
 * maxAbsDiff is the largest |a - b| over every element compared (all sets and
 * outputs, also past the first difference): Infinity when a structure
 * differs or a NaN or infinity meets a finite value; 0 when all are equal.
 * `output` names the first differing output and `reason` says how:
 * 'missing' (an output, or a feed set, on one side only; output null when
 * the set counts differ), 'type', 'dims' or 'values'.
 * @returns {{equal: boolean, maxAbsDiff: number, output: string|null, reason: null|'dims'|'type'|'values'|'missing'}}
 */
export function compareOutputs(
  expected,
  actual,
  { rtol = DEFAULT_TOLERANCE.rtol, atol = DEFAULT_TOLERANCE.atol } = {},
) {
  let worst = 0;
  let first = null;
  const differ = (output, reason, diff = Infinity) => {
    first ??= { output, reason };
    if (!(diff <= worst)) worst = diff;
  };
  if (expected.length !== actual.length) return { equal: false, maxAbsDiff: Infinity, output: null, reason: 'missing' };
  for (let s = 0; s < expected.length; s++) {
    const want = expected[s];
    const got = actual[s];
    for (const name of new Set([...Object.keys(want), ...Object.keys(got)])) {
      const a = want[name];
      const b = got[name];
      if (!a || !b) {
        differ(name, 'missing');
        continue;
      }
      if (a.type !== b.type) {
        differ(name, 'type');
        continue;
      }
      if (
        a.dims.length !== b.dims.length ||
        a.dims.some((d, k) => Number(d) !== Number(b.dims[k])) ||
        a.data.length !== b.data.length
      ) {
        differ(name, 'dims');
        continue;
      }
      const d = FLOAT_TYPES.has(a.type) ? floatDiff(a, b, rtol, atol) : exactDiff(a, b);
      if (d.max > worst || Number.isNaN(d.max)) worst = Number.isNaN(d.max) ? Infinity : d.max;
      if (!d.equal) differ(name, 'values', d.max);
    }
  }
  return first
    ? { equal: false, maxAbsDiff: worst, output: first.output, reason: first.reason }
    : { equal: true, maxAbsDiff: worst, output: null, reason: null };
}

function floatDiff(a, b, rtol, atol) {
  const x = a.type === 'float16' ? halves(a.data) : a.data;
  const y = b.type === 'float16' ? halves(b.data) : b.data;
  let max = 0;
  let equal = true;
  for (let k = 0; k < x.length; k++) {
    const p = x[k];
    const q = y[k];
    if (p === q || (Number.isNaN(p) && Number.isNaN(q))) continue;
    const d = Math.abs(p - q); // NaN or Infinity when a NaN or an infinity meets anything else
    if (!(d <= atol + rtol * Math.abs(p)) || !Number.isFinite(p)) equal = false;
    if (!(d <= max)) max = Number.isNaN(d) ? Infinity : d;
  }
  return { equal, max };
}

function exactDiff(a, b) {
  let max = 0;
  let equal = true;
  for (let k = 0; k < a.data.length; k++) {
    const p = a.data[k];
    const q = b.data[k];
    if (p === q) continue;
    equal = false;
    const d =
      typeof p === 'bigint' && typeof q === 'bigint'
        ? Math.abs(Number(p - q))
        : typeof p === 'number' && typeof q === 'number'
          ? Math.abs(p - q)
          : Infinity;
    if (!(d <= max)) max = d;
  }
  return { equal, max };
}

/** float16 data as numbers: a Float16Array is already; a Uint16Array holds bits. */
function halves(data) {
  return data instanceof Uint16Array ? Float64Array.from(data, fromHalfBits) : data;
}

function fromHalfBits(h) {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >> 10) & 0x1f;
  const frac = h & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 0x1f) return frac ? NaN : sign * Infinity;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}

/** IEEE half bits of a number, round to nearest even (values here are in [-1, 1)). */
function toHalfBits(v) {
  const f = new Float32Array([v]);
  const x = new Uint32Array(f.buffer)[0];
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  let mant = x & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  const e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - e;
    let half = mant >> shift;
    const rem = mant & ((1 << shift) - 1);
    const mid = 1 << (shift - 1);
    if (rem > mid || (rem === mid && half & 1)) half++;
    return sign | half;
  }
  let half = (e << 10) | (mant >> 13);
  const rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem === 0x1000 && half & 1)) half++;
  return sign | half;
}
