// A loaded model: the onnxruntime-web session, what ortkeep's reader found in
// the model, and the session's tensor pool. Feeds are checked against the
// model's declared inputs before ORT sees them, so a wrong feed fails with
// the input's name: names and fixed dims here, dtype and rank by the C pool
// (ok_pool_declare), which refuses a request without changing anything.
//
// run() asks the C pool (js/tensor-pool.js) for a tensor per input and per
// output whose shape is known, carries out the actions it answers on the
// session's device (js/devices/*.js), runs ORT on those bindings, and reads
// outputs back to CPU arrays unless the caller keeps them on the device.
import { CpuDevice, TYPED_ARRAYS, byteLength, elementCount } from './devices/cpu.js';
import { WebGpuDevice } from './devices/webgpu.js';
import { WebNNDevice } from './devices/webnn.js';
import { OrtkeepError } from './errors.js';
import { ONNX_TO_ORT_TYPE } from './ort-adapter.js';
import { BACKEND, OP, ORT_TYPE_TO_ONNX, PoolCore, PoolStatus, SLOT } from './tensor-pool.js';
import { DEVICE_LOCATIONS, captureFeeds } from './pool/capture.js';
import { bindSymbols, outputPlan, resolveDims } from './pool/shapes.js';

const TYPED_ARRAY_TO_ORT_TYPE = new Map([
  [Float32Array, 'float32'], [Uint8Array, 'uint8'], [Int8Array, 'int8'], [Uint16Array, 'uint16'],
  [Int16Array, 'int16'], [Int32Array, 'int32'], [BigInt64Array, 'int64'], [Float64Array, 'float64'],
  [Uint32Array, 'uint32'], [BigUint64Array, 'uint64'],
]);
const DEFAULT_BUDGET = 64 * 1024 * 1024;
const NO_NAMES = Object.freeze([]);

/**
 * The pool device a session uses: options.pool.device, else the first
 * execution provider ('webgpu' → webgpu, 'webnn' → webnn), else cpu.
 */
export function poolDeviceName(poolOptions, executionProviders) {
  if (poolOptions?.device) return poolOptions.device;
  const first = executionProviders?.[0];
  const name = typeof first === 'string' ? first : first?.name;
  return name === 'webgpu' || name === 'webnn' ? name : 'cpu';
}

/**
 * Session options the pool needs from onnxruntime-web: outputs whose shape
 * can be known before a run stay on the device (preferredOutputLocation) so
 * the pool can pin, adopt and read them itself; value-dependent outputs
 * (no plan: NonZero counts, unknown dims) come back on the CPU, where
 * onnxruntime computes most of them anyway (and where its zero-size
 * device-output download fails). load() calls this with the reader's report
 * just before creating the session.
 */
export function poolSessionOptions(options, sessionOptions, report = null) {
  const device = poolDeviceName(options.pool, sessionOptions.executionProviders);
  if (device === 'cpu' || sessionOptions.preferredOutputLocation) return sessionOptions;
  const location = device === 'webgpu' ? 'gpu-buffer' : 'ml-tensor';
  if (!report?.outputs?.length) return { ...sessionOptions, preferredOutputLocation: location };
  return {
    ...sessionOptions,
    preferredOutputLocation: Object.fromEntries(report.outputs.map((o) => [o.name, outputPlan(o.dims) ? location : 'cpu'])),
  };
}

export class Session {

