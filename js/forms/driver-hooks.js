// The per-load forms hooks the load driver calls (js/cache/load-driver.js):
// a stamp the arriving model carries judged for this runtime, the form the
// core names captured later, notes as the caller's events.
import { FACT, NOTE } from '../core-constants.js';
import { formName, reasonName } from '../cache/messages.js';

/** What the reader found that may rule tiers out (FACT bits; the core decides). */
export function factsOf(report) {
  if (!report) return 0;
  return (
    (report.externalData?.length ? FACT.EXTERNAL_DATA : 0) |
    (report.totals?.subgraphInitializers ? FACT.SUBGRAPH_INITIALIZERS : 0)
  );
}

/** The bytes of the model's external data (a captured form holds them inline). */
export function externalBytesOf(report) {
  return (report?.externalData ?? []).reduce((s, e) => s + (e.length ?? 0), 0);
}

/**
 * The per-load forms hooks the driver calls (js/cache/load-driver.js):
 * capture at an original's CREATE_SESSION, notes. Captures land in
 * `captured` for the background run.
 */
export function formHooks(forms, emit, core) {
  const state = { captured: null, stamped: false };
  return {
    state,
    facts: factsOf,
    externalBytes: externalBytesOf,
    /**
     * A model that arrives stamped (ortkeep prepare, or a form ortkeep
     * stored) for this runtime, execution providers and level is already
     * optimized: created at 'disabled', nothing captured. The verdict is
     * the core's (the C reader hashes the bytes before the stamp and judges
     * it for this context); anything but 'valid' is reported and ignored.
     */
    stampedForThis(report, bytes) {
      if (!report?.metadata || !('ortkeep.stamp' in report.metadata)) return false;
      let stamp = null;
      try {
        stamp = core.inspect(bytes, undefined, {
          ort: forms.version,
          ep: forms.eps.join(','),
          level: forms.level,
        }).stamp;
      } catch {
        /* judged as no stamp */
      }
      if (!stamp) return false;
      if (stamp.verdict !== 'valid') {
        emit({
          type: 'stamp-ignored',
          reason: stamp.verdict,
          stamp: { ort: stamp.ort, ep: stamp.ep, level: stamp.level },
        });
        return false;
      }
      state.stamped = true;
      return true;
    },
    /** The core named this form for the original being served: captured in storeForms. */
    captureLater(form) {
      state.captured = { form };
    },
    onNote: (a) => emit(noteEvent(a)),
  };
}

/** A NOTE action as the caller's event. */
export function noteEvent(a) {
  if (a.value === NOTE.FORM_ESCALATED) {
    return {
      type: 'form-escalated',
      from: formName(a.value2 & 0xff),
      to: formName((a.value2 >> 8) & 0xff),
      reason: reasonName(a.flags),
    };
  }
  return { type: 'form-dropped', form: formName(a.value2), reason: reasonName(a.flags) };
}
