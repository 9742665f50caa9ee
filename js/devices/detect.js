// Whether a pool device can exist on this machine, asked before the session
// is created (onnxruntime-web says nothing about which provider it fell back to).
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
      try { return !!(await globalThis.navigator?.gpu?.requestAdapter?.()); } catch { return false; }
    })();
    return adapterAnswer;
  }
  if (device === 'webnn') {
    const ep = executionProviders?.find?.((e) => e?.name === 'webnn');
    return !!(ep?.context ?? globalThis.navigator?.ml);
  }
  return true;
}
