// Carries out one load machine's actions (cache/ok_load.h): the hands of a
// load. It reads the queue, does each action in order against the Web
// Locks, IndexedDB, the network and onnxruntime-web, and reports what
// happened; what to do next is always the machine's answer. The contract
// it keeps (ok_load.h): acks each write before the next action, feeds body
// pieces only when the queue is empty, and after DONE or FAIL carries out
// what is left (in the background) before it lets go of the lock.
import { ACTION_FLAG, CACHE_ACTION as ACT, IOFAIL, STATUS } from '../core-constants.js';
import { OrtkeepError } from '../errors.js';
import { createSession } from '../ort-adapter.js';
import { ortHeapBytes } from '../forms/capture-loader.js';
import { blobRecordsFor, ioFailKind, valueBytes } from './idb-store.js';
import { acquireLock, heldLocks } from './locks.js';
import { failError, warning } from './messages.js';
import { ModelBuffer } from './model-buffer.js';
import { request } from './network.js';
import { freeQuota } from './quota.js';

const dec = new TextDecoder();
const now = () => (globalThis.performance ?? Date).now();

class NoMemory extends Error {}

/** Most chunk bytes one read transaction takes (see readChunks). */
const READ_BATCH_BYTES = 64 << 20;

/**
 * Runs a load to its end.
 * @param {object} ctx
 * @param {import('./load-core.js').LoadMachine} ctx.machine
 * @param {import('../core.js').Core} ctx.core
 * @param {{index: import('./cache-core.js').CacheIndex, store: import('./idb-store.js').IdbStore}|null} ctx.cache
 * @param {object} ctx.ort  @param {object} ctx.sessionOptions
 * @param {Uint8Array} [ctx.bytes] the caller's bytes (bytes sources)
 * @param {AbortSignal} [ctx.signal]
 * @param {(p: object) => void} [ctx.onProgress]
 * @param {(w: {code: string, message: string}) => void} [ctx.onWarning]
 * @param {typeof fetch} [ctx.fetch]
 * @param {string|null} ctx.url
 * @param {(report: object, machine: object, warnings: string[]) => Promise<object[]|null>} [ctx.dataFiles] at an
 *   original's CREATE_SESSION: load the model's external data files (js/cache/data-files.js); their
 *   `externalData` goes to sessionOptionsFor(report, externalData)
 * @param {(machine: object) => void} [ctx.adopt] a data file's load: called at DONE, before the machine is freed
 * @param {object} [ctx.forms] optimized forms (js/forms/tiers.js): capture(ort, bytes, options, report) at an
 *   original's CREATE_SESSION, verify(session) at VERIFY_FORM, formReport (FORM loads: the original's
 *   reader report, committed with the form), onNote(action)
 * @returns {Promise<{ortSession: object, report: object, info: object, timings: object, warnings: string[]}>}
 */
export function runLoad(ctx) {
  return new Promise((resolve, reject) => {
    new LoadRun(ctx, resolve, reject).go();
  });
}

class LoadRun {
  constructor(ctx, resolve, reject) {
    this.ctx = ctx;
    this.m = ctx.machine;
    this.resolve = resolve;
    this.reject = reject;
    this.settled = false;
    this.queue = [];
    this.ac = new AbortController();
    this.aborted = false;
    this.buf = new ModelBuffer();
    this.body = null;        // the response whose body is (or may be) read
    this.streaming = false;
    this.offset = 0;
    this.finished = false;
    this.ortSession = null;
    this.report = null;
    this.releaseLock = null;
    this.warnings = [];
    this.t0 = now();
    this.timings = {};
    this.mark = this.t0;
  }

  /** Events answer an ok_status; NOMEM ends the load (the contract). */
  ev(st) {
    if (st === STATUS.NOMEM) throw new NoMemory();
    return st;
  }

  settle(err, value) {
    if (this.settled) return;
    this.settled = true;
    if (err) this.reject(err);
    else this.resolve(value);
  }

  phase(name) {
    const t = now();
    this.timings[name] = (this.timings[name] ?? 0) + (t - this.mark);
    this.mark = t;
  }

