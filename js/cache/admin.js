// The model cache's management API: `import { cache } from 'ortkeep'`.
// Each call reads the stores afresh (other tabs write them too) and lets the
// C index decide; what it drops is carried out before the call returns.
import { ENTRY_FLAG, ENTRY_STATE, FORM_STATUS, IOFAIL, STATUS } from '../core-constants.js';
import { getCore } from '../core/module.js';
import { OrtkeepError } from '../errors.js';
import { coreStatusError } from './cache-index.js';
import { applyDelete } from './store-actions.js';
import { heldLocks } from './locks.js';
import { formName, reasonName } from './messages.js';
import { configureCache, pageCache } from './page-cache.js';
import { estimate as storageEstimate, persist } from './quota.js';
import { storesSettled, workSettled } from './background-work.js';
import { forgetBytes } from '../sources.js';
import { forgetRuntimeRecord } from '../runtime-choice.js';
import { clearFiles, deleteFilesBeside } from '../dropin/transformers-store.js';

/** The page's cache, synced with the stores; CACHE_UNAVAILABLE when there is none. */
async function synced() {
  await storesSettled();
  const c = await pageCache();
  let found;
  try {
    found = await c.store.readIndex(false);
  } catch (e) {
    if (e?.ioFail === IOFAIL.CLOSED) {
      // deleted or upgraded by another tab
      await c.store.reopen();
      found = await c.store.readIndex(false);
    } else {
      throw new OrtkeepError('CACHE_ERROR', `ortkeep: reading the model cache failed: ${e?.message ?? e}`, {
        cause: e,
      });
    }
  }
  c.index.setBusy(await heldLocks());
  c.index.sync(found.records);
  await drain(c);
  return c;
}

async function drain(c) {
  const core = await getCore();
  for (const a of c.index.takeActions()) await applyDelete(core, c.store, a);
}

/** An optimized form's verdict: verified with its creation time against the
 * original's, or failed (a tombstone: nothing stored) and why. */
function formFields(e) {
  return {
    status: e.formStatus === FORM_STATUS.VERIFIED ? 'verified' : 'failed',
    ...(e.formStatus === FORM_STATUS.FAILED
      ? { reason: reasonName(e.formReason) }
      : {
          createMs: e.createUs / 1000,
          originalCreateMs: e.origCreateUs / 1000,
          // warm loads that timed the original beside the form, tallied toward a revision
          ...(e.revPairs
            ? { revision: { pairs: e.revPairs, formMs: e.revFormUs / 1000, originalMs: e.revOrigUs / 1000 } }
            : {}),
        }),
    sourceSha256: e.sourceSha256,
  };
}

/** A model's external data files stored with it (the core names each part's model: owner). */
function dataFilesOf(model, parts) {
  return parts
    .filter((p) => p.owner === model.id)
    .map((p) => ({ path: p.location, url: p.url, bytes: p.totalSize, sha256: p.sha256 }));
}

export const cache = {
  /** Stored models: {key, url, bytes, lastUsed (ms since epoch), form, hits, sha256, etag, lastModified};
   *  optimized forms also {status, createMs, originalCreateMs | reason, sourceSha256}; models with
   *  external data also {dataFiles: [{path, url, bytes, sha256}]} (stored, evicted and deleted with them). */
  async list() {
    const c = await synced();
    const committed = c.index.entries().filter((e) => e.state === ENTRY_STATE.COMMITTED);
    const parts = committed.filter((e) => e.flags & ENTRY_FLAG.PART);
    return committed
      .filter((e) => !(e.flags & ENTRY_FLAG.PART))
      .map((e) => {
        const dataFiles = e.form ? [] : dataFilesOf(e, parts);
        return {
          key: e.key,
          url: e.url,
          bytes: e.totalSize,
          lastUsed: e.lastUsed,
          form: formName(e.form),
          hits: e.hitCount,
          sha256: e.sha256,
          etag: e.etag || null,
          lastModified: e.lastModified || null,
          ...(e.form ? formFields(e) : {}),
          ...(dataFiles.length ? { dataFiles } : {}),
        };
      });
  },

  /**
   * Deletes a model -- every stored copy whose URL or cache key this is.
   * Resolves true when something was deleted; IN_USE while it is loading.
   */
  async delete(keyOrUrl) {
    const c = await synced();
    const s = String(keyOrUrl);
    let target = s;
    if (!(await getCore()).isCacheKey(s)) {
      try {
        target = new URL(s, globalThis.location?.href).href;
      } catch {
        /* a key */
      }
    }
    const st = c.index.delete(target);
    await drain(c);
    // transformers.js's config and tokenizer kept for this model's repo go with it
    if (st === STATUS.OK) await deleteFilesBeside(target).catch(ignoreNoCacheApi);
    if (st === STATUS.NOT_FOUND) return false;
    if (st === STATUS.IN_USE)
      throw new OrtkeepError('IN_USE', `ortkeep: ${s} is being loaded right now; delete it once the load has finished`);
    if (st !== STATUS.OK) throw coreStatusError(st, `deleting ${s}`);
    return true;
  },

  /** Deletes every stored model not being loaded right now (and the fingerprints that name bytes' hashes,
   *  the files ortkeep/transformers keeps beside models: configs and tokenizers, and the record of which
   *  execution providers this origin's loads asked for: the next visit starts onnxruntime-web as a first). */
  async clear() {
    const c = await synced();
    forgetBytes();
    forgetRuntimeRecord();
    const st = c.index.clear();
    await drain(c);
    if (st !== STATUS.OK) throw coreStatusError(st, 'clearing the cache');
    await clearFiles().catch(ignoreNoCacheApi);
  },

  /** The origin's quota and usage, and what the model cache holds. */
  async estimate() {
    const c = await synced();
    const e = await storageEstimate();
    const entries = c.index.entries().filter((x) => x.state === ENTRY_STATE.COMMITTED && !(x.flags & ENTRY_FLAG.PART));
    return { ...e, cachedBytes: c.index.bytesStored(), entries: entries.length };
  },

  /** Asks the browser to keep this origin's storage (navigator.storage.persist()). */
  persist,

  /** Resolves when this page's background work is over: downloads are served before they are
   *  stored, and forms are captured and verified after a load; a page closed before then stores
   *  less (its next visit downloads or captures again). Never rejects. */
  settled: workSettled,

  /** Internal knobs for tests and benchmarks ({dbName, recordForm: 'blob'|'arraybuffer', budget, openTimeoutMs}). */
  _configure: configureCache,
};

/** The Cache API refused (an opaque origin): nothing was kept there. Anything else is the caller's to see. */
function ignoreNoCacheApi(e) {
  if (e?.name !== 'SecurityError') throw e;
}
