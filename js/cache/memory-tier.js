// The memory tier: loading the same model (same source and the same
// session-shaping options) again in one page shares the live session, and
// two loads in flight at once share one download. Each load() gets its own
// handle (own `disposed` flag and `info`); dispose() of the last handle
// releases the onnxruntime-web session.
//
// Signals are per caller: a caller's AbortSignal rejects only its own wait;
// the shared load is aborted only when no caller still waits for it.
import { raceAbort } from '../util/abort.js';
import { handle } from './session-handle.js';
import { asideWait } from '../forms/turns.js';

const live = new Map(); // memory key → slot

const now = () => (globalThis.performance ?? Date).now();

/** Whether a session (or a load in flight) is live under this key. */
export function isLive(key) {
  return live.has(key);
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
    const wait = raceAbort(slot.promise, signal);
    // a caller sharing a load in flight holds no background work back: that load may be waiting for
    // background work itself (a key's lock a form's revision holds), and would wait for this caller forever
    base = await (shared ? asideWait(wait) : wait);
  } catch (e) {
    slot.waiters--;
    if (slot.waiters === 0 && slot.refs === 0) {
      // nobody wants it any more: stop the shared load (and let a new
      // load() start afresh rather than join a dying one); a session the
      // last handle left to this caller (session-handle.js) is released
      if (live.get(key) === slot) live.delete(key);
      if (slot.base) slot.base.dispose().catch(() => {});
      else slot.controller.abort(signal?.reason);
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
  return handle(base, slot, info, () => {
    if (live.get(key) === slot) live.delete(key);
  });
}