  async go() {
    const { signal } = this.ctx;
    const onAbort = () => {
      if (this.aborted || this.finished) return;
      this.aborted = true;
      this.ac.abort(signal.reason);
      try {
        this.ev(this.m.abort());
        // the FAIL is decided now: reject at once, carry out the rest later
        const acts = this.m.take();
        this.queue.push(...acts);
        const f = acts.find((a) => a.type === ACT.FAIL);
        if (f) this.settle(failError(f.value, f.flags, f.value2, this.ctx.url));
      } catch (e) {
        this.settle(e instanceof NoMemory ? failError(STATUS.NOMEM, 0, 0, this.ctx.url) : e);
      }
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      if (signal?.aborted) onAbort();
      else this.ev(this.m.start());
      await this.loop();
      if (!this.settled) throw new OrtkeepError('STATE', 'ortkeep: the load machine stopped without an answer');
    } catch (e) {
      const err = e instanceof NoMemory ? failError(STATUS.NOMEM, 0, 0, this.ctx.url)
        : e instanceof OrtkeepError ? e : new OrtkeepError('CACHE_ERROR', `ortkeep: loading ${this.ctx.url ?? 'the model'} failed: ${e?.message ?? e}`, { cause: e });
      this.settle(err);
    } finally {
      signal?.removeEventListener('abort', onAbort);
      if (this.ortSession) await this.ortSession.release().catch(() => {});
      if (this.body) await this.body.cancel();
      this.releaseLock?.();
      this.m.free();
    }
  }

  async loop() {
    for (;;) {
      this.queue.push(...this.m.take());
      if (this.queue.length) {
        await this.apply(this.queue.shift());
        continue;
      }
      if (this.streaming) {
        await this.feed();
        continue;
      }
      if (this.finished) return;
      throw new OrtkeepError('STATE', 'ortkeep: the load machine is waiting for nothing');
    }
  }

  progress(phase, loaded, total) {
    try { this.ctx.onProgress?.({ phase, loaded, total }); } catch { /* the caller's handler */ }
  }

  async feed() {
    let piece;
    try {
      piece = await this.body.next();
    } catch {
      this.streaming = false;
      this.ev(this.m.bodyError());
      return;
    }
    if (piece === null) {
      this.streaming = false;
      this.phase('downloadMs');
      this.ev(this.m.bodyEnd());
      return;
    }
    const view = this.ctx.bytes ? piece : this.buf.write(this.offset, piece);
    this.offset += piece.byteLength;
    if (this.ev(this.m.body(view)) !== STATUS.OK) {
      this.streaming = false; // refused (the load failed meanwhile)
      return;
    }
    this.progress('download', this.offset, this.total ?? 0);
  }

