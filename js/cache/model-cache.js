// The model cache driver: memory → IndexedDB → network. It feeds the C core
// (cache-core.js) events, carries out the actions the core queues, in order,
// against IndexedDB (idb-store.js) and the network (network.js), and never
// decides anything the core decides (what to serve, resume, evict, drop).
import { getCore } from '../core.js';
import { OrtkeepError } from '../errors.js';
import { readSource } from '../sources.js';
import { ACT, CacheCore, CHUNK_END, LOOKUP, MANIFEST, MODES, ST } from './cache-core.js';
import { DB_NAME, IdbStore } from './idb-store.js';
import { CACHE_LOCK, keyLock, withLock } from './locks.js';
import * as net from './network.js';
import { freeQuota, isQuotaError, persist } from './quota.js';

export const DEFAULT_CHUNK_SIZE = 4 << 20;
const FORM_ORIGINAL = 0;
const READ_WINDOW = 8; // chunks read at once on a hit
const now = () => (globalThis.performance ?? Date).now();

const settings = { dbName: DB_NAME, recordForm: 'blob', budget: 0 };
let cachePromise = null;

/** Internal knobs (tests, benchmarks): database name, record form, byte budget. */
export function configureCache(o = {}) {
  Object.assign(settings, o);
  const old = cachePromise;
  cachePromise = null;
  return old?.then((c) => c.close(), () => {});
}

/** The page's cache (opened and recovered once). */
export function getModelCache() {
  cachePromise ??= ModelCache.open();
  cachePromise.catch(() => { cachePromise = null; });
  return cachePromise;
}

export function normalizeUrl(source) {
  const u = new URL(String(source), globalThis.location?.href);
  u.hash = '';
  return u.href;
}

/** The cache key: content-addressed when the caller gives integrity, else the URL; plus the form. */
export function cacheKeyFor(url, integrity) {
  const sha = sriSha256Hex(integrity);
  return sha ? contentKey(sha) : `url:${url}|form:original`;
}

/** The content-addressed cache key of bytes whose SHA-256 is `sha256Hex`. */
export function contentKey(sha256Hex) {
  return `sha256:${sha256Hex}|form:original`;
}

export function toHex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** The first sha256 digest of an SRI string as hex; null when there is none or it is malformed. */
export function sriSha256Hex(integrity) {
  if (!integrity) return null;
  const m = /(?:^|\s)sha256-([A-Za-z0-9+/_-]+={0,2})/.exec(String(integrity));
  if (!m) return null;
  try {
    const bin = atob(m[1].replace(/-/g, '+').replace(/_/g, '/'));
    return bin.length === 32 ? toHex(Array.from(bin, (c) => c.charCodeAt(0))) : null;
  } catch {
    return null;
  }
}

export function warn(options, code, message) {
  console.warn(message);
  try { options.onWarning?.({ code, message }); } catch { /* the caller's handler */ }
}

/**
 * What load() needs for a source: the bytes, their SHA-256 when the cache
 * already knows it (hex, else null), and session.info.cache.
 */
export async function readModel(source, options = {}) {
  const mode = options.cache ?? 'default';
  if (!(mode in MODES)) {
    throw new OrtkeepError('INVALID_ARG', `ortkeep: cache must be one of ${Object.keys(MODES).join(', ')}; got '${mode}'`);
  }
  const isUrl = typeof source === 'string' || source instanceof URL;
  const t0 = now();
  if (!isUrl) return { ...(await readSource(source, options)), sha256: null, cache: null };
  const url = normalizeUrl(source);
  const key = cacheKeyFor(url, options.integrity);
  const direct = async (why) => {
    if (mode === 'only-if-cached') {
      throw new OrtkeepError('NOT_FOUND', `ortkeep: ${url} is not in the model cache (cache: 'only-if-cached'); load it once with the network`);
    }
    const r = await readSource(url, options);
    const info = { tier: 'network', bytes: r.bytes.byteLength, key, stored: false, timings: { downloadMs: now() - t0, totalMs: now() - t0 } };
    if (why) info.reason = why;
    return { ...r, sha256: null, cache: info };
  };
  if (mode === 'no-store') return direct('no-store');
  if (typeof indexedDB === 'undefined') return direct('no IndexedDB');
  let mc;
  try {
    mc = await getModelCache();
  } catch (e) {
    warn(options, 'CACHE_UNAVAILABLE', `ortkeep: the model cache (IndexedDB) is unavailable (${e?.message ?? e}); loading ${url} from the network`);
    return direct('cache unavailable');
  }
  try {
    return await mc.load(url, key, MODES[mode], options, t0);
  } catch (e) {
    if (e instanceof OrtkeepError && ['NETWORK', 'ABORTED', 'INTEGRITY', 'NOT_FOUND', 'INVALID_ARG'].includes(e.code)) throw e;
    // A cache failure must never fail a load the network can serve.
    warn(options, 'CACHE_ERROR', `ortkeep: the model cache failed (${e?.message ?? e}); loading ${url} from the network uncached`);
    return direct('cache error');
  }
}

