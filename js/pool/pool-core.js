// The JS face of the C tensor pool (wasm/tensor_pool.h). It only moves
// integers in and out of wasm memory: every call returns the ACTIONS the C
// policy decided, read from the module's heap as records whose layout is
// generated from the C header (POOL_ACTION_WORD, POOL_REFUSAL_WORD). What to
// create, reuse, re-pin, keep or destroy is decided in C, never here.
import {
  POOL_ACTION_WORD as AW,
  POOL_BACKEND,
  POOL_LIMIT,
  POOL_OP,
  POOL_PLACE,
  POOL_REFUSAL,
  POOL_REFUSAL_WORD as RW,
  POOL_SLOT,
  POOL_STAT,
  STATUS,
} from '../core-constants.js';
import { CORE_CODES, OrtkeepError } from '../errors.js';

/** Backends by the pool device names JS uses ('cpu', 'webgpu', 'webnn'). */
export const BACKEND = Object.freeze({ cpu: POOL_BACKEND.CPU, webgpu: POOL_BACKEND.WEBGPU, webnn: POOL_BACKEND.WEBNN });
export const SLOT = Object.freeze({ input: POOL_SLOT.INPUT, output: POOL_SLOT.OUTPUT });
export const OP = POOL_OP;
const WORDS = POOL_LIMIT.ACTION_WORDS;
const MAX_RANK = POOL_LIMIT.MAX_RANK;
const camel = (s) => s.toLowerCase().replace(/_([a-z])/g, (_, c) => c.toUpperCase());
/** Counter names in ok_pool_stats() order: CREATES → creates, BYTES_HELD → bytesHeld. */
export const STAT_NAMES = Object.entries(POOL_STAT)
  .filter(([k]) => k !== 'COUNT')
  .sort((a, b) => a[1] - b[1])
  .map(([k]) => camel(k));

/** POOL_PLACE value → 'undecided' | 'device' | 'cpu' (stats().placement). */
const PLACE_NAME = Object.fromEntries(Object.entries(POOL_PLACE).map(([k, v]) => [v, k.toLowerCase()]));
const REFUSAL_NAME = Object.fromEntries(Object.entries(POOL_REFUSAL).map(([k, v]) => [v, k]));
const int64 = (lo, hi) => (hi >= 0x80000000 ? (hi - 4294967296) * 4294967296 + lo : hi * 4294967296 + lo);

/**
 * A failed pool call: `status` is the C code name (e.g. 'SHAPE', 'IN_USE');
 * `refusal`, when C refused the request itself, says what was wrong:
 * {reason: 'DIM', dim: 1, expected: 512, got: 7} (see ok_pool_refusal).
 */
export class PoolStatus extends Error {
  constructor(status, call, refusal = null) {
    super(`ortkeep: tensor pool ${call} failed: ${CORE_CODES[status] ?? status}`);
    this.status = CORE_CODES[status] ?? `CORE_${status}`;
    this.refusal = refusal;
  }
}

/**
 * The backend a session's pool uses, from what JS read (ok_pool_device_verdict).
 * @param {import('../core/module.js').Core} core
 * @param {{wanted: number, available: boolean, chosenByCaller: boolean, cpuFallback: boolean}} facts
 * @returns {number} a POOL_BACKEND value, or -1: refused (no such device and nothing to fall back to)
 */
export function deviceVerdict(core, { wanted, available, chosenByCaller, cpuFallback }) {
  return core.m._ok_pool_device_verdict(wanted, available ? 1 : 0, chosenByCaller ? 1 : 0, cpuFallback ? 1 : 0);
}

/**
 * One C pool. Mutating calls return the number of action records, readable
 * with op(k), handle(k) … until the next call (they are copied out of wasm
 * memory, so wasm memory growth cannot move them).
 */
export class PoolCore {
  /**
   * @param {import('../core/module.js').Core} core
   * @param {{inputs: number, outputs: number, budgetBytes?: number}} shape
   */
  constructor(core, { inputs, outputs, budgetBytes = POOL_LIMIT.DEFAULT_BUDGET }) {
    this.m = core.m;
    this.p = this.m._ok_pool_create(BigInt(budgetBytes), inputs, outputs);
    if (!this.p) throw new OrtkeepError('NOMEM', 'ortkeep: out of wasm memory creating a tensor pool');
    // One scratch area for dims (16 x int64) and an out-param (uint64), kept
    // for the pool's lifetime: no malloc per call.
    this.scratch = this.m._malloc(MAX_RANK * 8 + 8);
    if (!this.scratch) throw new OrtkeepError('NOMEM', 'ortkeep: out of wasm memory for the pool');
    this.acts = new Uint32Array(WORDS * 16);
    this.count = 0;
    this.freed = false;
  }

  #status(rc, call) {
    this.#readActions();
    if (rc !== 0) throw new PoolStatus(rc, call, this.#refusal());
    return this.count;
  }