  async apply(a) {
    const { store, index } = this.ctx.cache ?? {};
    if (this.ctx.debug) this.ctx.debug(describe(a));
    switch (a.type) {
      case ACT.LOCK: {
        try {
          this.releaseLock = await acquireLock(a.name, this.ac.signal);
        } catch (e) {
          if (this.aborted) return;
          throw e;
        }
        this.phase('waitMs');
        this.ev(this.m.locked());
        return;
      }
      case ACT.SYNC_INDEX: {
        let found;
        try {
          found = await store.readIndex(!!(a.flags & ACTION_FLAG.SYNC_CHUNK_NAMES));
        } catch (e) {
          this.ev(this.m.ioFailed(ioFailKind(e)));
          return;
        }
        for (const r of found.records) this.ev(this.m.syncRecord(r.name, r.bytes));
        for (const n of found.chunkNames ?? []) this.ev(this.m.syncChunkName(n));
        this.phase('lookupMs');
        this.ev(this.m.synced());
        return;
      }
      case ACT.ESTIMATE_QUOTA:
        index.setBusy(await heldLocks());
        this.ev(this.m.quota(await freeQuota()));
        return;
      case ACT.FETCH: {
        if (this.body) await this.body.cancel();
        this.body = null;
        const url = dec.decode(a.blob);
        let res;
        try {
          res = await request(url, { flags: a.flags, from: a.value, ifNoneMatch: a.name, ifModifiedSince: dec.decode(a.aux) },
            { signal: this.ac.signal, fetch: this.ctx.fetch });
        } catch {
          if (!this.aborted) this.ev(this.m.fetchFailed());
          return;
        }
        this.body = res.body;
        this.ev(this.m.response(res.status, res.type, res.headers));
        return;
      }
      case ACT.STREAM:
        this.offset = a.value;
        this.total = a.value2;
        if (this.ctx.bytes) {
          this.body = bytesBody(this.ctx.bytes);
          this.buf.adopt(this.ctx.bytes); // the caller's bytes are the model buffer
        }
        this.streaming = true;
        this.progress('download', this.offset, this.total);
        return;
      case ACT.CANCEL_FETCH:
        this.streaming = false;
        if (this.body) await this.body.cancel();
        this.body = null;
        return;
      case ACT.WAIT:
        try {
          await sleep(a.value, this.ac.signal);
        } catch {
          return; /* aborted */
        }
        this.ev(this.m.waited());
        return;
      case ACT.ALLOC:
        this.buf = new ModelBuffer(a.value, a.value2);
        if (this.ctx.bytes) this.buf.adopt(this.ctx.bytes);
        return;
      case ACT.READ_CHUNKS: {
        // A hit queues READ_META right behind: start that read-only
        // transaction now so it runs beside the chunk read (events still
        // reach the machine in order).
        const meta = this.queue.find((x) => x.type === ACT.READ_META && x.name === a.name);
        if (meta) {
          const p = store.readMeta(a.name);
          p.catch(() => {}); // awaited (and its failure reported) at READ_META
          this.metaRead = { name: a.name, p };
        }
        await this.readChunks(a, store);
        return;
      }
      case ACT.READ_META: {
        let bytes;
        const early = this.metaRead?.name === a.name ? this.metaRead.p : null;
        this.metaRead = null;
        try {
          bytes = await (early ?? store.readMeta(a.name));
        } catch (e) {
          this.ev(this.m.ioFailed(ioFailKind(e)));
          return;
        }
        if (this.ev(this.m.metaRead(bytes)) === STATUS.OK && bytes) this.report = JSON.parse(dec.decode(bytes));
        return;
      }
      case ACT.WRITE_MANIFEST:
      case ACT.STORE_CHUNK:
      case ACT.COMMIT:
        await this.write(a, store, index);
        return;
      case ACT.DELETE_CHUNKS:
      case ACT.DROP_ENTRY:
      case ACT.CLEAR_ALL:
        await applyDelete(store, a);
        return;
      case ACT.REOPEN:
        try { await store.reopen(); } catch { /* the next request fails again; the machine counts */ }
        return;
      case ACT.VALIDATE: {
        this.progress('verify', a.value, a.value);
        let status = STATUS.OK;
        let offset = 0;
        let json = null;
        try {
          const formReport = this.ctx.forms?.formReport;
          if (formReport && this.ctx.forms.format === 'ort') {
            // an .ort form: the C ORT-format reader; the original's report is committed
            this.ctx.core.inspectOrt(this.buf.view(a.value));
            json = formReport;
          } else {
            // Streamed through the core in 1 MiB pieces (core.inspectStream),
            // never copied in whole: the core's heap stays a few MiB for any
            // model. a.name is the SHA-256 the machine took as bytes arrived.
            json = this.ctx.core.inspectJson(this.buf.view(a.value), a.name);
            if (formReport) json = formReport; // a form keeps the original's report
          }
        } catch (e) {
          status = STATUS[e?.code] ?? STATUS.NOT_ONNX;
          offset = e?.offset ?? 0;
        }
        this.phase('validateMs');
        if (json !== null) {
          const bytes = new TextEncoder().encode(json);
          if (this.ev(this.m.validated(status, 0, bytes)) === STATUS.OK) this.report = JSON.parse(json);
        } else {
          this.ev(this.m.validated(status, offset, null));
        }
        return;
      }
      case ACT.CREATE_SESSION: {
        this.phase(this.hit ? 'readMs' : 'storeMs');
        const form = a.value2; // an optimized form: onnxruntime optimized it already
        let externalData = null;
        if (this.ctx.dataFiles) {
          // the model's data files (an optimized .onnx form reads the original's)
          try {
            externalData = await this.ctx.dataFiles(this.report, this.m, this.warnings);
          } catch (e) {
            this.partError = e;
            this.ev(this.m.abort());
            return;
          }
          if (externalData) this.phase('dataMs');
          this.externalData = externalData;
        }
        this.progress('create-session', a.value, a.value);
        let ok = true;
        const heapBefore = ortHeapBytes();
        const t0 = now();
        try {
          let so = this.ctx.sessionOptionsFor ? this.ctx.sessionOptionsFor(this.report, externalData) : this.ctx.sessionOptions;
          const stamped = !form && !!this.ctx.forms?.stampedForThis?.(this.report, this.buf.view(a.value));
          if (form || stamped) so = { ...so, graphOptimizationLevel: 'disabled' };
          const capture = !form && !stamped && this.ctx.forms?.capture ? this.m.captureForm(this.ctx.forms.facts(this.report), this.ctx.forms.externalBytes(this.report)) : 0;
          if (capture) this.ortSession = await this.ctx.forms.capture(capture, this.buf.view(a.value), so);
          else this.ortSession = await createSession(this.ctx.ort, this.buf.view(a.value), so);
        } catch (e) {
          this.sessionError = e;
          ok = false;
        }
        this.createdForm = form;
        // before is null for the page's first session (onnxruntime-web starts with it)
        const heapAfter = ok ? ortHeapBytes() : null;
        this.memory = heapAfter !== null ? { before: heapBefore, after: heapAfter } : null;
        this.phase('createMs');
        this.ev(this.m.sessionTimed(ok, now() - t0));
        return;
      }
      case ACT.VERIFY_FORM: {
        const { verdict, origMs, formMs } = await this.ctx.forms.verify(this.ortSession);
        this.ev(this.m.formVerified(verdict, origMs, formMs));
        return;
      }
      case ACT.NOTE:
        try { this.ctx.forms?.onNote?.(a); } catch { /* the caller's handler */ }
        return;
      case ACT.RELEASE_SESSION:
        await this.ortSession?.release().catch(() => {});
        this.ortSession = null;
        return;
      case ACT.WARN: {
        const w = warning(a.value, a.flags, a.value2, this.ctx.url);
        this.warnings.push(w.code);
        console.warn(w.message);
        try { this.ctx.onWarning?.(w); } catch { /* the caller's handler */ }
        return;
      }
      case ACT.DONE: {
        this.finished = true;
        // a data file's load: what it stored joins its model's load now
        if (this.ctx.adopt) this.ctx.adopt(this.m);
        const info = this.m.info();
        const ortSession = this.ortSession;
        this.ortSession = null; // the caller's now
        if (this.checkMs !== undefined) this.timings.checkMs = this.checkMs;
        this.timings.totalMs = now() - this.t0;
        this.settle(null, {
          ortSession, report: this.report, info, bytes: this.buf.view(info.total), tier: a.value,
          stored: !!(a.flags & ACTION_FLAG.DONE_STORED), verified: !!(a.flags & ACTION_FLAG.DONE_VERIFIED),
          resumedFrom: a.value2, timings: this.timings, warnings: this.warnings, memory: this.memory ?? null,
          externalData: this.externalData ?? null,
        });
        return;
      }
      case ACT.FAIL:
        this.finished = true;
        this.streaming = false;
        // our own refusal of the session's options (EXTERNAL_DATA) is the error as it is
        const own = this.sessionError instanceof OrtkeepError && this.sessionError.code !== 'SESSION_CREATE';
        // a data file that failed: its error, not the abort that followed
        this.settle(this.partError ?? (own ? this.sessionError : failError(a.value, a.flags, a.value2, this.ctx.url, this.sessionError)));
        return;
      default:
        throw new OrtkeepError('STATE', `ortkeep: unknown load action ${a.type}`);
    }
  }

