// The load `npm run bench` ran under. A busy machine flatters ortkeep: plain
// onnxruntime-web's start on the page's thread slows more than ortkeep's
// under contention (a transformers.js second visit read 0.44x beside another
// browser job, 0.70-0.72x in four quiet runs). So the bench times a fixed CPU
// loop before the first area, between areas and after the last, and reads
// the load average before and after; a run whose loop drifts more than 10%,
// or that started with a load average over half a core, is busy: every table
// says so, and its rows never count as a goal met or not met
// (scripts/bench-report.mjs).
import { createHash } from 'node:crypto';
import os from 'node:os';

/** Drift of the loop's time over the run that makes it busy. */
export const MAX_DRIFT = 0.1;
/** One-minute load average, before the first area, that makes it busy (half a core). */
export const MAX_LOAD = 0.5;
/** The loop's work: SHA-256 over 4 MiB, eight times (about 100 ms here); the fastest of five is its time. */
const BLOCK = Buffer.alloc(4 << 20, 7);

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The fixed loop's time in ms (the fastest of five), after a second for what ran before to end. */
export async function calibrate() {
  await sleep(1000);
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    for (let k = 0; k < 8; k++) createHash('sha256').update(BLOCK).digest();
    best = Math.min(best, performance.now() - t0);
  }
  return best;
}

/**
 * A new record of the run's load: the load average and the loop's time
 * before the first area. The one-minute average still counts what ran just
 * before (the bench's own bootstrap, a test run that just ended): it is given
 * up to `settleMs` to fall under MAX_LOAD before it is read.
 */
export async function startLoad({ settleMs = 90000 } = {}) {
  const t0 = performance.now();
  while (os.loadavg()[0] > MAX_LOAD && performance.now() - t0 < settleMs) await sleep(5000);
  const loadBefore = os.loadavg()[0];
  const load = { loadBefore, loadAfter: null, calibrations: [{ at: 'before', ms: await calibrate() }] };
  return judge(load);
}

/** The loop timed again (`at`: after which area, or 'after'); the verdict brought up to date. */
export async function checkLoad(load, at) {
  load.calibrations.push({ at, ms: await calibrate() });
  if (at === 'after') load.loadAfter = os.loadavg()[0];
  return judge(load);
}

/** busy and why, from what the record holds so far. */
export function judge(load) {
  const ms = load.calibrations.map((c) => c.ms);
  const drift = Math.max(...ms) / Math.min(...ms) - 1;
  load.drift = drift;
  load.why = [];
  if (drift > MAX_DRIFT)
    load.why.push(`the CPU loop's time drifted ${(drift * 100).toFixed(0)}% (> ${MAX_DRIFT * 100}%)`);
  if (load.loadBefore > MAX_LOAD)
    load.why.push(`the load average was ${load.loadBefore.toFixed(2)} before the run (> ${MAX_LOAD})`);
  load.busy = load.why.length > 0;
  return load;
}

/** One line for the console: quiet or busy, and why. */
export function describeLoad(load) {
  const ms = load.calibrations.map((c) => c.ms.toFixed(0)).join(', ');
  return load.busy
    ? `machine BUSY: ${load.why.join('; ')} (loop ${ms} ms): this run's ratios flatter ortkeep and count for no goal`
    : `machine quiet: load average ${load.loadBefore.toFixed(2)} before, loop ${ms} ms (drift ${((load.drift ?? 0) * 100).toFixed(0)}%)`;
}