export class ModelCache {
  static async open() {
    const core = await getCore();
    return withLock(CACHE_LOCK, 'exclusive', async () => {
      const store = await IdbStore.open(settings.dbName, settings.recordForm);
      const mc = new ModelCache(new CacheCore(core.m, settings.budget), store, core);
      await mc.reload();
      return mc;
    });
  }

  constructor(cc, store, core) {
    this.cc = cc;
    this.store = store;
    this.core = core;
    this.ctx = new Map(); // entry id → what JS keeps for it (buffer, fetch, flags)
    this.mutex = Promise.resolve();
    this.persistAsked = false;
  }

  close() {
    this.store.close();
    this.cc.close();
  }

  /** Feeds every `index` record, then recover (caller holds CACHE_LOCK exclusive). */
  async reload() {
    if (this.loaded) { // a fresh view of the store (nothing of ours is live: we hold CACHE_LOCK exclusive)
      this.cc.close();
      this.cc = new CacheCore(this.core.m, settings.budget);
    }
    this.loaded = true;
    let records = null;
    try { records = await this.store.readIndex(); } catch { /* unreadable: reset */ }
    await this.serial(async () => {
      if (!records) this.cc.reset();
      else {
        for (const r of records) this.cc.loadRecord(String(r.name), r.bytes ?? new Uint8Array(0));
        this.cc.recover();
      }
      await this.drain();
    });
  }

  /** Another tab may have written this key since we opened: learn its records. */
  async syncKey(key) {
    const records = await this.store.readIndex(`${key}#`, `${key}#\uffff`);
    await this.serial(async () => {
      const known = new Set(this.cc.entries().map((e) => e.name));
      for (const r of records) if (!known.has(r.name)) this.cc.loadRecord(r.name, r.bytes ?? new Uint8Array(0));
      await this.drain();
    });
  }

  serial(fn) {
    const p = this.mutex.then(fn, fn);
    this.mutex = p.catch(() => {});
    return p;
  }

  /** One core event, then every action it (and the acks) queue, in order. */
  event(call, setup) {
    return this.serial(async () => {
      const r = call();
      setup?.(r);
      await this.drain();
      return r;
    });
  }

  async drain() {
    const q = this.cc.takeActions();
    while (q.length) {
      const a = q.shift();
      if (a.type === ACT.READ_CHUNK && !this.ctx.get(a.entry)?.write) {
        const batch = [a];
        while (q.length && q[0].type === ACT.READ_CHUNK && q[0].entry === a.entry) batch.push(q.shift());
        await this.readChunks(batch);
      } else {
        await this.apply(a);
      }
      q.push(...this.cc.takeActions());
    }
  }

