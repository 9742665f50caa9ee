// The bytes of the model being loaded, in one contiguous buffer (what
// onnxruntime-web takes). Exact size when known; otherwise it grows by
// doubling as the body arrives (a chunked or compressed response), so the
// peak is at most twice the model for those, once for the rest.
export class ModelBuffer {
  /** @param {number} size exact size, or 0 when unknown @param {number} hint expected size */
  constructor(size = 0, hint = 0) {
    this.exact = size > 0;
    this.capacity = size || Math.max(hint, 1 << 20);
    this.bytes = null; // allocated on first write (a hit reads into its own)
    this.length = 0;
  }

  ensure(n) {
    if (this.bytes && n <= this.bytes.byteLength) return;
    let cap = Math.max(this.capacity, this.bytes?.byteLength ?? 0);
    while (cap < n) cap *= 2;
    const next = new Uint8Array(cap);
    if (this.bytes && this.length) next.set(this.bytes.subarray(0, this.length));
    this.bytes = next;
  }

  /** Copies `piece` in at `offset` (the end of what is there); returns the view of it. */
  write(offset, piece) {
    this.ensure(offset + piece.byteLength);
    this.bytes.set(piece, offset);
    this.length = offset + piece.byteLength;
    return this.bytes.subarray(offset, this.length);
  }

  /** Takes over bytes read from elsewhere (a hit's composed read). */
  adopt(bytes) {
    this.bytes = bytes;
    this.length = bytes.byteLength;
  }

  /** The first n bytes. */
  view(n = this.length) {
    if (!this.bytes) return new Uint8Array(0);
    return this.bytes.subarray(0, n);
  }
}
