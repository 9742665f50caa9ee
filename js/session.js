// A loaded model: the onnxruntime-web session, what ortkeep's reader found in
// the model, and the session's tensor pool. This file is the Session API
// (run, dispose, names, pool stats); one run's orchestration lives in
// js/pool/run.js, and every verdict on shapes, sizes and which tensor to use
// is the C pool's (wasm/tensor_pool.h).
import { OrtkeepError } from './errors.js';
import { runArguments } from './options.js';
import { BACKEND, PoolStatus, STAT_NAMES } from './pool/pool-core.js';
import { applyActions } from './pool/actions.js';
import { captureFeeds } from './pool/feed-capture.js';
import { FeedCopies } from './pool/feed-copies.js';
import { download } from './pool/readback.js';
import { runPooled } from './pool/run.js';
import { poolDeviceName } from './pool/session-options.js';
import { slotSpecs } from './pool/shapes.js';
import { createPoolState } from './pool/state.js';
import { callerTurn, watchDevice } from './forms/turns.js';
import { tensorBoundary } from './runtime-beside.js';

export { poolDeviceName, poolSessionOptions } from './pool/session-options.js';

export class Session {
  /**
   * @param {object} ort onnxruntime-web
   * @param {object} ortSession an ort.InferenceSession (or an object with its run/release/inputNames/outputNames)
   * @param {object} info what load() learned: reader report, source, timings
   * @param {{core?: import('./core/module.js').Core, pool?: object, executionProviders?: unknown[], debug?: (line: string) => void, appTensor?: Function}} [hooks]
   *   appTensor: the app's Tensor class, where `ort` is the instance started beside the app's (js/runtime-beside.js)
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
        core: hooks.core ?? null,
        poolOptions: hooks.pool ?? {},
        eps: hooks.executionProviders,
        final: null,
        state: null,
        boundToDevice: hooks.boundToDevice ?? false,
        tail: Promise.resolve(),
        keptHandle: new WeakMap() /* kept ort.Tensor we handed out → pool handle */,
        copies: new FeedCopies(),
        feeds: {},
        ctx: null,
        keepOnDevice: [],
        deviceName: poolDeviceName(hooks.pool, hooks.executionProviders),
        debug: hooks.debug ?? null,
        boundary: hooks.appTensor ? tensorBoundary(hooks.appTensor) : null,
      },
    });
    // ORT's names are the truth (old IR versions list initializers as inputs);
    // dtypes and dims are the model's, else onnxruntime's metadata.
    this.inputSpecs = slotSpecs(ortSession.inputNames, info.model?.inputs, ortSession.inputMetadata);
    this.outputSpecs = slotSpecs(ortSession.outputNames, info.model?.outputs, ortSession.outputMetadata);
    const session = this;
    /** The session's tensor pool: counters, kept-tensor release, a consistency check. */
    this.pool = {
      /** The device the pool really uses (cpu when a fallback list fell back to wasm). */
      get device() {
        return session._deviceName();
      },
      stats: () => this._stats(),
      release: (tensor) => this._release(tensor),
      check: () => this._check(),
    };
  }

  /** @returns {readonly string[]} */
  get inputNames() {
    return this.ortSession.inputNames;
  }

  /** @returns {readonly string[]} */
  get outputNames() {
    return this.ortSession.outputNames;
  }

  /** onnxruntime-web's own metadata of the inputs and outputs (names, types, shapes). */
  get inputMetadata() {
    return this.ortSession.inputMetadata;
  }

  get outputMetadata() {
    return this.ortSession.outputMetadata;
  }

  /** onnxruntime-web's name for dispose(). */
  release() {
    return this.dispose();
  }

  /** onnxruntime-web's profiling, passed through. */
  startProfiling() {
    return this.ortSession.startProfiling();
  }

  endProfiling() {
    return this.ortSession.endProfiling();
  }

  /**
   * Runs the model. Takes onnxruntime-web's overloads too: run(feeds, ['out', …], runOptions),
   * run(feeds, {out: null, …}, runOptions), run(feeds, runOptions).
   * @param {Record<string, unknown>} feeds input name → ort.Tensor, {data, dims}, typed array, or a kept device tensor
   * @param {{fetches?: string[], keep?: string[]}|string[]|Record<string, null>} [options] ortkeep's
   *   options and onnxruntime-web's RunOptions, or the outputs to fetch
   * @param {object} [runOptions] onnxruntime-web's RunOptions, after fetches
   * @returns {Promise<Record<string, import('onnxruntime-web').Tensor>>}
   */
  async run(feeds, options, runOptions) {
    options = runArguments(options, runOptions, this.outputNames);
    if (this._i.keepOnDevice.length)
      options.keep ??= this._i.keepOnDevice.filter((n) => !options.fetches || options.fetches.includes(n));
    if (this.disposed) throw new OrtkeepError('DISPOSED', 'ortkeep: run() on a disposed session; load the model again');
    const boundary = this._i.boundary;
    if (boundary) feeds = boundary.feeds(feeds);
    // Read now: the caller may refill its buffers once run() has returned.
    feeds = captureFeeds(this.ort, feeds, (v) => this._i.keptHandle.has(v), this._i.copies);
    // One run at a time per session: the pool has one open run.
    const previous = this._i.tail;
    let done;
    this._i.tail = new Promise((resolve) => {
      done = resolve;
    });
    try {
      await previous;
      if (this.disposed)
        throw new OrtkeepError('DISPOSED', 'ortkeep: run() on a disposed session; load the model again');
      const st = await this._ensureState();
      // never beside ortkeep's background work (js/forms/turns.js)
      const out = await callerTurn(() => runPooled(this._runContext(st), feeds, options));
      return boundary ? boundary.outputs(out) : out;
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
        for (const [pool, map, devs, owner] of [
          [st.pool, st.map, st.devs, { debug: this._i.debug }],
          [st.rb, st.rbMap, st.rbDevs, null],
        ]) {
          pool.destroy();
          await applyActions(pool, map, devs, null, owner);
        }
        this._i.final = this._stats();
      } finally {
        st.pool.free();
        st.rb.free();
      }
    }
    await callerTurn(() => this.ortSession.release());
  }

  /**
   * Outputs every run keeps on the device (as onnxruntime-web does for outputs its
   * preferredOutputLocation places there): returned as device tensors the caller owns until
   * tensor.dispose(). The drop-in InferenceSession sets it from the caller's option.
   * @param {string[]} names
   */
  _keepOnDevice(names) {
    this._i.keepOnDevice = names.filter((n) => this.outputNames.includes(n));
  }

  // ---- pool state ----

  /** Made on the first run; runs are serialised, so only one makes it. */
  async _ensureState() {
    this._i.state ??= await createPoolState({
      ort: this.ort,
      core: this._i.core,
      deviceName: this._i.deviceName,
      poolOptions: this._i.poolOptions,
      eps: this._i.eps,
      inputSpecs: this.inputSpecs,
      outputSpecs: this.outputSpecs,
    });
    // a lost device ends background work that waits on it (js/forms/turns.js)
    if (this._i.state.dev?.device) await watchDevice(this._i.state.dev.device);
    return this._i.state;
  }

  _deviceName() {
    return this._i.state?.deviceName ?? this._i.deviceName;
  }

  _runContext(st) {
    this._i.ctx ??= {
      ort: this.ort,
      ortSession: this.ortSession,
      st,
      inputSpecs: this.inputSpecs,
      outputSpecs: this.outputSpecs,
      keptHandle: this._i.keptHandle,
      copies: this._i.copies,
      hooks: (entry) => this._hooksFor(entry),
      feeds: this._i.feeds,
      debug: this._i.debug,
      boundToDevice: !!this._i.boundToDevice,
      slotName: (kind, index) =>
        `${kind ? 'output' : 'input'} '${(kind ? this.outputSpecs : this.inputSpecs)[index]?.name}'`,
    };
    return this._i.ctx;
  }

  _stats() {
    const st = this._i.state;
    const zero = { ...Object.fromEntries(STAT_NAMES.map((name) => [name, 0])), placement: 'undecided' };
    if (this._i.final) return structuredClone(this._i.final);
    if (!st || st.pool.freed) return { device: this._deviceName(), ...zero, readback: { ...zero } };
    const backend = BACKEND[st.deviceName];
    const readback = { ...zero };
    for (const b of [BACKEND.cpu, BACKEND.webgpu]) {
      const s = st.rb.stats(b);
      for (const k of Object.keys(readback)) if (k !== 'placement') readback[k] += s[k];
    }
    return { device: st.deviceName, ...st.pool.stats(backend), readback };
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
    if (this._i.boundary) tensor = this._i.boundary.inward(tensor);
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
      entry.tensor = dev.bind(dev.backend === BACKEND.cpu ? entry.obj : entry.buffer, entry);
    }
    // release() may DESTROY (budget): synchronous device calls, done here.
    applyActions(st.pool, st.map, st.devs).catch(() => {});
    return true;
  }

  /** Hooks every device binding carries: getData() and dispose() on kept tensors. */
  _hooksFor(entry) {
    entry.download = () => download(this._i.state, entry);
    entry.dispose = () => {
      if (this._i.keptHandle.get(entry.tensor) === entry.handle) this._release(entry.tensor);
    };
  }
}
