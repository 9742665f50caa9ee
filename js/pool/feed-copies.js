// The copies run() makes of CPU feeds (js/pool/feed-capture.js), recycled:
// a new typed array per input per run cost ~2.5 us each here (Blink
// allocates every ArrayBuffer), a third of ortkeep's layer on silero's
// three inputs. A copy goes back once its run has written it into the
// pool's own tensor; steady-state runs allocate none.

/** Spare copies kept per element type and length. */
const SPARE = 4;

export class FeedCopies {
  #spare = new Map(); // typed array class → length → arrays
  #made = new WeakSet();

  #spares(data) {
    let byLength = this.#spare.get(data.constructor);
    if (!byLength) this.#spare.set(data.constructor, (byLength = new Map()));
    let spare = byLength.get(data.length);
    if (!spare) byLength.set(data.length, (spare = []));
    return spare;
  }

  /** A copy of a feed's data: typed arrays into a recycled array, plain arrays sliced. */
  copy(data) {
    if (Array.isArray(data)) return data.slice();
    if (!ArrayBuffer.isView(data) || data instanceof DataView) return data;
    const copy = this.#spares(data).pop() ?? new data.constructor(data.length);
    copy.set(data);
    this.#made.add(copy);
    return copy;
  }

  /** A copy made here that its run no longer reads: the next run's. */
  recycle(data) {
    // empty: nothing to reuse, and a copy onnxruntime-web's proxy worker took (detached) reads so
    if (!this.#made.has(data) || data.length === 0) return;
    const spare = this.#spares(data);
    if (spare.length < SPARE) spare.push(data);
  }
}
