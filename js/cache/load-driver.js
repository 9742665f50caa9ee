// Carries out one load machine's actions (cache/ok_load.h): the hands of a
// load. It reads the queue, does each action in order against the Web
// Locks, IndexedDB, the network and onnxruntime-web, and reports what
// happened; what to do next is always the machine's answer. The contract
// it keeps (ok_load.h): acks each write before the next action, feeds body
// pieces only when the queue is empty, and after DONE or FAIL carries out
// what is left (in the background: after a DONE_STORING, the model's last
// chunks and its commit) before it lets go of the lock. The body is read
// ahead at the network's pace; the time the network keeps the driver
// waiting is what lets the core store a chunk during the download.
import { ACTION_FLAG, CACHE_ACTION as ACT, CACHE_LIMIT, HOST_POLICY, STATUS } from '../core-constants.js';
import { OrtkeepError } from '../errors.js';
import { failError, warning } from './messages.js';
import { ModelBuffer } from './model-buffer.js';
import { NETWORK_ACTIONS } from './network-actions.js';
import { ReadAhead } from './read-ahead.js';
import { chunkStore } from './chunk-store-cost.js';
import { SESSION_ACTIONS } from './session-actions.js';
import { STORE_ACTIONS, settleAhead } from './store-actions.js';
import { storeFeed } from './store-beside.js';
import { bytesOfHex, sha256Beside, sha256Bytes } from '../util/sha256.js';

const now = () => (globalThis.performance ?? Date).now();

class NoMemory extends Error {}

