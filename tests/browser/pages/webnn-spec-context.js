// A WebNN MLContext / MLTensor written from the specification
// (https://www.w3.org/TR/webnn/, "MLContext" and "MLTensor" sections), for
// testing ortkeep's WebNN adapter in a Chromium build that ships no WebNN
// backend (navigator.ml.createContext fails "not supported on this
// platform"). It keeps the spec's validation — descriptor dataType and
// shape, readable/writable usage, destroyed tensors, tensors of another
// context, byte lengths, a tensor both input and output of one dispatch —
// and its timeline: writeTensor copies its source at call time, dispatch and
// readTensor run in order on the context's queue. Graph compute runs on CPU
// (onnxruntime-web's wasm EP) instead of an NPU/GPU.
//
// SpecDispatchSession stands in for onnxruntime-web's WebNN execution
// provider (which this Chromium cannot create): it takes ort.Tensors located
// in 'ml-tensor' as feeds and as preallocated fetches and dispatches on the
// context, like ORT's WebNN EP with IO binding; outputs not preallocated it
// creates as MLTensors (preferredOutputLocation 'ml-tensor') whose dispose()
// destroys them. ortkeep's adapter (js/devices/webnn.js) is the code under
// test and sees only the MLContext interface.

const BYTES = { float32: 4, float16: 2, int32: 4, uint32: 4, int64: 8, uint64: 8, int8: 1, uint8: 1 };
const ARRAYS = {
  float32: Float32Array,
  float16: Uint16Array,
  int32: Int32Array,
  uint32: Uint32Array,
  int64: BigInt64Array,
  uint64: BigUint64Array,
  int8: Int8Array,
  uint8: Uint8Array,
};
const MAX_DIM = 2 ** 31 - 1;

export class SpecMLTensor {
  #destroyed = false;
  constructor(context, descriptor, bytes) {
    this.context = context;
    this.dataType = descriptor.dataType;
    this.shape = Object.freeze([...descriptor.shape]);
    this.readable = !!descriptor.readable;
    this.writable = !!descriptor.writable;
    this.constant = false;
    this.label = descriptor.label ?? '';
    this.bytes = bytes; // [[data]]: device memory, zero-initialized
  }
  get destroyed() {
    return this.#destroyed;
  }
  /** Idempotent (spec: "destroy() … if already destroyed, return"). */
  destroy() {
    if (this.#destroyed) return;
    this.#destroyed = true;
    this.bytes = null;
    this.context.live.delete(this);
  }
}

export class SpecMLContext {
  constructor() {
    this.timeline = Promise.resolve();
    this.created = 0;
    this.live = new Set();
  }

  #enqueue(step) {
    const p = this.timeline.then(step);
    this.timeline = p.catch(() => {});
    return p;
  }

  #check(tensor, what) {
    if (!(tensor instanceof SpecMLTensor)) throw new TypeError(`${what}: not an MLTensor`);
    if (tensor.context !== this) throw new TypeError(`${what}: the MLTensor belongs to another MLContext`);
    if (tensor.destroyed) throw new TypeError(`${what}: the MLTensor is destroyed`);
  }

  /** MLContext.createTensor(MLTensorDescriptor) → Promise<MLTensor>. */
  async createTensor(descriptor) {
    const { dataType, shape } = descriptor ?? {};
    if (!(dataType in BYTES)) throw new TypeError(`createTensor: unsupported dataType '${dataType}'`);
    if (!Array.isArray(shape) || shape.some((d) => !Number.isInteger(d) || d < 1 || d > MAX_DIM)) {
      throw new TypeError(`createTensor: invalid shape [${shape}] (dimensions are integers in [1, 2^31-1])`);
    }
    const bytes = shape.reduce((a, b) => a * b, 1) * BYTES[dataType];
    if (!Number.isSafeInteger(bytes)) throw new TypeError('createTensor: tensor too large');
    const tensor = new SpecMLTensor(this, descriptor, new Uint8Array(bytes));
    this.created++;
    this.live.add(tensor);
    return tensor;
  }

  /** MLContext.writeTensor(tensor, AllowSharedBufferSource): copies now, lands in timeline order. */
  writeTensor(tensor, source) {
    this.#check(tensor, 'writeTensor');
    if (!tensor.writable) throw new TypeError('writeTensor: the MLTensor is not writable');
    const src = ArrayBuffer.isView(source)
      ? new Uint8Array(source.buffer, source.byteOffset, source.byteLength)
      : new Uint8Array(source);
    if (src.byteLength !== tensor.bytes.byteLength)
      throw new TypeError(`writeTensor: source has ${src.byteLength} bytes, the tensor ${tensor.bytes.byteLength}`);
    const copy = src.slice();
    this.#enqueue(() => {
      if (!tensor.destroyed) tensor.bytes.set(copy);
    });
  }

  /** readTensor(tensor) → Promise<ArrayBuffer>; readTensor(tensor, outputData) → Promise<undefined>. */
  readTensor(tensor, outputData) {
    try {
      this.#check(tensor, 'readTensor');
      if (!tensor.readable) throw new TypeError('readTensor: the MLTensor is not readable');
      if (outputData !== undefined) {
        const n = ArrayBuffer.isView(outputData) ? outputData.byteLength : outputData.byteLength;
        if (n < tensor.bytes.byteLength)
          throw new TypeError(`readTensor: outputData has ${n} bytes, the tensor ${tensor.bytes.byteLength}`);
      }
    } catch (e) {
      return Promise.reject(e);
    }
    return this.#enqueue(() => {
      if (tensor.destroyed) throw new TypeError('readTensor: the MLTensor was destroyed');
      if (outputData === undefined) return tensor.bytes.slice().buffer;
      const dst = ArrayBuffer.isView(outputData)
        ? new Uint8Array(outputData.buffer, outputData.byteOffset, tensor.bytes.byteLength)
        : new Uint8Array(outputData, 0, tensor.bytes.byteLength);
      dst.set(tensor.bytes);
      return undefined;
    });
  }

  /**
   * MLContext.dispatch(graph, inputs, outputs): validates now, computes in
   * timeline order. `graph.compute(record of {dataType, shape, data})`
   * resolves to a record of {dims, data} for every output.
   */
  dispatch(graph, inputs, outputs) {
    const seen = new Set();
    for (const [name, t] of Object.entries(inputs)) {
      this.#check(t, `dispatch input '${name}'`);
      seen.add(t);
    }
    for (const [name, t] of Object.entries(outputs)) {
      this.#check(t, `dispatch output '${name}'`);
      if (seen.has(t)) throw new TypeError(`dispatch: output '${name}' is also an input or another output`);
      seen.add(t);
    }
    return this.#enqueue(async () => {
      const values = {};
      for (const [name, t] of Object.entries(inputs)) {
        values[name] = { dataType: t.dataType, shape: t.shape, data: new ARRAYS[t.dataType](t.bytes.slice().buffer) };
      }
      const results = await graph.compute(values);
      for (const [name, t] of Object.entries(outputs)) {
        const r = results[name];
        if (r.dims.length !== t.shape.length || r.dims.some((d, i) => d !== t.shape[i])) {
          throw new TypeError(`dispatch: output '${name}' is [${r.dims}] but its MLTensor is [${t.shape}]`);
        }
        if (!t.destroyed) t.bytes.set(new Uint8Array(r.data.buffer, r.data.byteOffset, r.data.byteLength));
      }
    });
  }
}

