// The load driver's hands on storage (js/cache/load-driver.js): the key's
// Web Lock, the quota, and every IndexedDB action -- sync, reads, acked
// writes, deletes, reopen. Each handler does one action and reports its
// outcome to the machine; what comes next is the machine's answer.
import { ACTION_FLAG, CACHE_ACTION as ACT, IOFAIL, READ_FACT, STATUS } from '../core-constants.js';
import { blobRecordsFor, ioFailKind, valueBytes } from './idb-store.js';
import { acquireLock, heldLocks } from './locks.js';
import { freeQuota } from './quota.js';
import { chunkStore } from './chunk-store-cost.js';
import { readBlob } from './read-beside.js';
import { runtimeUp } from '../runtime-start.js';
import { inProxyWorker } from '../ort-adapter.js';
import { asideWait } from '../forms/turns.js';

const now = () => (globalThis.performance ?? Date).now();
const dec = new TextDecoder();
/** The page's {index, store}; none for loads that store nothing (never asked to then). */
const cacheOf = (run) => run.ctx.cache ?? {};

async function lock(run, a) {
  try {
    const wait = acquireLock(a.name, run.ac.signal);
    // a caller's load may wait here for background work's store of this key: it holds that work back no longer
    run.releaseLock = await (run.ctx.caller ? asideWait(wait) : wait);
  } catch (e) {
    if (run.aborted) return;
    throw e;
  }
  run.phase('waitMs');
  run.ev(run.m.locked());
}

async function syncIndex(run, a) {
  let found;
  try {
    found = await cacheOf(run).store.readIndex(!!(a.flags & ACTION_FLAG.SYNC_CHUNK_NAMES));
  } catch (e) {
    run.ev(run.m.ioFailed(ioFailKind(e)));
    return;
  }
  for (const r of found.records) run.ev(run.m.syncRecord(r.name, r.bytes));
  for (const n of found.chunkNames ?? []) run.ev(run.m.syncChunkName(n));
  run.phase('lookupMs');
  run.ev(run.m.synced());
}

async function estimateQuota(run) {
  cacheOf(run).index.setBusy(await heldLocks());
  run.ev(run.m.quota(await freeQuota()));
}

async function readChunksAction(run, a) {
  const { store } = cacheOf(run);
  // A hit queues READ_META right behind: start that read-only transaction
  // now so it runs beside the chunk read (events still reach the machine
  // in order).
  const meta = run.queue.find((x) => x.type === ACT.READ_META && x.name === a.name);
  if (meta) {
    const p = store.readMeta(a.name);
    p.catch(() => {}); // awaited (and its failure reported) at READ_META
    run.metaRead = { name: a.name, p };
  }
  await readChunks(run, a, store);
}

async function readMeta(run, a) {
  let bytes;
  const early = run.metaRead?.name === a.name ? run.metaRead.p : null;
  run.metaRead = null;
  try {
    bytes = await (early ?? cacheOf(run).store.readMeta(a.name));
  } catch (e) {
    run.ev(run.m.ioFailed(ioFailKind(e)));
    return;
  }
  if (run.ev(run.m.metaRead(bytes)) === STATUS.OK && bytes) run.report = JSON.parse(dec.decode(bytes));
}

/** STORE_CHUNK's bytes: the model buffer [value, value + value2). */
const chunkOf = (run, a) => run.buf.bytes.subarray(a.value, a.value + a.value2);

/** Blob or ArrayBuffer records: decided once per file when its size is known. */
const asBlob = (run, a) =>
  run.total ? (run.asBlob ??= blobRecordsFor(run.ctx.core, run.total)) : blobRecordsFor(run.ctx.core, 0, a.value2);

/**
 * WRITE_MANIFEST, STORE_CHUNK, COMMIT: its outcome is acked before anything
 * else happens -- but a STORE_AHEAD chunk's, which the driver settles.
 */
