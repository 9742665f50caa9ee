// Public types of ortkeep. The runtime is plain ESM JavaScript (js/*.js).
import type * as ort from 'onnxruntime-web';

export type ModelSource = string | URL | Uint8Array | ArrayBuffer | SharedArrayBuffer | Blob;

export interface Progress {
  loaded: number;
  /** 0 when the server did not say */
  total: number;
  phase: 'download' | 'read-cache' | 'verify' | 'create-session';
  /** an external data file of the model (its location), when the progress is that file's */
  file?: string;
}

/**
 * load()'s options: onnxruntime-web's SessionOptions flat, exactly as onnxruntime-web takes them
 * (externalData with URLs or bytes, freeDimensionOverrides, graphOptimizationLevel, …), and
 * ortkeep's own keys. An option neither knows is an INVALID_ARG naming the nearest known name.
 */
export interface LoadOptions extends ort.InferenceSession.SessionOptions {
  /** onnxruntime-web to use; default: global `ort`, else import('onnxruntime-web') */
  ort?: typeof ort;
  /** passed to onnxruntime-web; default ['wasm'] */
  executionProviders?: ort.InferenceSession.SessionOptions['executionProviders'];
  /**
   * onnxruntime-web's session options, nested (a flat key wins over a nested one)
   * @deprecated pass them flat, beside ortkeep's keys; removed in the next release
   */
  sessionOptions?: ort.InferenceSession.SessionOptions;
  /**
   * Subresource Integrity metadata ('sha256-<b64>', 'sha384-…', 'sha512-…',
   * several tokens separated by spaces): the strongest algorithm present
   * counts and any of its digests passes; a mismatch is INTEGRITY.
   */
  integrity?: string;
  signal?: AbortSignal;
  onProgress?: (progress: Progress) => void;
  /** model cache mode for URL sources, like fetch()'s: default = serve a stored copy without the network */
  cache?: 'default' | 'no-cache' | 'reload' | 'no-store' | 'only-if-cached';
  /** warnings that do not fail the load (also in info.warnings) */
  onWarning?: (warning: { code: WarningCode; message: string; reason?: string }) => void;
  /** the fetch to use for the network tier (default globalThis.fetch) */
  fetch?: typeof fetch;
  /** true: one console.debug line per decision of the load machine and of the session's tensor pool (create, take, bind, adopt, keep, destroy; the steady-state reuse is silent); or a function that gets each line */
  debug?: boolean | ((line: string) => void);
  /** bytes per stored chunk (default 4 MiB) */
  chunkSize?: number;
  /** ask navigator.storage.persist() after the first model is stored */
  persist?: boolean;
  /** false: do not share a live session with other load()s of the same model in this page */
  memory?: boolean;
  /** benchmarking only: skip the per-chunk XXH3 check of an IndexedDB read */
  verify?: boolean;
  /** the session's tensor pool (always on; these tune it) */
  pool?: PoolOptions;
  /**
   * Optimized forms (on by default in browsers; false turns them off): options, or true. The
   * first load captures onnxruntime's optimized model in the background after the caller has its
   * session (formsReady settles when done); the capture is kept once a session from it at
   * 'disabled' gives the original's outputs on probe inputs and creates faster; later loads serve it. Needs IndexedDB, and ortkeep's load() before the
   * page's first onnxruntime-web session (onnxruntime-web picks its loader once); otherwise one
   * FORMS_OFF warning says why and what to do.
   */
  forms?: boolean | FormsOptions;
  /**
   * Which onnxruntime-web build the page starts (it picks one, once, at its first session).
   * 'auto' (load()'s default): the plain wasm-only build (half the .wasm of the default entry's JSEP
   * build) when the page's first load lists only 'wasm'/'cpu' and no earlier visit here listed more;
   * a later load listing 'webgpu' or 'webnn' (and the app's own such sessions) then runs on the entry's
   * full build started beside it, as onnxruntime-web alone would, and the next visit starts the full
   * build at once. A head start only: it never decides what a session runs on.
   * 'full': the entry's own build, as onnxruntime-web starts it. 'after-visit' (the drop-in's
   * default): the entry's own build until a visit here showed the page lists only 'wasm'/'cpu'.
   * Files the app named (env.wasm.wasmPaths, wasmBinary) are always kept as given.
   */
  runtime?: 'auto' | 'full' | 'after-visit';
  /**
   * `ortkeep prepare`'s MODEL.ortkeep.json (its URL, or its contents with `base`): the fastest
   * .onnx form prepare verified for this onnxruntime-web version and these execution providers is
   * loaded instead (cached, its SHA-256 as integrity) at 'disabled'; none: the original, and a
   * 'manifest-unusable' event
   */
  manifest?: string | URL | { ortkeep: 1; forms: unknown[]; base?: string };
  /** events that are not warnings: a form escalated to the next tier, a stored form dropped */
  onEvent?: (event: FormEvent) => void;
}

