// One load machine (cache/ok_load.h) seen from JS: events in as calls,
// actions out as plain objects. Like cache-index.js it only moves bytes.
import { CACHE_MODE, HOST_POLICY, SOURCE, STATUS } from '../core-constants.js';
import { sharedScratch } from '../core/scratch.js';
import { coreStatusError, decodeActions, withStrings } from './cache-index.js';

const enc = new TextEncoder();
const u64 = (n) => BigInt.asUintN(64, BigInt(Math.max(0, Math.floor(n))));

/** Largest piece handed to the core in one call (cache/host_policy.h): V8
 * tiers wasm up only between calls, so megabyte pieces keep hashing in
 * optimized code. */
const MAX_PIECE = HOST_POLICY.PIECE_BYTES;

export class LoadMachine {
  /**
   * @param {object} m the Emscripten module
   * @param {import('./cache-index.js').CacheIndex} index the page's index
   * @param {{source: 'url'|'bytes'|'form'|'data', raw?: string, url?: string, pageUrl?: string|null, part?: string,
   *          integrity?: string|null, mode?: string, chunkSize?: number, flags?: number,
   *          bytesLength?: number, formCtx?: string|null, form?: number, sourceSha256?: string, facts?: number, owner?: LoadMachine}} p
   *   formCtx: the optimized forms' context (null: forms off); form loads (source 'form')
   *   store form `form` made from the original whose SHA-256 (hex) is sourceSha256,
   *   raw being the original's cache key, facts its reader's FACT bits; data loads (an external data file) load the file
   *   at location `part` of the model whose load is `owner` (bytesLength: the least size its tensors need)
   */
  constructor(m, index, p) {
    this.m = m;
    this.source = p.source;
    // shared with inspections and other loads: every put below is read by
    // the call it is passed to, before anything else runs
    this.scratch = sharedScratch(m);
    this.tmp = m._malloc(8);
    const mode = CACHE_MODE[p.mode ?? 'default'];
    const source = { bytes: SOURCE.BYTES, form: SOURCE.FORM, data: SOURCE.DATA }[p.source] ?? SOURCE.URL;
    const sha = p.sourceSha256 ? m._malloc(32) : 0;
    if (sha)
      m.HEAPU8.set(
        p.sourceSha256.match(/../g).map((h) => parseInt(h, 16)),
        sha,
      );
    try {
      this.l = withStrings(
        m,
        [p.raw ?? null, p.url ?? null, p.pageUrl ?? null, p.integrity ?? null, p.formCtx ?? null, p.part ?? null],
        (raw, url, page, integ, ctx, part) =>
          m._ok_abi_load_new(
            index.c,
            source,
            raw,
            url,
            page,
            integ,
            mode,
            p.chunkSize ?? 0,
            p.flags ?? 0,
            u64(Date.now()),
            u64(p.bytesLength ?? 0),
            ctx,
            p.form ?? 0,
            sha,
            part,
            p.facts ?? 0,
            p.owner?.l ?? 0,
          ),
      );
    } finally {
      if (sha) m._free(sha);
    }
    if (!this.l) {
      const code = m._ok_abi_last_error_code();
      m._free(this.tmp);
      throw coreStatusError(code, 'the load parameters');
    }
  }

  free() {
    if (!this.l) return;
    this.m._ok_load_free(this.l);
    this.m._free(this.tmp);
    this.l = 0;
  }

  /** Queued actions, copied out; the queue is cleared. */
  take() {
    const m = this.m;
    if (!this.l) return [];
    const base = m._ok_load_actions(this.l, this.tmp);
    const count = m.HEAPU32[this.tmp >> 2];
    if (!count) return [];
    const out = decodeActions(m, base, count, m._ok_load_action_data(this.l));
    m._ok_load_actions_clear(this.l);
    return out;
  }

  info() {
    const p = this.m._ok_abi_load_info_json(this.l);
    if (!p) return null;
    try {
      return JSON.parse(this.m.UTF8ToString(p));
    } finally {
      this.m._free(p);
    }
  }

