// A worker started from source text through a blob: URL, so the package
// ships no worker file a bundler would have to find. null where none can
// start at once (no Worker; a CSP without blob: workers, an opaque origin);
// a CSP may also refuse it later with an error event, or never start it,
// which is why its callers give it a deadline for its first message.

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
