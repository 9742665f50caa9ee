// A caller's handle on a session the memory tier shares (js/cache/memory-tier.js):
// a Proxy with its own `disposed` flag and `info`; calls on a disposed handle
// are refused.
import { OrtkeepError } from '../errors.js';

/**
 * A caller's own handle on a shared Session: its `disposed` flag and `info`;
 * dispose() of the last handle forgets the slot and releases the Session,
 * unless a load() that joined the slot has yet to take its handle.
 * @param {() => void} forget drops the slot from the memory tier if it is still the live one
 */
export function handle(base, slot, cacheInfo, forget) {
  // A Proxy, not Object.create(base): Session methods may use private
  // fields, so every call and getter runs against the base itself.
  const own = { disposed: false, info: cacheInfo ? { ...base.info, cache: cacheInfo } : base.info };
  const dispose = async () => {
    if (own.disposed) return;
    own.disposed = true;
    // a load() that joined this slot is still on its way to its own handle: the session is its now
    if (--slot.refs > 0 || slot.waiters > 0) return;
    forget();
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