  /**
   * @param {object} ort onnxruntime-web
   * @param {object} ortSession an ort.InferenceSession (or an object with its run/release/inputNames/outputNames)
   * @param {object} info what load() learned: reader report, source, timings
   * @param {{core?: import('./core.js').Core, pool?: object, executionProviders?: unknown[]}} [hooks]
   */
  constructor(ort, ortSession, info, hooks = {}) {
    this.ort = ort;
    this.ortSession = ortSession;
    this.info = info;
    this.disposed = false;
    // Internal state in one shared object, not private fields: the memory
    // tier hands out Object.create(session) handles, and every handle must
    // reach the same pool, run queue and kept tensors.
    Object.defineProperty(this, '_i', {
      value: {
        core: hooks.core ?? null, poolOptions: hooks.pool ?? {}, eps: hooks.executionProviders, final: null, state: null,
        tail: Promise.resolve(), keptHandle: new WeakMap() /* kept ort.Tensor we handed out → pool handle */,
        feeds: {}, fetches: {}, curDims: [],
      },
    });
    const declared = new Map((info.model?.inputs ?? []).map((i) => [i.name, i]));
    // ORT's names are the truth (old IR versions list initializers as inputs).
    this.inputSpecs = ortSession.inputNames.map((name) => declared.get(name) ?? { name, elemType: 0, dims: null });
    const declaredOut = new Map((info.model?.outputs ?? []).map((o) => [o.name, o]));
    this.outputSpecs = ortSession.outputNames.map((name, j) => ({ name, plan: outputPlan(declaredOut.get(name)?.dims, ortSession.outputMetadata?.[j]?.shape) }));
    this.deviceName = poolDeviceName(this._i.poolOptions, this._i.eps);
    const session = this;
    /** The session's tensor pool: counters, kept-tensor release, a consistency check. */
    this.pool = {
      get device() { return session.deviceName; },
      stats: () => this._stats(),
      release: (tensor) => this._release(tensor),
      check: () => this._check(),
    };
  }

  /** @returns {readonly string[]} */
  get inputNames() { return this.ortSession.inputNames; }

  /** @returns {readonly string[]} */
  get outputNames() { return this.ortSession.outputNames; }

  /** onnxruntime-web's own metadata of the inputs and outputs (names, types, shapes). */
  get inputMetadata() { return this.ortSession.inputMetadata; }

  get outputMetadata() { return this.ortSession.outputMetadata; }

  /** onnxruntime-web's name for dispose(). */
  release() { return this.dispose(); }

  /**
   * Runs the model.
   * @param {Record<string, unknown>} feeds input name → ort.Tensor, {data, dims}, typed array, or a kept device tensor
   * @param {{fetches?: string[], keep?: string[]}} [options]
   * @returns {Promise<Record<string, import('onnxruntime-web').Tensor>>}
   */
  async run(feeds, options = {}) {
    // onnxruntime-web's habit: run(feeds, ['output', ...]) fetches those outputs
    if (Array.isArray(options)) options = { fetches: options };
    if (this.disposed) throw new OrtkeepError('DISPOSED', 'ortkeep: run() on a disposed session; load the model again');
    // Read now: the caller may refill its buffers once run() has returned.
    feeds = captureFeeds(this.ort, feeds, (v) => this._i.keptHandle.has(v));
    // One run at a time per session: the pool has one open run.
    const previous = this._i.tail;
    let done;
    this._i.tail = new Promise((resolve) => { done = resolve; });
    try {
      await previous;
      if (this.disposed) throw new OrtkeepError('DISPOSED', 'ortkeep: run() on a disposed session; load the model again');
      return await this._run(feeds, options);
    } finally {
      done();
    }
  }

  /** Destroys every tensor the pool created and releases the ORT session. Safe to call twice. */
  async dispose() {
    if (this.disposed) return;
    this.disposed = true;
    await this._i.tail;
    const st = this._i.state;
    if (st) {
      try {
        for (const [pool, map, devs] of [[st.pool, st.map, st.devs], [st.rb, st.rbMap, st.rbDevs]]) {
          pool.destroy();
          await applyActions(pool, map, devs, null);
        }
        this._i.final = this._stats();
      } finally {
        st.pool.free();
        st.rb.free();
      }
    }
    await this.ortSession.release();
  }

  // ---- pool state ----

