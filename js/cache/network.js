// The network tier's hands: one request as the load machine's FETCH asks
// (a bare `Range` -- CORS-safelisted, so a CDN that refuses preflights still
// answers it -- or conditional headers), the response headers as script can
// see them, and a body reader. In Node, file: URLs are read from disk with
// the same interface. Nothing here decides what a response means.
import { ACTION_FLAG, RESP_TYPE } from '../core-constants.js';
import { fileResponse, isNode } from '../platform/node.js';

/**
 * @param {string} url
 * @param {{flags: number, from: number, ifNoneMatch?: string, ifModifiedSince?: string}} req
 * @param {{signal?: AbortSignal, fetch?: typeof fetch}} o
 * @returns {Promise<{status: number, type: number, headers: object, body: BodyReader}>}
 *   rejects when the request fails before any response (offline, CORS)
 */
export async function request(url, req, { signal, fetch: fetchImpl = globalThis.fetch } = {}) {
  if (url.startsWith('file:') && isNode) return fileResponse(url, signal);
  const headers = {};
  if (req.flags & ACTION_FLAG.FETCH_RANGE) headers.Range = `bytes=${req.from}-`;
  if (req.flags & ACTION_FLAG.FETCH_CONDITIONAL) {
    if (req.ifNoneMatch) headers['If-None-Match'] = req.ifNoneMatch;
    if (req.ifModifiedSince) headers['If-Modified-Since'] = req.ifModifiedSince;
  }
  // no-store: the model cache is the cache; storing 40 MB twice helps
  // nobody, and a conditional request must reach the server
  const response = await fetchImpl(url, { signal, headers, cache: 'no-store' });
  const h = response.headers;
  return {
    status: response.status,
    type:
      response.type === 'basic' || response.type === 'default'
        ? RESP_TYPE.BASIC
        : response.type === 'cors'
          ? RESP_TYPE.CORS
          : RESP_TYPE.OTHER,
    headers: {
      contentLength: h.get('content-length'),
      contentEncoding: h.get('content-encoding'),
      contentRange: h.get('content-range'),
      contentType: h.get('content-type'),
      etag: h.get('etag'),
      lastModified: h.get('last-modified'),
    },
    body: new BodyReader(response),
  };
}

/** Reads a response body piece by piece; cancel() stops it. */
export class BodyReader {
  constructor(response) {
    this.response = response;
    this.reader = null;
  }

  /** @returns {Promise<Uint8Array|null>} the next piece, null at the end; throws when it breaks */
  async next() {
    if (!this.response.body) {
      // no stream (old engines): all at once
      if (this.whole) return null;
      this.whole = true;
      return new Uint8Array(await this.response.arrayBuffer());
    }
    this.reader ??= this.response.body.getReader();
    const { done, value } = await this.reader.read();
    return done ? null : value;
  }

  async cancel() {
    try {
      if (this.reader) await this.reader.cancel();
      else await this.response.body?.cancel();
    } catch {
      /* already closed */
    }
  }
}