  async apply(a) {
    const cc = this.cc;
    const ctx = this.ctx.get(a.entry);
    switch (a.type) {
      case ACT.WRITE_MANIFEST:
        try {
          await this.store.putManifest(a.name, a.blob);
        } catch (e) {
          if (ctx) ctx.lastWriteError = e;
          cc.writeFailed(a.entry, MANIFEST, isQuotaError(e));
          return;
        }
        cc.manifestWritten(a.entry);
        return;
      case ACT.STORE_CHUNK: {
        const bytes = ctx.chunk(a.chunk);
        try {
          await this.store.storeChunk(a.name, a.chunk, bytes, a.blob);
        } catch (e) {
          ctx.lastWriteError = e;
          cc.writeFailed(a.entry, a.chunk, isQuotaError(e));
          return;
        }
        ctx.storedChunks = (ctx.storedChunks ?? 0) + 1;
        cc.chunkStored(a.entry, a.chunk);
        return;
      }
      case ACT.DELETE_CHUNKS:
        await this.store.deleteChunks(a.name, a.chunk, a.chunkEnd).catch((e) => console.warn(`ortkeep: deleting chunks of ${a.name}: ${e.message}`));
        return;
      case ACT.DROP_ENTRY:
        await this.store.dropEntry(a.name).catch((e) => console.warn(`ortkeep: dropping ${a.name}: ${e.message}`));
        return;
      case ACT.CLEAR_ALL:
        await this.store.clearAll().catch((e) => console.warn(`ortkeep: clearing the cache: ${e.message}`));
        return;
      case ACT.READ_CHUNK: { // resume: rebuild the content hash from what is stored
        let bytes = null;
        await this.store.readChunks(a.name, [a.chunk], (_, b) => { bytes = b; });
        if (bytes && ctx && bytes.byteLength === ctx.chunkLen(a.chunk)) ctx.buffer.set(bytes, a.chunk * ctx.chunkSize);
        cc.chunkRehash(a.entry, a.chunk, bytes);
        return;
      }
      case ACT.FETCH:
        if (ctx) ctx.fetch = { chunk: a.chunk, end: a.chunkEnd, byte: a.value };
        return;
      case ACT.COMMITTED: if (ctx) ctx.committed = true; return;
      case ACT.LOAD_UNCACHED: if (ctx) ctx.uncached = true; return;
      case ACT.REFETCH: if (ctx) ctx.refetch = true; return;
      case ACT.ERROR: if (ctx) ctx.error = a.value; return;
      default: throw new OrtkeepError('STATE', `ortkeep: unknown cache action ${a.type}`);
    }
  }

  /**
   * READ_CHUNKs of a hit: read a window of chunks at a time into the one
   * preallocated buffer, then hash each chunk of the assembled buffer
   * natively (WebCrypto, off this thread; it copies the bytes when called,
   * so what is hashed is what was handed on) and let C decide chunk by chunk,
   * in order. Hashing after the reads, not between them, keeps it off the
   * read path: it overlaps session creation instead (load()).
   */
  async readChunks(batch) {
    const entry = batch[0].entry;
    const name = batch[0].name;
    const ctx = this.ctx.get(entry);
    const hashing = ctx.verify && subtle();
    const got = new Map(); // idx → {len, bytes?}, then Promise<{len, digest | bytes}>
    for (let i = 0; i < batch.length; i += READ_WINDOW) {
      const part = batch.slice(i, i + READ_WINDOW).map((a) => a.chunk);
      await this.store.readChunks(name, part, (idx, bytes) => {
        if (!bytes) return;
        const len = bytes.byteLength;
        const fits = len === ctx.chunkLen(idx);
        if (fits) {
          ctx.buffer.set(bytes, idx * ctx.chunkSize);
          ctx.filled = (ctx.filled ?? 0) + 1;
        }
        // A chunk of the wrong length is not in the buffer: keep it for its digest.
        got.set(idx, { len, bytes: !fits || (ctx.verify && !hashing) ? bytes : null });
        ctx.loaded += len;
        ctx.progress?.(ctx.loaded);
      });
    }
    for (const [idx, g] of got) {
      got.set(idx, hashing
        ? subtle().digest('SHA-256', g.bytes ?? ctx.chunk(idx)).then((d) => ({ len: g.len, digest: new Uint8Array(d) }))
        : Promise.resolve({ len: g.len, bytes: ctx.verify ? g.bytes : null }));
    }
    // Every chunk is in the buffer (right lengths, nothing written to it
    // after this): load() may hand the bytes on while the digests below are
    // checked; nothing is served until the C core has decided every chunk.
    if (ctx.verify && ctx.filled === ctx.count) ctx.assembled?.();
    for (const a of batch) {
      const g = await got.get(a.chunk);
      let st;
      if (!g) st = this.cc.chunkReadDigest(entry, a.chunk, 0, null); // missing
      else if (g.digest) st = this.cc.chunkReadDigest(entry, a.chunk, g.len, g.digest);
      else if (ctx.verify) st = this.cc.chunkRead(entry, a.chunk, g.bytes); // no WebCrypto (insecure context): C hashes
      else st = g.len === ctx.chunkLen(a.chunk) ? ST.OK : this.cc.chunkReadDigest(entry, a.chunk, g.len, null); // verify: false (benchmarks only)
      if (st === ST.CORRUPT) { ctx.corrupt = true; return; }
    }
  }

