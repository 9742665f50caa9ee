// Web Locks: one per cache key, held for a whole load of that key, so two
// tabs (or two loads in a page) loading one model download it once: the
// second waits, then finds the first one's committed entry. Loads of other
// keys, cache.list() and other tabs never wait for it. A tab that dies
// holding a lock releases it (browser behaviour). Without navigator.locks
// (Node, old engines) a lock is granted at once.

/**
 * Waits for the exclusive lock `name`; resolves to a function that releases
 * it. Rejects with the signal's reason when aborted while waiting.
 * @param {string} name @param {AbortSignal} [signal]
 * @returns {Promise<() => void>}
 */
export function acquireLock(name, signal) {
  const locks = globalThis.navigator?.locks;
  if (!locks) return Promise.resolve(() => {});
  return new Promise((resolve, reject) => {
    let release;
    const held = new Promise((r) => {
      release = r;
    });
    locks
      .request(name, signal ? { mode: 'exclusive', signal } : { mode: 'exclusive' }, () => {
        resolve(release);
        return held;
      })
      .catch(reject);
  });
}

/** Names of the locks any tab of this origin holds (or waits for) now. */
export async function heldLocks() {
  const locks = globalThis.navigator?.locks;
  if (!locks?.query) return [];
  try {
    const s = await locks.query();
    return [...(s.held ?? []), ...(s.pending ?? [])].map((l) => l.name).filter(Boolean);
  } catch {
    return [];
  }
}
