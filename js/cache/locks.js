// Web Locks across tabs (cache/README.md "JS contract"):
//   - 'ortkeep-cache'           opening/recovering takes it EXCLUSIVE; every
//                               load that may write holds it SHARED, so a
//                               PENDING entry being written is never swept;
//   - 'ortkeep-cache:key:<key>' EXCLUSIVE for a whole load through the
//                               IndexedDB tier, so two tabs loading one model
//                               download it once: the second waits, then
//                               finds the first one's committed entry.
// A tab that dies holding a lock releases it (browser behaviour). Without
// navigator.locks (old browsers, Node) the callbacks simply run.
export const CACHE_LOCK = 'ortkeep-cache';
export const keyLock = (key) => `ortkeep-cache:key:${key}`;

export function withLock(name, mode, fn, signal) {
  const locks = globalThis.navigator?.locks;
  if (!locks) return fn();
  return locks.request(name, signal ? { mode, signal } : { mode }, () => fn());
}
