// The forms' decisions, asked of the C core (cache/form_policy.h) with the
// facts JS sees: the verify protocol's best sample and verdict, and which
// prepared form serves (whether a load makes forms and its context string:
// js/forms/availability.js). Only marshalling here; the words are the core's
// constants (js/core-constants.js).
import { PREPARED_FACT } from '../core-constants.js';

function withWords(core, words, fn) {
  const ptr = core.copyIn(new Uint8Array(Uint32Array.from(words).buffer));
  try {
    return fn(ptr);
  } finally {
    core.free(ptr);
  }
}

/** A side's creation time from its samples (ms), as the core takes it. */
export function bestMs(core, samplesMs) {
  const us = samplesMs.map((ms) => Math.min(0xfffffffe, Math.max(0, Math.round(ms * 1000))));
  const best = withWords(core, us, (p) => core.m._ok_form_best_us(p, us.length) >>> 0);
  return best === 0xffffffff ? Infinity : best / 1000;
}

/** The verdict (VERDICT.*) a round trip earns from what it showed (PROBE_FACT bits). */
export function probeVerdict(core, probeFacts) {
  return core.m._ok_form_probe_verdict(probeFacts) >>> 0;
}

/**
 * Which prepared form serves, as an index into `forms`, or -1.
 * @param {import('../core/module.js').Core} core
 * @param {Array<{facts: number, createMs?: number}>} forms PREPARED_FACT bits and prepare's creation time
 */
export function pickPreparedIndex(core, forms) {
  if (!forms.length) return -1;
  const us = forms.map((f) =>
    Number.isFinite(f.createMs) ? Math.min(0xfffffffe, Math.max(0, Math.round(f.createMs * 1000))) : 0xffffffff,
  );
  const pick = withWords(
    core,
    forms.map((f) => f.facts),
    (facts) => withWords(core, us, (t) => core.m._ok_form_pick_prepared(facts, t, forms.length) >>> 0),
  );
  return pick === PREPARED_FACT.NONE ? -1 : pick;
}