  async _ensureState() {
    if (this._i.state) return this._i.state;
    const core = this._i.core ?? await (await import('./core.js')).getCore();
    const cpu = new CpuDevice(this.ort);
    let dev = cpu;
    // The device onnxruntime really got: with a fallback list (['webgpu',
    // 'wasm']) and no adapter it quietly runs on wasm, and so does the pool.
    const fallback = !this._i.poolOptions.device && hasCpuFallback(this._i.eps);
    if (this.deviceName === 'webgpu') {
      dev = this._i.poolOptions.gpuDevice ? new WebGpuDevice(this.ort, this._i.poolOptions.gpuDevice) : await gpuDeviceOf(this.ort);
      if (!dev && fallback) {
        dev = cpu;
        this.deviceName = 'cpu';
      } else if (!dev) {
        throw new OrtkeepError('INVALID_ARG', "ortkeep: pool device 'webgpu' needs onnxruntime-web's GPUDevice (ort.env.webgpu.device); create the session with executionProviders: ['webgpu']");
      }
    } else if (this.deviceName === 'webnn') {
      const context = this._i.poolOptions.context ?? this._i.eps?.find?.((ep) => ep?.name === 'webnn')?.context;
      if (context?.createTensor) {
        dev = new WebNNDevice(this.ort, context);
      } else if (fallback) {
        this.deviceName = 'cpu';
      } else {
        throw new OrtkeepError('INVALID_ARG', "ortkeep: pool device 'webnn' needs the MLContext the session runs on: executionProviders: [{name: 'webnn', context}] or pool: {context}");
      }
    } else if (this.deviceName !== 'cpu') {
      throw new OrtkeepError('INVALID_ARG', `ortkeep: unknown pool device '${this.deviceName}' (cpu, webgpu, webnn)`);
    }
    const nIn = this.inputSpecs.length;
    const nOut = this.outputSpecs.length;
    const budgetBytes = this._i.poolOptions.budgetBytes ?? DEFAULT_BUDGET;
    const pool = new PoolCore(core, { inputs: nIn, outputs: nOut, budgetBytes });
    // The readback pool: per output j, slot j holds the staging buffer and
    // slot nOut+j the CPU array its copy lands in; slot 2*nOut serves
    // getData() on kept tensors. Same C policy, separate free lists.
    const rb = new PoolCore(core, { inputs: 0, outputs: 2 * nOut + 1, budgetBytes });
    this.inputSpecs.forEach((spec, i) => {
      const known = ONNX_TO_ORT_TYPE[spec.elemType] && ONNX_TO_ORT_TYPE[spec.elemType] !== 'string';
      pool.declare(SLOT.input, i, known ? spec.elemType : -1, spec.dims ? spec.dims.length : -1);
    });
    const devs = [cpu, null, null];
    devs[dev.backend] = dev;
    const rbDevs = [cpu, dev.staging ?? null, null];
    this._i.state = { core, dev, cpu, pool, rb, devs, rbDevs, map: new Map(), rbMap: new Map(), scratchLock: Promise.resolve() };
    return this._i.state;
  }

  _stats() {
    const st = this._i.state;
    const zero = { creates: 0, reuses: 0, repins: 0, destroys: 0, takes: 0, adopts: 0, bytesHeld: 0, bytesFree: 0, liveTensors: 0 };
    if (this._i.final) return structuredClone(this._i.final);
    if (!st || st.pool.freed) return { device: this.deviceName, ...zero, readback: { ...zero } };
    const backend = BACKEND[this.deviceName];
    const readback = { ...zero };
    for (const b of [BACKEND.cpu, BACKEND.webgpu]) {
      const s = st.rb.stats(b);
      for (const k of Object.keys(readback)) readback[k] += s[k];
    }
    return { device: this.deviceName, ...st.pool.stats(backend), readback };
  }

  /** C invariants of both pools, and every live C tensor has its JS object. */
  _check() {
    const st = this._i.state;
    if (!st || st.pool.freed) return true;
    st.pool.check();
    st.rb.check();
    const live = (p, backends) => backends.reduce((n, b) => n + p.stats(b).liveTensors, 0);
    const own = (map) => [...map.values()].filter((e) => !e.external).length;
    if (own(st.map) !== live(st.pool, [0, 1, 2]) || own(st.rbMap) !== live(st.rb, [0, 1, 2])) {
      throw new OrtkeepError('CORRUPT', 'ortkeep: the pool and its device objects disagree');
    }
    return true;
  }

