// What a caller may pass to load(), as the load machine takes it: a URL
// (resolved against the page; in Node a path or a file: URL), or bytes in
// memory (Uint8Array, ArrayBuffer, any view, Blob). Which URLs may be cached
// and which are refused is the machine's decision, not this file's.
import { CACHE_MODE } from './core-constants.js';
import { OrtkeepError } from './errors.js';
import { isNode, pathToUrl } from './platform/node.js';

const SCHEME = /^[a-zA-Z][a-zA-Z0-9+.-]*:/;
const WINDOWS_DRIVE = /^[a-zA-Z]:[\\/]/;

/**
 * @param {string|URL|Uint8Array|ArrayBuffer|SharedArrayBuffer|ArrayBufferView|Blob} source
 * @returns {Promise<{kind: 'url', raw: string, url: string, pageUrl: string|null}
 *                  |{kind: 'bytes', bytes: Uint8Array}>}
 */
export async function normalizeSource(source) {
  if (typeof source === 'string' || source instanceof URL) {
    const raw = String(source);
    const base = globalThis.location?.href;
    if (isNode && !base && (!SCHEME.test(raw) || WINDOWS_DRIVE.test(raw))) {
      // Node, like onnxruntime-node and fs: a path, relative to the cwd
      return { kind: 'url', raw, url: await pathToUrl(raw), pageUrl: null };
    }
    let url;
    try {
      url = new URL(raw, base).href;
    } catch (e) {
      throw new OrtkeepError(
        'INVALID_SOURCE',
        `ortkeep: '${raw}' is not a URL${base ? '' : ' (outside a page, pass an absolute URL)'}`,
        { cause: e },
      );
    }
    return { kind: 'url', raw, url, pageUrl: base ?? null };
  }
  if (source instanceof Uint8Array) return { kind: 'bytes', bytes: source };
  if (source instanceof ArrayBuffer) return { kind: 'bytes', bytes: new Uint8Array(source) };
  // as onnxruntime-web takes it (a cross-origin-isolated page's memory)
  if (typeof SharedArrayBuffer !== 'undefined' && source instanceof SharedArrayBuffer)
    return { kind: 'bytes', bytes: new Uint8Array(source) };
  if (ArrayBuffer.isView(source))
    return { kind: 'bytes', bytes: new Uint8Array(source.buffer, source.byteOffset, source.byteLength) };
  if (typeof Blob !== 'undefined' && source instanceof Blob)
    return { kind: 'bytes', bytes: new Uint8Array(await source.arrayBuffer()) };
  throw new OrtkeepError(
    'INVALID_SOURCE',
    `ortkeep: load() takes a URL, a path (Node), a Uint8Array, an ArrayBuffer (shared or not) or a Blob, not ${Object.prototype.toString.call(source)}`,
  );
}

/**
 * Whether bytes may keep forms under their content: the core's rule
 * (ok_load_bytes_content_keyed: cache 'default', forms on, no integrity),
 * asked before IndexedDB is opened. load() takes a glance at such bytes;
 * loadFresh() opens IndexedDB for them; every other bytes load does neither.
 * `flags`: LOAD_FLAG.DATA_UNNAMED where data files beside them cannot be named.
 * @param {{m: object}} core
 */
export function bytesKeepForms(core, options, flags = 0) {
  const mode = CACHE_MODE[options.cache ?? 'default'];
  if (mode === undefined) return false; // refused with INVALID_ARG by the load itself
  return !!core.m._ok_load_bytes_content_keyed(options.integrity ? 1 : 0, options.forms !== false ? 1 : 0, mode, flags);
}

// where it lived before js/util/sha256.js (forms import it from here)
export { sha256Hex } from './util/sha256.js';
