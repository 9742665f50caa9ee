// A static file server on 127.0.0.1 for tests, the demo and the benchmark,
// able to misbehave the way real servers do. It serves the repository root
// with the MIME types browsers insist on (application/wasm), counts requests
// per path so tests can assert "no network byte", and lets a test answer a
// request itself through `handler` with serveBytes(), whose options make the
// response look like what users meet:
//   chunked        no Content-Length (Node's res.pipe default)
//   encoding       'gzip' | 'br' | 'deflate', compressed as it streams (vite
//                  preview gzips .onnx); keepLength: Content-Length of the
//                  compressed body
//   cutAt          drop the connection after this many body bytes
//   shortBy        end cleanly this many bytes before Content-Length
//   status         an error status with a small text body
//   html           the SPA fallback: 200 text/html index page instead
//   range206From0  answer any Range (or none) with 206 from byte 0
//   ignoreRange    answer a Range with 200 and the whole body
//   bytesPerSec    throttle the body (a slow link)
//   latencyMs      answer this late (a link's round trip)
//   holdAt, until  stop after holdAt body bytes until the promise `until`
//                  settles (a download the test keeps under way; with cutAt
//                  at the same count, a cut once the client has the bytes)
// `files(pathname)` gives the same options for plain files, so a whole test
// file can run against a server that, say, gzips every .onnx like vite
// preview (PROFILES below). `server.link = {bytesPerSec, latencyMs}` puts
// every file served after it on such a link until set back to null (the
// benches' throttled rows: paced here, a 44 MB body at 50 Mbit/s varies by
// ~1 s a sample under CDP's throttle).
// A server can also be a CORS-only CDN on its own origin (`cors`): it adds
// Access-Control-Allow-Origin: * to everything, exposes no header, and (with
// refusePreflight) answers OPTIONS with 405, as plain CDNs and object stores
// configured for simple GETs do.
import { createServer } from 'node:http';
import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.css': 'text/css',
  '.onnx': 'application/octet-stream',
  '.ort': 'application/octet-stream',
  '.map': 'application/json',
};

const SPA_PAGE =
  '<!doctype html><html><head><meta charset="utf-8"><title>App</title></head><body><div id="root"></div><script type="module" src="/assets/index.js"></script></body></html>\n';

/**
 * @param {{root?: string, port?: number, handler?: (req, res, ctx) => boolean|Promise<boolean>,
 *          cors?: {refusePreflight?: boolean}}} [options]
 *   handler returns true when it answered the request itself.
 */
/** serveFile options per pathname, as servers users meet answer model files. */
export const PROFILES = {
  /** vite preview: .onnx gzipped as it streams (no Content-Length, no ranges), weak ETag */
  vitePreview: (pathname) => (pathname.endsWith('.onnx') ? { encoding: 'gzip', weakEtag: true } : {}),
  /** Node's res.pipe: every file chunked, no Content-Length */
  nodePipe: () => ({ chunked: true }),
};

