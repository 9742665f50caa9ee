// A response body read at the network's pace into the model buffer, while
// the load driver is busy elsewhere (a chunk store, the core hashing). The
// driver feeds the core from what has arrived; when nothing has, it knows
// the network is what it waits on, and for how long (the core may then
// store a chunk in that time: ok_load_body_idle).
export class ReadAhead {
  /**
   * @param {{next(): Promise<Uint8Array|null>}} body
   * @param {import('./model-buffer.js').ModelBuffer} buf
   * @param {number} offset where the body's first byte goes
   * @param {import('./store-beside.js').StoreFeed|null} [feed] takes each piece once copied (the store worker)
   */
  constructor(body, buf, offset, feed = null) {
    this.body = body;
    this.buf = buf;
    this.feed = feed;
    this.start = offset;
    this.t0 = (globalThis.performance ?? Date).now();
    this.end = offset; // bytes in buf up to here
    this.done = false;
    this.error = null;
    this.stopped = false;
    this.wake = null;
    this.pump();
  }

  async pump() {
    try {
      for (;;) {
        const piece = await this.body.next();
        if (this.stopped) return;
        if (piece === null) break;
        const n = piece.byteLength;
        this.buf.write(this.end, piece);
        this.feed?.piece(this.end, piece); // may detach it
        this.end += n;
        this.signal();
      }
      this.done = true;
      this.feed?.flush();
    } catch (e) {
      if (this.stopped) return;
      this.error = e ?? new Error('the body broke');
    }
    this.signal();
  }

  signal() {
    const w = this.wake;
    this.wake = null;
    w?.();
  }

  /** Arrived bytes past `offset`, the end, or the break, to handle now. */
  ready(offset) {
    return this.end > offset || this.done || this.error !== null;
  }

  /** Resolves when something past `offset` can be handled. */
  wait(offset) {
    if (this.ready(offset)) return Promise.resolve();
    return new Promise((resolve) => {
      this.wake = resolve;
    });
  }

  /** Resolves when something past `offset` can be handled, or after `ms`. */
  waitAtMost(offset, ms) {
    let timer;
    const timeout = new Promise((resolve) => {
      timer = setTimeout(resolve, ms);
    });
    return Promise.race([this.wait(offset), timeout]).finally(() => clearTimeout(timer));
  }

  /** How long the rest of the body will take at the pace so far (ms); Infinity when its size is unknown. */
  remainingMs(total) {
    if (!total) return Infinity;
    const ms = (globalThis.performance ?? Date).now() - this.t0;
    const got = this.end - this.start;
    return got > 0 ? ((total - this.end) * ms) / got : Infinity;
  }

  /** This body is no longer the load's (cancelled, replaced): late pieces are dropped. */
  stop() {
    this.stopped = true;
    this.signal();
  }
}
