// The in-memory sink a derived loader writes to (see
// scripts/derive-capture-loader.mjs): armed on globalThis for exactly one
// session creation at a time, since the loader has no other way to reach
// ortkeep and onnxruntime-web creates one session at a time per realm anyway.

/** @typedef {{fd: number, bytes: Uint8Array}} CapturedFile */

let queue = Promise.resolve();

/**
 * Runs `fn` with the sink armed under Symbol.for(key); captures queue behind
 * each other so two never share the sink.
 * @template T
 * @param {string} key
 * @param {() => Promise<T>} fn
 * @returns {Promise<{value: T, files: CapturedFile[], open: number}>}
 *   files closed while armed, in close order; open: fds written but never closed
 */
export function withSink(key, fn) {
  const run = queue.then(async () => {
    const symbol = Symbol.for(key);
    /** @type {Map<number, Uint8Array[]>} */
    const pending = new Map();
    /** @type {CapturedFile[]} */
    const files = [];
    globalThis[symbol] = {
      write(fd, chunk) {
        let chunks = pending.get(fd);
        if (!chunks) pending.set(fd, (chunks = []));
        chunks.push(chunk);
      },
      close(fd) {
        const chunks = pending.get(fd) ?? [];
        pending.delete(fd);
        files.push({ fd, bytes: concat(chunks) });
      },
    };
    try {
      const value = await fn();
      return { value, files, open: pending.size };
    } finally {
      delete globalThis[symbol];
    }
  });
  queue = run.catch(() => {});
  return run;
}

/** @param {Uint8Array[]} chunks */
function concat(chunks) {
  let size = 0;
  for (const c of chunks) size += c.byteLength;
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}