  /**
   * The IndexedDB tier for one key, under the key's lock (one download across tabs).
   * A verified hit resolves as soon as its chunks are assembled, with
   * `verified: Promise<boolean>`: the digests are still being checked (the C
   * core decides each chunk, in order, in the mutex) and both locks stay held
   * until they are. `false`: a chunk was corrupt, the core dropped the entry
   * (a CORRUPT warning was given); load again and the lookup misses.
   */
  load(url, key, mode, options, t0) {
    let resolveEarly;
    const early = new Promise((resolve) => { resolveEarly = resolve; });
    const locked = this.loadLocked(url, key, mode, options, t0, resolveEarly);
    return Promise.race([early, locked]);
  }

  loadLocked(url, key, mode, options, t0, resolveEarly) {
    const { signal } = options;
    return withLock(keyLock(key), 'exclusive', () => withLock(CACHE_LOCK, 'shared', async () => {
      const timings = { waitMs: now() - t0 };
      let resumeRetries = 1;
      for (let attempt = 0; attempt < 4; attempt++) {
        if (signal?.aborted) throw net.abortError(signal);
        const tLookup = now();
        await this.syncKey(key);
        let readCtx = null;
        let tRead = 0;
        let hit = null;
        let assembled;
        const assembledP = new Promise((resolve) => { assembled = resolve; });
        const lookup = this.event(() => this.cc.lookup(key, mode, Date.now()), (res) => {
          tRead = now();
          timings.lookupMs = tRead - tLookup;
          if (res.kind === LOOKUP.HIT) {
            hit = res;
            readCtx = this.hitContext(res, options);
            readCtx.assembled = assembled;
          }
        });
        if (await Promise.race([lookup.then(() => false), assembledP.then(() => true)])) {
          // Assembled, digests pending: hand the bytes on, verify under the locks.
          const tAssembled = now();
          timings.readMs = tAssembled - tRead;
          timings.totalMs = tAssembled - t0;
          let settle;
          const verified = new Promise((resolve, reject) => { settle = { resolve, reject }; });
          verified.catch(() => {}); // the caller awaits it; never an unhandled rejection here
          resolveEarly({ bytes: readCtx.buffer, url: null, sha256: readCtx.sha256, cache: { tier: 'indexeddb', bytes: readCtx.total, key, timings }, verified });
          try {
            await lookup;
            const out = await this.finishHit(hit, readCtx, key, {}, t0);
            timings.verifyMs = now() - tAssembled;
            if (!out) warn(options, 'CORRUPT', `ortkeep: a stored chunk of ${url} failed its digest; the entry was evicted and the model is fetched again`);
            settle.resolve(!!out);
          } catch (e) {
            this.ctx.delete(hit.entry);
            settle.reject(e);
          }
          return null; // the locks are released now, after verification
        }
        const r = await lookup;
        if (r.kind === LOOKUP.HIT) timings.readMs = now() - tRead;
        try {
          switch (r.kind) {
            case LOOKUP.NOT_FOUND:
              throw new OrtkeepError('NOT_FOUND', `ortkeep: ${url} is not in the model cache (cache: 'only-if-cached'); load it once with the network`);
            case LOOKUP.HIT: {
              const out = await this.finishHit(r, readCtx, key, timings, t0);
              if (out) return out;
              warn(options, 'CORRUPT', `ortkeep: a stored chunk of ${url} failed its digest; the entry was evicted and the model is fetched again`);
              continue; // the core dropped the entry and asked for a refetch
            }
            case LOOKUP.REVALIDATE: {
              const info = this.cc.entry(r.entry);
              const res = await net.request(url, { conditional: { etag: info?.etag, lastModified: info?.lastModified }, signal, fetch: options.fetch });
              if (res.status === 304) {
                let ctx2 = null;
                const r2 = await this.event(() => this.cc.revalidated(r.entry, Date.now()), (x) => { if (x.kind === LOOKUP.HIT) ctx2 = this.hitContext(x, options); });
                const out = await this.finishHit(r2, ctx2, key, timings, t0);
                if (out) return out;
                continue;
              }
              return await this.download(res, url, key, options, timings, t0);
            }
            case LOOKUP.RESUME: {
              const info = this.cc.entry(r.entry);
              const validator = info?.etag || info?.lastModified || null;
              const res = await net.request(url, { from: validator ? r.resumeByte : 0, ifRange: validator, signal, fetch: options.fetch });
              return await this.download(res, url, key, options, timings, t0);
            }
            case LOOKUP.BYPASS:
            case LOOKUP.MISS:
            default: {
              const res = await net.request(url, { signal, fetch: options.fetch });
              return await this.download(res, url, key, options, timings, t0, r.kind === LOOKUP.BYPASS);
            }
          }
        } catch (e) {
          // A connection cut mid-body left a resumable entry: try once more from there.
          if (e instanceof OrtkeepError && e.code === 'NETWORK' && e.details?.loaded > 0 && e.details?.resumable && resumeRetries-- > 0) {
            warn(options, 'RESUMING', `ortkeep: the download of ${url} broke off; resuming from the last stored chunk`);
            continue;
          }
          if (e?.retry) continue;
          throw e;
        }
      }
      throw new OrtkeepError('NETWORK', `ortkeep: ${url} kept changing or failing while it was cached; try again`);
    }, signal), signal);
  }