export interface FormsOptions {
  /**
   * the onnxruntime-web bundle the page imports: 'jsep' (default: `onnxruntime-web`, ort.min.js),
   * 'wasm' (`onnxruntime-web/wasm`), 'asyncify' (`onnxruntime-web/webgpu` 1.23+; 'jsep' before), 'jspi';
   * the drop-in entries and `ortkeep/transformers` set it for their entry
   */
  bundle?: 'jsep' | 'wasm' | 'asyncify' | 'jspi';
  /** shapes for the probe inputs of the round-trip check (symbolic dims default to 1, then 256) */
  probe?: {
    freeDimensionOverrides?: Record<string, number>;
    /** a whole input's shape, for dims a model leaves unnamed */
    inputDims?: Record<string, number[]>;
    /** how close outputs must be (default rtol 1e-3, atol 1e-4) */
    tolerance?: { rtol?: number; atol?: number };
  };
  /**
   * the folder serving a copy of node_modules/ortkeep/dist/ort-capture/ (default: found from
   * ortkeep's own URL, which Vite's build and dev server and the script-tag bundle resolve)
   */
  captureBase?: string | URL;
  /** onnxruntime-web's own .wasm for the bundle, when it cannot be found (or set ort.env.wasm.wasmPaths) */
  wasmUrl?: string | URL;
  /**
   * the page's onnxruntime-web loader (ort-wasm-simd-threaded.jsep.mjs for the default bundle), when the page runs
   * an onnxruntime-web other than the one ortkeep's build derived its capturing loaders from and that loader
   * cannot be found (next to ort.min.js, env.wasm.wasmPaths, or a bundler's copy of the installed package):
   * its text is fetched, derived in the page and imported from a Blob URL (a CSP script-src must allow blob:)
   */
  loaderUrl?: string | URL;
}

export type FormName = 'original' | 'onnx' | 'ort';

export type FormEvent =
  | { type: 'form-escalated'; from: FormName; to: FormName; reason: string }
  | { type: 'form-dropped'; form: FormName; reason: string }
  | { type: 'manifest-unusable'; why: string }
  /** creating the session grew onnxruntime-web's memory past 1.5x the initializer bytes, and the model has initializers shared by several subgraphs */
  | { type: 'memory-growth'; growth: number; initializerBytes: number; shared: string[] }
  /** a model arrived stamped, but its bytes changed since (stale, malformed) or for another runtime, EP or level (foreign) */
  | {
      type: 'stamp-ignored';
      reason: 'stale' | 'malformed' | 'foreign';
      stamp: { ort?: string; ep?: string; level?: string };
    };

