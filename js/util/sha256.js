// SHA-256 through WebCrypto: off the wasm heap, for hashes JS needs whole
// (the memory tier's key of bytes in memory, an optimized form's hash).

/** SHA-256 of bytes, lowercase hex. */
export async function sha256Hex(bytes) {
  const d = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return Array.from(d, (b) => b.toString(16).padStart(2, '0')).join('');
}
