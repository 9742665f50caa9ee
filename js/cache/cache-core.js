// The C cache core (cache/ok_cache.h) seen from JS: events go in as calls,
// queued actions come out of wasm memory as plain objects (40-byte records
// plus a byte arena, copied before the queue is cleared). No decision is
// made here; see model-cache.js for who carries the actions out.
import { CACHE_ACTION, CACHE_ACTION_WORD as W, CACHE_LIMIT, CACHE_MODE, LOOKUP, LOOKUP_WORD as LW, STATUS } from '../core-constants.js';
import { CORE_CODES, OrtkeepError } from '../errors.js';

export const ACT = CACHE_ACTION;
export { LOOKUP };
/** fetch()'s cache modes → enum ok_cache_mode. */
export const MODES = CACHE_MODE;
export const ST = STATUS;
export const CHUNK_END = CACHE_LIMIT.CHUNK_END;
export const MANIFEST = CACHE_LIMIT.MANIFEST;
const OUTCOMES = new Set([ST.OK, ST.CORRUPT, ST.INTEGRITY, ST.QUOTA]);

const enc = new TextEncoder();
const dec = new TextDecoder();
const u64 = (n) => BigInt.asUintN(64, BigInt(n));
const num = (b) => Number(BigInt.asUintN(64, b));

export class CacheCore {
  /** @param {object} m the Emscripten module (js/core.js Core.m) */
  constructor(m, budgetBytes = 0) {
    this.m = m;
    this.tmp = m._malloc(64);
    this.scratch = 0;
    this.scratchSize = 0;
    const st = m._ok_cache_open(this.tmp, u64(budgetBytes));
    if (st) throw statusError(st, 'opening the cache core');
    this.c = m.HEAPU32[this.tmp >> 2];
  }

  close() {
    this.m._ok_cache_close(this.c);
    this.m._free(this.tmp);
    if (this.scratch) this.m._free(this.scratch);
    this.c = 0;
  }

  /** Calls fn with the strings copied into wasm memory as NUL-terminated UTF-8 (null → NULL). */
  withStrings(strings, fn) {
    const m = this.m;
    const ptrs = strings.map((s) => {
      if (s === null || s === undefined) return 0;
      const b = enc.encode(String(s));
      const p = m._malloc(b.length + 1);
      if (!p) throw new OrtkeepError('NOMEM', 'ortkeep: out of wasm memory for a cache string');
      m.HEAPU8.set(b, p);
      m.HEAPU8[p + b.length] = 0;
      return p;
    });
    try { return fn(...ptrs); } finally { for (const p of ptrs) if (p) m._free(p); }
  }

  /** Copies bytes into a reused scratch buffer; returns its pointer. */
  bytesIn(bytes) {
    const m = this.m;
    if (bytes.byteLength > this.scratchSize) {
      if (this.scratch) m._free(this.scratch);
      this.scratchSize = Math.max(bytes.byteLength, 1 << 20);
      this.scratch = m._malloc(this.scratchSize);
      if (!this.scratch) { this.scratchSize = 0; throw new OrtkeepError('NOMEM', 'ortkeep: out of wasm memory for a chunk'); }
    }
    m.HEAPU8.set(bytes, this.scratch);
    return this.scratch;
  }

  /** Copies the queued actions out and clears the queue. */
  takeActions() {
    const m = this.m;
    const base = m._ok_cache_actions(this.c, this.tmp);
    const count = m.HEAPU32[this.tmp >> 2];
    const out = [];
    if (count) {
      const data = m._ok_cache_action_data(this.c);
      const u32 = m.HEAPU32;
      const u8 = m.HEAPU8;
      for (let i = 0; i < count; i++) {
        const r = (base >> 2) + i * W.SIZE;
        const nameOff = u32[r + W.name_off];
        const nameLen = u32[r + W.name_len];
        const blobOff = u32[r + W.blob_off];
        const blobLen = u32[r + W.blob_len];
        out.push({
          type: u32[r + W.type], entry: u32[r + W.entry], chunk: u32[r + W.chunk], chunkEnd: u32[r + W.chunk_end],
          name: nameLen ? dec.decode(u8.subarray(data + nameOff, data + nameOff + nameLen)) : '',
          blob: u8.slice(data + blobOff, data + blobOff + blobLen),
          value: u32[r + W.value_lo] + u32[r + W.value_hi] * 2 ** 32,
        });
      }
    }
    m._ok_cache_actions_clear(this.c);
    if (count > 256) m._ok_cache_actions_trim(this.c);
    return out;
  }

  // ---- events; each returns its ok_status (non-outcome errors throw) ----
  check(st, what) {
    if (!OUTCOMES.has(st)) throw statusError(st, what);
    return st;
  }

  loadRecord(name, bytes) {
    const nb = enc.encode(name);
    const m = this.m;
    const np = m._malloc(nb.length + 1);
    m.HEAPU8.set(nb, np);
    try {
      const bp = this.bytesIn(bytes);
      return m._ok_cache_load_record(this.c, np, nb.length, bp, bytes.byteLength);
    } finally { m._free(np); }
  }