export interface FormInfo {
  /** what the session was created from */
  form: FormName;
  /** the level it was created at ('disabled' for an optimized form); null when forms are off */
  level: string | null;
  createMs: number;
  /**
   * verified: a stored form that passed its round trip; capturing: the original,
   * with `capturing` produced and checked in the background; original: no form
   * for these bytes is better (every tier failed, or none is kept); stamped: the model arrived
   * stamped for this runtime, EPs and level (created at 'disabled', nothing captured); prepared: a form
   * from `manifest`; off: forms are off (`why`)
   */
  chosen: 'verified' | 'capturing' | 'original' | 'stamped' | 'prepared' | 'off';
  capturing?: FormName;
  /**
   * verified: the .ort form was created where its bytes lie in onnxruntime-web's heap, its
   * initializers used there (no copy of the weights; the page's onnxruntime-web runs ortkeep's
   * loader on this thread)
   */
  inPlace?: boolean;
  /** prepared: the form's URL */
  url?: string;
  why?: string;
}

export interface PoolOptions {
  /** default: from the first execution provider ('webgpu' → webgpu, 'webnn' → webnn, else cpu) */
  device?: 'cpu' | 'webgpu' | 'webnn';
  /** bytes of free (unpinned) tensors kept for reuse; default 64 MiB */
  budgetBytes?: number;
  /** the MLContext the WebNN session runs on; default: executionProviders[i].context of the 'webnn' entry */
  context?: unknown;
  /** the GPUDevice to create buffers on; default: ort.env.webgpu.device */
  gpuDevice?: unknown;
  /**
   * where a device session keeps inputs and outputs: 'auto' (default) measures its first runs both
   * ways and keeps the faster; 'device' pins them on the device; 'cpu' hands onnxruntime CPU tensors
   */
  placement?: 'auto' | 'device' | 'cpu';
}

/** Counters of the C pool (wasm/tensor_pool.h), for the session's device. */
export interface PoolCounters {
  creates: number;
  reuses: number;
  repins: number;
  destroys: number;
  takes: number;
  adopts: number;
  bytesHeld: number;
  bytesFree: number;
  liveTensors: number;
  /** runs onnxruntime refused with preallocated outputs, run once more letting it allocate them */
  retries: number;
  /** declared output dims a result proved wrong (adopted from then on) */
  distrusted: number;
  /** runs the pool stepped aside from (the wasm EP, nothing kept, nothing on a device): handed to onnxruntime-web as given */
  passes: number;
  /**
   * where a device session keeps inputs and outputs, measured over its first runs:
   * pinned on the device, or CPU tensors as plain onnxruntime-web ('undecided' while measuring)
   */
  placement: 'undecided' | 'device' | 'cpu';
}

export interface PoolStats extends PoolCounters {
  device: 'cpu' | 'webgpu' | 'webnn';
  /** staging buffers and CPU arrays that device outputs are read back through */
  readback: PoolCounters;
}

export interface TensorPool {
  readonly device: 'cpu' | 'webgpu' | 'webnn';
  /** what the pool did so far; after dispose(), its final counters */
  stats(): PoolStats;
  /** gives a kept output back to the pool (same as tensor.dispose() for device tensors); false if it was not kept */
  release(tensor: ort.Tensor): boolean;
  /** checks the C invariants and that every pool tensor has its device object; throws OrtkeepError 'CORRUPT' */
  check(): true;
}

export interface RunOptions {
  /** outputs to compute; default all */
  fetches?: string[];
  /**
   * outputs to keep on the device: returned as ort.Tensors located on the
   * device ('gpu-buffer' / 'ml-tensor'; CPU tensors on the cpu pool) that the
   * caller owns until tensor.dispose() or session.pool.release(tensor); feed
   * them back as inputs of a later run (no CPU round trip). session.dispose()
   * destroys any not released.
   */
  keep?: string[];
}

export interface ValueInfo {
  name: string;
  /** ONNX TensorProto.DataType number */
  elemType: number;
  /** a number, a symbolic dim name, or null when unknown; null for the whole list when the shape is unknown */
  dims: Array<number | string | null> | null;
}

