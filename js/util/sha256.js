// SHA-256 through WebCrypto: off the wasm heap, for hashes JS needs whole
// (the memory tier's key of bytes in memory, an optimized form's hash).

/** SHA-256 of bytes, lowercase hex. */
export async function sha256Hex(bytes) {
  const d = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return Array.from(d, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** The SHA-256 (hex) that identifies bytes in memory, or null where WebCrypto is missing (an insecure context). */
export function bytesSha256(bytes) {
  return globalThis.crypto?.subtle ? sha256Hex(bytes) : Promise.resolve(null);
}