  hitContext(r, options) {
    const info = this.cc.entry(r.entry);
    const ctx = this.makeContext(r.totalSize, info.chunkSize);
    ctx.verify = options.verify !== false;
    ctx.sha256 = info.sha256;
    ctx.progress = (loaded) => options.onProgress?.({ loaded, total: r.totalSize, phase: 'read-cache' });
    this.ctx.set(r.entry, ctx);
    return ctx;
  }

  makeContext(total, chunkSize) {
    const count = Math.ceil(total / chunkSize);
    return {
      buffer: new Uint8Array(total), total, chunkSize, count, loaded: 0,
      chunkLen: (i) => (i < count - 1 ? chunkSize : total - (count - 1) * chunkSize),
      chunk(i) { return this.buffer.subarray(i * chunkSize, Math.min(total, (i + 1) * chunkSize)); },
    };
  }

  /** After the HIT's reads were carried out: the bytes, or null when corrupt. */
  async finishHit(r, ctx, key, timings, t0) {
    this.ctx.delete(r.entry);
    if (ctx.corrupt || ctx.refetch) return null;
    await this.event(() => this.cc.release(r.entry));
    timings.totalMs = now() - t0;
    return { bytes: ctx.buffer, url: null, sha256: ctx.sha256, cache: { tier: 'indexeddb', bytes: ctx.total, key, timings } };
  }

