// The IndexedDB side of the model cache: plain IndexedDB, promisified. One
// database, object stores `index` (entry name → manifest bytes) and `chunks`
// ([name, chunk] → chunk bytes); see cache/README.md. Every method is ONE
// transaction, which is what the core's crash-safety argument counts on.
// Chunk values are Blobs by default (measured faster here, README "Model
// cache"); `recordForm: 'arraybuffer'` stores ArrayBuffers instead. Reads
// accept either, so a database written in one form reads in the other.

export const DB_NAME = 'ortkeep-cache';
const DB_VERSION = 1;

const req = (r) => new Promise((resolve, reject) => {
  r.onsuccess = () => resolve(r.result);
  r.onerror = () => reject(r.error);
});
const done = (tx) => new Promise((resolve, reject) => {
  tx.oncomplete = () => resolve();
  tx.onerror = () => reject(tx.error);
  tx.onabort = () => reject(tx.error ?? new DOMException('transaction aborted', 'AbortError'));
});

/** All chunks of one entry, from chunk `from` (inclusive) to `to` (exclusive). */
const chunkRange = (name, from = 0, to = Infinity) =>
  IDBKeyRange.bound([name, from], [name, to === 0xffffffff ? Infinity : to], false, true);

export class IdbStore {
  /** @param {IDBDatabase} db @param {'blob'|'arraybuffer'} recordForm */
  constructor(db, recordForm = 'blob') {
    this.db = db;
    this.recordForm = recordForm;
  }

  static async open(name = DB_NAME, recordForm = 'blob') {
    const r = indexedDB.open(name, DB_VERSION);
    r.onupgradeneeded = () => {
      const db = r.result;
      if (!db.objectStoreNames.contains('index')) db.createObjectStore('index');
      if (!db.objectStoreNames.contains('chunks')) db.createObjectStore('chunks');
    };
    const db = await req(r);
    // Another tab upgrading the schema: let it, this page reopens later.
    db.onversionchange = () => db.close();
    return new IdbStore(db, recordForm);
  }

  close() { this.db.close(); }

  /** Every `index` record as {name, bytes}, or only the names in [lo, hi). */
  async readIndex(lo, hi) {
    const tx = this.db.transaction('index', 'readonly');
    const store = tx.objectStore('index');
    const range = lo === undefined ? undefined : IDBKeyRange.bound(lo, hi, false, true);
    const [keys, values] = await Promise.all([req(store.getAllKeys(range)), req(store.getAll(range))]);
    return keys.map((name, i) => ({ name, bytes: toBytes(values[i]) }));
  }

  async putManifest(name, bytes) {
    const tx = this.db.transaction('index', 'readwrite');
    tx.objectStore('index').put(bytes, name);
    await done(tx);
  }

  /** The chunk and the manifest that lists it, in one transaction. */
  async storeChunk(name, idx, bytes, manifest) {
    const value = this.recordForm === 'blob' ? new Blob([bytes]) : bytes.slice().buffer;
    const tx = this.db.transaction(['chunks', 'index'], 'readwrite');
    tx.objectStore('chunks').put(value, [name, idx]);
    tx.objectStore('index').put(manifest, name);
    await done(tx);
  }

  async deleteChunks(name, from, to) {
    const tx = this.db.transaction('chunks', 'readwrite');
    tx.objectStore('chunks').delete(chunkRange(name, from, to));
    await done(tx);
  }

  async dropEntry(name) {
    const tx = this.db.transaction(['chunks', 'index'], 'readwrite');
    tx.objectStore('index').delete(name);
    tx.objectStore('chunks').delete(chunkRange(name));
    await done(tx);
  }

  async clearAll() {
    const tx = this.db.transaction(['chunks', 'index'], 'readwrite');
    tx.objectStore('index').clear();
    tx.objectStore('chunks').clear();
    await done(tx);
  }

  /**
   * Reads chunks `indices` of `name` in one read-only transaction (the gets
   * run in parallel); calls `onChunk(idx, Uint8Array|null)` as each value
   * arrives, in any order, and resolves when all have been handed over.
   */
  async readChunks(name, indices, onChunk) {
    const tx = this.db.transaction('chunks', 'readonly');
    const store = tx.objectStore('chunks');
    const values = await Promise.all(indices.map((i) => req(store.get([name, i]))));
    await Promise.all(values.map(async (v, k) => onChunk(indices[k], v === undefined ? null : await valueBytes(v))));
  }
}

async function valueBytes(v) {
  if (typeof Blob !== 'undefined' && v instanceof Blob) return new Uint8Array(await v.arrayBuffer());
  return toBytes(v);
}

function toBytes(v) {
  if (v instanceof Uint8Array) return v;
  if (v instanceof ArrayBuffer) return new Uint8Array(v);
  if (ArrayBuffer.isView(v)) return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
  return null;
}
