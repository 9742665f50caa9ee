// Which pool device a session uses, and what onnxruntime-web is told for it.
//
// No preferredOutputLocation: with one, onnxruntime-web 1.30 runs through an
// IO binding whose "bound" flag is reset only by a run that succeeds, so
// after any failed run every later run reuses the failed run's bindings (its
// inputs, its preallocated outputs) instead of the new feeds: wrong results,
// failures, hangs. The pool keeps outputs on the device by preallocating them
// (C plans which); what onnxruntime allocates itself comes back on the CPU.
import { BACKEND, deviceVerdict } from './pool-core.js';

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
 * The session options onnxruntime-web gets for a pooled session: the
 * caller's, as they are (see above for why no preferredOutputLocation).
 * @param {{pool?: object}} _options load() options
 * @param {object} sessionOptions onnxruntime-web session options
 */
export function poolSessionOptions(_options, sessionOptions) {
  return sessionOptions;
}

/** Whether the caller bound outputs to a device themselves (onnxruntime-web then runs through an IO binding). */
export function boundToDevice(sessionOptions) {
  const loc = sessionOptions?.preferredOutputLocation;
  const device = (l) => l === 'gpu-buffer' || l === 'ml-tensor' || l === 'ml-tensor-cpu-output';
  return typeof loc === 'string' ? device(loc) : !!loc && Object.values(loc).some(device);
}

/**
 * Whether the pool runs on the CPU though `wanted` (webgpu, webnn) was asked
 * for: C's verdict on whether the device is `available` (js/devices/detect.js
 * read the browser), whether the caller named it, and the provider list.
 */
export function poolFallsBackToCpu(core, wanted, poolOptions, executionProviders, available) {
  const facts = {
    wanted: BACKEND[wanted] ?? -1,
    available,
    chosenByCaller: !!poolOptions?.device,
    cpuFallback: hasCpuFallback(executionProviders),
  };
  return deviceVerdict(core, facts) === BACKEND.cpu;
}

/** Whether the execution provider list ends in a CPU provider onnxruntime falls back to. */
export function hasCpuFallback(eps) {
  return (eps ?? []).slice(1).some((ep) => ['wasm', 'cpu'].includes(typeof ep === 'string' ? ep : ep?.name));
}