  /**
   * A kept output goes back to the pool (the caller is done with it). The
   * tensor object stays marked as released, so feeding it later is a typed
   * error, never an alias of whatever the pool reuses its storage for.
   */
  _release(tensor) {
    const handle = this._i.keptHandle.get(tensor);
    const st = this._i.state;
    if (!handle || !st || st.pool.freed) return false;
    this._i.keptHandle.set(tensor, 0);
    try {
      st.pool.release(handle);
    } catch (e) {
      if (e instanceof PoolStatus) return false;
      throw e;
    }
    const entry = st.map.get(handle);
    if (entry) {
      entry.kept = false;
      // The pool's own binding object from now on (the caller may dispose theirs).
      const dev = st.devs[entry.backend];
      entry.tensor = dev.bind(dev.backend === BACKEND.cpu ? entry.obj : entry.buffer, entry.type, entry.dims, entry.download, entry.dispose);
    }
    // release() may DESTROY (budget): synchronous device calls, done here.
    applyActions(st.pool, st.map, st.devs, null).catch(() => {});
    return true;
  }

  /** Hooks every device binding carries: getData() and dispose() on kept tensors. */
  _hooksFor(entry) {
    entry.download = () => this._download(entry);
    entry.dispose = () => { if (this._i.keptHandle.get(entry.tensor) === entry.handle) this._release(entry.tensor); };
  }

  // ---- one run ----

  async _run(feeds, options) {
    const st = await this._ensureState();
    const { pool, dev } = st;
    const inputNames = this.inputNames;
    for (const name of Object.keys(feeds)) {
      if (!inputNames.includes(name)) {
        throw new OrtkeepError('BAD_FEED', `ortkeep: '${name}' is not an input of this model (inputs: ${inputNames.join(', ')})`);
      }
    }
    for (const spec of this.inputSpecs) {
      if (!(spec.name in feeds)) {
        throw new OrtkeepError('BAD_FEED', `ortkeep: input '${spec.name}' is missing (inputs: ${inputNames.join(', ')})`);
      }
    }
    const keep = options.keep ?? NO_NAMES;
    const wanted = options.fetches ? [...new Set([...options.fetches, ...keep])] : this.outputNames;
    for (const list of [keep, wanted]) {
      for (const name of list) {
        if (!this.outputNames.includes(name)) {
          throw new OrtkeepError('INVALID_ARG', `ortkeep: '${name}' is not an output of this model (outputs: ${this.outputNames.join(', ')})`);
        }
      }
    }

    pool.runBegin();
    try {
      const ortFeeds = this._i.feeds;
      for (let i = 0; i < this.inputSpecs.length; i++) {
        const spec = this.inputSpecs[i];
        ortFeeds[spec.name] = await this._bindInput(st, i, spec, feeds[spec.name]);
        this._i.curDims[i] = ortFeeds[spec.name].dims;
      }
      const bound = dev.backend === BACKEND.cpu ? null : bindSymbols(this.inputSpecs, this._i.curDims);

      // Outputs whose shape is known before the run are preallocated and
      // passed as fetches; others ORT allocates and the pool adopts.
      const fetches = this._i.fetches;
      for (const k of Object.keys(fetches)) delete fetches[k];
      for (let j = 0; j < this.outputSpecs.length; j++) {
        const name = this.outputSpecs[j].name;
        if (!wanted.includes(name)) continue;
        fetches[name] = dev.backend === BACKEND.cpu ? null : await this._prepareOutput(st, j, resolveDims(this.outputSpecs[j].plan, bound));
      }

      let results;
      try {
        results = await this.ortSession.run(ortFeeds, fetches);
      } catch (e) {
        throw new OrtkeepError('RUN', `ortkeep: onnxruntime-web failed to run: ${e?.message ?? e}`, { cause: e });
      }

      const out = {};
      const reads = [];
      for (let j = 0; j < this.outputSpecs.length; j++) {
        const name = this.outputSpecs[j].name;
        if (!wanted.includes(name)) continue;
        const result = results[name];
        const kept = keep.includes(name);
        let entry = fetches[name] ? st.map.get(pool.pinned(SLOT.output, j)) : null;
        if (!entry && result && (kept || (dev.backend !== BACKEND.cpu && result.location === dev.location))) {
          entry = await this._adopt(st, j, result);
        }
        if (!entry) { // a CPU result (wasm EP, or an output ORT kept on CPU)
          out[name] = result;
          continue;
        }
        if (kept) {
          pool.keep(j);
          await applyActions(pool, st.map, st.devs, null, null, this);
          this._i.keptHandle.set(entry.tensor, entry.handle);
          out[name] = entry.tensor;
        } else if (dev.backend === BACKEND.cpu) {
          out[name] = entry.tensor;
        } else {
          reads.push({ j, entry });
        }
      }
      if (reads.length) await this._readOutputs(st, reads, out);
      return out;
    } catch (e) {
      throw asFeedError(e, this.inputSpecs);
    } finally {
      pool.runEnd();
      await applyActions(pool, st.map, st.devs, null);
    }
  }

