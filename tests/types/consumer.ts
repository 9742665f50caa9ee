// A consumer of the published types, compiled with tsc --strict in npm test
// (tests/js/types.test.mjs) under moduleResolution bundler and node16.
import { cache, inspect, load, OrtkeepError, setCoreWasmUrl } from 'ortkeep';
import type { CacheInfo, ErrorCode, LoadOptions, ModelReport, Session, WarningCode } from 'ortkeep';

export async function demo(signal: AbortSignal): Promise<number> {
  setCoreWasmUrl(new URL('https://cdn.example/ortkeep-core.wasm'));
  const options: LoadOptions = {
    executionProviders: ['webgpu', 'wasm'],
    integrity: 'sha384-abc sha512-def',
    cache: 'no-cache',
    signal,
    debug: (line: string) => console.log(line),
    onProgress: ({ loaded, total, phase }) => console.log(phase, loaded, total),
    onWarning: ({ code }) => {
      const c: WarningCode = code;
      console.log(c);
    },
    persist: true,
    chunkSize: 1 << 20,
    forms: { bundle: 'jsep', probe: { inputDims: { input: [1, 256] } } },
    onEvent: (e) => {
      if (e.type === 'form-escalated') console.log(e.from, e.to, e.reason);
    },
  };
  const session: Session = await load('/models/det.onnx', options);
  const info: CacheInfo | null = session.info.cache;
  const warned: WarningCode[] = session.info.warnings;
  const read = info?.timings.readMs ?? 0;
  const check = info?.timings.checkMs ?? 0;
  const report: ModelReport = await inspect(new Uint8Array(8));
  const entries = await cache.list();
  const verified = entries
    .filter((e) => e.form !== 'original' && e.status === 'verified')
    .map((e) => (e.createMs ?? 0) / (e.originalCreateMs ?? 1));
  const ready = await session.formsReady;
  console.log(verified, ready.stored, session.info.form.chosen, session.info.form.level);
  const total = entries.reduce((n, e) => n + e.bytes, 0);
  const est = await cache.estimate();
  const deleted: boolean = await cache.delete('/models/det.onnx');
  await cache.clear();
  const persisted: boolean = await cache.persist();
  const out = await session.run({ input: { data: new Float32Array(4), dims: [1, 4] } });
  for (const t of Object.values(out)) console.log(t.dims);
  const only = await session.run({ input: new Float32Array(4) }, ['output']);
  console.log(only.output?.dims, session.inputMetadata.length, session.outputMetadata.length);
  await session.release();
  try {
    await load(new Uint8Array(0));
  } catch (e) {
    if (e instanceof OrtkeepError) {
      const code: ErrorCode = e.code;
      if (code === 'CACHE_UNAVAILABLE' || code === 'INVALID_SOURCE' || code === 'CORE_LOAD') console.log(e.offset);
    }
  }
  return (
    read + check + total + (est.quota ?? 0) + warned.length + report.totals.nodes + Number(deleted) + Number(persisted)
  );
}

// The flat option shape, and the drop-in entry (onnxruntime-web's types, ortkeep's sessions).
import * as ortk from 'ortkeep/onnxruntime-web';

export async function dropIn(bytes: ArrayBuffer): Promise<number> {
  const flat: LoadOptions = {
    graphOptimizationLevel: 'basic',
    freeDimensionOverrides: { batch: 1 },
    externalData: [{ path: 'w.bin', data: '/w.bin' }],
    cache: 'no-store',
  };
  const s1 = await load('/m.onnx', flat);
  const options: ortk.InferenceSession.SessionOptions = {
    executionProviders: ['wasm'],
    logSeverityLevel: 3,
    integrity: 'sha256-x',
  };
  const s2 = await ortk.InferenceSession.create(bytes, 0, bytes.byteLength, options);
  const out = await s2.run({ x: new ortk.Tensor('float32', [1], [1]) }, ['y'], { tag: 'demo' });
  const kept = await s1.run({ x: new Float32Array(1) }, { keep: ['y'], logSeverityLevel: 3 });
  s2.startProfiling();
  s2.endProfiling();
  const t: ortk.Tensor = out.y;
  console.log(s2.pool.stats().creates, kept.y.dims, t.dims, ortk.env.wasm.numThreads);
  await s2.release();
  return s2.inputNames.length;
}