export interface GraphSummary {
  /** "main", or parent path + "/" + node label + "." + attribute name */
  path: string;
  nodes: number;
  initializers: number;
  initializerBytes: number;
}

/** What ortkeep's C reader found in a model (also `ortkeep inspect --json`). */
export interface ModelReport {
  sha256: string;
  irVersion: number;
  opsetImports: Record<string, number>;
  producerName: string;
  producerVersion?: string;
  graphs: GraphSummary[];
  totals: {
    graphs: number;
    nodes: number;
    initializers: number;
    initializerBytes: number;
    subgraphInitializers: number;
    subgraphInitializerBytes: number;
  };
  controlFlow: { If: number; Loop: number; Scan: number };
  /** inFolder: the location stays next to the model (the C rule); a load refuses the others */
  externalData: Array<{ initializer: string; location: string; inFolder: boolean; offset: number; length: number }>;
  metadata: Record<string, string>;
  sharedInitializers: Array<{ name: string; bytes: number; graphs: string[] }>;
  inputs: ValueInfo[];
  outputs: ValueInfo[];
  /**
   * The normalization stamp (the model's last metadata_props entry, key
   * `ortkeep.stamp`), when the reader hashed the bytes itself (inspect,
   * `ortkeep inspect`): null when there is none; `integrity` says whether the
   * bytes before it still hash to its `artifact` digest.
   */
  stamp?: {
    integrity: 'intact' | 'stale' | 'malformed';
    /** the core's verdict for a running context (core.inspect(bytes, sha, {ort, ep, level}) and load() with forms) */
    verdict?: 'valid' | 'foreign' | 'stale' | 'malformed';
    producer?: string;
    ort?: string;
    ep?: string;
    level?: string;
    source?: string;
    artifact?: string;
  } | null;
}

/** QUOTA: does not fit, loaded uncached; CORRUPT: a stored copy failed its check, dropped and refetched;
 * REFUSED: onnxruntime refused a stored copy, dropped; RESUMING, RETRYING: network trouble handled;
 * UNCACHED: this response cannot be stored; CACHE_UNAVAILABLE / CACHE_ERROR: IndexedDB unusable or failed, loaded uncached. */
export type WarningCode =
  | 'QUOTA'
  | 'CORRUPT'
  | 'RESUMING'
  | 'RETRYING'
  | 'UNCACHED'
  | 'CACHE_UNAVAILABLE'
  | 'CACHE_ERROR'
  | 'REFUSED'
  /** optimized forms are off in this page (once per page; `reason` says why, the message what to do) */
  | 'FORMS_OFF';

export interface CacheInfo {
  tier: 'memory' | 'indexeddb' | 'network';
  bytes: number;
  /** the entry's cache key (url:… or sha256:…), null when nothing is stored for this page */
  key: string | null;
  /**
   * whether the model is stored in IndexedDB (false: quota, no-store, IndexedDB unusable). A download
   * is served before its chunks are written: true then means the store is under way, and turns false
   * if it fails (with a warning); `session.cacheSettled` says when it is over
   */
  stored?: boolean;
  /** the bytes were checked against a known digest: `integrity` on a download, the stored XXH3 sums on a hit */
  verified?: boolean;
  /** the byte a broken download was resumed from */
  resumedFrom?: number;
  /** ms per phase of the load machine (only the phases this load went through); checkMs: the chunk checks of a hit, inside readMs */
  timings: {
    waitMs?: number;
    lookupMs?: number;
    readMs?: number;
    checkMs?: number;
    downloadMs?: number;
    /** a download's SHA-256, taken once the body is whole (WebCrypto; where the page has none, the core hashes inside downloadMs) */
    hashMs?: number;
    storeMs?: number;
    validateMs?: number;
    /** a page's first load with forms: waiting for their capturing loader, installed beside the load, before any session */
    loaderMs?: number;
    /** a page's first load from the network: waiting for the rest of onnxruntime-web's start-up, begun beside the download */
    startMs?: number;
    createMs?: number;
    totalMs: number;
  };
}

