// The memory tier: loading the same model (same source and the same
// session-shaping options) again in one page shares the live session, and
// two loads in flight at once share one download. Each load() gets its own
// handle (own `disposed` flag and `info`); dispose() of the last handle
// releases the onnxruntime-web session.
//
// Signals are per caller: a caller's AbortSignal rejects only its own wait;
// the shared load is aborted only when no caller still waits for it.
import { getCore } from '../core/module.js';
import { OrtkeepError } from '../errors.js';
import { raceAbort } from '../util/abort.js';
import { sha256Hex } from '../util/sha256.js';

const live = new Map(); // memory key → slot

const now = () => (globalThis.performance ?? Date).now();

/**
 * The memory-tier key of a load, or null when it cannot be shared (bytes
 * where WebCrypto is missing). The core decides which facts of a load make
 * its session (ok_session_share_key); this hands them over canonical: the
 * source (`url:<url>`, or `sha256:<hex>` of bytes) and the options as JSON.
 * @param {{kind: 'url', url: string}|{kind: 'bytes', bytes: Uint8Array}} src
 * @returns {Promise<string|null>}
 */
export async function memoryKey(src, options) {
  const sourceKey =
    src.kind === 'url' ? `url:${src.url}` : globalThis.crypto?.subtle ? `sha256:${await sha256Hex(src.bytes)}` : null;
  if (!sourceKey) return null;
  const core = await getCore();
  const json = (v) => (v === undefined || v === null ? null : JSON.stringify(v, byIdentity));
  return core.sessionShareKey(
    sourceKey,
    options.integrity ?? null,
    json(options.executionProviders),
    json(options.sessionOptions),
  );
}

// Bytes in the options (externalData given as bytes) are named by identity,
// never spelt out: JSON of a 100 MB array is a string of hundreds of MB.
const bytesIds = new WeakMap();
let nextBytesId = 0;
function byIdentity(key, value) {
  if (
    !ArrayBuffer.isView(value) &&
    !(value instanceof ArrayBuffer) &&
    !(typeof Blob !== 'undefined' && value instanceof Blob)
  )
    return value;
  const target = ArrayBuffer.isView(value) ? value.buffer : value;
  if (!bytesIds.has(target)) bytesIds.set(target, ++nextBytesId);
  return ArrayBuffer.isView(value)
    ? `bytes#${bytesIds.get(target)}@${value.byteOffset}+${value.byteLength}`
    : `bytes#${bytesIds.get(target)}`;
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
    slot.promise = create(controller.signal).then((b) => {
      slot.base = b;
      return b;
    });
    live.set(key, slot);
    slot.promise.catch(() => {
      if (live.get(key) === slot) live.delete(key);
    });
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
    ? {
        tier: 'memory',
        bytes: base.info.cache?.bytes ?? base.info.source?.bytes ?? 0,
        key: base.info.cache?.key ?? null,
        timings: { totalMs: now() - t0 },
      }
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
        if (own.disposed)
          return Promise.reject(
            new OrtkeepError('DISPOSED', `ortkeep: ${String(p)}() on a disposed session; load the model again`),
          );
        return v.apply(target, args);
      };
    },
    set(target, p, value) {
      if (p === 'disposed' || p === 'info') {
        own[p] = value;
        return true;
      }
      return Reflect.set(target, p, value, target);
    },
  });
}