async function write(run, a) {
  const { store, index } = cacheOf(run);
  if (!(a.flags & ACTION_FLAG.STORE_AHEAD)) await besideLanded(run);
  if (a.type === ACT.COMMIT && a.flags & ACTION_FLAG.COMMIT_MORE) {
    // a data file's commit: held for the model's transaction, not acked
    (run.group ??= []).push({ name: a.name, manifest: a.blob });
    return;
  }
  if (a.type === ACT.STORE_CHUNK && a.flags & ACTION_FLAG.STORE_AHEAD) {
    // sent before the session: begun now, its transaction committed by the
    // browser while onnxruntime-web holds the page; settled by the driver
    (run.aheadStores ??= []).push(storeAhead(run, a, store).then(() => 0, ioFailKind));
    return;
  }
  const group = a.type === ACT.COMMIT ? (run.group ?? []) : [];
  if (a.type === ACT.COMMIT) run.group = null;
  try {
    if (a.type === ACT.WRITE_MANIFEST) await store.putManifest(a.name, a.blob);
    else if (a.type === ACT.STORE_CHUNK) {
      const t = now();
      await store.storeChunk(a.name, a.chunk, chunkOf(run, a), a.blob, asBlob(run, a));
      // what waiting on the network must add up to before a store during a download
      chunkStore.ms = now() - t;
      run.beside?.trim(a.value + a.value2); // stored: the worker's copy goes
      run.netWaitMs = 0;
    } else await store.commit(a.name, a.blob, a.aux, group);
  } catch (e) {
    const kind = ioFailKind(e);
    if (kind === IOFAIL.QUOTA) index.setBusy(await heldLocks());
    run.ev(run.m.writeFailed(kind));
    return;
  }
  run.ev(run.m.written());
}

/**
 * A STORE_AHEAD chunk: made and written by the store worker when it holds
 * the chunk's bytes (the page's thread is then free for the session), else
 * by the page. Rejects with the IndexedDB failure either met.
 */
async function storeAhead(run, a, store) {
  const blob = asBlob(run, a);
  const feed = run.beside;
  const onPage = () => store.storeChunk(a.name, a.chunk, chunkOf(run, a), a.blob, blob);
  if (!feed?.covers(a.value, a.value2)) return onPage();
  const asBlobRecord = blob && store.recordForm === 'blob';
  const landed = feed.store(store.name, a.name, a.chunk, a.value, a.value2, a.blob, asBlobRecord).then((r) => {
    if (r === 'page') return onPage();
    if (r !== null) throw r;
  });
  (run.besideStores ??= []).push(landed);
  return landed;
}

/**
 * The STORE_AHEAD run: once it settled, how many landed before the first
 * that failed, and how that one failed -- handled by the core as that one
 * write's failure.
 */
export async function settleAhead(run) {
  const kinds = await Promise.all(run.aheadStores);
  run.aheadStores = null;
  const failed = kinds.findIndex((k) => k !== 0);
  const kind = failed < 0 ? 0 : kinds[failed];
  if (kind === IOFAIL.QUOTA) cacheOf(run).index.setBusy(await heldLocks());
  run.ev(run.m.aheadSettled(failed < 0 ? kinds.length : failed, kind));
}

/**
 * READ_CHUNKS. Blob records (handles) are read as ONE composed Blob, one
 * read straight into the buffer onnxruntime gets (by the read worker,
 * js/cache/read-beside.js, where onnxruntime-web has yet to start); ArrayBuffer records (and
 * a resume's re-read) go chunk by chunk, in read transactions of as many
 * chunks as the core says (ok_store_read_batch), since a transaction hands
 * them over materialized. Each chunk is then handed to the core, which
 * checks it.
 */
