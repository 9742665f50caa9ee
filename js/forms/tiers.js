// Optimized forms stored in the background after load() (the hands of the C
// core's form tiers, cache/ok_load.h: form contexts, ok_load_capture_form,
// FORM loads). After the caller has its session, the tier the core named is
// captured from the original's bytes and stored by a FORM load, which
// verifies it (a session at 'disabled' must give the original's outputs on
// probe inputs and create faster) and commits it or a tombstone; a tombstone
// makes the core name the next tier, captured and stored in the same
// background run. Which tier, what is trusted, what is kept: all the core's;
// here only onnxruntime-web is driven.
import { FORM, FORM_STATUS, LOAD_FLAG } from '../core-constants.js';
import { runLoad } from '../cache/load-driver.js';
import { LoadMachine } from '../cache/load-machine.js';
import { formName, reasonName } from '../cache/messages.js';
import { factsOf, noteEvent } from './driver-hooks.js';
import { captureTier } from './capture-tier.js';
import { stamped } from './stamp.js';
import { verify } from './verify.js';
import { quietOptions } from '../options.js';

/**
 * Stores what the load captured, and every tier after it that the core asks
 * for, off the caller's critical path. Never throws: a form that cannot be
 * kept leaves the original serving.
 * @param {object} p
 * @param {object} p.ort onnxruntime-web as background work sees it (turns.js backgroundOrt)
 * @returns {Promise<{stored: string|null, failed: Array<{form: string, reason: string}>}>}
 */
export async function storeForms({
  ort,
  core,
  cache,
  forms,
  first,
  original,
  sessionOptions,
  probe,
  emit,
  debug,
  onWarning,
}) {
  const out = { stored: null, failed: [] };
  // a task later: the caller's code after `await load()` goes first (the
  // self-test and the stamp read the whole form in one synchronous call)
  await new Promise((resolve) => setTimeout(resolve, 0));
  // its sessions print nothing the caller's own would not
  sessionOptions = quietOptions(sessionOptions);
  const reportJson = JSON.stringify(original.report);
  // each tier is captured by its FORM load, under the key's lock, once the
  // sync shows no verdict for these bytes: a second tab waits, then takes
  // the first one's verdict
  for (let form = first.form; form; ) {
    const format = formName(form);
    let bytes = null; // the capture, once CAPTURE_FORM made it
    let off = false;
    const machine = new LoadMachine(core.m, cache.index, {
      source: 'form',
      raw: original.key,
      url: original.url,
      formCtx: forms.ctx,
      form,
      facts: factsOf(original.report),
      sourceSha256: original.sha256,
      flags: LOAD_FLAG.CAPTURE_LATER | (forms.inPlace ? LOAD_FLAG.ORT_IN_PLACE : 0),
    });
    let r;
    try {
      r = await runLoad({
        machine,
        core,
        cache,
        ort,
        url: original.url,
        debug,
        onWarning,
        sessionOptions: { ...sessionOptions, graphOptimizationLevel: 'disabled' },
        forms: {
          format,
          formReport: reportJson,
          async capture(named) {
            const captured = await captureTier(ort, original.bytes, named, forms, sessionOptions, onWarning);
            if (captured === undefined) {
              off = true;
              throw new Error('forms went off in this page');
            }
            // the caller's bytes are theirs: a form is keyed by what they held at load()
            if (original.inMemory && (await original.recheck()) !== original.sha256)
              throw new Error('the bytes given to load() changed since');
            bytes = captured && named === FORM.onnx ? await stamped(core, captured, forms, original.sha256) : captured;
            return bytes;
          },
          verify: (session) => verify(ort, core, session, bytes, format, original, sessionOptions, probe),
          onNote: (a) => emit(noteEvent(a)),
        },
      });
    } catch (e) {
      if (!off) console.warn(`ortkeep: the .${format} form of ${original.url} was not stored (${e?.message ?? e})`);
      return out;
    }
    const info = r.info;
    if (info.formStatus === FORM_STATUS.FAILED) out.failed.push({ form: format, reason: reasonName(info.formReason) });
    else if (info.formStatus === FORM_STATUS.VERIFIED) out.stored = format;
    form = info.nextForm; // the next tier the core names (0: none)
  }
  return out;
}
