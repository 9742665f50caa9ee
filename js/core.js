// Loads the C core (Emscripten ES module + .wasm) once per realm and wraps its
// exported ABI (wasm/ortkeep_abi.c) in plain JS. Everything here moves bytes
// in and out of wasm memory; decisions stay in C.
import createOrtkeepCore from '../dist/ortkeep-core.mjs';
import { coreError, OrtkeepError } from './errors.js';
import { isNode, readFileUrl } from './platform/node.js';

let coreUrlOverride = null;
let corePromise = null;

/**
 * Where to fetch ortkeep-core.wasm from, for apps that host it elsewhere
 * (like onnxruntime-web's env.wasm.wasmPaths). Call before the first load().
 * @param {string|URL} url
 */
export function setCoreWasmUrl(url) {
  coreUrlOverride = new URL(String(url), globalThis.location?.href);
  corePromise = null;
}

function defaultCoreUrl() {
  // import.meta.url is the module's own URL in ESM; the script-tag bundle
  // sets the override from document.currentScript instead.
  return new URL('../dist/ortkeep-core.wasm', import.meta.url);
}

async function readCoreBytes(url) {
  if (isNode && url.protocol === 'file:') return readFileUrl(url);
  const response = await fetch(url);
  if (!response.ok) {
    throw new OrtkeepError('CORE_LOAD', `ortkeep: could not fetch ${url} (HTTP ${response.status}); serve ortkeep-core.wasm next to the bundle or call setCoreWasmUrl()`);
  }
  return new Uint8Array(await response.arrayBuffer());
}

/** @returns {Promise<Core>} the shared core instance */
export function getCore() {
  corePromise ??= (async () => {
    let url = coreUrlOverride;
    if (!url) {
      try {
        url = defaultCoreUrl();
      } catch (e) {
        throw new OrtkeepError('CORE_LOAD', 'ortkeep: cannot tell where ortkeep-core.wasm is served from here; call setCoreWasmUrl(url) before load()', { cause: e });
      }
    }
    let wasmBinary;
    try {
      wasmBinary = await readCoreBytes(url);
    } catch (e) {
      if (e instanceof OrtkeepError) throw e;
      throw new OrtkeepError('CORE_LOAD', `ortkeep: could not load the core from ${url}: ${e.message}`, { cause: e });
    }
    if (!(wasmBinary[0] === 0 && wasmBinary[1] === 0x61 && wasmBinary[2] === 0x73 && wasmBinary[3] === 0x6d)) {
      const html = /^\s*</.test(new TextDecoder().decode(wasmBinary.subarray(0, 64)));
      throw new OrtkeepError('CORE_LOAD', `ortkeep: ${url} is not ortkeep-core.wasm (${html ? 'an HTML page: a dev server\'s SPA fallback for a missing file' : `it starts with ${[...wasmBinary.subarray(0, 4)].map((b) => b.toString(16).padStart(2, '0')).join(' ')}`}). `
        + 'With Vite 5-7 add optimizeDeps: { exclude: [\'ortkeep\'] } to vite.config; or host node_modules/ortkeep/dist/ortkeep-core.wasm yourself and call setCoreWasmUrl(url) before load().');
    }
    let module;
    try {
      module = await createOrtkeepCore({ wasmBinary, print: () => {}, printErr: () => {} });
    } catch (e) {
      const csp = /Content Security Policy|unsafe-eval|Refused to compile/i.test(String(e?.message));
      throw new OrtkeepError('CORE_LOAD', `ortkeep: the core could not be instantiated: ${e?.message ?? e}${csp ? ". The page's Content-Security-Policy must allow 'wasm-unsafe-eval' in script-src (onnxruntime-web needs it too)" : ''}`, { cause: e });
    }
    return new Core(module);
  })();
  corePromise.catch(() => { corePromise = null; });
  return corePromise;
}

/** The wrapped ABI. One instance per realm; not thread-safe across workers. */
export class Core {
  constructor(m) {
    this.m = m;
  }

  /** Copies bytes into wasm memory; caller frees with this.free(ptr). */
  copyIn(bytes) {
    const ptr = this.m._malloc(Math.max(1, bytes.byteLength));
    if (!ptr) throw new OrtkeepError('NOMEM', `ortkeep: out of wasm memory copying ${bytes.byteLength} bytes`);
    this.m.HEAPU8.set(bytes, ptr);
    return ptr;
  }

  free(ptr) {
    if (ptr) this.m._free(ptr);
  }

  lastError() {
    const m = this.m;
    return coreError(m._ok_abi_last_error_code(), m.UTF8ToString(m._ok_abi_last_error_message()), Number(m._ok_abi_last_error_offset()));
  }

  /**
   * Reads an ONNX model with the C reader: its report (the JSON text), with
   * the SHA-256 of the bytes. Throws an OrtkeepError with the byte offset on
   * a malformed model.
   * @param {Uint8Array} bytes
   * @param {string} [sha256Hex] the content hash when already known (a load
   *   hashed the bytes as they arrived), so they are not hashed again
   * @returns {string}
   */
  inspectJson(bytes, sha256Hex) {
    const m = this.m;
    const ptr = this.copyIn(bytes);
    const hexPtr = sha256Hex ? this.copyIn(new TextEncoder().encode(`${sha256Hex}\0`)) : 0;
    try {
      const jsonPtr = m._ok_abi_inspect(ptr, bytes.byteLength, hexPtr);
      if (!jsonPtr) throw this.lastError();
      try {
        return m.UTF8ToString(jsonPtr);
      } finally {
        m._free(jsonPtr);
      }
    } finally {
      m._free(ptr);
      this.free(hexPtr);
    }
  }

  /** inspectJson(), parsed. */
  inspect(bytes, sha256Hex) {
    return JSON.parse(this.inspectJson(bytes, sha256Hex));
  }

  /**
   * Reads an ORT-format model (an .ort form) with the C reader
   * (wasm/ort_format.c): {format: 'ort', formatVersion, irVersion, producerName, graph}.
   * Throws a typed error (NOT_ONNX, TRUNCATED, ...) for anything else.
   */
  inspectOrt(bytes) {
    const m = this.m;
    const ptr = this.copyIn(bytes);
    try {
      const jsonPtr = m._ok_abi_inspect_ort(ptr, bytes.byteLength);
      if (!jsonPtr) throw this.lastError();
      try {
        return JSON.parse(m.UTF8ToString(jsonPtr));
      } finally {
        m._free(jsonPtr);
      }
    } finally {
      m._free(ptr);
    }
  }
}
