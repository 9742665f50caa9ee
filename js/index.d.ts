// Public types of ortkeep. The runtime is plain ESM JavaScript (js/*.js).
import type * as ort from 'onnxruntime-web';

export type ModelSource = string | URL | Uint8Array | ArrayBuffer | Blob;

export interface Progress {
  loaded: number;
  /** 0 when the server did not say */
  total: number;
  phase: 'download' | 'read-cache' | 'verify' | 'create-session';
}

export interface LoadOptions {
  /** onnxruntime-web to use; default: global `ort`, else import('onnxruntime-web') */
  ort?: typeof ort;
  /** passed to onnxruntime-web; default ['wasm'] */
  executionProviders?: ort.InferenceSession.SessionOptions['executionProviders'];
  /** any other onnxruntime-web session options */
  sessionOptions?: ort.InferenceSession.SessionOptions;
  /** SRI-style digest of the model bytes: 'sha256-<base64>' */
  integrity?: string;
  signal?: AbortSignal;
  onProgress?: (progress: Progress) => void;
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
    graphs: number; nodes: number; initializers: number; initializerBytes: number;
    subgraphInitializers: number; subgraphInitializerBytes: number;
  };
  controlFlow: { If: number; Loop: number; Scan: number };
  externalData: Array<{ initializer: string; location: string; offset: number; length: number }>;
  metadata: Record<string, string>;
  sharedInitializers: Array<{ name: string; bytes: number; graphs: string[] }>;
  inputs: ValueInfo[];
  outputs: ValueInfo[];
}

export interface SessionInfo {
  model: ModelReport;
  source: { url: string | null; bytes: number; sha256: string };
  timings: { runtimeMs: number; bytesMs: number; readMs: number; createMs: number; totalMs: number };
}

export type Feed = ort.Tensor | { data: ArrayBufferView | string[]; dims: readonly number[]; type?: ort.Tensor.Type } | ArrayBufferView;

export declare class Session {
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
  readonly info: SessionInfo;
  run(feeds: Record<string, Feed>, options?: { fetches?: string[] }): Promise<Record<string, ort.Tensor>>;
  dispose(): Promise<void>;
}

export type ErrorCode =
  | 'EMPTY' | 'TRUNCATED' | 'BAD_WIRE_TYPE' | 'BAD_VARINT' | 'TOO_DEEP' | 'NOT_ONNX' | 'LIMIT'
  | 'INTEGRITY' | 'NETWORK' | 'ABORTED' | 'BAD_FEED' | 'SHAPE' | 'SESSION_CREATE' | 'RUN'
  | 'ORT_MISSING' | 'CORE_LOAD' | 'INVALID_SOURCE' | 'INVALID_ARG' | 'DISPOSED' | 'NOMEM' | (string & {});

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