  // ---- events; each returns the ok_status ----
  start() {
    return this.m._ok_load_start(this.l);
  }
  locked() {
    return this.m._ok_load_locked(this.l);
  }
  syncRecord(name, bytes) {
    const n = enc.encode(name);
    const np = this.m._malloc(n.length + 1);
    if (!np) return STATUS.NOMEM;
    this.m.HEAPU8.set(n, np);
    try {
      return this.m._ok_load_sync_record(this.l, np, n.length, this.scratch.put(bytes), bytes.byteLength);
    } finally {
      this.m._free(np);
    }
  }
  syncChunkName(name) {
    const n = enc.encode(name);
    return this.m._ok_load_sync_chunk_name(this.l, this.scratch.put(n), n.length);
  }
  synced() {
    return this.m._ok_load_synced(this.l);
  }
  quota(free) {
    return this.m._ok_load_quota(this.l, free === null || free === undefined ? u64(-1) : u64(free));
  }
  response(status, type, h) {
    return withStrings(
      this.m,
      [h.contentLength, h.contentEncoding, h.contentRange, h.contentType, h.etag, h.lastModified],
      (cl, ce, cr, ct, et, lm) => this.m._ok_load_response(this.l, status, type, cl, ce, cr, ct, et, lm),
    );
  }
  fetchFailed() {
    return this.m._ok_load_fetch_failed(this.l);
  }
  /** A body piece (split into pieces of at most MAX_PIECE). */
  body(bytes) {
    let st = STATUS.OK;
    for (let at = 0; at < bytes.byteLength && st === STATUS.OK; at += MAX_PIECE) {
      const piece = bytes.subarray(at, Math.min(bytes.byteLength, at + MAX_PIECE));
      st = this.m._ok_load_body(this.l, this.scratch.put(piece), piece.byteLength);
    }
    return st;
  }
  bodyEnd() {
    return this.m._ok_load_body_end(this.l);
  }
  /** The whole body's SHA-256 (32 bytes), when STREAM asked the host for it (ok_load_body_sha256). */
  bodySha256(digest) {
    return this.m._ok_load_body_sha256(this.l, this.scratch.put(digest));
  }
  /** The network kept the driver waiting about a chunk store's time (ok_load_body_idle). */
  bodyIdle() {
    return this.m._ok_load_body_idle(this.l);
  }
  bodyError() {
    return this.m._ok_load_body_error(this.l);
  }
  waited() {
    return this.m._ok_load_waited(this.l);
  }
  chunkRead(idx, bytes) {
    return bytes
      ? this.m._ok_load_chunk_read(this.l, idx, this.scratch.put(bytes), bytes.byteLength)
      : this.m._ok_load_chunk_read(this.l, idx, 0, 0);
  }
  metaRead(bytes) {
    return bytes
      ? this.m._ok_load_meta_read(this.l, this.scratch.put(bytes), bytes.byteLength)
      : this.m._ok_load_meta_read(this.l, 0, 0);
  }
  ioFailed(kind) {
    return this.m._ok_load_io_failed(this.l, kind);
  }
  written() {
    return this.m._ok_load_written(this.l);
  }
  writeFailed(kind) {
    return this.m._ok_load_write_failed(this.l, kind);
  }
  aheadSettled(landed, kind) {
    return this.m._ok_load_ahead_settled(this.l, landed, kind);
  }
  validated(status, offset, report) {
    return report
      ? this.m._ok_load_validated(this.l, status, u64(offset), this.scratch.put(report), report.byteLength)
      : this.m._ok_load_validated(this.l, status, u64(offset), 0, 0);
  }
  session(ok) {
    return this.m._ok_load_session(this.l, ok ? 1 : 0);
  }
  /**
   * The session's outcome with its creation time (ms), which forms are judged by.
   * @param {number} facts SESSION_FACT bits: OK (created), FIRST (the page's first model session), DATA_FILES
   */
  sessionTimed(facts, ms) {
    return this.m._ok_load_session_timed(this.l, facts >>> 0, Math.min(0xffffffff, Math.round(ms * 1000)) >>> 0);
  }
  /** Before start(), a FORM load: tally this pair (us: the form's warm creation, the original's beside it). */
  revise(formUs, origUs) {
    const st = this.m._ok_load_revise(this.l, formUs >>> 0, origUs >>> 0);
    if (st !== STATUS.OK) throw coreStatusError(st, 'the revision');
  }
  /** VERIFY_FORM's answer (VERDICT.*), the original's creation time and the form's timed again (ms; 0: not). */
  formVerified(verdict, origMs, formMs = 0) {
    const us = (ms) => Math.min(0xffffffff, Math.round(ms * 1000)) >>> 0;
    return this.m._ok_load_form_verified(this.l, verdict, us(origMs), us(formMs));
  }
  /** CAPTURE_FORM's answer: the captured form's size (0: nothing usable was written). */
  captured(bytesLength) {
    return this.m._ok_load_captured(this.l, u64(bytesLength));
  }
  /** At CREATE_SESSION of an original: the form to capture (FORM.*; 0 none). facts: FACT.* bits; externalBytes: its external data. */
  captureForm(facts, externalBytes = 0) {
    return this.m._ok_load_capture_form(this.l, facts, u64(externalBytes));
  }
  /** A finished data load joins this load's commit (before session()). */
  adoptPart(part) {
    return this.m._ok_load_adopt_part(this.l, part.l);
  }
  /**
   * Every data file is loaded and adopted, before the session: a form made from other bytes than those now
   * stored (a file fetched again) is retired and the original read; info().form then no longer names it.
   */
  partsLoaded() {
    return this.m._ok_load_parts_loaded(this.l);
  }
  abort() {
    return this.l ? this.m._ok_load_abort(this.l) : STATUS.OK;
  }
}
