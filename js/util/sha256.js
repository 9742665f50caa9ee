// SHA-256 through WebCrypto: off the wasm heap, for hashes JS needs whole
// (the memory tier's key of bytes in memory, an optimized form's hash), in
// the page or beside it in a worker (sha256Beside: a long download's hash,
// the hash that confirms a fingerprint's hint in js/sources.js).
//
// Beside: Chromium's WebCrypto digests on the calling thread (44 MB: ~80 ms
// of the main thread), and a copy into fresh memory runs at ~1.1 GB/s here
// (its page faults: ~38 ms for 44 MB). So the bytes go to one worker through
// a few 1 MiB buffers it hands back once it has copied them: the main thread
// only copies into memory it has touched before, the worker pays for its
// own, and hashes while onnxruntime creates the session. Where no worker can
// start (no Worker; a CSP without blob: workers) the main thread hashes.
import { pageWorker } from './inline-worker.js';

/** Bytes in shared memory are copied this much at a time (one slice of the copy in the cache at once). */
const SLICE = 1 << 20;

/** SHA-256 of bytes, the 32 bytes of the digest. */
export async function sha256Bytes(bytes) {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', unshared(bytes)));
}

/**
 * WebCrypto refuses a view of a SharedArrayBuffer (a cross-origin-isolated
 * page's model) with an untyped TypeError: such bytes are hashed from a copy.
 * @param {ArrayBuffer|ArrayBufferView|SharedArrayBuffer} bytes
 */
export function unshared(bytes) {
  const buffer = ArrayBuffer.isView(bytes) ? bytes.buffer : bytes;
  if (typeof SharedArrayBuffer === 'undefined' || !(buffer instanceof SharedArrayBuffer)) return bytes;
  const view = ArrayBuffer.isView(bytes)
    ? new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    : new Uint8Array(bytes);
  const copy = new Uint8Array(view.byteLength);
  for (let at = 0; at < view.byteLength; at += SLICE) copy.set(view.subarray(at, at + SLICE), at);
  return copy;
}

/** SHA-256 of bytes, lowercase hex. */
export async function sha256Hex(bytes) {
  return hexOf(await sha256Bytes(bytes));
}

/** Bytes as lowercase hex. */
export const hexOf = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

/** Lowercase hex as bytes. */
export const bytesOfHex = (hex) => Uint8Array.from(hex.match(/../g) ?? [], (h) => Number.parseInt(h, 16));

/** Bytes go to the worker this much at a time. */
const PIECE = 1 << 20;
/** Buffers in flight between the page and the worker. */
const BUFFERS = 4;
const WORKER_SOURCE = `const jobs = new Map();
onmessage = async ({ data: { id, length, at, size, piece } }) => {
  if (length !== undefined) return void jobs.set(id, new Uint8Array(length));
  const whole = jobs.get(id);
  if (piece) {
    whole.set(new Uint8Array(piece, 0, size), at);
    return void postMessage({ piece }, [piece]);
  }
  jobs.delete(id);
  try {
    postMessage({ id, digest: await crypto.subtle.digest('SHA-256', whole) });
  } catch (e) {
    postMessage({ id, error: String(e) });
  }
};`;
const free = []; // buffers the worker handed back
const waiting = []; // feeds waiting for one
let made = 0;

// refused late, crashed, or never started: a load never waits on it for ever
const hasher = pageWorker(WORKER_SOURCE, {
  // a buffer handed back (its first says the worker runs)
  onMessage: ({ piece }) => {
    const next = waiting.shift();
    if (next) next(piece);
    else free.push(piece);
  },
  onStop: () => {
    free.length = 0;
    made = 0;
    // feeds waiting for a buffer see the worker gone
    for (const next of waiting.splice(0)) next(new ArrayBuffer(0));
  },
});

const now = () => performance.now();

/** A buffer to copy a piece into: a returned one, a new one while fewer than BUFFERS exist, else the next returned. */
function buffer() {
  if (free.length) return Promise.resolve(free.pop());
  if (made < BUFFERS) {
    made++;
    return Promise.resolve(new ArrayBuffer(PIECE));
  }
  return new Promise((resolve) => waiting.push(resolve));
}

/**
 * SHA-256 of bytes, lowercase hex: in a worker, fed a piece at a time; else
 * on the main thread. `spentMs()`: the main thread's time on it so far (the
 * worker's start, the copies), what the load pays for it wherever it lands.
 * `fed()`: settles once the worker has every piece (or the main thread took
 * the hash over): a caller about to hold the main thread (onnxruntime's
 * session creation) waits for it, so the worker hashes beside that, not after.
 * @returns {{done: Promise<string>, spentMs: () => number, fed: () => Promise<void>}}
 */
export function sha256Beside(bytes) {
  if (hasher.broken) return mainThread(bytes);
  const job = { spent: 0 };
  let onFed;
  const fed = new Promise((resolve) => {
    onFed = resolve;
  });
  const done = new Promise((resolve) => {
    // in a later task: a page's first worker costs 3-7 ms of the main thread,
    // better spent while the load waits on its lock and IndexedDB
    setTimeout(async () => {
      const t0 = now();
      const w = hasher.get();
      job.spent += now() - t0;
      const digest = w ? await hashBeside(w, bytes, job, onFed) : null;
      onFed(); // given up or answered: nothing more to feed
      // the worker gone or failed: the main thread hashes
      resolve(digest ? hexOf(new Uint8Array(digest)) : sha256Hex(bytes));
    }, 0);
  });
  return { done, spentMs: () => job.spent, fed: () => fed };
}

function mainThread(bytes) {
  const t0 = now();
  const done = sha256Hex(bytes);
  const spent = now() - t0; // WebCrypto hashes before it returns
  return { done, spentMs: () => spent, fed: () => Promise.resolve() };
}

/** The worker's digest of bytes (an ArrayBuffer), or null where it went or failed. */
async function hashBeside(w, bytes, job, onFed) {
  const { id, reply } = hasher.expect();
  try {
    w.postMessage({ id, length: bytes.byteLength });
    for (let at = 0; at < bytes.byteLength; at += PIECE) {
      const piece = await buffer();
      if (w !== hasher.current) return null; // gone: the main thread answers
      const t0 = now();
      const size = Math.min(PIECE, bytes.byteLength - at);
      new Uint8Array(piece, 0, size).set(bytes.subarray(at, at + size));
      w.postMessage({ id, at, size, piece }, [piece]);
      job.spent += now() - t0;
    }
    onFed();
    w.postMessage({ id });
  } catch {
    hasher.forget(id); // a message that could not go: the main thread answers, and the worker may go idle
    return null;
  }
  return (await reply)?.digest ?? null;
}