  /** A write; its outcome is acked before anything else happens. */
  async write(a, store, index) {
    if (a.type === ACT.COMMIT && (a.flags & ACTION_FLAG.COMMIT_MORE)) {
      // a data file's commit: held for the model's transaction, not acked
      (this.group ??= []).push({ name: a.name, manifest: a.blob });
      return;
    }
    const group = a.type === ACT.COMMIT ? this.group ?? [] : [];
    if (a.type === ACT.COMMIT) this.group = null;
    try {
      if (a.type === ACT.WRITE_MANIFEST) await store.putManifest(a.name, a.blob);
      else if (a.type === ACT.STORE_CHUNK) {
        // Blob or ArrayBuffer records: decided once per file when its size is known
        const asBlob = this.total ? (this.asBlob ??= blobRecordsFor(this.total)) : blobRecordsFor(0, a.value2);
        await store.storeChunk(a.name, a.chunk, this.buf.bytes.subarray(a.value, a.value + a.value2), a.blob, asBlob);
      }
      else await store.commit(a.name, a.blob, a.aux, group);
    } catch (e) {
      const kind = ioFailKind(e);
      if (kind === IOFAIL.QUOTA) index.setBusy(await heldLocks());
      this.ev(this.m.writeFailed(kind));
      return;
    }
    this.ev(this.m.written());
  }

