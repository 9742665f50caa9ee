// The one place the pool reads what the browser has: a WebGPU adapter,
// onnxruntime-web's GPUDevice, a WebNN context. These are facts; which
// device a pool uses is C's verdict on them (ok_pool_device_verdict).
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

/** onnxruntime-web's GPUDevice, if its WebGPU backend was initialised; never waits on an adapter that is not there. */
export async function ortGpuDevice(ort) {
  if (typeof navigator === 'undefined' || !navigator.gpu) return null;
  try {
    return await WebGpuDevice.fromOrt(ort);
  } catch {
    return null;
  }
}
