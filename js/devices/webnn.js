// WebNN hands for the tensor pool: MLTensors from MLContext.createTensor,
// written with writeTensor, read with readTensor(tensor, view) into pooled
// CPU arrays, bound with ort.Tensor.fromMLTensor. An MLTensor has one exact
// dataType+shape, which the C policy knows (WebNN tensors fit only an
// identical descriptor). Every pool tensor is readable and writable, so a
// kept output can be re-pinned to an input and written in place.
import { BACKEND } from '../pool/pool-core.js';

/** onnxruntime-web types → MLOperandDataType (bool is uint8 in WebNN). */
const ML_TYPES = Object.freeze({
  float32: 'float32',
  float16: 'float16',
  int32: 'int32',
  uint32: 'uint32',
  int64: 'int64',
  uint64: 'uint64',
  int8: 'int8',
  uint8: 'uint8',
  bool: 'uint8',
  int4: 'int4',
  uint4: 'uint4',
});

export class WebNNDevice {
  /** @param {object} ort onnxruntime-web  @param {MLContext} context the context ORT's WebNN EP runs on */
  constructor(ort, context) {
    this.ort = ort;
    this.context = context;
    this.name = 'webnn';
    this.backend = BACKEND.webnn;
    this.location = 'ml-tensor';
  }

  /** CREATE: the descriptor is the dtype+dims of the request (C sized it exactly). */
  async create(bytes, handle, type, dims) {
    const dataType = ML_TYPES[type];
    if (!dataType) throw new TypeError(`WebNN has no tensor type for ${type}`);
    return this.context.createTensor({ dataType, shape: [...dims], readable: true, writable: true });
  }

  destroy(tensor) {
    tensor.destroy();
  }

  bind(mlTensor, { type, dims, download, dispose }) {
    return this.ort.Tensor.fromMLTensor(mlTensor, { dataType: type, dims, download, dispose });
  }

  upload(entry, data) {
    if (data.byteLength) this.context.writeTensor(entry.buffer, data);
  }

  adopted(tensor) {
    return tensor;
  }
  bufferOf(obj) {
    return obj.mlTensor ?? obj;
  }
  capacityOf() {
    return 0;
  }
  destroyAdopted(tensor) {
    tensor.dispose();
  }

  /** @param {Array<{src: MLTensor, dst: Uint8Array}>} items */
  async readback(items) {
    await Promise.all(items.map((it) => (it.dst.byteLength ? this.context.readTensor(it.src, it.dst) : undefined)));
  }
}
