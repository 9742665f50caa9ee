// The memory tier: loading the same model (same source and the same
// session-shaping options) again in one page shares the live session, and
// two loads in flight at once share one download. Each load() gets its own
// handle (own `disposed` flag and `info`); dispose() of the last handle
// releases the onnxruntime-web session.
//
// Signals are per caller: a caller's AbortSignal rejects only its own wait;
// the shared load is aborted only when no caller still waits for it.
import { OrtkeepError } from '../errors.js';

const live = new Map(); // memory key → slot

const now = () => (globalThis.performance ?? Date).now();

export function abortedError(signal) {
  return new OrtkeepError('ABORTED', `ortkeep: the load was aborted${signal?.reason !== undefined ? `: ${signal.reason?.message ?? signal.reason}` : ''}`, { cause: signal?.reason });
}

/** `promise`, or ABORTED as soon as `signal` fires. */
export function raceAbort(promise, signal) {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(abortedError(signal));
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(abortedError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then((v) => { signal.removeEventListener('abort', onAbort); resolve(v); },
      (e) => { signal.removeEventListener('abort', onAbort); reject(e); });
  });
}

/** The memory-tier key: the source plus the options that change the session. */
export function memoryKey(sourceKey, options) {
  return `${sourceKey}|integrity:${options.integrity ?? ''}|ep:${JSON.stringify(options.executionProviders ?? ['wasm'])}|so:${JSON.stringify(options.sessionOptions ?? {}, byIdentity)}`;
}

// Bytes in the options (externalData given as bytes) are named by identity,
// never spelt out: JSON of a 100 MB array is a string of hundreds of MB.
const bytesIds = new WeakMap();
let nextBytesId = 0;
function byIdentity(key, value) {
  if (!ArrayBuffer.isView(value) && !(value instanceof ArrayBuffer) && !(typeof Blob !== 'undefined' && value instanceof Blob)) return value;
  const target = ArrayBuffer.isView(value) ? value.buffer : value;
  if (!bytesIds.has(target)) bytesIds.set(target, ++nextBytesId);
  return ArrayBuffer.isView(value) ? `bytes#${bytesIds.get(target)}@${value.byteOffset}+${value.byteLength}` : `bytes#${bytesIds.get(target)}`;
}

/**
 * @param {string} key memoryKey()
 * @param {(signal: AbortSignal) => Promise<object>} create makes the Session
 * @param {AbortSignal} [signal] this caller's
 * @returns {Promise<object>} a handle on the shared Session
 */
export async function acquire(key, create, signal) {
  const t0 = now();
  let slot = live.get(key);
  const shared = !!slot;
  if (!slot) {
    const controller = new AbortController();
    slot = { refs: 0, waiters: 0, controller, base: null };
    slot.promise = create(controller.signal).then((b) => { slot.base = b; return b; });
    live.set(key, slot);
    slot.promise.catch(() => { if (live.get(key) === slot) live.delete(key); });
  }
  slot.waiters++;
  let base;
  try {
    base = await raceAbort(slot.promise, signal);
  } catch (e) {
    slot.waiters--;
    if (!slot.base && slot.waiters === 0 && slot.refs === 0) {
      // nobody wants it any more: stop the shared load (and let a new
      // load() start afresh rather than join a dying one)
      if (live.get(key) === slot) live.delete(key);
      slot.controller.abort(signal?.reason);
    }
    throw e;
  }
  slot.waiters--;
  slot.refs++;
  const info = shared
    ? { tier: 'memory', bytes: base.info.cache?.bytes ?? base.info.source?.bytes ?? 0, key: base.info.cache?.key ?? null, timings: { totalMs: now() - t0 } }
    : null;
  return handle(base, slot, key, info);
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
      if (p === 'dispose' || p === 'release') return dispose;
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
