// The C cache index (cache/ok_cache.h) seen from JS: one per page. It moves
// strings and bytes in and out of wasm memory and decodes action records;
// it decides nothing. Loads have their own machines (load-machine.js).
import { ACTION_WORD as W, STATUS, STATUS_NAME } from '../core-constants.js';
import { OrtkeepError } from '../errors.js';
import { Scratch } from '../core/scratch.js';

const enc = new TextEncoder();
const dec = new TextDecoder();
const u64 = (n) => BigInt.asUintN(64, BigInt(n));

/** Writes JS strings into wasm memory as NUL-terminated UTF-8 for one call. */
export function withStrings(m, strings, fn) {
  const ptrs = [];
  try {
    for (const s of strings) {
      if (s === null || s === undefined) {
        ptrs.push(0);
        continue;
      }
      const b = enc.encode(String(s));
      const p = m._malloc(b.length + 1);
      if (!p) throw new OrtkeepError('NOMEM', 'ortkeep: out of wasm memory for a string');
      m.HEAPU8.set(b, p);
      m.HEAPU8[p + b.length] = 0;
      ptrs.push(p);
    }
    return fn(...ptrs);
  } finally {
    for (const p of ptrs) if (p) m._free(p);
  }
}

/**
 * Decodes `count` action records at `base` with their strings from the arena
 * at `data` into plain objects (copied: the queue is cleared right after).
 */
export function decodeActions(m, base, count, data) {
  const u32 = m.HEAPU32;
  const u8 = m.HEAPU8;
  const out = [];
  const str = (off, len) => (len ? dec.decode(u8.subarray(data + off, data + off + len)) : '');
  const bytes = (off, len) => u8.slice(data + off, data + off + len);
  for (let i = 0; i < count; i++) {
    const r = (base >> 2) + i * W.SIZE;
    out.push({
      type: u32[r + W.type],
      entry: u32[r + W.entry],
      chunk: u32[r + W.chunk],
      chunkEnd: u32[r + W.chunk_end],
      flags: u32[r + W.flags],
      value: u32[r + W.value_lo] + u32[r + W.value_hi] * 2 ** 32,
      value2: u32[r + W.value2_lo] + u32[r + W.value2_hi] * 2 ** 32,
      name: str(u32[r + W.name_off], u32[r + W.name_len]),
      blob: bytes(u32[r + W.blob_off], u32[r + W.blob_len]),
      aux: bytes(u32[r + W.aux_off], u32[r + W.aux_len]),
    });
  }
  return out;
}

/** The page's index of stored models (ok_cache). */
export class CacheIndex {
  /**
   * @param {object} m the Emscripten module
   * @param {number} budgetBytes 0 = unlimited
   */
  constructor(m, budgetBytes = 0) {
    this.m = m;
    this.tmp = m._malloc(16);
    this.scratch = new Scratch(m);
    this.names = new Scratch(m);
    // 64 random bits name this page's entries uniquely across tabs
    const seed = new Uint32Array(2);
    globalThis.crypto?.getRandomValues
      ? crypto.getRandomValues(seed)
      : seed.set([Date.now() >>> 0, (Math.random() * 2 ** 32) >>> 0]);
    const st = m._ok_cache_open(this.tmp, u64(budgetBytes), (BigInt(seed[0]) << 32n) | BigInt(seed[1]));
    if (st) throw coreStatusError(st, 'opening the cache index');
    this.c = m.HEAPU32[this.tmp >> 2];
  }

  close() {
    if (!this.c) return;
    this.m._ok_cache_close(this.c);
    this.m._free(this.tmp);
    this.scratch.free();
    this.names.free();
    this.c = 0;
  }

  setBudget(bytes) {
    this.m._ok_cache_set_budget(this.c, u64(bytes));
  }

  /**
   * Feeds what one read of the stores found (records: [{name, bytes}],
   * chunkNames: string[]) through a sync; the drops it decides queue on the
   * index's own queue (takeActions).
   */
  sync(records, chunkNames = null) {
    const m = this.m;
    const st = m._ok_cache_sync_begin(this.c, chunkNames ? 1 : 0, this.tmp);
    if (st) throw coreStatusError(st, 'syncing the cache index');
    const sync = m.HEAPU32[this.tmp >> 2];
    try {
      for (const r of records) {
        const name = enc.encode(r.name);
        m._ok_cache_sync_record(
          this.c,
          sync,
          this.names.put(name),
          name.length,
          this.scratch.put(r.bytes),
          r.bytes.byteLength,
        );
      }
      for (const n of chunkNames ?? []) {
        const name = enc.encode(n);
        m._ok_cache_sync_chunk_name(this.c, sync, this.names.put(name), name.length);
      }
    } catch (e) {
      m._ok_cache_sync_abandon(this.c, sync);
      throw e;
    }
    const end = m._ok_cache_sync_end(this.c, sync);
    if (end) throw coreStatusError(end, 'syncing the cache index');
  }

  /** Keys whose lock another load holds (navigator.locks.query()). */
  setBusy(keys) {
    const m = this.m;
    m._ok_cache_busy_clear(this.c);
    for (const k of keys) withStrings(m, [k], (p) => m._ok_cache_busy_key(this.c, p));
  }

  /** ok_status of dropping every entry whose key or URL is `keyOrUrl`. */
  delete(keyOrUrl) {
    return withStrings(this.m, [keyOrUrl], (p) => this.m._ok_cache_delete(this.c, p));
  }

  clear() {
    return this.m._ok_cache_clear(this.c);
  }

  bytesStored() {
    return Number(BigInt.asUintN(64, this.m._ok_cache_bytes_stored(this.c)));
  }

  /** The index's own queued actions (drops), copied out; the queue is cleared. */
  takeActions() {
    const m = this.m;
    const base = m._ok_cache_actions(this.c, this.tmp);
    const count = m.HEAPU32[this.tmp >> 2];
    const out = count ? decodeActions(m, base, count, m._ok_cache_action_data(this.c)) : [];
    m._ok_cache_actions_clear(this.c);
    return out;
  }

  /** Every entry (ok_cache_entry_info) as a plain object. */
  entries() {
    const m = this.m;
    const n = m._ok_cache_count(this.c);
    const out = [];
    for (let i = 0; i < n; i++) {
      const p = m._ok_abi_cache_entry_json(this.c, i);
      if (!p) continue;
      try {
        out.push(JSON.parse(m.UTF8ToString(p)));
      } finally {
        m._free(p);
      }
    }
    return out;
  }
}

/** An OrtkeepError for a status the core returned where none was expected. */
export function coreStatusError(st, what) {
  const code = STATUS_NAME[st] ?? `CORE_${st}`;
  return new OrtkeepError(code, `ortkeep: the model cache core refused ${what} (${code})`);
}

export { STATUS };
