// The page's model cache: the C index plus the IndexedDB store, opened once
// per realm. Opening has a deadline (LOAD_POLICY.CACHE_OPEN_TIMEOUT_MS): a
// database that never answers (queued behind another tab's blocked delete)
// makes loads go on uncached with a warning, and the next load tries again.
import { getCore } from '../core/module.js';
import { LOAD_FLAG, LOAD_POLICY } from '../core-constants.js';
import { raceAbort } from '../util/abort.js';
import { CacheIndex } from './cache-index.js';
import { DB_NAME, IdbStore } from './idb-store.js';

const settings = { dbName: DB_NAME, recordForm: 'blob', budget: 0, openTimeoutMs: LOAD_POLICY.CACHE_OPEN_TIMEOUT_MS };
let opening = null;

/** Internal knobs (tests, benchmarks): database name, record form, byte budget, open deadline. */
export async function configureCache(o = {}) {
  const old = opening;
  opening = null;
  Object.assign(settings, o);
  const c = await old?.catch(() => null);
  c?.store.close();
  c?.index.close();
}

/**
 * The page's {index, store}; rejects with CACHE_UNAVAILABLE when IndexedDB
 * is missing or does not open in time (the next call tries again).
 * @returns {Promise<{index: CacheIndex, store: IdbStore}>}
 */
export function pageCache() {
  opening ??= (async () => {
    if (typeof indexedDB === 'undefined') {
      const { OrtkeepError } = await import('../errors.js');
      throw new OrtkeepError(
        'CACHE_UNAVAILABLE',
        'ortkeep: the model cache needs IndexedDB (a browser page or worker)',
      );
    }
    // the core's start and the database's open, side by side
    const storeOpen = IdbStore.open(settings.dbName, {
      recordForm: settings.recordForm,
      timeoutMs: settings.openTimeoutMs,
    });
    storeOpen.catch(() => {}); // awaited below: a refusal before the core is up is no unhandled rejection
    let core;
    try {
      core = await getCore();
    } catch (e) {
      storeOpen.then((s) => s.close()).catch(() => {});
      throw e;
    }
    return { index: new CacheIndex(core.m, settings.budget), store: await storeOpen };
  })();
  const p = opening;
  p.catch(() => {
    if (opening === p) opening = null;
  });
  return p;
}

/**
 * Opens the page's cache ahead of its first load, where that creates
 * nothing: only when this origin has ortkeep's database already (an earlier
 * visit stored a model). A warm load then finds it open; opened inside the
 * load it cost 6-30 ms here. A page that never stored anything has its
 * storage untouched until a load stores. Failures are the load's to report.
 */
export function openAhead() {
  try {
    if (opening || typeof indexedDB === 'undefined' || typeof indexedDB.databases !== 'function') return;
    indexedDB.databases().then(
      (dbs) => {
        if (!opening && dbs.some((d) => d.name === settings.dbName)) pageCache().catch(() => {});
      },
      () => {},
    );
  } catch {
    /* storage denied to this document (an opaque origin): its loads say so */
  }
}

let unstored = null;

/**
 * What one load gets of the cache: the page's cache when it stores (a URL
 * not loaded with 'no-store'), else an index that is never synced; and the
 * facts the machine is told (LOAD_FLAG.NO_IDB: no IndexedDB here;
 * IDB_FAILED: it did not open, which the machine warns about).
 * @param {import('../core/module.js').Core} core
 * @param {boolean} stores whether this load may store
 * @param {AbortSignal} [signal]
 * @returns {Promise<{cache: {index: CacheIndex, store: IdbStore}|null, index: CacheIndex, flags: number}>}
 */
export async function cacheForLoad(core, stores, signal) {
  let cache = null;
  let flags = 0;
  if (typeof indexedDB === 'undefined') {
    flags |= LOAD_FLAG.NO_IDB;
  } else if (stores) {
    try {
      cache = await raceAbort(pageCache(), signal);
    } catch (e) {
      if (e?.code === 'ABORTED') throw e;
      flags |= LOAD_FLAG.IDB_FAILED; // the machine warns CACHE_UNAVAILABLE
    }
  }
  return { cache, index: cache?.index ?? (unstored ??= new CacheIndex(core.m, 0)), flags };
}