export async function startServer({ root = REPO_ROOT, port = 0, handler, cors, files } = {}) {
  const counts = new Map();
  const log = [];
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    const pathname = decodeURIComponent(url.pathname);
    log.push({
      method: req.method,
      pathname,
      range: req.headers.range ?? null,
      ifRange: req.headers['if-range'] ?? null,
      ifNoneMatch: req.headers['if-none-match'] ?? null,
      ifModifiedSince: req.headers['if-modified-since'] ?? null,
      origin: req.headers.origin ?? null,
    });
    if (cors) {
      res.setHeader('Access-Control-Allow-Origin', '*');
      if (req.method === 'OPTIONS') {
        if (cors.refusePreflight) {
          res.writeHead(405, { 'content-type': 'text/plain' }).end('no preflights here');
          return;
        }
        res.writeHead(204, { 'access-control-allow-headers': '*', 'access-control-allow-methods': 'GET' }).end();
        return;
      }
    }
    if (req.method !== 'OPTIONS') counts.set(pathname, (counts.get(pathname) ?? 0) + 1);
    try {
      if (handler && (await handler(req, res, { pathname, url, serveFile, serveBytes }))) return;
      if (api.link) api.linked++;
      await serveFile(req, res, pathname, { ...api.link, ...files?.(pathname) });
    } catch (e) {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(e));
    }
  });

  async function serveFile(req, res, pathname, options = {}) {
    const file = path.join(root, path.normalize(pathname));
    if (!file.startsWith(root)) {
      res.writeHead(403).end();
      return;
    }
    let info;
    try {
      info = await stat(file);
      if (info.isDirectory()) return serveFile(req, res, path.join(pathname, 'index.html'), options);
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    send(req, res, {
      size: info.size,
      type: MIME[path.extname(file)] ?? 'application/octet-stream',
      etag: `${options.weakEtag ? 'W/' : ''}"${info.size.toString(16)}-${Math.floor(info.mtimeMs).toString(16)}"`,
      lastModified: new Date(Math.floor(info.mtimeMs / 1000) * 1000).toUTCString(),
      ...options,
      open: (start, end) => createReadStream(file, { start, end: end - 1 }),
    });
  }

  /** Serves `bytes` with validators, ranges and the misbehaviours above. */
  function serveBytes(req, res, bytes, options = {}) {
    send(req, res, {
      size: bytes.length,
      type: 'application/octet-stream',
      ...options,
      open: (start, end) => Readable.from(sliceStream(bytes, start, end)),
    });
  }

  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const origin = `http://127.0.0.1:${server.address().port}`;
  const api = {
    origin,
    /** {bytesPerSec, latencyMs} for every file served while set, or null */
    link: null,
    /** Files served on that link so far. */
    linked: 0,
    counts,
    /** Every request seen: {method, pathname, range, ifRange, ifNoneMatch, ifModifiedSince, origin}. */
    log,
    /** Requests seen for a path since the server started (or reset); OPTIONS not counted. */
    count: (p) => counts.get(p) ?? 0,
    resetCounts: () => {
      counts.clear();
      log.length = 0;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
  return api;
}

/** 64 KiB pieces, so throttling and cuts have something to work with. */
function* sliceStream(bytes, start, end) {
  for (let at = start; at < end; at += 65536) yield Buffer.from(bytes.subarray(at, Math.min(end, at + 65536)));
}

/**
 * One response: ETag/Last-Modified, If-None-Match / If-Modified-Since → 304,
 * Range (bytes=N- or N-M) → 206 unless If-Range names another version, and
 * the misbehaviours of the header comment.
 */
function send(req, res, o) {
  if (o.latencyMs) {
    setTimeout(() => send(req, res, { ...o, latencyMs: 0 }), o.latencyMs);
    return;
  }
  const { size, type, etag, lastModified, headers = {}, open } = o;
  if (o.status) {
    res.writeHead(o.status, { 'content-type': 'text/plain', ...headers }).end(`HTTP ${o.status}`);
    return;
  }
  if (o.html) {
    res
      .writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'content-length': Buffer.byteLength(SPA_PAGE),
        ...headers,
      })
      .end(SPA_PAGE);
    return;
  }
  const h = { 'content-type': type, 'cache-control': 'no-cache', ...headers };
  if (!o.encoding) h['accept-ranges'] = 'bytes';
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
  if (o.range206From0) {
    status = 206;
    h['content-range'] = `bytes 0-${size - 1}/${size}`;
  } else if (range && !o.ignoreRange && !o.encoding && (!ifRange || ifRange === etag || ifRange === lastModified)) {
    start = Number(range[1]);
    end = range[2] ? Math.min(size, Number(range[2]) + 1) : size;
    if (start >= size || start >= end) {
      res.writeHead(416, { 'content-range': `bytes */${size}` }).end();
      return;
    }
    status = 206;
    h['content-range'] = `bytes ${start}-${end - 1}/${size}`;
  }
  let body = open(start, end);
  if (o.encoding) {
    h['content-encoding'] = o.encoding;
    const z =
      o.encoding === 'br'
        ? // quality 6, as a server compressing on the fly uses (nginx's brotli_comp_level
          // default); zlib's default 11 took ~15 s of this process on a 4.7 MB model
          zlib.createBrotliCompress({ params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 6 } })
        : o.encoding === 'deflate'
          ? zlib.createDeflate()
          : zlib.createGzip();
    body = body.pipe(z);
  } else if (!o.chunked) {
    h['content-length'] = end - start;
  }
  res.writeHead(status, h);
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  const limit = o.cutAt !== undefined ? o.cutAt : o.shortBy ? end - start - o.shortBy : Infinity;
  const perMs = o.bytesPerSec ? o.bytesPerSec / 1000 : 0;
  let sent = 0;
  const t0 = Date.now();
  (async () => {
    let held = false;
    for await (const chunk of body) {
      let piece = chunk;
      if (sent + piece.length > limit) piece = piece.subarray(0, limit - sent);
      if (piece.length && !res.write(piece)) await new Promise((r) => res.once('drain', r));
      sent += piece.length;
      if (perMs) {
        const due = t0 + sent / perMs;
        const wait = due - Date.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      }
      if (res.destroyed) return;
      if (o.until && !held && sent >= o.holdAt) {
        held = true;
        await o.until;
      }
      if (sent >= limit) break;
    }
    if (o.cutAt !== undefined && sent >= limit) {
      // a cut connection: let the bytes go out, then drop the socket
      setTimeout(() => res.socket?.destroy(), 20);
      return;
    }
    if (o.shortBy) {
      // Content-Length promised more: close the connection after what was sent
      res.socket?.end();
      return;
    }
    res.end();
  })().catch(() => res.destroy());
}