  async _bindInput(st, i, spec, value) {
    const { pool, dev, map, devs } = st;
    const kept = value && typeof value === 'object' ? this._i.keptHandle.get(value) : undefined;
    if (kept !== undefined) {
      tagged(() => pool.inputBind(i, kept), i, value);
      return (await applyActions(pool, map, devs, null, { slot: i, name: spec.name }, this)).tensor;
    }
    if (value instanceof this.ort.Tensor && DEVICE_LOCATIONS.has(value.location)) {
      if (value.location !== dev.location) {
        throw new OrtkeepError('BAD_FEED', `ortkeep: input '${spec.name}' is a ${value.location} tensor but this session's pool runs on ${dev.name}`);
      }
      checkFixedDims(spec, value.dims);
      tagged(() => pool.bindExternal(SLOT.input, i, dev.backend, onnxType(value.type), value.dims), i, value);
      return (await applyActions(pool, map, devs, { external: value }, { slot: i, name: spec.name }, this)).tensor;
    }
    const { type, data, dims } = cpuFeed(this.ort, spec, value);
    if (type === 'string') return new this.ort.Tensor(type, data, dims); // strings stay out of the pool
    checkFixedDims(spec, dims);
    const expected = byteLength(type, elementCount(dims));
    if (data.byteLength !== expected) {
      throw new OrtkeepError('BAD_FEED', `ortkeep: input '${spec.name}' has ${data.length} elements but dims [${dims.join(', ')}] need ${elementCount(dims)}`);
    }
    tagged(() => pool.input(i, dev.backend, onnxType(type), dims), i, { type, dims });
    const entry = await applyActions(pool, map, devs, { type, dims }, { slot: i, name: spec.name }, this);
    dev.upload(entry, data);
    return entry.tensor;
  }

  /** Output j preallocated and pinned when its dims are known before the run; else null (onnxruntime allocates, the pool adopts). */
  async _prepareOutput(st, j, dims) {
    const { pool, dev, map, devs } = st;
    const spec = this.outputSpecs[j];
    const type = spec.type ?? this._outputType(j);
    if (!dims || !type || !TYPED_ARRAYS[type]) return null;
    pool.output(j, dev.backend, onnxType(type), dims);
    return (await applyActions(pool, map, devs, { type, dims }, { slot: j, name: spec.name }, this)).tensor;
  }

