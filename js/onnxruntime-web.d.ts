// Types of ortkeep/onnxruntime-web: onnxruntime-web's own, with
// InferenceSession made by ortkeep (its sessions are ortkeep's Session).
import type { InferenceSession as OrtInferenceSession } from 'onnxruntime-web';
import type { LoadOptions, Session } from './index.js';

export * from 'onnxruntime-web';

/** ortkeep's load() options, beside onnxruntime-web's (flat, as onnxruntime-web takes them). */
type OrtkeepKeys = Omit<LoadOptions, 'sessionOptions' | 'executionProviders'>;

export declare namespace InferenceSession {
  /** onnxruntime-web's SessionOptions, flat, plus ortkeep's keys (cache, integrity, forms, pool, …) */
  type SessionOptions = OrtInferenceSession.SessionOptions & OrtkeepKeys;
  type RunOptions = OrtInferenceSession.RunOptions;
  type FeedsType = OrtInferenceSession.FeedsType;
  type FetchesType = OrtInferenceSession.FetchesType;
  type ReturnType = OrtInferenceSession.ReturnType;
  type ValueMetadata = OrtInferenceSession.ValueMetadata;
  type ExecutionProviderConfig = OrtInferenceSession.ExecutionProviderConfig;
}

/** A session: onnxruntime-web's API (run, names, metadata, release, profiling) and ortkeep's (pool, info). */
export interface InferenceSession extends Session {
  run(
    feeds: OrtInferenceSession.FeedsType,
    options?: OrtInferenceSession.RunOptions,
  ): Promise<OrtInferenceSession.ReturnType>;
  run(
    feeds: OrtInferenceSession.FeedsType,
    fetches: OrtInferenceSession.FetchesType,
    options?: OrtInferenceSession.RunOptions,
  ): Promise<OrtInferenceSession.ReturnType>;
  startProfiling(): void;
  endProfiling(): void;
}

export interface InferenceSessionFactory {
  create(uri: string, options?: InferenceSession.SessionOptions): Promise<InferenceSession>;
  create(buffer: ArrayBufferLike, options?: InferenceSession.SessionOptions): Promise<InferenceSession>;
  create(
    buffer: ArrayBufferLike,
    byteOffset: number,
    byteLength?: number,
    options?: InferenceSession.SessionOptions,
  ): Promise<InferenceSession>;
  create(buffer: Uint8Array, options?: InferenceSession.SessionOptions): Promise<InferenceSession>;
}

export declare const InferenceSession: InferenceSessionFactory;
