// The model cache's management API: `import { cache } from 'ortkeep'`.
import { OrtkeepError } from './errors.js';
import { ST, statusError } from './cache/cache-core.js';
import { CACHE_LOCK, keyLock, withLock } from './cache/locks.js';
import { cacheKeyFor, configureCache, getModelCache, normalizeUrl } from './cache/model-cache.js';
import { estimate as storageEstimate, persist } from './cache/quota.js';

const FORMS = { 0: 'original' };

function available() {
  if (typeof indexedDB === 'undefined') {
    throw new OrtkeepError('CACHE_UNAVAILABLE', 'ortkeep: the model cache needs IndexedDB (a browser page or worker)');
  }
  return getModelCache();
}

export const cache = {
  /** Committed entries: {key, url, bytes, lastUsed (ms since epoch), form, hits, sha256, etag, lastModified}. */
  async list() {
    const mc = await available();
    await withLock(CACHE_LOCK, 'exclusive', () => mc.reload());
    return mc.cc.entries().filter((e) => e.state === 2).map((e) => ({
      key: e.key, url: e.url, bytes: e.totalSize, lastUsed: e.lastUsed, form: FORMS[e.form] ?? String(e.form),
      hits: e.hitCount, sha256: e.sha256, etag: e.etag || null, lastModified: e.lastModified || null,
    }));
  },

  /** Deletes one model by cache key or URL; resolves true when something was deleted. */
  async delete(keyOrUrl) {
    const mc = await available();
    const s = String(keyOrUrl);
    const key = /\|form:/.test(s) ? s : cacheKeyFor(normalizeUrl(s), null);
    return withLock(keyLock(key), 'exclusive', async () => {
      await mc.syncKey(key);
      const st = await mc.event(() => mc.cc.delete(key));
      if (st === ST.NOT_FOUND) return false;
      if (st !== ST.OK) throw statusError(st, `deleting ${key} (in use?)`);
      return true;
    });
  },

  /** Deletes every model not in use. */
  async clear() {
    const mc = await available();
    await withLock(CACHE_LOCK, 'exclusive', async () => {
      await mc.reload();
      await mc.event(() => mc.cc.clear());
    });
  },

  /** The origin's quota and usage, and what the model cache holds. */
  async estimate() {
    const mc = await available();
    const e = await storageEstimate();
    const entries = mc.cc.entries().filter((x) => x.state === 2);
    return { ...e, cachedBytes: mc.cc.bytesStored(), entries: entries.length };
  },

  /** Asks the browser to keep this origin's storage (navigator.storage.persist()). */
  persist,

  /** Internal knobs for tests and benchmarks ({dbName, recordForm: 'blob'|'arraybuffer', budget}). */
  _configure: configureCache,
};