export interface CacheEntry {
  key: string;
  url: string;
  bytes: number;
  lastUsed: number;
  form: FormName;
  hits: number;
  sha256: string;
  etag: string | null;
  lastModified: string | null;
  /** optimized forms: the verdict (a failed one is a record with no bytes) */
  status?: 'verified' | 'failed';
  /** verified forms: creation time at 'disabled' vs the original's, measured together */
  createMs?: number;
  originalCreateMs?: number;
  /**
   * verified forms whose verdict is being revised: the warm loads so far that
   * timed the original beside the form (3 decide: kept, or demoted to a
   * 'form-slower' failure), with the sums of both sides' creation times
   */
  revision?: { pairs: number; formMs: number; originalMs: number };
  /** failed forms: why */
  reason?: string;
  /** forms: the SHA-256 of the original they were made from */
  sourceSha256?: string;
  /** a model with external data: its files, stored, evicted and deleted with it */
  dataFiles?: Array<{ path: string; url: string; bytes: number; sha256: string }>;
}

export declare const cache: {
  list(): Promise<CacheEntry[]>;
  /** deletes a model (every stored copy whose URL or key this is) and, for a model file, the files
   *  `ortkeep/transformers` keeps for its repo and revision (config, tokenizer) */
  delete(keyOrUrl: string): Promise<boolean>;
  /** deletes every stored model not being loaded right now, and every file `ortkeep/transformers` keeps */
  clear(): Promise<void>;
  /**
   * resolves when this page's background work is over: a download is served before it is stored,
   * and forms are captured and verified after a load; a page closed before then stores less (its
   * next visit downloads or captures again); never rejects
   */
  settled(): Promise<void>;
  estimate(): Promise<{ quota: number | null; usage: number | null; cachedBytes: number; entries: number }>;
  persist(): Promise<boolean>;
};

export interface SessionInfo {
  /** null for Uint8Array/ArrayBuffer/Blob sources loaded fresh */
  cache: CacheInfo | null;
  model: ModelReport;
  source: { url: string | null; bytes: number; sha256: string };
  /** which artifact form the session was created from, and why */
  form: FormInfo;
  /**
   * onnxruntime-web's wasm memory around the session's creation, readable when ortkeep's
   * derived loader runs it (forms on), else null; wasmBefore and growth are null for the
   * page's first session (onnxruntime-web starts with it)
   */
  memory: {
    wasmBefore: number | null;
    wasmAfter: number;
    growth: number | null;
    initializerBytes: number;
    sharedInitializers: Array<{ name: string; bytes: number; graphs: string[] }>;
  } | null;
  warnings: WarningCode[];
  /** runtimeMs: onnxruntime-web and the core ready; then the load machine's phases (CacheInfo.timings) */
  timings: { runtimeMs: number; totalMs: number; [phase: string]: number };
}

/**
 * A feed: CPU data (copied into the input's pinned tensor), an ort.Tensor on
 * the CPU, a device ort.Tensor the caller owns (bound as is, never destroyed
 * by the pool), or a kept output of this session.
 */
export type Feed =
  | ort.Tensor
  | { data: ArrayBufferView | string[]; dims: readonly number[]; type?: ort.Tensor.Type }
  | ArrayBufferView;