  /** The network tier: stream `res` into the cache (or past it, uncached). */
  async download(res, url, key, options, timings, t0, bypass = false) {
    const { signal } = options;
    const tDl = now();
    const report = (loaded, total) => options.onProgress?.({ loaded, total: total ?? 0, phase: 'download' });
    const uncached = async (reason, code) => {
      if (code) warn(options, code, reason);
      const buffer = res.total !== null ? new Uint8Array(res.total) : null;
      let bytes;
      if (buffer && res.start === 0) {
        report(0, res.total);
        await net.streamInto(res, buffer, (pos) => report(pos, res.total), { url, signal });
        bytes = buffer;
      } else {
        await net.cancel(res);
        bytes = (await readSource(url, { ...options, cache: undefined })).bytes;
      }
      timings.downloadMs = now() - tDl;
      timings.totalMs = now() - t0;
      return { bytes, url, sha256: null, cache: { tier: 'network', bytes: bytes.byteLength, key, stored: false, reason, timings } };
    };
    if (bypass) return uncached('no-store');
    if (res.total === null) return uncached(`ortkeep: ${url} has no Content-Length (or is compressed); loaded uncached`, 'UNCACHED');
    const total = res.total;
    const chunkSize = options.chunkSize ?? DEFAULT_CHUNK_SIZE;
    // Quota: estimate first; the core evicts LRU idle entries or says it cannot fit.
    const free = await freeQuota();
    const planned = await this.event(() => this.cc.planSpace(total, free));
    if (planned === ST.QUOTA) {
      return uncached(`ortkeep: ${url} (${total} bytes) does not fit in the storage quota even after evicting unused models; loaded uncached`, 'QUOTA');
    }
    const ctx = this.makeContext(total, chunkSize);
    ctx.write = true;
    const bw = await this.event(() => this.cc.beginWrite({
      key, url, etag: res.etag, lastModified: res.lastModified, integrity: options.integrity ?? null,
      totalSize: total, chunkSize, form: FORM_ORIGINAL, now: Date.now(),
    }), (b) => { if (b.status === ST.OK) this.ctx.set(b.entry, ctx); });
    if (bw.status !== ST.OK) {
      if (bw.status === 2 /* INVALID_ARG: e.g. a bad integrity string */ && options.integrity) {
        await net.cancel(res);
        throw new OrtkeepError('INVALID_ARG', `ortkeep: integrity must look like 'sha256-<base64>', got '${options.integrity}'`);
      }
      return uncached(`ortkeep: the model cache cannot write ${url} (status ${bw.status}); loaded uncached`, 'UNCACHED');
    }
    const entry = bw.entry;
    let finished = false;
    try {
      const f = ctx.fetch;
      if (!f) throw new OrtkeepError('STATE', 'ortkeep: the cache core asked for no fetch');
      let next = f.chunk;
      if (next < ctx.count) {
        let body = res;
        if (res.start !== f.byte) {
          await net.cancel(res);
          body = await net.request(url, { from: f.byte, ifRange: res.etag || res.lastModified, signal, fetch: options.fetch });
          if (body.start !== f.byte || body.total !== total) {
            await net.cancel(body);
            throw Object.assign(new Error('the model changed while resuming'), { retry: true });
          }
        } else if (res.status === 206) {
          timings.resumedFrom = f.byte;
        }
        report(f.byte, total);
        try {
          await net.streamInto(body, ctx.buffer, async (pos) => {
            report(pos, total);
            while (next < ctx.count && pos >= Math.min(total, (next + 1) * chunkSize)) {
              const idx = next++;
              await this.event(() => this.cc.chunkArrived(entry, idx, ctx.chunk(idx)));
            }
          }, { url, signal });
        } catch (e) {
          if (e instanceof OrtkeepError && e.code === 'NETWORK') e.details = { ...e.details, resumable: next > 0 && !ctx.uncached };
          throw e;
        }
      } else {
        await net.cancel(res);
      }
      const st = await this.event(() => this.cc.downloadDone(entry));
      finished = true;
      if (st === ST.INTEGRITY) {
        throw new OrtkeepError('INTEGRITY', `ortkeep: ${url} does not match its integrity (${options.integrity}); nothing was stored; check the integrity value or the server's file`);
      }
      timings.downloadMs = now() - tDl;
      timings.totalMs = now() - t0;
      if (ctx.uncached) {
        warn(options, 'QUOTA', `ortkeep: the storage quota is full; ${url} was loaded uncached (${ctx.lastWriteError?.message ?? 'quota exceeded'})`);
        return { bytes: ctx.buffer, url, sha256: null, cache: { tier: 'network', bytes: total, key, stored: false, reason: 'quota', timings } };
      }
      const info = this.cc.entry(entry);
      if (options.persist && !this.persistAsked) { this.persistAsked = true; await persist(); }
      return { bytes: ctx.buffer, url, sha256: info?.sha256 ?? null, cache: { tier: 'network', bytes: total, key, stored: !!ctx.committed, timings } };
    } catch (e) {
      if (!finished) {
        // keep a resumable pending entry after a cut or an abort; the core decides
        const keep = e?.code === 'NETWORK' || e?.code === 'ABORTED';
        await this.event(() => this.cc.abortWrite(entry, keep)).catch(() => {});
      }
      throw e;
    } finally {
      this.ctx.delete(entry);
    }
  }
}

const subtle = () => globalThis.crypto?.subtle;