  recover() { return this.check(this.m._ok_cache_recover(this.c), 'recover'); }
  reset() { return this.check(this.m._ok_cache_reset(this.c), 'reset'); }

  lookup(key, mode, now) {
    const st = this.withStrings([key], (k) => this.m._ok_cache_lookup(this.c, k, mode, u64(now), this.tmp));
    if (st === ST.NOT_FOUND) return { status: st, kind: LOOKUP.NOT_FOUND };
    this.check(st, 'lookup');
    return { status: st, ...this.readLookup() };
  }

  revalidated(entry, now) {
    this.check(this.m._ok_cache_revalidated(this.c, entry, u64(now), this.tmp), 'revalidated');
    return this.readLookup();
  }

  readLookup() {
    const m = this.m;
    const w = this.tmp >> 2;
    const h = m.HEAPU32;
    return {
      kind: h[w + LW.kind], entry: h[w + LW.entry], chunkCount: h[w + LW.chunk_count], resumeChunk: h[w + LW.resume_chunk],
      resumeByte: h[w + LW.resume_byte] + h[w + LW.resume_byte + 1] * 2 ** 32,
      totalSize: h[w + LW.total_size] + h[w + LW.total_size + 1] * 2 ** 32,
    };
  }

  /** digest: 32-byte Uint8Array, or null when the chunk is missing. */
  chunkReadDigest(entry, idx, len, digest) {
    const p = digest ? this.bytesIn(digest) : 0;
    return this.check(this.m._ok_cache_chunk_read_digest(this.c, entry, idx, len, p), 'chunk_read_digest');
  }

  chunkRead(entry, idx, bytes) {
    const p = bytes ? this.bytesIn(bytes) : 0;
    return this.check(this.m._ok_cache_chunk_read(this.c, entry, idx, p, bytes ? bytes.byteLength : 0), 'chunk_read');
  }

  acquire(entry) { return this.m._ok_cache_acquire(this.c, entry); }
  release(entry) { return this.m._ok_cache_release(this.c, entry); }

  beginWrite({ key, url, etag, lastModified, integrity, totalSize, chunkSize, form = 0, now }) {
    const st = this.withStrings([key, url, etag || null, lastModified || null, integrity || null],
      (k, u, e, l, i) => this.m._ok_cache_begin_write(this.c, k, u, e, l, i, u64(totalSize), chunkSize, form, u64(now), this.tmp));
    if (st) return { status: st, entry: 0 };
    return { status: st, entry: this.m.HEAPU32[this.tmp >> 2] };
  }

  chunkRehash(entry, idx, bytes) {
    const p = bytes ? this.bytesIn(bytes) : 0;
    return this.check(this.m._ok_cache_chunk_rehash(this.c, entry, idx, p, bytes ? bytes.byteLength : 0), 'chunk_rehash');
  }

  chunkArrived(entry, idx, bytes) {
    return this.check(this.m._ok_cache_chunk_arrived(this.c, entry, idx, this.bytesIn(bytes), bytes.byteLength), 'chunk_arrived');
  }

  chunkStored(entry, idx) { return this.check(this.m._ok_cache_chunk_stored(this.c, entry, idx), 'chunk_stored'); }
  downloadDone(entry) { return this.check(this.m._ok_cache_download_done(this.c, entry), 'download_done'); }
  manifestWritten(entry) { return this.check(this.m._ok_cache_manifest_written(this.c, entry), 'manifest_written'); }
  writeFailed(entry, idx, quota) { return this.check(this.m._ok_cache_write_failed(this.c, entry, idx, quota ? 1 : 0), 'write_failed'); }
  abortWrite(entry, keep) { return this.m._ok_cache_abort_write(this.c, entry, keep ? 1 : 0); }
  planSpace(need, free) { return this.check(this.m._ok_cache_plan_space(this.c, u64(need), free === undefined || free === null ? u64(-1) : u64(Math.max(0, Math.floor(free)))), 'plan_space'); }
  delete(key) { return this.withStrings([key], (k) => this.m._ok_cache_delete(this.c, k)); }
  clear() { return this.check(this.m._ok_cache_clear(this.c), 'clear'); }
  bytesStored() { return num(this.m._ok_cache_bytes_stored(this.c)); }

  /** Every entry (cache/ok_cache.h ok_cache_entry_info) as a plain object. */
  entries() {
    const m = this.m;
    const n = m._ok_cache_count(this.c);
    const out = [];
    for (let i = 0; i < n; i++) {
      const p = m._ok_abi_cache_entry_json(this.c, i);
      if (!p) continue;
      try { out.push(JSON.parse(m.UTF8ToString(p))); } finally { m._free(p); }
    }
    return out;
  }

  entry(id) { return this.entries().find((e) => e.id === id) ?? null; }
}

export function statusError(st, what) {
  const code = CORE_CODES[st] ?? `CORE_${st}`;
  return new OrtkeepError(code, `ortkeep: the model cache refused ${what} (${code})`);
}
