// SHA-256 through WebCrypto: off the wasm heap, for hashes JS needs whole
// (the memory tier's key of bytes in memory, an optimized form's hash).

/** SHA-256 of bytes, the 32 bytes of the digest. */
export async function sha256Bytes(bytes) {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
}

/** SHA-256 of bytes, lowercase hex. */
export async function sha256Hex(bytes) {
  return hexOf(await sha256Bytes(bytes));
}

/** Bytes as lowercase hex. */
export const hexOf = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

/** Lowercase hex as bytes. */
export const bytesOfHex = (hex) => Uint8Array.from(hex.match(/../g) ?? [], (h) => Number.parseInt(h, 16));
