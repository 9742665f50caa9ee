// The chunks a fast download stores ahead of its session (STORE_AHEAD),
// made and written beside the page. Building a 44 MB model's Blob records
// held the page's thread 280-550 ms here before onnxruntime-web could start
// creating the session; the browser's own copy of the bytes is what costs.
// So a download's body pieces, once copied into the model buffer, are
// handed (transferred, not copied) to one worker; at STORE_AHEAD it builds
// each chunk's record from them and writes it with its manifest in one
// transaction, as the page would (idb-store.js storeChunk), while
// onnxruntime-web holds the page creating the session: the store and the
// creation share the machine's cores instead of following each other.
//
// A dedicated worker dies with its page, as the page's own transactions
// do: what it committed by then is kept, as before. Where no worker starts
// (no Worker, a CSP without blob: workers), where it lacks a piece, or where
// it fails, the page stores the chunk itself. Its Blob records count in the
// page's budget (blobRecordsFor) until the worker's garbage collector frees
// them.
import { pageWorker } from '../util/inline-worker.js';
import { blobBytesCollected } from './idb-store.js';

const WORKER_SOURCE = `const loads = new Map(); // load -> [{at, bytes}] in offset order
const dbs = new Map(); // name -> Promise<IDBDatabase>
const collected = new FinalizationRegistry((n) => postMessage({ t: 'collected', n }));
function open(name) {
  let p = dbs.get(name);
  if (p) return p;
  p = new Promise((resolve, reject) => {
    const r = indexedDB.open(name);
    // the page opened (and upgraded) it first: no schema is made here
    r.onupgradeneeded = () => r.transaction.abort();
    r.onsuccess = () => {
      const db = r.result;
      db.onversionchange = () => { db.close(); dbs.delete(name); };
      db.onclose = () => dbs.delete(name);
      resolve(db);
    };
    r.onerror = () => { dbs.delete(name); reject(r.error); };
  });
  dbs.set(name, p);
  return p;
}
function parts(load, from, len) {
  const out = [];
  let at = from;
  for (const p of loads.get(load) ?? []) {
    const end = p.at + p.bytes.byteLength;
    if (end <= at || p.at > at) continue;
    const take = Math.min(end, from + len) - at;
    out.push(p.bytes.subarray(at - p.at, at - p.at + take));
    at += take;
    if (at === from + len) return out;
  }
  return null;
}
function trim(load, upto) {
  const list = loads.get(load);
  if (list) loads.set(load, list.filter((p) => p.at + p.bytes.byteLength > upto));
}
async function store({ id, load, db: dbName, name, chunk, from, len, manifest, asBlob }) {
  const ps = parts(load, from, len);
  if (!ps) return postMessage({ t: 'stored', id, missing: true });
  let value;
  if (asBlob) {
    value = new Blob(ps);
  } else {
    value = new Uint8Array(len);
    let at = 0;
    for (const p of ps) { value.set(p, at); at += p.byteLength; }
    value = value.buffer;
  }
  // the record holds its own copy: the pieces below it go (chunks come in
  // order; one that fails is the page's to store again, from its buffer)
  trim(load, from + len);
  try {
    const db = await open(dbName);
    const tx = db.transaction(['chunks', 'index'], 'readwrite');
    tx.objectStore('chunks').put(value, [name, chunk]);
    tx.objectStore('index').put(manifest, name);
    tx.commit?.();
    await new Promise((resolve, reject) => {
      tx.oncomplete = resolve;
      tx.onerror = () => reject(tx.error);
      tx.onabort = () => reject(tx.error ?? new DOMException('transaction aborted', 'AbortError'));
    });
    // counted in the page's budget until collected; a record that did not
    // land is the page's to make again, and to count
    if (asBlob) collected.register(value, len);
    postMessage({ t: 'stored', id });
  } catch (e) {
    postMessage({ t: 'stored', id, error: { name: e?.name ?? 'Error', message: e?.message ?? String(e) } });
  }
}
onmessage = ({ data }) => {
  if (data.t === 'pieces') {
    let list = loads.get(data.load);
    if (!list) loads.set(data.load, (list = []));
    for (const p of data.pieces) list.push({ at: p.at, bytes: new Uint8Array(p.buffer) });
  } else if (data.t === 'trim') trim(data.load, data.upto);
  else if (data.t === 'release') loads.delete(data.load);
  else if (data.t === 'store') store(data);
};
postMessage({ t: 'ready' });`;

/** Pieces go to the worker in batches of about this many bytes (one message). */
const BATCH_BYTES = 1 << 20;

let nextLoad = 0;
let held = 0; // Blob-record bytes counted in the budget and not yet reported collected
const inFlight = new Map(); // request id -> Blob-record bytes it counts in `held`
const live = new Set(); // feeds (loads) using the worker

