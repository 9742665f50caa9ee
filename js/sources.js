// Turns what a caller passes to load() (URL, Uint8Array, ArrayBuffer, Blob)
// into the model's bytes. A URL is streamed with progress events into one
// preallocated buffer when the server sends Content-Length, so peak memory
// stays near one model size.
import { OrtkeepError } from './errors.js';
import { abortError, request } from './cache/network.js';

/**
 * @param {string|URL|Uint8Array|ArrayBuffer|Blob} source
 * @param {{signal?: AbortSignal, onProgress?: (p: {loaded: number, total: number, phase: string}) => void, fetch?: typeof fetch}} options
 * @returns {Promise<{bytes: Uint8Array, url: string|null}>}
 */
export async function readSource(source, options = {}) {
  if (source instanceof Uint8Array) return { bytes: source, url: null };
  if (source instanceof ArrayBuffer) return { bytes: new Uint8Array(source), url: null };
  if (ArrayBuffer.isView(source)) {
    return { bytes: new Uint8Array(source.buffer, source.byteOffset, source.byteLength), url: null };
  }
  if (typeof Blob !== 'undefined' && source instanceof Blob) {
    return { bytes: new Uint8Array(await source.arrayBuffer()), url: null };
  }
  if (typeof source === 'string' || source instanceof URL) {
    const url = new URL(String(source), globalThis.location?.href).href;
    return { bytes: await fetchBytes(url, options), url };
  }
  throw new OrtkeepError('INVALID_SOURCE', `ortkeep: load() takes a URL, Uint8Array, ArrayBuffer or Blob, not ${Object.prototype.toString.call(source)}`);
}

async function fetchBytes(url, { signal, onProgress, fetch } = {}) {
  // network.js makes the request and types its failures (NETWORK, ABORTED);
  // its `total` is the Content-Length only when it is the identity encoding.
  const res = await request(url, { signal, fetch });
  const total = res.total ?? 0;
  const report = (loaded) => onProgress?.({ loaded, total, phase: 'download' });
  if (!res.body) {
    const bytes = new Uint8Array(await res.response.arrayBuffer());
    report(bytes.byteLength);
    return bytes;
  }
  const reader = res.body.getReader();
  let buffer = total ? new Uint8Array(total) : null;
  const parts = [];
  let loaded = 0;
  report(0);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (buffer && loaded + value.byteLength <= buffer.byteLength) {
        buffer.set(value, loaded);
      } else {
        if (buffer) { parts.push(buffer.subarray(0, loaded)); buffer = null; }
        parts.push(value);
      }
      loaded += value.byteLength;
      report(loaded);
    }
  } catch (e) {
    if (signal?.aborted) throw abortError(signal, e);
    throw new OrtkeepError('NETWORK', `ortkeep: download of ${url} broke off after ${loaded} bytes: ${e.message}`, { cause: e });
  }
  if (buffer) {
    if (loaded !== buffer.byteLength) {
      throw new OrtkeepError('NETWORK', `ortkeep: download of ${url} ended at ${loaded} of ${total} bytes; the connection was cut`);
    }
    return buffer;
  }
  const bytes = new Uint8Array(loaded);
  let at = 0;
  for (const p of parts) { bytes.set(p, at); at += p.byteLength; }
  return bytes;
}