  #refusal() {
    const base = this.m._ok_pool_refusal(this.p) >>> 2;
    const w = (k) => this.m.HEAPU32[base + k];
    if (w(RW.REASON) === POOL_REFUSAL.NONE) return null;
    return {
      reason: REFUSAL_NAME[w(RW.REASON)],
      dim: w(RW.DIM) === POOL_LIMIT.NONE ? null : w(RW.DIM),
      expected: int64(w(RW.EXPECTED_LO), w(RW.EXPECTED_HI)),
      got: int64(w(RW.GOT_LO), w(RW.GOT_HI)),
    };
  }

  #readActions() {
    const m = this.m;
    const n = m._ok_pool_action_count(this.p);
    if (n * WORDS > this.acts.length) this.acts = new Uint32Array(Math.max(n * WORDS, this.acts.length * 2));
    if (n) {
      const base = m._ok_pool_actions(this.p, 0) >>> 2;
      const heap = m.HEAPU32;
      for (let i = 0; i < n * WORDS; i++) this.acts[i] = heap[base + i];
    }
    this.count = n;
  }

  /** Writes dims into the scratch area as int64 (|d| < 2^53; negative: declaration codes). */
  #dims(dims) {
    if (dims.length > MAX_RANK) throw new PoolStatus(STATUS.LIMIT, 'dims');
    const heap = this.m.HEAPU32;
    const base = this.scratch >>> 2;
    for (let i = 0; i < dims.length; i++) {
      const d = dims[i];
      heap[base + 2 * i] = d >>> 0;
      heap[base + 2 * i + 1] = d >= 0 ? Math.floor(d / 4294967296) : 0xffffffff;
    }
    return this.scratch;
  }

  // The fields of action record k (word offsets generated from tensor_pool.h).
  op(k) {
    return this.acts[k * WORDS + AW.OP];
  }
  handle(k) {
    return this.acts[k * WORDS + AW.HANDLE];
  }
  kind(k) {
    return this.acts[k * WORDS + AW.SLOT_KIND];
  }
  index(k) {
    return this.acts[k * WORDS + AW.SLOT_INDEX];
  }
  backend(k) {
    return this.acts[k * WORDS + AW.BACKEND];
  }
  bytes(k) {
    return this.acts[k * WORDS + AW.BYTES_LO] + this.acts[k * WORDS + AW.BYTES_HI] * 4294967296;
  }

  /** dims: encoded declaration (js/pool/shapes.js), or null for an unknown rank. */
  declare(kind, index, dtype, dims) {
    const rank = dims ? dims.length : -1;
    return this.#status(
      this.m._ok_pool_declare(this.p, kind, index, dtype, rank, dims ? this.#dims(dims) : 0),
      'declare',
    );
  }
  /** onnxruntime-web's metadata of a slot, after the model's declaration: C keeps what both agree on (ok_pool_declare_runtime). */
  declareRuntime(kind, index, dtype, dims) {
    const rank = dims ? dims.length : -1;
    return this.#status(
      this.m._ok_pool_declare_runtime(this.p, kind, index, dtype, rank, dims ? this.#dims(dims) : 0),
      'declare_runtime',
    );
  }
  /**
   * onnxruntime's run failed: C unpins the outputs it preallocated for this run
   * (ok_pool_run_failed). @returns {boolean} whether to run once more, adopting them
   */
  runFailed() {
    this.#status(this.m._ok_pool_run_failed(this.p, this.scratch), 'run_failed');
    return this.m.HEAP32[this.scratch >>> 2] === 1;
  }
  /** Where the next run keeps inputs and outputs: a POOL_PLACE value (ok_pool_placement_next). */
  placementNext() {
    return this.m._ok_pool_placement_next(this.p);
  }
  /** A timed run (micros) made with `placement`; chained: it fed or kept device tensors (ok_pool_placement_report). */
  placementReport(placement, micros, chained) {
    return this.#status(
      this.m._ok_pool_placement_report(this.p, placement, micros >>> 0, chained ? 1 : 0),
      'placement_report',
    );
  }
  /** What the page knows of the GPU adapter: a POOL_ADAPTER value (ok_pool_placement_adapter). */
  placementAdapter(adapter) {
    return this.#status(this.m._ok_pool_placement_adapter(this.p, adapter), 'placement_adapter');
  }
  /** The device refused this run's work: C unpins everything and destroys what the caller does not keep (ok_pool_device_failed). */
  deviceFailed() {
    return this.#status(this.m._ok_pool_device_failed(this.p), 'device_failed');
  }
  /** A result onnxruntime allocated: one ADOPT, or no action when it is the caller's as it is (ok_pool_result). */
  result(index, backend, dtype, dims, capacity, keep) {
    return this.#status(
      this.m._ok_pool_result(
        this.p,
        index,
        backend,
        dtype,
        this.#dims(dims),
        dims.length,
        BigInt(capacity),
        keep ? 1 : 0,
      ),
      'result',
    );
  }
  runBegin() {
    return this.#status(this.m._ok_pool_run_begin(this.p), 'run_begin');
  }
  runEnd() {
    return this.#status(this.m._ok_pool_run_end(this.p), 'run_end');
  }
  input(index, backend, dtype, dims) {
    return this.#status(this.m._ok_pool_input(this.p, index, backend, dtype, this.#dims(dims), dims.length), 'input');
  }
  /** An input with CPU data of `dataBytes` bytes: C checks dims, dtype and size. */
  feed(index, backend, dtype, dims, dataBytes) {
    return this.#status(
      this.m._ok_pool_feed(this.p, index, backend, dtype, this.#dims(dims), dims.length, BigInt(dataBytes)),
      'feed',
    );
  }
  /** ok_pool_feed's verdict on a CPU input, with no tensor placed and no action (ok_pool_check_feed). */
  checkFeed(index, dtype, dims, dataBytes) {
    const rc = this.m._ok_pool_check_feed(this.p, index, dtype, this.#dims(dims), dims.length, BigInt(dataBytes));
    if (rc !== 0) throw new PoolStatus(rc, 'check_feed', this.#refusal());
  }
  /**
   * Whether this run steps aside from the pool (ok_pool_pass_through; counted as `passes`):
   * @param {number} backend the session's pool backend
   * @param {number} keeps outputs the run keeps
   * @param {boolean} deviceBound a device tensor or kept output fed, or outputs the caller bound to a device
   * @param {boolean} inputsTaken the runtime takes every CPU input's buffer (onnxruntime-web's proxy worker)
   */
  passThrough(backend, keeps, deviceBound, inputsTaken) {
    return this.m._ok_pool_pass_through(this.p, backend, keeps, deviceBound ? 1 : 0, inputsTaken ? 1 : 0) === 1;
  }
  /** Output `index` planned by C: one slot action, or none (onnxruntime allocates; adopt it). */
  outputAuto(index, backend) {
    return this.#status(this.m._ok_pool_output_auto(this.p, index, backend), 'output_auto');
  }
  output(index, backend, dtype, dims) {
    return this.#status(this.m._ok_pool_output(this.p, index, backend, dtype, this.#dims(dims), dims.length), 'output');
  }
  inputBind(index, handle) {
    return this.#status(this.m._ok_pool_input_bind(this.p, index, handle), 'input_bind');
  }
  bindExternal(kind, index, backend, dtype, dims) {
    return this.#status(
      this.m._ok_pool_bind_external(this.p, kind, index, backend, dtype, this.#dims(dims), dims.length),
      'bind_external',
    );
  }
  adopt(index, backend, dtype, dims, capacity = 0) {
    return this.#status(
      this.m._ok_pool_adopt(this.p, index, backend, dtype, this.#dims(dims), dims.length, BigInt(capacity)),
      'adopt',
    );
  }
  keep(outIndex) {
    return this.#status(this.m._ok_pool_keep(this.p, outIndex), 'keep');
  }
  release(handle) {
    return this.#status(this.m._ok_pool_release(this.p, handle), 'release');
  }
  /** One DESTROY per pool-created tensor, one FORGET per external one. */
  destroy() {
    return this.#status(this.m._ok_pool_destroy(this.p), 'destroy');
  }

  pinned(kind, index) {
    return this.m._ok_pool_pinned(this.p, kind, index);
  }
  /** Exact bytes of the handle's dtype+dims (C's count), 0 if none. */
  handleBytes(handle) {
    return Number(this.m._ok_pool_handle_bytes(this.p, handle));
  }
  /** The handle's dims as C holds them. */
  handleDims(handle) {
    const rank = this.m._ok_pool_tensor_dims(this.p, handle, this.scratch, MAX_RANK);
    if (rank < 0) return null;
    const heap = this.m.HEAPU32;
    const base = this.scratch >>> 2;
    const dims = new Array(rank);
    for (let i = 0; i < rank; i++) dims[i] = heap[base + 2 * i] + heap[base + 2 * i + 1] * 4294967296;
    return dims;
  }
  /** The handle's ONNX dtype, -1 if none. */
  handleDtype(handle) {
    return this.m._ok_pool_handle_dtype(this.p, handle);
  }

  /** ok_pool_check: throws CORRUPT when the C invariants do not hold. */
  check() {
    const rc = this.m._ok_pool_check(this.p);
    if (rc !== 0)
      throw new OrtkeepError('CORRUPT', `ortkeep: tensor pool invariant violated (${CORE_CODES[rc] ?? rc})`);
  }

  /** @returns {Record<string, number>} the C counters for one backend */
  stats(backend) {
    const ptr = this.m._ok_pool_stats(this.p, backend);
    const heap = this.m.HEAPU32;
    const base = ptr >>> 2;
    const out = {};
    STAT_NAMES.forEach((name, i) => {
      out[name] = heap[base + 2 * i] + heap[base + 2 * i + 1] * 4294967296;
    });
    out.placement = PLACE_NAME[out.placement] ?? out.placement;
    return out;
  }

  /** Releases the C memory (after destroy()). Safe to call twice. */
  free() {
    if (this.freed) return;
    this.freed = true;
    this.m._ok_pool_free(this.p);
    this.m._free(this.scratch);
  }
}
