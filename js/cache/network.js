// The network tier: one HTTP request, its validators and size, and a body
// reader. Requests bypass the browser's HTTP cache (the model cache is the
// cache; storing 40 MB twice helps nobody). Range requests carry If-Range
// so a changed model answers 200 with the new bytes instead of a torn mix.
import { OrtkeepError } from '../errors.js';

/**
 * @param {string} url
 * @param {{from?: number, ifRange?: string|null, conditional?: {etag?: string, lastModified?: string}|null,
 *          signal?: AbortSignal, fetch?: typeof fetch}} o
 * @returns {Promise<{status: number, start: number, total: number|null, etag: string|null,
 *          lastModified: string|null, body: ReadableStream|null, response: Response}>}
 */
export async function request(url, { from = 0, ifRange = null, conditional = null, signal, fetch: fetchImpl = globalThis.fetch } = {}) {
  const headers = {};
  if (from > 0) {
    headers.Range = `bytes=${from}-`;
    if (ifRange) headers['If-Range'] = ifRange;
  }
  if (conditional?.etag) headers['If-None-Match'] = conditional.etag;
  if (conditional?.lastModified) headers['If-Modified-Since'] = conditional.lastModified;
  let response;
  try {
    response = await fetchImpl(url, { signal, headers, cache: 'no-store' });
  } catch (e) {
    if (signal?.aborted) throw abortError(signal, e);
    throw new OrtkeepError('NETWORK', `ortkeep: fetching ${url} failed: ${e.message}; check the URL and the network`, { cause: e });
  }
  const h = response.headers;
  const out = {
    status: response.status, start: 0, total: null, response, body: response.body,
    etag: h.get('etag'), lastModified: h.get('last-modified'),
  };
  if (response.status === 304) return out;
  if (response.status === 206) {
    const m = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(h.get('content-range') ?? '');
    if (!m) {
      await cancel(out);
      throw new OrtkeepError('NETWORK', `ortkeep: ${url} answered 206 without a usable Content-Range`);
    }
    out.start = Number(m[1]);
    out.total = Number(m[3]);
    return out;
  }
  if (!response.ok) {
    await cancel(out);
    throw new OrtkeepError('NETWORK', `ortkeep: fetching ${url} returned HTTP ${response.status}; check the URL`);
  }
  const length = Number(h.get('content-length'));
  // A compressed response reports the compressed length: size unknown.
  if (length > 0 && !h.get('content-encoding')) out.total = length;
  return out;
}

export async function cancel(res) {
  try { await res?.body?.cancel(); } catch { /* already closed */ }
}

/**
 * Streams res.body into `buffer` from byte res.start on, calling
 * `onBytes(endOffset)` (awaited, so storage applies back-pressure) after
 * each piece. Throws NETWORK when the body breaks off or overruns.
 */
export async function streamInto(res, buffer, onBytes, { url, signal }) {
  let pos = res.start;
  if (!res.body) {
    const all = new Uint8Array(await res.response.arrayBuffer());
    if (pos + all.byteLength > buffer.byteLength) throw overrun(url);
    buffer.set(all, pos);
    pos += all.byteLength;
    await onBytes(pos);
    return pos;
  }
  const reader = res.body.getReader();
  try {
    for (;;) {
      let step;
      try {
        step = await reader.read();
      } catch (e) {
        if (signal?.aborted) throw abortError(signal, e);
        throw new OrtkeepError('NETWORK', `ortkeep: download of ${url} broke off after ${pos} bytes: ${e.message}`, { cause: e, details: { loaded: pos } });
      }
      if (step.done) break;
      const v = step.value;
      if (pos + v.byteLength > buffer.byteLength) throw overrun(url);
      buffer.set(v, pos);
      pos += v.byteLength;
      await onBytes(pos);
    }
  } finally {
    reader.releaseLock?.();
  }
  if (pos !== buffer.byteLength) {
    throw new OrtkeepError('NETWORK', `ortkeep: download of ${url} ended at ${pos} of ${buffer.byteLength} bytes; the connection was cut`, { details: { loaded: pos } });
  }
  return pos;
}

function overrun(url) {
  return new OrtkeepError('NETWORK', `ortkeep: ${url} sent more bytes than its Content-Length; the server is misbehaving`);
}

export function abortError(signal, cause) {
  return new OrtkeepError('ABORTED', `ortkeep: load aborted${signal?.reason ? `: ${signal.reason}` : ''}`, { cause });
}
