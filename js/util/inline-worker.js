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

/**
 * A page's one worker of a kind, started from source text at its first use
 * (inlineWorker). Once it could not start, or failed, it is `broken`: the
 * page does the work itself from then on. `stop()` ends a worker that is not
 * needed now; the next `get()` starts another.
 * @param {string} source the worker's script
 * @param {number} startMs how long its first message may take
 * @param {(data: any) => void} onMessage its messages
 * @param {() => void} onGone called once it failed (not when stopped): what it held is the page's again
 */
export function pageWorker(source, startMs, onMessage, onGone) {
  let worker = null;
  let broken = isNode || typeof Worker === 'undefined' || typeof Blob === 'undefined';
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
      if (worker) return worker;
      // refused late, crashed, or never started: never again in this page
      const w = inlineWorker(source, startMs, (gone) => {
        if (worker !== gone) return;
        broken = true;
        onGone();
      });
      if (!w) {
        broken = true; // refused at once (a CSP, an opaque origin)
        return null;
      }
      w.onmessage = ({ data }) => onMessage(data);
      worker = w;
      return w;
    },
    stop() {
      worker?.terminate();
      worker = null;
    },
  };
}
