// What ortkeep needs from Node (paths, file: URLs). Imported by relative
// path; package.json's "browser" field swaps this file for ./browser.js in
// bundlers, so browser builds hold no Node built-in. Loaded unbundled in a
// page it costs nothing: the node: imports below are dynamic and never run.
import { HOST_POLICY, RESP_TYPE } from '../core-constants.js';

export const isNode = typeof process !== 'undefined' && !!process.versions?.node && typeof window === 'undefined';

/** A filesystem path (relative to the cwd) as a file: URL. */
export async function pathToUrl(raw) {
  const path = await import('node:path');
  const { pathToFileURL } = await import('node:url');
  return pathToFileURL(path.resolve(raw)).href;
}

/** The bytes of a file: URL. */
export async function readFileUrl(url) {
  const { readFile } = await import('node:fs/promises');
  const { fileURLToPath } = await import('node:url');
  return readFile(fileURLToPath(url));
}

/** A file: URL as a response: 200 with its size and a streamed body; 404/403 as a server would. */
export async function fileResponse(url, signal) {
  const { open } = await import('node:fs/promises');
  const { fileURLToPath } = await import('node:url');
  let fh;
  try {
    fh = await open(fileURLToPath(url), 'r');
  } catch (e) {
    // a missing file is what a 404 is to a URL
    if (e?.code === 'ENOENT' || e?.code === 'EISDIR' || e?.code === 'ENOTDIR') return fileStatus(404);
    if (e?.code === 'EACCES' || e?.code === 'EPERM') return fileStatus(403);
    throw e;
  }
  const size = (await fh.stat()).size;
  let at = 0;
  return {
    status: 200,
    type: RESP_TYPE.BASIC,
    headers: {
      contentLength: String(size),
      contentEncoding: null,
      contentRange: null,
      contentType: null,
      etag: null,
      lastModified: null,
    },
    body: {
      async next() {
        if (signal?.aborted) throw signal.reason ?? new Error('aborted');
        if (at >= size) {
          await fh.close();
          return null;
        }
        const buf = new Uint8Array(Math.min(HOST_POLICY.PIECE_BYTES, size - at));
        const { bytesRead } = await fh.read(buf, 0, buf.length, at);
        if (!bytesRead) {
          await fh.close();
          return null;
        }
        at += bytesRead;
        return buf.subarray(0, bytesRead);
      },
      async cancel() {
        await fh.close().catch(() => {});
      },
    },
  };
}

function fileStatus(status) {
  return {
    status,
    type: RESP_TYPE.BASIC,
    headers: {
      contentLength: null,
      contentEncoding: null,
      contentRange: null,
      contentType: null,
      etag: null,
      lastModified: null,
    },
    body: {
      async next() {
        return null;
      },
      async cancel() {},
    },
  };
}
