// Which of onnxruntime-web's Emscripten loaders an entry of it imports: the
// capturing loader put in its place must be the same flavour, or the
// entry's own backend breaks (the JSEP loader under /webgpu 1.23+, which
// runs the native WebGPU EP, has no webgpuInit: every WebGPU session fails).

/** 1.23 (onnxruntime PR #24856) moved /webgpu from JSEP to the native WebGPU EP, whose loader is the .asyncify one. */
function nativeWebgpu(version) {
  const [major, minor] = String(version ?? '')
    .split(/[.-]/)
    .map(Number);
  return major > 1 || (major === 1 && minor >= 23);
}

/**
 * forms.bundle for an onnxruntime-web entry at a version.
 * @param {'default'|'all'|'webgpu'|'wasm'|'jspi'|'webgl'} entry
 * @param {string} version onnxruntime-web's env.versions.web
 * @returns {'jsep'|'asyncify'|'wasm'|'jspi'}
 */
export function bundleForEntry(entry, version) {
  if (entry === 'wasm' || entry === 'webgl') return 'wasm';
  if (entry === 'jspi') return 'jspi';
  if (entry === 'webgpu') return nativeWebgpu(version) ? 'asyncify' : 'jsep';
  return 'jsep';
}

/** The entry a script tag's file name is (ort.min.js, ort.webgpu.min.js, ort.wasm.bundle.min.mjs, …). */
export function entryOfScript(url) {
  const name = String(url ?? '')
    .split(/[?#]/)[0]
    .split('/')
    .pop();
  const m = /^ort\.(all|webgpu|wasm|jspi|webgl)\./.exec(name ?? '');
  return m ? m[1] : 'default';
}
