// A worker started from source text through a blob: URL, so the package
// ships no worker file a bundler would have to find. null where none can
// start at once (no Worker; a CSP without blob: workers, an opaque origin);
// a CSP may also refuse it later with an error event, or never start it,
// which is why its callers give it a deadline for its first message.
import { isNode } from '../platform/node.js';

/**
 * @param {string} source the worker's script
 * @param {number} startMs how long its first message (the sign it runs) may take
 * @param {(w: Worker) => void} dead called once when none came by then (a CSP that never starts
 *   it), or when it fails (a CSP that refuses it late, a crash)
 * @returns {Worker|null}
 */
export function inlineWorker(source, startMs, dead) {
  if (typeof Worker === 'undefined' || typeof Blob === 'undefined') return null;
  let url;
  let w;
  try {
    url = URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
    w = new Worker(url);
  } catch {
    return null;
  } finally {
    if (url) URL.revokeObjectURL(url);
  }
  const deadline = setTimeout(() => dead(w), startMs);
  w.addEventListener('message', () => clearTimeout(deadline), { once: true });
  w.addEventListener(
    'error',
    (e) => {
      e.preventDefault();
      clearTimeout(deadline);
      dead(w);
    },
    { once: true },
  );
  return w;
}

/** A worker with nothing in flight goes after this long (the next use starts another). */
const IDLE_MS = 10_000;
/** A new worker that has not said it runs by then never will (a CSP may refuse it silently). */
const START_MS = 10_000;

/**
 * A page's one worker of a kind and what is in flight there, managed in one
 * place for every kind (the hash, the warm read, the chunk store): started
 * from source text at its first use (inlineWorker), its replies matched to
 * their requests by id, gone after IDLE_MS with nothing in flight or held.
 * Once it could not start, or failed, it is `broken`: the page does the work
 * itself from then on. Whenever it goes (idle, broken), every reply still
 * awaited settles null, so its caller does that work in the page.
 *
 * The worker's script answers a request `{id, ...}` with a message carrying
 * the same `id`; its messages without one go to `onMessage`. Its first
 * message, whatever it is, says it runs.
 * @param {string} source the worker's script
 * @param {{onMessage?: (data: any) => void, onStop?: () => void}} [hooks]
 *   onStop: called each time the worker goes, after the replies awaited settled null
 */
export function pageWorker(source, { onMessage = () => {}, onStop = () => {} } = {}) {
  let worker = null;
  let broken = isNode || typeof Worker === 'undefined' || typeof Blob === 'undefined';
  let nextId = 0;
  let holds = 0;
  let idle = null;
  const awaited = new Map(); // id -> resolve(reply|null)

  const stop = () => {
    clearTimeout(idle);
    worker?.terminate();
    worker = null;
    holds = 0;
    for (const [id, resolve] of awaited) {
      awaited.delete(id);
      resolve(null);
    }
    onStop();
  };
  const idleCheck = () => {
    clearTimeout(idle);
    if (worker && !holds && !awaited.size) idle = setTimeout(stop, IDLE_MS);
  };
  const receive = (data) => {
    const resolve = data?.id === undefined ? null : awaited.get(data.id);
    if (!resolve) return onMessage(data);
    awaited.delete(data.id);
    resolve(data);
    idleCheck();
  };

  return {
    get broken() {
      return broken;
    },
    /** The running worker, if any. */
    get current() {
      return worker;
    },
    /** @returns {Worker|null} the running worker, started if need be; null where none can run */
    get() {
      if (broken) return null;
      clearTimeout(idle);
      if (worker) return worker;
      // refused late, crashed, or never started: never again in this page
      const w = inlineWorker(source, START_MS, (gone) => {
        if (worker !== gone) return;
        broken = true;
        stop();
      });
      if (!w) {
        broken = true; // refused at once (a CSP, an opaque origin)
        return null;
      }
      w.onmessage = ({ data }) => receive(data);
      worker = w;
      return w;
    },
    /**
     * An id for a request to the running worker, and its reply: the worker's
     * message with that id, or null once the worker is gone.
     * @returns {{id: number, reply: Promise<any>}}
     */
    expect() {
      const id = ++nextId;
      if (!worker) return { id, reply: Promise.resolve(null) };
      const reply = new Promise((resolve) => awaited.set(id, resolve));
      clearTimeout(idle);
      return { id, reply };
    },
    /** A reply no longer awaited (its request failed to go out): it settles null. */
    forget(id) {
      awaited.get(id)?.(null);
      awaited.delete(id);
      idleCheck();
    },
    /** Keeps the worker while a caller streams to it with no reply awaited (a download's pieces). */
    hold() {
      holds++;
      clearTimeout(idle);
    },
    /** Ends one hold(). */
    release() {
      if (holds > 0) holds--;
      idleCheck();
    },
  };
}
