// SHA-256 through WebCrypto: off the wasm heap, for hashes JS needs whole
// (the memory tier's key of bytes in memory, an optimized form's hash).

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