  _outputType(j) {
    const spec = this.outputSpecs[j];
    const code = this.info.model?.outputs?.find((o) => o.name === spec.name)?.elemType;
    spec.type = ONNX_TO_ORT_TYPE[code] ?? this.ortSession.outputMetadata?.[j]?.type ?? null;
    return spec.type;
  }

  /** Pins what ORT allocated for output j (ADOPT). */
  async _adopt(st, j, result) {
    const { pool, map, devs } = st;
    const dev = result.location === 'cpu' ? st.cpu : st.dev;
    const type = result.type;
    const dims = result.dims;
    pool.adopt(j, dev.backend, onnxType(type), dims, dev.capacityOf(result));
    return applyActions(pool, map, devs, { adopted: result, type, dims }, { slot: j, name: this.outputSpecs[j].name }, this);
  }

  /** Device outputs → pooled CPU arrays (staging and host arrays from the readback pool). */
  async _readOutputs(st, reads, out) {
    const { rb, rbMap, rbDevs, dev } = st;
    const nOut = this.outputSpecs.length;
    const items = [];
    for (const { j, entry } of reads) {
      const { type, dims } = entry;
      const code = onnxType(type);
      let staging = null;
      if (dev.staging) {
        rb.output(j, BACKEND.webgpu, code, dims);
        staging = (await applyActions(rb, rbMap, rbDevs, { type, dims })).buffer;
      }
      rb.output(nOut + j, BACKEND.cpu, code, dims);
      const host = await applyActions(rb, rbMap, rbDevs, { type, dims });
      const data = host.tensor.data;
      items.push({ src: entry.buffer, staging, dst: new Uint8Array(data.buffer, data.byteOffset, byteLength(type, elementCount(dims))) });
      out[this.outputSpecs[j].name] = host.tensor;
    }
    await dev.readback(items);
  }

  /** getData() of a kept device tensor: a fresh CPU array via the scratch staging slot. */
  async _download(entry) {
    const st = this._i.state;
    const run = st.scratchLock.then(async () => {
      const { rb, rbMap, rbDevs, dev } = st;
      const { type, dims } = entry;
      const result = new TYPED_ARRAYS[type](byteLength(type, elementCount(dims)) / TYPED_ARRAYS[type].BYTES_PER_ELEMENT);
      let staging = null;
      if (dev.staging) {
        rb.output(2 * this.outputSpecs.length, BACKEND.webgpu, onnxType(type), dims);
        staging = (await applyActions(rb, rbMap, rbDevs, { type, dims })).buffer;
      }
      await dev.readback([{ src: entry.buffer, staging, dst: new Uint8Array(result.buffer) }]);
      return result;
    });
    st.scratchLock = run.catch(() => {});
    return run;
  }

}

/**
 * Carries out the pool's current action list. `ctx` describes the request
 * that produced it ({type, dims} of a CREATE/TAKE, {external}, {adopted}).
 * Returns the entry of the slot action (CREATE/REUSE/TAKE/BIND/EXTERNAL/
 * ADOPT/KEEP), if any. Every record is read before the first await, so a
 * pool call made meanwhile (a release()) cannot change what is carried out.
 * Device objects are made before anything is bound; a device failure leaves
 * the entry without an object, which the next REUSE/TAKE of that handle
 * creates again, so the JS map never disagrees with C.
 */
