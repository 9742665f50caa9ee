// A static file server on 127.0.0.1 for tests, the demo and the benchmark.
// It serves the repository root with the MIME types browsers insist on
// (application/wasm), counts requests per path so tests can assert "no
// network byte", and lets a test intercept requests (to cut a connection,
// change an ETag, ...) through `handler`.
import { createServer } from 'node:http';
import { createReadStream } from 'node:fs';
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
      if (handler && (await handler(req, res, { pathname, url, serveFile }))) return;
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
    const headers = {
      'content-type': MIME[path.extname(file)] ?? 'application/octet-stream',
      'content-length': info.size,
      'cache-control': 'no-cache',
      ...extraHeaders,
    };
    res.writeHead(200, headers);
    if (req.method === 'HEAD') { res.end(); return; }
    createReadStream(file).pipe(res);
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