/**
 * Runs a load to its end.
 * @param {object} ctx
 * @param {import('./load-machine.js').LoadMachine} ctx.machine
 * @param {import('../core/module.js').Core} ctx.core
 * @param {{index: import('./cache-index.js').CacheIndex, store: import('./idb-store.js').IdbStore}|null} ctx.cache
 * @param {object} ctx.ort  @param {object} ctx.sessionOptions
 * @param {Uint8Array} [ctx.bytes] the caller's bytes (bytes sources)
 * @param {AbortSignal} [ctx.signal]
 * @param {(p: object) => void} [ctx.onProgress]
 * @param {(w: {code: string, message: string}) => void} [ctx.onWarning]
 * @param {typeof fetch} [ctx.fetch]
 * @param {string|null} ctx.url
 * @param {boolean} [ctx.caller] a caller's load (js/forms/turns.js callerLoad), not background work's
 * @param {(report: object, machine: object, warnings: string[]) => Promise<object[]|null>} [ctx.dataFiles] at an
 *   original's CREATE_SESSION: load the model's external data files (js/cache/data-files.js); their
 *   `externalData` goes to sessionOptionsFor(report, externalData)
 * @param {(machine: object) => void} [ctx.adopt] a data file's load: called at DONE, before the machine is freed
 * @param {object} [ctx.forms] optimized forms: for a URL load (js/forms/driver-hooks.js) facts, externalBytes
 *   and captureLater at an original's CREATE_SESSION, onNote(action); for a FORM load (js/forms/tiers.js)
 *   capture(form) at CAPTURE_FORM, verify(session) at VERIFY_FORM, format and formReport (the original's
 *   reader report, committed with the form)
 * @param {() => Promise<boolean>} [ctx.confirmSource] bytes keyed by a fingerprint's hint: whether
 *   their full SHA-256 agrees (js/cache/session-actions.js waits for it before the session reaches anyone)
 * @param {() => Promise<void>} [ctx.sourceFed] the same bytes: settles once that hash needs the main thread no more
 * @param {{formUs: number, origUs: number}} [ctx.revise] a revising FORM load (js/forms/revise.js): the pair it
 *   tallies before it starts (the form's warm creation and the original's beside it, us)
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
    this.body = null; // the response whose body is (or may be) read
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
    this.ahead = null; // the body read ahead (read-ahead.js)
    this.aheadStores = null; // STORE_AHEAD chunks in flight: each settles 0 (landed) or its IOFAIL kind
    this.beside = null; // the body's pieces for the store worker (store-beside.js), or none
    this.netWaitMs = 0; // waited on the network since the core last stored a chunk
    // the core was told the network is idle, and no byte has come since (a
    // flag, not the body's end: at byte 0 an end of 0 read as never told,
    // and the driver told it again and again without yielding: a frozen page)
    this.idleTold = false;
    this.storedLater = new Promise((resolve) => {
      this.resolveStored = resolve;
    });
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
      else {
        // a revising FORM load: the pair is tallied before it starts
        const { revise } = this.ctx;
        if (revise) this.m.revise(revise.formUs, revise.origUs);
        this.ev(this.m.start());
      }
      await this.loop();
      if (!this.settled) throw new OrtkeepError('STATE', 'ortkeep: the load machine stopped without an answer');
    } catch (e) {
      const err =
        e instanceof NoMemory
          ? failError(STATUS.NOMEM, 0, 0, this.ctx.url)
          : e instanceof OrtkeepError
            ? e
            : new OrtkeepError(
                'CACHE_ERROR',
                `ortkeep: loading ${this.ctx.url ?? 'the model'} failed: ${e?.message ?? e}`,
                { cause: e },
              );
      this.settle(err);
    } finally {
      signal?.removeEventListener('abort', onAbort);
      if (this.ortSession) await this.ortSession.release().catch(() => {});
      this.ahead?.stop();
      this.beside?.release();
      if (this.body) await this.body.cancel();
      this.releaseLock?.();
      // served before its store: whether the store landed is known only now
      let stored = !!this.doneStored;
      if (this.storingAfterDone) {
        try {
          stored = !!this.m.info().stored;
        } catch {
          stored = false;
        }
      }
      this.resolveStored(stored);
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
      if (this.aheadStores) {
        // the stores sent before the session (STORE_AHEAD), settled once nothing else is left
        await settleAhead(this);
        continue;
      }
      if (this.finished) return;
      throw new OrtkeepError('STATE', 'ortkeep: the load machine is waiting for nothing');
    }
  }

  /**
   * A URL body that may be stored: its pieces also go to the store worker
   * (js/cache/store-beside.js), which stores its STORE_AHEAD chunks beside
   * the page. One feed per load, continued across a resume's body.
   */
  storeFeedFor(offset) {
    if (!this.ctx.cache?.store || this.ctx.bytes) return null;
    if (this.beside && this.beside.end !== offset) {
      this.beside.release();
      this.beside = null;
    }
    this.beside ??= storeFeed(this.ctx.core, this.total);
    return this.beside;
  }

  progress(phase, loaded, total) {
    try {
      this.ctx.onProgress?.({ phase, loaded, total });
    } catch {
      /* the caller's handler */
    }
  }

  async feed() {
    if (this.ctx.bytes) return this.feedBytes();
    let ra = this.ahead;
    if (!ra || ra.body !== this.body || ra.buf !== this.buf) {
      ra?.stop();
      ra = this.ahead = new ReadAhead(this.body, this.buf, this.offset, this.storeFeedFor(this.offset));
    }
    if (!ra.ready(this.offset)) {
      // The network keeps us waiting: the core decides from how long, how
      // long the rest will take and what a store costs whether a complete
      // chunk is stored now; otherwise the store waits for the caller's session.
      // (asked again at every wait, and every store's time within one, until a chunk is
      // stored: one may complete any moment)
      if (!this.idleTold && this.ctx.core.chunkMidDownload(this.netWaitMs, ra.remainingMs(this.total), chunkStore.ms)) {
        this.idleTold = true;
        this.ev(this.m.bodyIdle());
        return;
      }
      // a wait that outlasts a store (a stalled body) is asked about again while it lasts
      const t = now();
      await ra.waitAtMost(this.offset, chunkStore.ms || HOST_POLICY.FIRST_CHUNK_STORE_MS);
      this.netWaitMs += now() - t;
      return;
    }
    if (ra.end > this.offset) {
      this.idleTold = false; // new bytes: the core may have a complete chunk to store now
      const view = this.buf.bytes.subarray(this.offset, ra.end);
      this.offset = ra.end;
      if (this.ev(this.m.body(view)) !== STATUS.OK) {
        this.streaming = false; // refused (the load failed meanwhile)
        return;
      }
      this.progress('download', this.offset, this.total ?? 0);
      return;
    }
    this.streaming = false;
    if (ra.error) {
      this.ev(this.m.bodyError());
      return;
    }
    this.phase('downloadMs');
    if (this.hostSha) {
      // The core asked for the body's SHA-256: its own, in wasm as the body
      // came, took ~300 ms of a 44 MB load here, WebCrypto's at the end 70-80 ms
      // (in a worker 120-140 ms: the copies to it); past HOST_POLICY.HASH_IN_PAGE_BYTES
      // in the worker, so the page is never held for long
      const view = this.buf.view(this.offset);
      const digest =
        view.byteLength <= HOST_POLICY.HASH_IN_PAGE_BYTES
          ? await sha256Bytes(view)
          : bytesOfHex(await sha256Beside(view).done);
      this.phase('hashMs');
      if (this.ev(this.m.bodySha256(digest)) !== STATUS.OK) return;
    }
    this.ev(this.m.bodyEnd());
  }

  /** The caller's bytes: handed to the core as they are, piece by piece. */
  async feedBytes() {
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
    this.offset += piece.byteLength;
    if (this.ev(this.m.body(piece)) !== STATUS.OK) {
      this.streaming = false; // refused (the load failed meanwhile)
      return;
    }
    this.progress('download', this.offset, this.total ?? 0);
  }

  /** One action, by the handler its type has (the tables below). */
  async apply(a) {
    if (this.ctx.debug) this.ctx.debug(describe(a));
    const handler = HANDLERS[a.type];
    if (!handler) throw new OrtkeepError('STATE', `ortkeep: unknown load action ${a.type}`);
    await handler(this, a);
  }
}