async function applyActions(pool, map, devs, ctx, slotInfo, owner) {
  let result = null;
  let pending = null; // entries to create or re-bind (CREATE/TAKE: rare)
  for (let k = 0; k < pool.count; k++) {
    const op = pool.op(k);
    const handle = pool.handle(k);
    let entry = map.get(handle);
    switch (op) {
      case OP.CREATE:
        entry = { handle, backend: pool.backend(k), bytes: pool.bytes(k), obj: null, buffer: null, tensor: null, type: null, dims: null };
        if (owner) owner._hooksFor(entry);
        map.set(handle, entry);
        (pending ??= []).push(entry);
        result = entry;
        break;
      case OP.TAKE:
        (pending ??= []).push(entry);
        result = entry;
        break;
      case OP.REUSE:
        if (!entry.obj) (pending ??= []).push(entry);
        result = entry;
        break;
      case OP.DESTROY:
        map.delete(handle);
        if (entry?.obj) {
          const dev = devs[entry.backend];
          try {
            if (entry.adopted) dev.destroyAdopted(entry.obj); else dev.destroy(entry.obj);
          } catch { /* already gone; nothing left to release */ }
        }
        break;
      case OP.BIND:
      case OP.KEEP:
        if (op === OP.KEEP) entry.kept = true;
        result = entry;
        break;
      case OP.EXTERNAL: {
        const dev = devs[pool.backend(k)];
        entry = { handle, backend: pool.backend(k), external: true, obj: ctx.external, buffer: dev?.bufferOf?.(ctx.external) ?? null, tensor: ctx.external, type: ctx.external.type, dims: ctx.external.dims };
        map.set(handle, entry);
        result = entry;
        break;
      }
      case OP.FORGET:
        map.delete(handle); // the caller's tensor: never destroyed here
        break;
      case OP.ADOPT: {
        const dev = devs[pool.backend(k)];
        const obj = dev.adopted(ctx.adopted);
        entry = { handle, backend: pool.backend(k), adopted: true, obj, buffer: dev.bufferOf?.(obj) ?? null, tensor: null, type: ctx.type, dims: ctx.dims };
        if (owner) owner._hooksFor(entry);
        entry.tensor = dev.backend === BACKEND.cpu ? ctx.adopted : dev.bind(entry.buffer, ctx.type, ctx.dims, entry.download, entry.dispose);
        map.set(handle, entry);
        result = entry;
        break;
      }
      default:
        throw new OrtkeepError('CORRUPT', `ortkeep: unknown pool action ${op}`);
    }
  }
  if (pending) {
    let failure = null;
    for (const entry of pending) {
      try {
        await materialize(entry, devs[entry.backend], ctx);
      } catch (e) {
        failure ??= e;
      }
    }
    if (failure) {
      const where = slotInfo ? ` for '${slotInfo.name}'` : '';
      throw new OrtkeepError('DEVICE', `ortkeep: could not create a device tensor${where}: ${failure?.message ?? failure}`, { cause: failure });
    }
  }
  return result;
}

/** Creates the device object if missing and binds it as ctx.type+dims. */
async function materialize(entry, dev, ctx) {
  if (ctx?.type) {
    entry.type = ctx.type;
    entry.dims = ctx.dims;
  }
  if (!entry.obj) {
    const obj = await dev.create(entry.bytes, entry.handle, entry.type, entry.dims);
    entry.obj = obj;
    entry.buffer = dev.backend === BACKEND.cpu ? null : obj;
  }
  const storage = dev.backend === BACKEND.cpu ? entry.obj : entry.buffer;
  entry.tensor = entry.type ? dev.bind(storage, entry.type, entry.dims, entry.download, entry.dispose) : null;
}

/** Whether the execution provider list ends in a CPU provider onnxruntime falls back to. */
function hasCpuFallback(eps) {
  return (eps ?? []).slice(1).some((ep) => ['wasm', 'cpu'].includes(typeof ep === 'string' ? ep : ep?.name));
}

/** onnxruntime-web's GPUDevice, if its WebGPU backend was initialised; never waits on an adapter that is not there. */
async function gpuDeviceOf(ort) {
  if (typeof navigator === 'undefined' || !navigator.gpu) return null;
  try {
    return await WebGpuDevice.fromOrt(ort);
  } catch {
    return null;
  }
}

/** Runs a pool call for input slot i; a refusal carries the slot and the request. */
function tagged(call, i, request) {
  try {
    return call();
  } catch (e) {
    if (e instanceof PoolStatus) {
      e.slot = i;
      e.request = request;
    }
    throw e;
  }
}

function onnxType(type) { return ORT_TYPE_TO_ONNX[type] ?? -1; }

