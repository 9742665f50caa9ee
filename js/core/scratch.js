// One reusable area of wasm memory for the bytes of one call at a time:
// pieces of a body, a chunk, a model being inspected. Reusing it keeps the
// core's heap (which never shrinks) at its largest piece, not its sum.
import { OrtkeepError } from '../errors.js';

/** A reusable scratch area in wasm memory for bytes passed to one call. */
export class Scratch {
  constructor(m) {
    this.m = m;
    this.ptr = 0;
    this.size = 0;
  }

  /** Copies `bytes` in; returns the pointer (valid until the next put). */
  put(bytes) {
    const m = this.m;
    if (bytes.byteLength > this.size) {
      if (this.ptr) m._free(this.ptr);
      this.size = Math.max(bytes.byteLength, 1 << 16);
      this.ptr = m._malloc(this.size);
      if (!this.ptr) {
        this.size = 0;
        throw new OrtkeepError('NOMEM', `ortkeep: out of wasm memory for ${bytes.byteLength} bytes`);
      }
    }
    m.HEAPU8.set(bytes, this.ptr);
    return this.ptr;
  }

  free() {
    if (this.ptr) this.m._free(this.ptr);
    this.ptr = 0;
    this.size = 0;
  }
}

const shared = new WeakMap();

/**
 * The module's one shared scratch area, for callers whose every put is
 * followed at once by the call that reads it (no await between): loads and
 * inspections then share one area, sized by the largest piece of any.
 * Never freed (it is the core's working memory).
 */
export function sharedScratch(m) {
  let s = shared.get(m);
  if (!s) shared.set(m, (s = new Scratch(m)));
  return s;
}
