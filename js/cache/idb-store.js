// The IndexedDB side of the model cache: plain IndexedDB, promisified.
// One database, three object stores (cache/README.md):
//   index   entry name → manifest bytes
//   meta    entry name → the C reader's report (JSON bytes)
//   chunks  [name, chunk] → chunk bytes (Blobs by default)
// Every method is ONE transaction, which is what the core's crash-safety
// argument counts. Failures are OrtkeepErrors with `ioFail` set to the
// kind the load machine needs (QUOTA, CLOSED, OTHER); nothing waits forever:
// opening has a deadline, and a database closed or deleted under the page
// is reported CLOSED so the machine can ask for a reopen.
import { CACHE_LIMIT, IOFAIL, LOAD_POLICY } from '../core-constants.js';
import { OrtkeepError } from '../errors.js';

export const DB_NAME = 'ortkeep-cache';
const DB_VERSION = 2;
const STORES = ['index', 'meta', 'chunks'];

/** The load machine's kind of an IndexedDB failure. */
export function ioFailKind(e) {
  if (e?.ioFail) return e.ioFail;
  const name = e?.name ?? '';
  if (name === 'QuotaExceededError' || /quota/i.test(e?.message ?? '')) return IOFAIL.QUOTA;
  if (name === 'InvalidStateError' || name === 'TransactionInactiveError') return IOFAIL.CLOSED;
  return IOFAIL.OTHER;
}

function idbError(e, what) {
  const err = new OrtkeepError(
    'CACHE_ERROR',
    `ortkeep: IndexedDB ${what} failed: ${e?.name ?? 'Error'}${e?.message ? `: ${e.message}` : ''}`,
    { cause: e },
  );
  err.ioFail = ioFailKind(e);
  return err;
}

const req = (r) =>
  new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error ?? new DOMException('request failed', 'UnknownError'));
  });

const done = (tx) =>
  new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error ?? new DOMException('transaction failed', 'UnknownError'));
    tx.onabort = () => reject(tx.error ?? new DOMException('transaction aborted', 'AbortError'));
  });

const chunkRange = (name, from = 0, to = CACHE_LIMIT.CHUNK_END) =>
  IDBKeyRange.bound([name, from], [name, to >= CACHE_LIMIT.CHUNK_END ? Infinity : to], false, true);

/**
 * indexedDB.open with a deadline: a database queued behind a blocked delete
 * or upgrade in another tab never answers. Late successes are closed.
 */
function openDb(name, timeoutMs) {
  return new Promise((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(() => {
      settled = true;
      reject(
        new OrtkeepError(
          'CACHE_UNAVAILABLE',
          `ortkeep: IndexedDB did not open within ${timeoutMs} ms (another tab may be blocking it)`,
        ),
      );
    }, timeoutMs);
    let r;
    try {
      r = indexedDB.open(name, DB_VERSION);
    } catch (e) {
      clearTimeout(timer);
      reject(
        new OrtkeepError('CACHE_UNAVAILABLE', `ortkeep: IndexedDB cannot be opened here: ${e?.message ?? e}`, {
          cause: e,
        }),
      );
      return;
    }
    r.onupgradeneeded = (ev) => {
      const db = r.result;
      // version 1 held another manifest format: start over
      if (ev.oldVersion < 2) for (const s of [...db.objectStoreNames]) db.deleteObjectStore(s);
      for (const s of STORES) if (!db.objectStoreNames.contains(s)) db.createObjectStore(s);
    };
    r.onsuccess = () => {
      if (settled) {
        r.result.close();
        return;
      }
      settled = true;
      clearTimeout(timer);
      resolve(r.result);
    };
    r.onerror = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(
        new OrtkeepError(
          'CACHE_UNAVAILABLE',
          `ortkeep: IndexedDB could not be opened: ${r.error?.message ?? 'unknown error'}`,
          { cause: r.error },
        ),
      );
    };
  });
}