/** A CPU feed as {type, data, dims}, without making an ort.Tensor. */
function cpuFeed(ort, spec, value) {
  const name = spec.name;
  const staticDims = spec.dims && spec.dims.every((d) => typeof d === 'number') ? spec.dims : undefined;
  if (value instanceof ort.Tensor) {
    if (value.location !== 'cpu' && value.location !== 'cpu-pinned') {
      throw new OrtkeepError('BAD_FEED', `ortkeep: input '${name}' is a ${value.location} tensor this session cannot bind`);
    }
    return { type: value.type, data: value.data, dims: value.dims };
  }
  let data = value;
  let dims = staticDims;
  let type;
  if (value && !ArrayBuffer.isView(value) && typeof value === 'object' && 'data' in value) {
    ({ data, dims = staticDims, type } = value);
  }
  if (!ArrayBuffer.isView(data) && !Array.isArray(data)) {
    throw new OrtkeepError('BAD_FEED', `ortkeep: input '${name}' must be an ort.Tensor, a typed array, {data, dims}, or a kept output`);
  }
  type ??= TYPED_ARRAY_TO_ORT_TYPE.get(data.constructor) ?? (Array.isArray(data) ? 'string' : undefined);
  if (!dims) {
    throw new OrtkeepError('BAD_FEED', `ortkeep: input '${name}' has no dims and the model does not fix its shape; pass {data, dims}`);
  }
  if (!type || (type !== 'string' && !TYPED_ARRAYS[type])) {
    throw new OrtkeepError('BAD_FEED', `ortkeep: input '${name}' has an unsupported data type`);
  }
  if (type !== 'string' && data.BYTES_PER_ELEMENT !== TYPED_ARRAYS[type].BYTES_PER_ELEMENT) {
    throw new OrtkeepError('SHAPE', `ortkeep: input '${name}' is declared ${type} but its data is a ${data.constructor.name}`);
  }
  return { type, data, dims };
}

/** Fixed dims of the model (the C pool knows dtype and rank, not dim values). */
function checkFixedDims(spec, dims) {
  if (!spec.dims || spec.dims.length !== dims.length) return; // rank: the pool decides
  spec.dims.forEach((d, i) => {
    if (typeof d === 'number' && d > 0 && dims[i] !== d) {
      throw new OrtkeepError('SHAPE', `ortkeep: input '${spec.name}' dim ${i} must be ${d}, got [${dims.join(', ')}]`);
    }
  });
}

/** A pool refusal during run() as the typed error that names the input. */
function asFeedError(e, specs) {
  if (!(e instanceof PoolStatus)) return e;
  const spec = specs[e.slot] ?? { name: '?' };
  const got = e.request ?? {};
  switch (e.status) {
    case 'SHAPE': {
      const expectedType = ONNX_TO_ORT_TYPE[spec.elemType];
      if (expectedType && got.type && got.type !== expectedType) {
        return new OrtkeepError('SHAPE', `ortkeep: input '${spec.name}' must be ${expectedType}, got ${got.type}`);
      }
      return new OrtkeepError('SHAPE', `ortkeep: input '${spec.name}' must have rank ${spec.dims?.length} [${spec.dims?.join(', ')}], got [${got.dims?.join(', ')}]`);
    }
    case 'IN_USE':
      return new OrtkeepError('BAD_FEED', `ortkeep: input '${spec.name}' is fed a kept tensor that is bound elsewhere or written by this run; feed it to one input, in a later run`);
    case 'STATE':
    case 'NOT_FOUND':
      return new OrtkeepError('BAD_FEED', `ortkeep: input '${spec.name}' is fed a kept tensor that was released`);
    case 'LIMIT':
    case 'INVALID_ARG':
      return new OrtkeepError('BAD_FEED', `ortkeep: input '${spec.name}' has invalid dims or type [${got.dims?.join(', ')}] ${got.type ?? ''}`);
    default:
      return new OrtkeepError(e.status, `ortkeep: tensor pool: ${e.message}`);
  }
}
