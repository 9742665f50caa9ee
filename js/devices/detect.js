// The one place the pool reads what the browser has: a WebGPU adapter,
// onnxruntime-web's GPUDevice, a WebNN context. These are facts; which
// device a pool uses is C's verdict on them (ok_pool_device_verdict).
import { POOL_ADAPTER } from '../core-constants.js';
import { WebGpuDevice } from './webgpu.js';

/**
 * Whether the device the first execution provider names can exist here:
 * a WebGPU adapter, a WebNN context. With a fallback list and no such device
 * onnxruntime-web runs the session on wasm, where a device output location
 * makes every run fail; load() asks before creating the session. The
 * adapter answer is kept for the page.
 */
let adapterAnswer = null;
export async function deviceAvailable(device, executionProviders) {
  if (device === 'webgpu') {
    adapterAnswer ??= (async () => {
      try {
        return !!(await globalThis.navigator?.gpu?.requestAdapter?.());
      } catch {
        return false;
      }
    })();
    return adapterAnswer;
  }
  if (device === 'webnn') {
    const ep = executionProviders?.find?.((e) => e?.name === 'webnn');
    return !!(ep?.context ?? globalThis.navigator?.ml);
  }
  return true;
}

/**
 * Whether the GPU a WebGPU pool runs on is a software one (SwiftShader: a
 * "fallback adapter") or hardware, as the browser reports it
 * (GPUAdapterInfo.isFallbackAdapter, on the device or on onnxruntime-web's
 * adapter); UNKNOWN where it says neither. C decides what follows
 * (ok_pool_placement_adapter).
 * @param {object} ort onnxruntime-web
 * @param {GPUDevice} [device] the device the pool runs on
 * @returns {Promise<number>} a POOL_ADAPTER value
 */
export async function adapterKind(ort, device) {
  let fallback = device?.adapterInfo?.isFallbackAdapter;
  if (typeof fallback !== 'boolean') {
    try {
      const adapter = await ort.env?.webgpu?.adapter;
      // GPUAdapterInfo's in current browsers; the adapter's own in older ones
      fallback = adapter?.info?.isFallbackAdapter ?? adapter?.isFallbackAdapter;
    } catch {
      fallback = undefined;
    }
  }
  if (typeof fallback !== 'boolean') return POOL_ADAPTER.UNKNOWN;
  return fallback ? POOL_ADAPTER.FALLBACK : POOL_ADAPTER.HARDWARE;
}

/** onnxruntime-web's GPUDevice, if its WebGPU backend was initialised; never waits on an adapter that is not there. */
export async function ortGpuDevice(ort) {
  if (typeof navigator === 'undefined' || !navigator.gpu) return null;
  try {
    return await WebGpuDevice.fromOrt(ort);
  } catch {
    return null;
  }
}
