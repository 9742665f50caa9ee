// The forms' decisions, asked of the C core (cache/form_policy.h) with the
// facts JS sees: whether a load makes forms and its context string (part of
// a form's cache key), the verify protocol's best sample and verdict, and
// which prepared form serves. Only marshalling here; the words are the
// core's constants (js/core-constants.js).
import { FORM_LOAD, FORMS_OFF, PREPARED_FACT } from '../core-constants.js';

/** The caller-facing reason for each FORMS_OFF answer. */
const OFF_WHY = {
  [FORMS_OFF.NOT_STORED]: () => 'nothing is stored for this source',
  [FORMS_OFF.LEVEL]: (level) => `graphOptimizationLevel '${level}' has no optimized form to keep`,
  [FORMS_OFF.OWN_WRITER]: () => 'the caller writes its own optimized model',
  [FORMS_OFF.CONTEXT]: () => 'the runtime or execution provider names cannot be part of a cache key',
};

function cString(core, s) {
  return core.copyIn(new TextEncoder().encode(`${s}\0`));
}

/**
 * Whether a load makes forms, and its context string.
 * @param {import('../core/module.js').Core} core
 * @param {{version: string, eps: string[], level?: string, storable: boolean, ownWriter: boolean}} facts
 * @returns {{ctx: string, level: string} | {off: string}}
 */
export function formContext(core, { version, eps, level, storable, ownWriter }) {
  const m = core.m;
  const cap = FORMS_OFF.MAX_CONTEXT;
  const ptrs = [cString(core, version ?? ''), cString(core, eps.join(',')), cString(core, level ?? '')];
  const out = core.copyIn(new Uint8Array(cap));
  const off = core.copyIn(new Uint8Array(4));
  try {
    const facts = (storable ? FORM_LOAD.STORABLE : 0) | (ownWriter ? FORM_LOAD.OWN_WRITER : 0);
    const st = m._ok_form_context(...ptrs, facts, out, cap, off);
    if (st) throw core.lastError();
    const why = m.HEAPU32[off >>> 2];
    if (why !== FORMS_OFF.NONE) return { off: OFF_WHY[why]?.(level) ?? `forms off (${why})` };
    const ctx = m.UTF8ToString(out);
    return { ctx, level: /level=(.*)$/.exec(ctx)[1] };
  } finally {
    [...ptrs, out, off].forEach((p) => core.free(p));
  }
}

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