// ---- the run's own actions: its buffer and its outcome ----

function alloc(run, a) {
  run.buf = new ModelBuffer(a.value, a.value2);
  // a FORM load's capture is its buffer; a bytes load allocates only to read a form of them
  if (run.ctx.bytes && run.m.source === 'form') run.buf.adopt(run.ctx.bytes);
}

function note(run, a) {
  try {
    run.ctx.forms?.onNote?.(a);
  } catch {
    /* the caller's handler */
  }
}

function warn(run, a) {
  const w = warning(a.value, a.flags, a.value2, run.ctx.url);
  run.warnings.push(w.code);
  console.warn(w.message);
  try {
    run.ctx.onWarning?.(w);
  } catch {
    /* the caller's handler */
  }
}

function done(run, a) {
  run.finished = true;
  // a data file's load: what it stored joins its model's load now
  if (run.ctx.adopt) run.ctx.adopt(run.m);
  const info = run.m.info();
  const ortSession = run.ortSession;
  run.ortSession = null; // the caller's now
  if (run.checkMs !== undefined) run.timings.checkMs = run.checkMs;
  run.timings.totalMs = now() - run.t0;
  run.doneStored = !!(a.flags & ACTION_FLAG.DONE_STORED);
  run.storingAfterDone = !!(a.flags & ACTION_FLAG.DONE_STORING);
  run.settle(null, {
    ortSession,
    report: run.report,
    info,
    bytes: run.buf.view(info.total),
    tier: a.value,
    // stored, or being stored behind the caller (storedLater says how it ended)
    stored: run.doneStored || run.storingAfterDone,
    storedLater: run.storedLater,
    verified: !!(a.flags & ACTION_FLAG.DONE_VERIFIED),
    resumedFrom: a.value2,
    timings: run.timings,
    warnings: run.warnings,
    memory: run.memory ?? null,
    externalData: run.externalData ?? null,
  });
}

function fail(run, a) {
  run.finished = true;
  run.streaming = false;
  // our own refusal of the session's options (EXTERNAL_DATA) is the error as it is
  const own = run.sessionError instanceof OrtkeepError && run.sessionError.code !== 'SESSION_CREATE';
  // a data file that failed: its error, not the abort that followed
  run.settle(
    run.partError ?? (own ? run.sessionError : failError(a.value, a.flags, a.value2, run.ctx.url, run.sessionError)),
  );
}

/** Every action type's handler, grouped by what it touches. */
const HANDLERS = {
  ...STORE_ACTIONS, // Web Locks, quota, IndexedDB (store-actions.js)
  ...NETWORK_ACTIONS, // fetch and the body (network-actions.js)
  ...SESSION_ACTIONS, // the C reader and onnxruntime-web (session-actions.js)
  [ACT.ALLOC]: alloc,
  [ACT.NOTE]: note,
  [ACT.WARN]: warn,
  [ACT.DONE]: done,
  [ACT.FAIL]: fail,
};

const ACT_NAME = Object.fromEntries(Object.entries(ACT).map(([k, v]) => [v, k]));

/** One readable line for an action (the `debug` option). */
export function describe(a) {
  const parts = [ACT_NAME[a.type] ?? `#${a.type}`];
  if (a.name) parts.push(a.name);
  if (a.type === ACT.STORE_CHUNK || a.type === ACT.READ_CHUNKS || a.type === ACT.DELETE_CHUNKS)
    parts.push(`chunks ${a.chunk}..${a.chunkEnd === CACHE_LIMIT.CHUNK_END ? 'end' : a.chunkEnd}`);
  if (a.value || a.value2) parts.push(`(${a.value}, ${a.value2})`);
  if (a.flags) parts.push(`flags ${a.flags}`);
  return `ortkeep: ${parts.join(' ')}`;
}