/** The stand-in for onnxruntime-web's WebNN EP (see the file comment). */
export class SpecDispatchSession {
  static async create(ort, context, url) {
    const cpu = await ort.InferenceSession.create(url, { executionProviders: ['wasm'] });
    return new SpecDispatchSession(ort, context, cpu);
  }

  constructor(ort, context, cpu) {
    this.ort = ort;
    this.context = context;
    this.cpu = cpu;
    this.inputNames = cpu.inputNames;
    this.outputNames = cpu.outputNames;
    this.outputMetadata = cpu.outputMetadata;
    this.graph = { compute: (values) => this.#compute(values) };
  }

  async #compute(values) {
    const feeds = {};
    for (const [name, v] of Object.entries(values)) feeds[name] = new this.ort.Tensor(v.dataType, v.data, [...v.shape]);
    const out = await this.cpu.run(feeds);
    const results = {};
    for (const name of this.outputNames) results[name] = { dims: out[name].dims, data: out[name].data };
    return results;
  }

  async run(feeds, fetches = {}) {
    const inputs = {};
    const temporaries = [];
    for (const name of this.inputNames) {
      const t = feeds[name];
      if (t.location === 'ml-tensor') {
        inputs[name] = t.mlTensor;
      } else {
        // a CPU feed: ORT uploads it to a temporary MLTensor
        const tmp = await this.context.createTensor({ dataType: t.type, shape: [...t.dims], writable: true });
        this.context.writeTensor(tmp, t.data);
        temporaries.push(tmp);
        inputs[name] = tmp;
      }
    }
    // Output shapes of this run (a real WebNN graph is compiled for them).
    const shapes = Object.fromEntries(
      Object.entries(
        await this.#compute(
          Object.fromEntries(
            await Promise.all(
              Object.entries(inputs).map(async ([n, t]) => [
                n,
                { dataType: t.dataType, shape: t.shape, data: new ARRAYS[t.dataType](await this.#peek(t)) },
              ]),
            ),
          ),
        ),
      ).map(([n, r]) => [n, r.dims]),
    );
    const outputs = {};
    const result = {};
    for (const name of this.outputNames) {
      if (fetches && name in fetches && fetches[name] === undefined) continue;
      const f = fetches?.[name];
      if (f && f.location === 'ml-tensor') {
        outputs[name] = f.mlTensor;
        result[name] = f;
      } else {
        const type = this.cpu.outputMetadata?.find?.((m) => m.name === name)?.type ?? 'float32';
        const t = await this.context.createTensor({
          dataType: type,
          shape: shapes[name],
          readable: true,
          writable: true,
        });
        outputs[name] = t;
        result[name] = this.ort.Tensor.fromMLTensor(t, {
          dataType: type,
          dims: shapes[name],
          download: async () => new ARRAYS[type](await this.context.readTensor(t)),
          dispose: () => t.destroy(),
        });
      }
    }
    await this.context.dispatch(this.graph, inputs, outputs);
    temporaries.forEach((t) => t.destroy());
    return result;
  }

  /** The graph's view of an input's bytes (internal, not through readTensor). */
  async #peek(t) {
    await this.context.timeline;
    return t.bytes.slice().buffer;
  }

  async release() {
    await this.cpu.release();
  }
}
