// The demo's measurements: a load through ortkeep (with its phases and the
// requests it sent), the same model loaded by plain onnxruntime-web, and
// runs with the tensor pool against plain session.run, counting the
// GPUBuffers each makes (on WebGPU) by wrapping GPUDevice.createBuffer.
import { load } from '/js/index.js';

const modelRequests = () => performance.getEntriesByType('resource').filter((e) => /\.onnx(\?|$)/.test(e.name)).length;

/** The GPUBuffers created so far on any GPUDevice of this page. */
export const gpu = { created: 0 };
if (globalThis.GPUDevice) {
  const create = GPUDevice.prototype.createBuffer;
  GPUDevice.prototype.createBuffer = function createBuffer(...args) {
    gpu.created++;
    return create.apply(this, args);
  };
}

/** Whether this browser gives a WebGPU adapter (SwiftShader counts). */
export async function hasWebGpu() {
  try {
    return !!(await navigator.gpu?.requestAdapter());
  } catch {
    return false;
  }
}

/** One ortkeep load, timed: tier, phases (ms), requests for the model. */
export async function ortkeepLoad(ort, url, label, onProgress, options = {}) {
  const before = modelRequests();
  const t0 = performance.now();
  const session = await load(url, { ort, memory: false, onProgress, ...options });
  const ms = performance.now() - t0;
  const { cache, timings, warnings } = session.info;
  const phases = {
    'start runtime': timings.runtimeMs ?? 0,
    'look up cache': timings.lookupMs ?? 0,
    download: (timings.downloadMs ?? 0) + (timings.waitMs ?? 0),
    'store / read cache': (timings.storeMs ?? 0) + (timings.readMs ?? 0),
    verify: timings.validateMs ?? 0,
    'create session': timings.createMs ?? 0,
  };
  const { form } = session.info;
  return {
    session,
    row: {
      label,
      tier: cache?.tier ?? 'network',
      form: `${form.form}${form.level ? ` @ ${form.level}` : ''} (${form.chosen})`,
      ms,
      phases,
      requests: modelRequests() - before,
      stored: cache?.stored,
      verified: cache?.verified,
      warnings,
    },
  };
}

/** The same model as plain onnxruntime-web loads it: fetch, then create. */
export async function plainLoad(ort, url, executionProviders, label = 'plain onnxruntime-web') {
  const before = modelRequests();
  const t0 = performance.now();
  const bytes = new Uint8Array(await (await fetch(url, { cache: 'no-store' })).arrayBuffer());
  const t1 = performance.now();
  const session = await ort.InferenceSession.create(bytes, { executionProviders });
  const t2 = performance.now();
  return {
    session,
    row: {
      label,
      tier: 'network',
      form: 'original @ all',
      ms: t2 - t0,
      phases: { download: t1 - t0, 'create session': t2 - t1 },
      requests: modelRequests() - before,
      stored: false,
      verified: false,
    },
  };
}

/**
 * Runs `step(k)` `runs` times after a warm-up; ms and GPUBuffers per run.
 * @param {(k: number) => Promise<unknown>} step
 */
export async function perRun(step, runs = 40, warmup = 4) {
  for (let k = 0; k < warmup; k++) await step(k);
  const c0 = gpu.created;
  const t0 = performance.now();
  for (let k = 0; k < runs; k++) await step(warmup + k);
  return { ms: (performance.now() - t0) / runs, buffers: (gpu.created - c0) / runs };
}
