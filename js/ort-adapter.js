// The one place that talks to onnxruntime-web (a peer dependency): finding
// it, creating sessions, turning feeds into ort.Tensors and ORT's failures
// into OrtkeepErrors.
import { OrtkeepError } from './errors.js';

/** ONNX TensorProto.DataType numbers to onnxruntime-web tensor type names. */
export const ONNX_TO_ORT_TYPE = Object.freeze({
  1: 'float32', 2: 'uint8', 3: 'int8', 4: 'uint16', 5: 'int16', 6: 'int32', 7: 'int64',
  8: 'string', 9: 'bool', 10: 'float16', 11: 'float64', 12: 'uint32', 13: 'uint64',
  21: 'uint4', 22: 'int4',
});

const TYPED_ARRAY_TO_ORT_TYPE = new Map([
  [Float32Array, 'float32'], [Uint8Array, 'uint8'], [Int8Array, 'int8'], [Uint16Array, 'uint16'],
  [Int16Array, 'int16'], [Int32Array, 'int32'], [BigInt64Array, 'int64'], [Float64Array, 'float64'],
  [Uint32Array, 'uint32'], [BigUint64Array, 'uint64'],
]);

/**
 * onnxruntime-web from options.ort, a global `ort` (script tags), or the
 * package import, in that order.
 */
export async function resolveOrt(options = {}) {
  if (options.ort) return options.ort;
  if (globalThis.ort?.InferenceSession) return globalThis.ort;
  try {
    return await import('onnxruntime-web');
  } catch (e) {
    throw new OrtkeepError('ORT_MISSING', 'ortkeep: onnxruntime-web was not found; install it (npm i onnxruntime-web), load ort.min.js before ortkeep, or pass load(src, {ort})', { cause: e });
  }
}

/** Creates an InferenceSession from model bytes. */
export async function createSession(ort, bytes, sessionOptions) {
  try {
    return await ort.InferenceSession.create(bytes, sessionOptions);
  } catch (e) {
    throw new OrtkeepError('SESSION_CREATE', `ortkeep: onnxruntime-web could not create a session: ${e?.message ?? e}`, { cause: e });
  }
}

/**
 * Turns one feed value into an ort.Tensor. Accepts an ort.Tensor as is,
 * `{data, dims, type?}`, or a bare typed array when `dims` are known.
 */
export function toOrtTensor(ort, name, value, fallbackDims) {
  if (value instanceof ort.Tensor) return value;
  let data = value;
  let dims = fallbackDims;
  let type;
  if (value && !ArrayBuffer.isView(value) && typeof value === 'object' && 'data' in value) {
    ({ data, dims = fallbackDims, type } = value);
  }
  if (!ArrayBuffer.isView(data) && !Array.isArray(data)) {
    throw new OrtkeepError('BAD_FEED', `ortkeep: input '${name}' must be an ort.Tensor, a typed array, or {data, dims}`);
  }
  type ??= TYPED_ARRAY_TO_ORT_TYPE.get(data.constructor) ?? (Array.isArray(data) ? 'string' : undefined);
  if (!dims) {
    throw new OrtkeepError('BAD_FEED', `ortkeep: input '${name}' has no dims and the model does not fix its shape; pass {data, dims}`);
  }
  try {
    return new ort.Tensor(type, data, dims);
  } catch (e) {
    throw new OrtkeepError('BAD_FEED', `ortkeep: input '${name}': ${e.message}`, { cause: e });
  }
}
