// The one dtype table, from C (OK_DTYPE_LIST via js/core-constants.js): ONNX
// codes, onnxruntime-web names and sizes. JS adds only what C cannot know:
// the typed array each onnxruntime-web type lives in.
import { DTYPE } from '../core-constants.js';

/** ONNX TensorProto.DataType code → onnxruntime-web type name. */
export const ONNX_TO_ORT_TYPE = Object.freeze(
  Object.fromEntries(Object.entries(DTYPE).map(([code, t]) => [code, t.name])),
);

/** onnxruntime-web type name → ONNX code. */
export const ORT_TYPE_TO_ONNX = Object.freeze(
  Object.fromEntries(Object.entries(DTYPE).map(([code, t]) => [t.name, Number(code)])),
);

/** onnxruntime-web type name → the typed array its data lives in (float16 as raw bits, 4-bit types packed in bytes). */
export const TYPED_ARRAYS = Object.freeze({
  float32: Float32Array,
  float64: Float64Array,
  int8: Int8Array,
  uint8: Uint8Array,
  int16: Int16Array,
  uint16: Uint16Array,
  int32: Int32Array,
  uint32: Uint32Array,
  int64: BigInt64Array,
  uint64: BigUint64Array,
  bool: Uint8Array,
  float16: Uint16Array,
  int4: Uint8Array,
  uint4: Uint8Array,
});

/** A typed array's onnxruntime-web type when a feed gives none (Uint8Array: uint8, Uint16Array: uint16). */
export const TYPED_ARRAY_TO_ORT_TYPE = new Map([
  [Float32Array, 'float32'],
  [Uint8Array, 'uint8'],
  [Int8Array, 'int8'],
  [Uint16Array, 'uint16'],
  [Int16Array, 'int16'],
  [Int32Array, 'int32'],
  [BigInt64Array, 'int64'],
  [Float64Array, 'float64'],
  [Uint32Array, 'uint32'],
  [BigUint64Array, 'uint64'],
]);

/** ONNX code of an onnxruntime-web type name; -1 when there is none. */
export const onnxType = (type) => ORT_TYPE_TO_ONNX[type] ?? -1;

/**
 * A typed array of `type` over `bytes` bytes of `buffer` (the byte count
 * comes from C: ok_pool_handle_bytes, or the action's capacity).
 */
export function viewOf(buffer, byteOffset, type, bytes) {
  const Ctor = TYPED_ARRAYS[type];
  return new Ctor(buffer, byteOffset, Math.floor(bytes / Ctor.BYTES_PER_ELEMENT));
}
