// Storage quota: how much the origin may still write, and persistence.
/** Free bytes under the origin's quota, or null when the browser will not say. */
export async function freeQuota() {
  try {
    const e = await globalThis.navigator?.storage?.estimate?.();
    if (!e || typeof e.quota !== 'number') return null;
    return Math.max(0, e.quota - (e.usage ?? 0));
  } catch {
    return null;
  }
}

export async function estimate() {
  try {
    const e = await globalThis.navigator?.storage?.estimate?.();
    return { quota: e?.quota ?? null, usage: e?.usage ?? null };
  } catch {
    return { quota: null, usage: null };
  }
}

/** Asks the browser not to evict this origin's storage; resolves to its answer. */
export async function persist() {
  try {
    if (await globalThis.navigator?.storage?.persisted?.()) return true;
    return (await globalThis.navigator?.storage?.persist?.()) ?? false;
  } catch {
    return false;
  }
}
