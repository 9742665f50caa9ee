// What this page still does behind its callers: the stores of downloads
// served before their chunks were written (ok_load.h's DONE_STORING), and
// the forms captured, verified and stored after a load. The cache's
// management API waits for the stores, so what this page loaded is what
// `cache.list()` shows and a delete or clear never races its own write;
// `cache.settled()` waits for all of it (before a page navigates away, or
// to say "ready offline").
const stores = new Set();
const work = new Set();

function track(set, p) {
  set.add(p);
  p.finally(() => set.delete(p)).catch(() => {});
}

async function drained(set) {
  while (set.size) await Promise.allSettled([...set]);
}

/** @param {Promise<unknown>} p settles when one load's store is over */
export function trackStore(p) {
  track(stores, p);
  track(work, p);
}

/** @param {Promise<unknown>} p settles when one load's background work (its forms) is over */
export function trackWork(p) {
  track(work, p);
}

/** Resolves once every store this page has under way is over. */
export const storesSettled = () => drained(stores);

/** Resolves once all of this page's background work is over. */
export const workSettled = () => drained(work);

/**
 * Runs `fn` once the rest of this page's background work is over, as
 * background work itself: `cache.settled()` waits for it too. Never rejects.
 * @param {() => Promise<unknown>} fn
 */
export function afterWork(fn) {
  let self = null;
  const others = () => [...work].filter((p) => p !== self);
  self = (async () => {
    for (let rest = others(); rest.length; rest = others()) await Promise.allSettled(rest);
    try {
      await fn();
    } catch {
      /* the caller's own loss only */
    }
  })();
  trackWork(self);
}