// refused late, crashed, or never started: every store waiting on it is the page's again
const storer = pageWorker(WORKER_SOURCE, {
  onMessage: (data) => {
    if (data.t !== 'collected') return;
    held -= data.n;
    blobBytesCollected(data.n);
  },
  onStop: () => {
    // the stores it had not answered are the page's (which counts their
    // records itself); the Blobs it made went with it
    for (const len of inFlight.values()) held -= len;
    inFlight.clear();
    blobBytesCollected(held);
    held = 0;
    for (const f of live) f.usable = false;
  },
});

/**
 * A download's body pieces, handed to the store worker as they come, so its
 * chunks can be stored beside the page later. None where no worker runs or
 * where the core says the page stores (ok_store_beside: the size unknown,
 * or too big for the worker to hold a second copy of until it is stored).
 * @param {{storeBeside: (total: number) => boolean}} core decides from the size (ok_store_beside)
 * @param {number} total the body's size when known (0: unknown)
 * @returns {StoreFeed|null}
 */
export function storeFeed(core, total) {
  if (storer.broken || !core.storeBeside(total)) return null;
  const w = storer.get();
  if (!w) return null;
  storer.hold();
  const f = new StoreFeed(w, ++nextLoad);
  live.add(f);
  return f;
}

/** One load's feed of body pieces to the store worker, and its stores there. */
export class StoreFeed {
  constructor(w, load) {
    this.w = w;
    this.load = load;
    this.usable = true;
    this.batch = [];
    this.batchBytes = 0;
    this.end = -1; // the worker holds every byte below this from `start` on (-1: nothing yet)
    this.start = -1;
  }

  /**
   * A body piece at `at`, already copied into the model buffer: handed over
   * (its buffer detached) when it is its buffer's only view, else the feed
   * stops (a gap would leave chunks the worker cannot make).
   */
  piece(at, bytes) {
    if (!this.usable) return;
    const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
    const contiguous = this.end < 0 || at === this.end;
    if (
      !own ||
      !contiguous ||
      (typeof SharedArrayBuffer !== 'undefined' && bytes.buffer instanceof SharedArrayBuffer)
    ) {
      this.usable = false;
      this.flush();
      return;
    }
    const n = bytes.byteLength; // read before the transfer detaches it
    if (this.start < 0) this.start = at;
    this.end = at + n;
    this.batch.push({ at, buffer: bytes.buffer });
    this.batchBytes += n;
    if (this.batchBytes >= BATCH_BYTES) this.flush();
  }

  flush() {
    if (!this.batch.length) return;
    if (this.w === storer.current)
      this.w.postMessage(
        { t: 'pieces', load: this.load, pieces: this.batch },
        this.batch.map((p) => p.buffer),
      );
    this.batch = [];
    this.batchBytes = 0;
  }

  /** Whether the worker can make the chunk [from, from + len). */
  covers(from, len) {
    return this.usable && this.w === storer.current && this.start >= 0 && from >= this.start && from + len <= this.end;
  }

  /**
   * Store chunk `chunk` of entry `name` = bytes [from, from + len) with its
   * manifest, beside the page. Resolves null when it landed, an Error-like
   * {name, message} when IndexedDB is full, or 'page' when the page must
   * store it itself (the worker lacked a piece, went away, or met another
   * failure: the page's store reopens a closed database, and reports).
   */
  store(dbName, name, chunk, from, len, manifest, asBlob) {
    this.flush();
    const { id, reply } = storer.expect();
    const counted = asBlob ? len : 0;
    held += counted;
    inFlight.set(id, counted);
    try {
      this.w.postMessage({ t: 'store', id, load: this.load, db: dbName, name, chunk, from, len, manifest, asBlob });
    } catch {
      storer.forget(id); // a store that could not go: the page's (its reply settles null)
    }
    return reply.then((r) => {
      // null: the worker went (its stop uncounted what was in flight), or the store never went out
      if (!r) {
        if (inFlight.delete(id)) held -= counted;
        return 'page';
      }
      inFlight.delete(id);
      if (r.missing || r.error) held -= counted; // not stored: the page makes (and counts) its own record
      if (r.missing) return 'page';
      if (!r.error) return null;
      return r.error.name === 'QuotaExceededError' ? r.error : 'page';
    });
  }

  /** Bytes below `upto` are stored by the page: the worker lets them go. */
  trim(upto) {
    this.flush();
    if (this.w === storer.current) this.w.postMessage({ t: 'trim', load: this.load, upto });
  }

  /** The load is over: its pieces go. */
  release() {
    if (!live.delete(this)) return;
    this.batch = [];
    if (this.w === storer.current) this.w.postMessage({ t: 'release', load: this.load });
    storer.release();
  }
}