// Blob records write and read about twice as fast as ArrayBuffer ones (and
// a warm read of Blob records composes them into one read), but each one's
// bytes stay in the browser's blob store until the page's garbage collector
// frees the Blob object, which the blob store's pressure does not prompt:
// storing 2.5 GB as Blobs failed in Chromium with "Failed to write blobs
// (InvalidBlob)", and so did 1 GiB of Blobs followed by ArrayBuffers. So a
// file is stored as Blobs only while the Blob records this page still holds
// (written, not yet collected) stay within the core's budget
// (HOST_POLICY.BLOB_RECORD_BUDGET, ok_store_records_as_blob), else all as
// ArrayBuffers (the browser frees its copy at commit; tests/large stores 2.5
// GB that way). A 600 MB model stays Blobs: its warm peak is 1.04x plain
// onnxruntime-web's, against 1.29x with half of it as ArrayBuffers (a read
// hands those over materialized). This page counts the bytes it holds.
let blobBytesHeld = 0;
// the bytes come back to the budget when the garbage collector frees a Blob
const collected =
  typeof FinalizationRegistry === 'function'
    ? new FinalizationRegistry((n) => {
        blobBytesHeld -= n;
      })
    : null;

/**
 * Whether a file of `total` bytes (0: unknown, decided per chunk of `chunk`
 * bytes) is stored as Blob records, as the core decides from the bytes this
 * page holds; counts them until its Blobs are collected (see blobRecord).
 * @param {{recordsAsBlob: (held: number, bytes: number) => boolean}} core
 */
export function blobRecordsFor(core, total, chunk = 0) {
  const n = total || chunk;
  if (!core.recordsAsBlob(blobBytesHeld, n)) return false;
  blobBytesHeld += n;
  return true;
}

/** Blob records made elsewhere (js/cache/store-beside.js) were collected: their bytes come back to the budget. */
export function blobBytesCollected(n) {
  blobBytesHeld -= n;
}

/** A chunk as a Blob record (counted by blobRecordsFor); its bytes leave the budget when the Blob is collected. */
function blobRecord(bytes) {
  const blob = new Blob([bytes]);
  collected?.register(blob, bytes.byteLength);
  return blob;
}

export class IdbStore {
  /** @param {'blob'|'arraybuffer'} recordForm how chunk values are written */
  constructor(name, recordForm, timeoutMs) {
    this.name = name;
    this.recordForm = recordForm;
    this.timeoutMs = timeoutMs;
    this.db = null;
    this.closed = true;
  }

  static async open(name = DB_NAME, { recordForm = 'blob', timeoutMs = LOAD_POLICY.CACHE_OPEN_TIMEOUT_MS } = {}) {
    const s = new IdbStore(name, recordForm, timeoutMs);
    await s.reopen();
    return s;
  }

  /** (Re)open: after another tab deleted or upgraded the database. */
  async reopen() {
    try {
      this.db?.close();
    } catch {
      /* already closed */
    }
    const db = await openDb(this.name, this.timeoutMs);
    this.db = db;
    this.closed = false;
    // Another tab deletes or upgrades the database: let it (a blocked delete
    // would stall every tab); our next request reports CLOSED.
    db.onversionchange = () => {
      this.closed = true;
      db.close();
    };
    db.onclose = () => {
      this.closed = true;
    };
  }

  close() {
    this.closed = true;
    try {
      this.db?.close();
    } catch {
      /* already closed */
    }
  }

  /** One transaction over `stores`; fn(tx) queues requests and returns their promise. */
  async tx(stores, mode, what, fn) {
    if (this.closed) throw idbError(new DOMException('the database connection is closed', 'InvalidStateError'), what);
    let tx;
    try {
      tx = this.db.transaction(stores, mode);
    } catch (e) {
      throw idbError(e, what);
    }
    const finished = done(tx);
    try {
      const [value] = await Promise.all([fn(tx), finished]);
      return value;
    } catch (e) {
      try {
        tx.abort();
      } catch {
        /* already finished */
      }
      throw idbError(e, what);
    }
  }

  /** Every `index` record, and with chunkNames the distinct names in `chunks`. */
  readIndex(chunkNames = false) {
    return this.tx(chunkNames ? ['index', 'chunks'] : ['index'], 'readonly', 'reading the index', async (tx) => {
      const index = tx.objectStore('index');
      const [keys, values, chunkKeys] = await Promise.all([
        req(index.getAllKeys()),
        req(index.getAll()),
        chunkNames ? req(tx.objectStore('chunks').getAllKeys()) : null,
      ]);
      const records = keys.map((name, i) => ({ name: String(name), bytes: toBytes(values[i]) ?? new Uint8Array(0) }));
      const names = chunkKeys ? [...new Set(chunkKeys.map((k) => String(k[0])))] : null;
      return { records, chunkNames: names };
    });
  }

