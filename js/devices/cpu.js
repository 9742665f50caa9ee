// wasm (CPU) hands for the tensor pool: pool tensors are ArrayBuffers of the
// capacity C chose; a binding is a typed-array view plus one ort.Tensor over
// it, made when C says CREATE/TAKE and reused as is on REUSE, so a steady
// run allocates neither arrays nor tensors on the JS side.
import { viewOf } from '../pool/dtypes.js';
import { BACKEND } from '../pool/pool-core.js';

export class CpuDevice {
  constructor(ort) {
    this.ort = ort;
    this.name = 'cpu';
    this.backend = BACKEND.cpu;
    this.location = 'cpu';
  }

  /** CREATE: `bytes` is the capacity C chose. */
  create(bytes) {
    return { buffer: new ArrayBuffer(bytes), byteOffset: 0 };
  }

  destroy() {
    /* garbage-collected; dropping the map entry is the release */
  }

  /** A binding of storage `obj` as a tensor of entry.type+dims (entry.size bytes, from C). */
  bind(obj, entry) {
    return new this.ort.Tensor(entry.type, viewOf(obj.buffer, obj.byteOffset, entry.type, entry.size), entry.dims);
  }

  upload(entry, data) {
    const dst = entry.tensor.data;
    if (dst === data) return;
    if (dst.constructor === data.constructor) dst.set(data);
    else
      new Uint8Array(dst.buffer, dst.byteOffset, dst.byteLength).set(
        new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
      );
  }

  /** An output onnxruntime-web returned, as pool storage (ADOPT). */
  adopted(tensor) {
    return { buffer: tensor.data.buffer, byteOffset: tensor.data.byteOffset, tensor };
  }
  capacityOf(tensor) {
    return tensor.data.byteLength;
  }
  destroyAdopted() {}
}
