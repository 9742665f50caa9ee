// The memory tier: loading the same model (same cache key and the same
// session-shaping options) again in one page returns the live session.
// Each load() gets its own handle (own `disposed` flag and `info`), all
// sharing one onnxruntime-web session; dispose() of the last handle
// releases it.
import { OrtkeepError } from '../errors.js';

const live = new Map(); // memory key → {promise: Promise<Session>, refs}

const now = () => (globalThis.performance ?? Date).now();

/** The memory-tier key: the cache key plus the options that change the session. */
export function memoryKey(cacheKey, options) {
  return `${cacheKey}|ep:${JSON.stringify(options.executionProviders ?? ['wasm'])}|so:${JSON.stringify(options.sessionOptions ?? {})}`;
}

/**
 * @param {string} key memoryKey()
 * @param {() => Promise<object>} create makes the Session on a miss
 * @returns {Promise<object>} a handle on the shared Session
 */
export async function acquire(key, create) {
  const t0 = now();
  let slot = live.get(key);
  const hit = !!slot;
  if (!slot) {
    slot = { refs: 0, promise: create() };
    live.set(key, slot);
    slot.promise.catch(() => { if (live.get(key) === slot) live.delete(key); });
  }
  slot.refs++;
  let base;
  try {
    base = await slot.promise;
  } catch (e) {
    slot.refs--;
    throw e;
  }
  return handle(base, slot, key, hit ? { tier: 'memory', bytes: base.info.cache?.bytes ?? base.info.source?.bytes ?? 0, key: base.info.cache?.key ?? null, timings: { totalMs: now() - t0 } } : null);
}

function handle(base, slot, key, cacheInfo) {
  // A Proxy, not Object.create(base): Session methods may use private
  // fields, so every call and getter runs against the base itself.
  const own = { disposed: false, info: cacheInfo ? { ...base.info, cache: cacheInfo } : base.info };
  const dispose = async () => {
    if (own.disposed) return;
    own.disposed = true;
    if (--slot.refs > 0) return;
    if (live.get(key) === slot) live.delete(key);
    await base.dispose();
  };
  return new Proxy(base, {
    get(target, p) {
      if (p === 'dispose') return dispose;
      if (p === 'disposed' || p === 'info') return own[p];
      const v = Reflect.get(target, p, target);
      if (typeof v !== 'function') return v;
      return (...args) => {
        if (own.disposed) return Promise.reject(new OrtkeepError('DISPOSED', `ortkeep: ${String(p)}() on a disposed session; load the model again`));
        return v.apply(target, args);
      };
    },
    set(target, p, value) {
      if (p === 'disposed' || p === 'info') { own[p] = value; return true; }
      return Reflect.set(target, p, value, target);
    },
  });
}

