// wasm (CPU) hands for the tensor pool: pool tensors are ArrayBuffers of the
// capacity C chose; a binding is a typed-array view plus one ort.Tensor over
// it, made when C says CREATE/TAKE and reused as is on REUSE, so a steady
// run allocates neither arrays nor tensors on the JS side.
import { BACKEND } from '../tensor-pool.js';

/** onnxruntime-web type name → typed array constructor (float16 as raw bits). */
export const TYPED_ARRAYS = Object.freeze({
  float32: Float32Array, float64: Float64Array, int8: Int8Array, uint8: Uint8Array, int16: Int16Array,
  uint16: Uint16Array, int32: Int32Array, uint32: Uint32Array, int64: BigInt64Array, uint64: BigUint64Array,
  bool: Uint8Array, float16: Uint16Array, int4: Uint8Array, uint4: Uint8Array,
});

export const elementCount = (dims) => { let n = 1; for (let i = 0; i < dims.length; i++) n *= dims[i]; return n; };

/** Bytes of a tensor of `type` with `n` elements. */
export function byteLength(type, n) {
  if (type === 'int4' || type === 'uint4') return Math.ceil(n / 2);
  return n * (TYPED_ARRAYS[type]?.BYTES_PER_ELEMENT ?? 0);
}

/** A typed array of `type` over `buffer` for dims (4-bit types: packed bytes). */
export function viewOf(buffer, byteOffset, type, dims) {
  const Ctor = TYPED_ARRAYS[type];
  const n = elementCount(dims);
  return new Ctor(buffer, byteOffset, type === 'int4' || type === 'uint4' ? Math.ceil(n / 2) : n);
}

export class CpuDevice {
  constructor(ort) {
    this.ort = ort;
    this.name = 'cpu';
    this.backend = BACKEND.cpu;
    this.location = 'cpu';
  }

  /** CREATE: `bytes` is the capacity C chose. */
  create(bytes) { return { buffer: new ArrayBuffer(bytes), byteOffset: 0 }; }

  destroy() { /* garbage-collected; dropping the map entry is the release */ }

  /** A binding of storage `obj` as a tensor of type+dims. */
  bind(obj, type, dims) { return new this.ort.Tensor(type, viewOf(obj.buffer, obj.byteOffset, type, dims), dims); }

  upload(entry, data) {
    const dst = entry.tensor.data;
    if (dst === data) return;
    if (dst.constructor === data.constructor) dst.set(data);
    else new Uint8Array(dst.buffer, dst.byteOffset, dst.byteLength).set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
  }

  /** An output onnxruntime-web returned, as pool storage (ADOPT). */
  adopted(tensor) { return { buffer: tensor.data.buffer, byteOffset: tensor.data.byteOffset, tensor }; }
  capacityOf(tensor) { return tensor.data.byteLength; }
  destroyAdopted() {}
}