export declare class Session {
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
  readonly info: SessionInfo;
  readonly pool: TensorPool;
  /**
   * settles when the model's own store is over (a download is served first, its chunks written
   * behind the caller): true when it is committed to IndexedDB; never rejects
   */
  readonly cacheSettled: Promise<boolean>;
  /** settles when ortkeep's background work for this load (its store, then capturing, verifying and storing forms) is done; never rejects */
  readonly formsReady: Promise<{
    stored: FormName | null;
    failed: Array<{ form: FormName; reason: string }>;
    events: FormEvent[];
    /**
     * a load served by a verified form that created no clearly faster than
     * its original: the original was timed once beside it and the pair
     * tallied into the form's verdict; after 3 such pairs the form is
     * demoted if they and its verification together say it took more than
     * 105% of the original's time (tried again after a week), else kept and
     * the tally restarts.
     * status: 'tallied' (fewer than 3 pairs so far), 'kept', 'demoted', or
     * 'not-counted' (another verdict took the form's place meanwhile).
     * null: the revision could not be made (the original is no longer stored)
     */
    revision?: {
      form: FormName;
      formMs: number;
      originalMs: number;
      status: 'tallied' | 'kept' | 'demoted' | 'not-counted';
    } | null;
  }>;
  /**
   * Runs the model. Outputs come back as CPU ort.Tensors the caller owns (a
   * later run() never writes into them), except outputs named in `keep`,
   * which stay on the device.
   */
  run(
    feeds: Record<string, Feed>,
    options?: RunOptions & ort.InferenceSession.RunOptions,
  ): Promise<Record<string, ort.Tensor>>;
  /** onnxruntime-web's forms: only these outputs (names, or a map of name → null) are computed and returned */
  run(
    feeds: Record<string, Feed>,
    fetches: readonly string[] | Record<string, null>,
    runOptions?: ort.InferenceSession.RunOptions,
  ): Promise<Record<string, ort.Tensor>>;
  /** onnxruntime-web's profiling, passed through */
  startProfiling(): void;
  endProfiling(): void;
  /** onnxruntime-web's metadata, passed through */
  readonly inputMetadata: ort.InferenceSession['inputMetadata'];
  readonly outputMetadata: ort.InferenceSession['outputMetadata'];
  /** onnxruntime-web's name for dispose() */
  release(): Promise<void>;
  /** destroys every tensor the pool created, then releases the onnxruntime-web session */
  dispose(): Promise<void>;
}

export type ErrorCode =
  | 'EMPTY'
  | 'TRUNCATED'
  | 'BAD_WIRE_TYPE'
  | 'BAD_VARINT'
  | 'TOO_DEEP'
  | 'NOT_ONNX'
  | 'LIMIT'
  | 'INTEGRITY'
  | 'NETWORK'
  | 'ABORTED'
  | 'BAD_FEED'
  | 'SHAPE'
  | 'SESSION_CREATE'
  | 'RUN'
  | 'ORT_MISSING'
  | 'CORE_LOAD'
  | 'INVALID_SOURCE'
  | 'INVALID_ARG'
  | 'DISPOSED'
  | 'NOMEM'
  | 'DEVICE'
  | 'CORRUPT'
  | 'CACHE_UNAVAILABLE'
  | 'CACHE_ERROR'
  | 'IN_USE'
  | 'NOT_FOUND'
  | 'STATE'
  | 'EXTERNAL_DATA'
  /** onnxruntime-web's full build could not be started beside the page's plain one (its ES module missing, or another version) */
  | 'RUNTIME'
  /** optimized forms' capture (load() turns these into forms off / a failed tier) */
  | 'FORMS_OFF'
  | 'FORM_SELF_TEST'
  /** ortkeep prepare */
  | 'VERSION_MISMATCH'
  | 'PROBE_FAILED'
  | 'LEVEL_UNSUPPORTED'
  | (string & {});

export declare class OrtkeepError extends Error {
  readonly name: 'OrtkeepError';
  readonly code: ErrorCode;
  /** byte offset in the model, for model-format errors */
  readonly offset?: number;
}

export declare function load(source: ModelSource, options?: LoadOptions): Promise<Session>;
export declare function inspect(bytes: Uint8Array | ArrayBuffer): Promise<ModelReport>;
/** Where to fetch ortkeep-core.wasm from, when it is not served next to the module. */
export declare function setCoreWasmUrl(url: string | URL): void;