  putManifest(name, manifest) {
    return this.tx(['index'], 'readwrite', 'writing a manifest', (tx) =>
      req(tx.objectStore('index').put(manifest, name)),
    );
  }

  /**
   * The chunk and the manifest that lists it, in one transaction. asBlob:
   * what blobRecordsFor() decided for this file (it counted the bytes).
   */
  storeChunk(name, idx, bytes, manifest, asBlob = true) {
    const value = asBlob && this.recordForm === 'blob' ? blobRecord(bytes) : bytes.slice().buffer;
    return this.tx(['chunks', 'index'], 'readwrite', 'storing a chunk', (tx) => {
      const both = Promise.all([
        req(tx.objectStore('chunks').put(value, [name, idx])),
        req(tx.objectStore('index').put(manifest, name)),
      ]);
      // committed by the browser without waiting for the page to see the
      // puts succeed: the page may be held (a session being created) or gone
      tx.commit?.();
      return both;
    });
  }

  /**
   * The commit: the manifest and the reader's report, in one transaction,
   * with the manifests of the model's data files (`group`, committed with it:
   * all or none). An empty report: a data file committed by itself (no meta).
   * @param {{name: string, manifest: Uint8Array}[]} [group]
   */
  commit(name, manifest, report, group = []) {
    return this.tx(['index', 'meta'], 'readwrite', 'committing a model', (tx) =>
      Promise.all([
        ...(report?.byteLength ? [req(tx.objectStore('meta').put(report, name))] : []),
        ...group.map((g) => req(tx.objectStore('index').put(g.manifest, g.name))),
        req(tx.objectStore('index').put(manifest, name)),
      ]),
    );
  }

  deleteChunks(name, from, to) {
    return this.tx(['chunks'], 'readwrite', 'deleting chunks', (tx) =>
      req(tx.objectStore('chunks').delete(chunkRange(name, from, to))),
    );
  }

  dropEntry(name) {
    return this.tx(STORES, 'readwrite', 'dropping an entry', (tx) =>
      Promise.all([
        req(tx.objectStore('index').delete(name)),
        req(tx.objectStore('meta').delete(name)),
        req(tx.objectStore('chunks').delete(chunkRange(name))),
      ]),
    );
  }

  clearAll() {
    return this.tx(STORES, 'readwrite', 'clearing', (tx) =>
      Promise.all(STORES.map((s) => req(tx.objectStore(s).clear()))),
    );
  }

  readMeta(name) {
    return this.tx(['meta'], 'readonly', 'reading a report', async (tx) =>
      toBytes(await req(tx.objectStore('meta').get(name))),
    );
  }

  /**
   * Chunks [from, to) of `name`, in one read-only transaction: the values in
   * chunk order, null where a record is missing. Blob values are handles; the
   * bytes are read after the transaction (readChunkBytes).
   */
  readChunks(name, from, to) {
    return this.tx(['chunks'], 'readonly', 'reading chunks', async (tx) => {
      const store = tx.objectStore('chunks');
      const range = chunkRange(name, from, to);
      const [keys, values] = await Promise.all([req(store.getAllKeys(range)), req(store.getAll(range))]);
      const out = new Array(to - from).fill(null);
      keys.forEach((k, i) => {
        out[k[1] - from] = values[i];
      });
      return out;
    });
  }
}

/** A stored value's bytes (Blob records are read here). */
export async function valueBytes(v) {
  if (v === null || v === undefined) return null;
  if (typeof Blob !== 'undefined' && v instanceof Blob) return new Uint8Array(await v.arrayBuffer());
  return toBytes(v);
}

function toBytes(v) {
  if (v instanceof Uint8Array) return v;
  if (v instanceof ArrayBuffer) return new Uint8Array(v);
  if (ArrayBuffer.isView(v)) return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
  return null;
}