  /**
   * READ_CHUNKS. Blob records (handles) are read as ONE composed Blob, one
   * read straight into the buffer onnxruntime gets; ArrayBuffer records (and
   * a resume's re-read) go chunk by chunk, in read transactions of at most
   * READ_BATCH_BYTES, since a transaction hands them over materialized. Each
   * chunk is then handed to the core, which checks it.
   */
  async readChunks(a, store) {
    const chunkSize = a.value;
    const total = a.value2;
    const rehash = !!(a.flags & ACTION_FLAG.READ_REHASH);
    this.hit = !rehash;
    const batch = Math.max(1, Math.floor(READ_BATCH_BYTES / chunkSize));
    let checkMs = 0;
    for (let from = a.chunk, to; from < a.chunkEnd; from = to) {
      to = Math.min(a.chunkEnd, from + batch);
      let values;
      try {
        values = await store.readChunks(a.name, from, to);
        const isBlob = (v) => typeof Blob !== 'undefined' && v instanceof Blob;
        if (!rehash && to < a.chunkEnd && values.every(isBlob)) {
          // Blob records are handles: take the rest too and read it all as one
          // Blob straight into the model buffer (no batch copies to collect)
          values = values.concat(await store.readChunks(a.name, to, a.chunkEnd));
          to = a.chunkEnd;
        }
      } catch (e) {
        this.ev(this.m.ioFailed(ioFailKind(e)));
        return;
      }
      const blobs = typeof Blob !== 'undefined' && values.length && values.every((v) => v instanceof Blob);
      if (!rehash && blobs) {
        let bytes;
        try {
          bytes = new Uint8Array(await new Blob(values).arrayBuffer());
        } catch (e) {
          this.ev(this.m.ioFailed(ioFailKind(e)));
          return;
        }
        if (from === 0 && to === a.chunkEnd && bytes.byteLength === total) this.buf.adopt(bytes);
        else if (from * chunkSize + bytes.byteLength <= total) this.buf.write(from * chunkSize, bytes);
        let at = 0;
        const t0 = now();
        for (let i = 0; i < values.length; i++) {
          const piece = bytes.subarray(at, at + values[i].size);
          at += values[i].size;
          if (this.ev(this.m.chunkRead(from + i, piece)) !== STATUS.OK) return;
        }
        // the chunk checks (copy into the core + XXH3), part of readMs
        checkMs += now() - t0;
        this.progress('read-cache', Math.min(total, to * chunkSize), total);
        continue;
      }
      for (let i = 0; i < values.length; i++) {
        const idx = from + i;
        let bytes;
        try {
          bytes = await valueBytes(values[i]);
        } catch (e) {
          this.ev(this.m.ioFailed(ioFailKind(e)));
          return;
        }
        values[i] = null; // let the record's copy go
        if (bytes && bytes.byteLength <= chunkSize) this.buf.write(idx * chunkSize, bytes);
        const t0 = now();
        if (this.ev(this.m.chunkRead(idx, bytes)) !== STATUS.OK) return;
        checkMs += now() - t0;
        this.progress('read-cache', Math.min(total, (idx + 1) * chunkSize), total);
      }
    }
    if (!rehash) this.checkMs = checkMs;
  }
}

/** DELETE_CHUNKS / DROP_ENTRY / CLEAR_ALL: not acked; a closed database is
 * reopened once, other failures only logged (the next sync sweeps). */
export async function applyDelete(store, a) {
  const run = () => (a.type === ACT.DROP_ENTRY ? store.dropEntry(a.name)
    : a.type === ACT.DELETE_CHUNKS ? store.deleteChunks(a.name, a.chunk, a.chunkEnd) : store.clearAll());
  try {
    await run();
  } catch (e) {
    try {
      if (ioFailKind(e) !== IOFAIL.CLOSED) throw e;
      await store.reopen();
      await run();
    } catch (e2) {
      console.warn(`ortkeep: cleaning the model cache failed (${e2?.message ?? e2}); the next load retries`);
    }
  }
}

const ACT_NAME = Object.fromEntries(Object.entries(ACT).map(([k, v]) => [v, k]));

/** One readable line for an action (the `debug` option). */
export function describe(a) {
  const parts = [ACT_NAME[a.type] ?? `#${a.type}`];
  if (a.name) parts.push(a.name);
  if (a.type === ACT.STORE_CHUNK || a.type === ACT.READ_CHUNKS || a.type === ACT.DELETE_CHUNKS) parts.push(`chunks ${a.chunk}..${a.chunkEnd === 0xffffffff ? 'end' : a.chunkEnd}`);
  if (a.value || a.value2) parts.push(`(${a.value}, ${a.value2})`);
  if (a.flags) parts.push(`flags ${a.flags}`);
  return `ortkeep: ${parts.join(' ')}`;
}

/** The caller's bytes as a body, in 1 MiB views (no copy). */
function bytesBody(bytes) {
  let at = 0;
  return {
    async next() {
      if (at >= bytes.byteLength) return null;
      const piece = bytes.subarray(at, Math.min(bytes.byteLength, at + (1 << 20)));
      at += piece.byteLength;
      return piece;
    },
    async cancel() {},
  };
}

function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => { clearTimeout(t); reject(signal.reason); }, { once: true });
  });
}
