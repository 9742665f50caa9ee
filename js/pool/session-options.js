// Which pool device a session uses, and what onnxruntime-web must be told
// for it: outputs with a declared shape stay on the device
// (preferredOutputLocation) so the pool pins, adopts and reads them itself;
// value-dependent ones (an unknown dim: NonZero counts, box lists) come back
// on the CPU, where onnxruntime computes most of them anyway (and where its
// zero-size device-output download fails). C decides which is which.

/**
 * options.pool.device, else the first execution provider ('webgpu' →
 * webgpu, 'webnn' → webnn), else cpu.
 */
export function poolDeviceName(poolOptions, executionProviders) {
  if (poolOptions?.device) return poolOptions.device;
  const first = executionProviders?.[0];
  const name = typeof first === 'string' ? first : first?.name;
  return name === 'webgpu' || name === 'webnn' ? name : 'cpu';
}

/**
 * @param {{pool?: object}} options load() options
 * @param {object} sessionOptions onnxruntime-web session options
 * @param {{outputs?: {name: string}[]}|null} [report] the reader's report
 * @param {boolean[]} [onDevice] per report output: it has a declared shape (js/pool/shapes.js deviceOutputs)
 */
export function poolSessionOptions(options, sessionOptions, report = null, onDevice = []) {
  const device = poolDeviceName(options.pool, sessionOptions.executionProviders);
  if (device === 'cpu' || sessionOptions.preferredOutputLocation) return sessionOptions;
  const location = device === 'webgpu' ? 'gpu-buffer' : 'ml-tensor';
  if (!report?.outputs?.length) return { ...sessionOptions, preferredOutputLocation: location };
  return {
    ...sessionOptions,
    preferredOutputLocation: Object.fromEntries(report.outputs.map((o, j) => [o.name, onDevice[j] ? location : 'cpu'])),
  };
}

/** Whether the execution provider list ends in a CPU provider onnxruntime falls back to. */
export function hasCpuFallback(eps) {
  return (eps ?? []).slice(1).some((ep) => ['wasm', 'cpu'].includes(typeof ep === 'string' ? ep : ep?.name));
}