async function readChunks(run, a, store) {
  const chunkSize = a.value;
  const total = a.value2;
  const rehash = !!(a.flags & ACTION_FLAG.READ_REHASH);
  run.hit = !rehash;
  const batch = run.ctx.core.readBatch(chunkSize);
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
      run.ev(run.m.ioFailed(ioFailKind(e)));
      return;
    }
    const blobs = typeof Blob !== 'undefined' && values.length && values.every((v) => v instanceof Blob);
    if (!rehash && blobs) {
      let bytes;
      try {
        const blob = new Blob(values);
        bytes = new Uint8Array(await readBlob(blob, run.ctx.core.readBeside(blob.size, readFacts(run.ctx.ort))));
      } catch (e) {
        run.ev(run.m.ioFailed(ioFailKind(e)));
        return;
      }
      if (from === 0 && to === a.chunkEnd && bytes.byteLength === total) run.buf.adopt(bytes);
      else if (from * chunkSize + bytes.byteLength <= total) run.buf.write(from * chunkSize, bytes);
      let at = 0;
      const t0 = now();
      for (let i = 0; i < values.length; i++) {
        const piece = bytes.subarray(at, at + values[i].size);
        at += values[i].size;
        if (run.ev(run.m.chunkRead(from + i, piece)) !== STATUS.OK) return;
      }
      // the chunk checks (copy into the core + XXH3), part of readMs
      checkMs += now() - t0;
      run.progress('read-cache', Math.min(total, to * chunkSize), total);
      continue;
    }
    for (let i = 0; i < values.length; i++) {
      const idx = from + i;
      let bytes;
      try {
        bytes = await valueBytes(values[i]);
      } catch (e) {
        run.ev(run.m.ioFailed(ioFailKind(e)));
        return;
      }
      values[i] = null; // let the record's copy go
      if (bytes && bytes.byteLength <= chunkSize) run.buf.write(idx * chunkSize, bytes);
      const t0 = now();
      if (run.ev(run.m.chunkRead(idx, bytes)) !== STATUS.OK) return;
      checkMs += now() - t0;
      run.progress('read-cache', Math.min(total, (idx + 1) * chunkSize), total);
    }
  }
  if (!rehash) run.checkMs = checkMs;
}

/** What the core's read rule needs to know (READ_FACT: ok_read_beside); where no worker runs, readBlob reads on the page. */
function readFacts(ort) {
  return (runtimeUp(ort) ? READ_FACT.RUNTIME_UP : 0) | (ort && inProxyWorker(ort) ? READ_FACT.RUNTIME_AWAY : 0);
}

async function remove(run, a) {
  await besideLanded(run);
  await applyDelete(run.ctx.core, cacheOf(run).store, a);
}

/**
 * The store worker's transactions are on its own connection: IndexedDB
 * orders them with the page's only by when each begins. So a write or
 * delete of the page's waits until every chunk sent beside has landed or
 * failed, as it would behind the page's own STORE_AHEAD transactions (a drop
 * begun first was undone by a chunk that landed after it).
 */
async function besideLanded(run) {
  if (run.besideStores?.length) await Promise.allSettled(run.besideStores.splice(0));
}

async function reopen(run) {
  try {
    await cacheOf(run).store.reopen();
  } catch {
    /* the next request fails again; the machine counts */
  }
}

/**
 * DELETE_CHUNKS / DROP_ENTRY / CLEAR_ALL: not acked. A failure is reopened
 * and run again while the core says so (ok_store_delete_reopen: a closed
 * database, once), else only logged (the next sync sweeps).
 * @param {import('../core/module.js').Core} core
 * @param {import('./idb-store.js').IdbStore} store
 */
export async function applyDelete(core, store, a) {
  const run = () =>
    a.type === ACT.DROP_ENTRY
      ? store.dropEntry(a.name)
      : a.type === ACT.DELETE_CHUNKS
        ? store.deleteChunks(a.name, a.chunk, a.chunkEnd)
        : store.clearAll();
  for (let reopens = 0; ; reopens++) {
    try {
      await run();
      return;
    } catch (e) {
      try {
        if (!core.deleteReopens(ioFailKind(e), reopens)) throw e;
        await store.reopen();
      } catch (e2) {
        console.warn(`ortkeep: cleaning the model cache failed (${e2?.message ?? e2}); the next load retries`);
        return;
      }
    }
  }
}

/** The storage actions' handlers, by action type. */
export const STORE_ACTIONS = {
  [ACT.LOCK]: lock,
  [ACT.SYNC_INDEX]: syncIndex,
  [ACT.ESTIMATE_QUOTA]: estimateQuota,
  [ACT.READ_CHUNKS]: readChunksAction,
  [ACT.READ_META]: readMeta,
  [ACT.WRITE_MANIFEST]: write,
  [ACT.STORE_CHUNK]: write,
  [ACT.COMMIT]: write,
  [ACT.DELETE_CHUNKS]: remove,
  [ACT.DROP_ENTRY]: remove,
  [ACT.CLEAR_ALL]: remove,
  [ACT.REOPEN]: reopen,
};
