// A static file server on 127.0.0.1 for tests, the demo and the benchmark.
// It serves the repository root with the MIME types browsers insist on
// (application/wasm), counts requests per path so tests can assert "no
// network byte", and lets a test intercept requests (to cut a connection,
// change an ETag, ...) through `handler`.
import { createServer } from 'node:http';
import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const MIME = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript',
  '.json': 'application/json', '.wasm': 'application/wasm', '.css': 'text/css',
  '.onnx': 'application/octet-stream', '.ort': 'application/octet-stream', '.map': 'application/json',
};

/**
 * @param {{root?: string, port?: number, handler?: (req, res, ctx) => boolean|Promise<boolean>}} [options]
 *   handler returns true when it answered the request itself.
 */
export async function startServer({ root = REPO_ROOT, port = 0, handler } = {}) {
  const counts = new Map();
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    const pathname = decodeURIComponent(url.pathname);
    counts.set(pathname, (counts.get(pathname) ?? 0) + 1);
    try {
      if (handler && (await handler(req, res, { pathname, url, serveFile, serveBytes }))) return;
      await serveFile(req, res, pathname);
    } catch (e) {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(e));
    }
  });

  async function serveFile(req, res, pathname, extraHeaders = {}) {
    const file = path.join(root, path.normalize(pathname));
    if (!file.startsWith(root)) { res.writeHead(403).end(); return; }
    let info;
    try {
      info = await stat(file);
      if (info.isDirectory()) return serveFile(req, res, path.join(pathname, 'index.html'), extraHeaders);
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    const { cutAt, ...headers } = extraHeaders;
    sendRange(req, res, {
      size: info.size,
      type: MIME[path.extname(file)] ?? 'application/octet-stream',
      etag: `"${info.size.toString(16)}-${Math.floor(info.mtimeMs).toString(16)}"`,
      lastModified: new Date(Math.floor(info.mtimeMs / 1000) * 1000).toUTCString(),
      headers,
      cutAt,
      open: (start, end) => createReadStream(file, { start, end: end - 1 }),
    });
  }

  /**
   * Serves `bytes` with the same validator/Range logic as files. Tests use
   * it to change a model (bytes + etag) or, with `cutAt`, to drop the
   * connection after that many body bytes.
   */
  function serveBytes(req, res, bytes, { etag, lastModified, type = 'application/octet-stream', cutAt, headers = {} } = {}) {
    sendRange(req, res, {
      size: bytes.length, type, etag, lastModified, headers, cutAt,
      open: (start, end) => Readable.from([Buffer.from(bytes.subarray(start, end))]),
    });
  }

  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const origin = `http://127.0.0.1:${server.address().port}`;
  return {
    origin,
    counts,
    /** Requests seen for a path since the server started (or reset). */
    count: (p) => counts.get(p) ?? 0,
    resetCounts: () => counts.clear(),
    close: () => new Promise((resolve) => { server.closeAllConnections?.(); server.close(() => resolve()); }),
  };
}

/**
 * One response with HTTP validators: ETag/Last-Modified, If-None-Match /
 * If-Modified-Since → 304, Range (bytes=N- or N-M) → 206 unless If-Range
 * names another version (then 200 with everything). cutAt: destroy the
 * socket after that many body bytes (a network cut).
 */
function sendRange(req, res, { size, type, etag, lastModified, headers = {}, cutAt, open }) {
  const h = { 'content-type': type, 'cache-control': 'no-cache', 'accept-ranges': 'bytes', ...headers };
  if (etag) h.etag = etag;
  if (lastModified) h['last-modified'] = lastModified;
  const inm = req.headers['if-none-match'];
  const ims = req.headers['if-modified-since'];
  if ((inm && etag && inm === etag) || (!inm && ims && lastModified && ims === lastModified)) {
    res.writeHead(304, h).end();
    return;
  }
  let start = 0;
  let end = size;
  let status = 200;
  const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
  const ifRange = req.headers['if-range'];
  if (range && (!ifRange || ifRange === etag || ifRange === lastModified)) {
    start = Number(range[1]);
    end = range[2] ? Math.min(size, Number(range[2]) + 1) : size;
    if (start >= size || start >= end) {
      res.writeHead(416, { 'content-range': `bytes */${size}` }).end();
      return;
    }
    status = 206;
    h['content-range'] = `bytes ${start}-${end - 1}/${size}`;
  }
  h['content-length'] = end - start;
  res.writeHead(status, h);
  if (req.method === 'HEAD') { res.end(); return; }
  const body = open(start, end);
  if (cutAt === undefined || cutAt >= end - start) { body.pipe(res); return; }
  let sent = 0;
  body.on('data', (chunk) => {
    if (sent + chunk.length >= cutAt) {
      res.write(chunk.subarray(0, cutAt - sent), () => setTimeout(() => res.socket?.destroy(), 20));
      sent = cutAt;
      body.destroy();
      return;
    }
    sent += chunk.length;
    res.write(chunk);
  });
}
