// The load driver's hands on onnxruntime-web (js/cache/load-driver.js): the
// C reader's validation of the bytes, the session's creation (with the
// model's external data files; for an original, which form the background
// work captures), a form's capture and verification, the session's release.
import { CACHE_ACTION as ACT, FORM, SESSION_FACT, STATUS } from '../core-constants.js';
import { createSession, refusedAsModel, refusedForOptions } from '../ort-adapter.js';
import { ortHeapBytes } from '../forms/capture-loader.js';
import { IdentityMismatch } from '../sources.js';
import { firstModelSession, modelSessionMade, startInFlight } from '../runtime-start.js';

const now = () => (globalThis.performance ?? Date).now();

function validate(run, a) {
  run.progress('verify', a.value, a.value);
  let status = STATUS.OK;
  let offset = 0;
  let json = null;
  try {
    const formReport = run.ctx.forms?.formReport;
    if (formReport && run.ctx.forms.format === 'ort') {
      // an .ort form: the C ORT-format reader; the original's report is committed
      run.ctx.core.inspectOrt(run.buf.view(a.value));
      json = formReport;
    } else {
      // Streamed through the core in pieces (core.inspectStream), never
      // copied in whole: the core's heap stays a few MiB for any model.
      // a.name is the SHA-256 the machine took as bytes arrived.
      json = run.ctx.core.inspectJson(run.buf.view(a.value), a.name);
      if (formReport) json = formReport; // a form keeps the original's report
    }
  } catch (e) {
    status = STATUS[e?.code] ?? STATUS.NOT_ONNX;
    offset = e?.offset ?? 0;
  }
  run.phase('validateMs');
  if (json !== null) {
    const bytes = new TextEncoder().encode(json);
    if (run.ev(run.m.validated(status, 0, bytes)) === STATUS.OK) run.report = JSON.parse(json);
  } else {
    run.ev(run.m.validated(status, offset, null));
  }
}

/**
 * Bytes keyed by their fingerprint's hint (js/sources.js): the
 * session made from what that key served reaches nobody, and nothing is
 * captured under it, before the full hash agrees. Else the load is aborted
 * (the core loses nothing; the session is released) and starts again with
 * the true key. The hash runs beside the load: waited for as late as it
 * can be (createSessionAction says when).
 */
async function sourceConfirmed(run) {
  const confirm = run.ctx.confirmSource;
  if (!confirm) return true;
  run.ctx.confirmSource = null;
  const t0 = now();
  const ok = await confirm();
  run.timings.confirmMs = (run.timings.confirmMs ?? 0) + now() - t0;
  run.mark = now();
  if (ok) return true;
  run.partError = new IdentityMismatch();
  run.ev(run.m.abort());
  return false;
}

async function createSessionAction(run, a) {
  run.phase(run.hit ? 'readMs' : 'storeMs');
  const { ctx } = run;
  const form = a.value2; // an optimized form: onnxruntime optimized it already
  // the creation runs beside the hash and is waited for after; fed first:
  // onnxruntime holds the main thread the worker's pieces are copied on, so
  // unfed (a small form read at once, the caller's own bytes) the worker
  // waited, then hashed after the creation
  if (ctx.sourceFed) {
    const t0 = now();
    await ctx.sourceFed();
    run.timings.confirmMs = (run.timings.confirmMs ?? 0) + now() - t0;
    run.mark = now();
  }
  let externalData = null;
  if (ctx.dataFiles) {
    // the model's data files (an optimized .onnx form reads the original's)
    try {
      externalData = await ctx.dataFiles(run.report, run.m, run.warnings);
    } catch (e) {
      run.partError = e;
      run.ev(run.m.abort());
      return;
    }
    if (externalData) run.phase('dataMs');
    // a form folds its data files' weights: one made from bytes fetched
    // again since it was chosen is retired, and the original is read instead
    if (externalData && form) {
      run.ev(run.m.partsLoaded());
      if (run.m.info()?.form !== form) return;
    }
    run.externalData = externalData;
  }
  run.progress('create-session', a.value, a.value);
  // forms' capturing loader, installed beside the load (js/forms/availability.js)
  if (ctx.loaderSettled && (await ctx.loaderSettled())) run.phase('loaderMs');
  // onnxruntime-web starting beside the load (js/runtime-start.js): its
  // rest is waited for here, as its own phase, not in the creation's time
  const starting = startInFlight(ctx.ort);
  if (starting) {
    await starting;
    run.phase('startMs');
  }
  let ok = true;
  let first = false;
  let so = null;
  const heapBefore = ortHeapBytes();
  const t0 = now();
  try {
    so = ctx.sessionOptionsFor ? ctx.sessionOptionsFor(run.report, externalData) : ctx.sessionOptions;
    const stamped = !form && !!ctx.forms?.stampedForThis?.(run.report, run.buf.view(a.value));
    if (form || stamped) so = { ...so, graphOptimizationLevel: 'disabled' };
    const capture =
      !form && !stamped && ctx.forms?.captureLater
        ? run.m.captureForm(ctx.forms.facts(run.report), ctx.forms.externalBytes(run.report))
        : 0;
    first = firstModelSession(ctx.ort);
    run.ortSession = await createSession(ctx.ort, run.buf.view(a.value), so, { ortForm: form === FORM.ort });
    modelSessionMade(ctx.ort);
    // the form named is captured after the caller has this session, in the
    // background work (js/forms/tiers.js storeForms): capturing inside this
    // creation made it 1.3-1.5x slower
    if (capture) ctx.forms.captureLater(capture);
  } catch (e) {
    run.sessionError = e;
    ok = false;
  }
  run.createdForm = form;
  // before is null for the page's first session (onnxruntime-web starts with it)
  const heapAfter = ok ? ortHeapBytes() : null;
  run.memory = heapAfter !== null ? { before: heapBefore, after: heapAfter } : null;
  const createMs = now() - t0;
  run.phase('createMs');
  if (!(await sourceConfirmed(run))) return;
  // what makes this time no measure of a form is the core's to weigh (ok_form_revise_wanted)
  // and whether a refusal is the bytes' (a stored copy is dropped) or the options' (it is kept)
  const badModel = !ok && refusedAsModel(run.sessionError);
  const facts =
    (ok ? SESSION_FACT.OK : 0) |
    (first ? SESSION_FACT.FIRST : 0) |
    (externalData ? SESSION_FACT.DATA_FILES : 0) |
    (badModel ? SESSION_FACT.BAD_MODEL : 0) |
    (!ok && !badModel && form && (await refusedForOptions(ctx.ort, so)) ? SESSION_FACT.OPTIONS : 0);
  run.ev(run.m.sessionTimed(facts, createMs));
}

async function verifyForm(run) {
  const { verdict, origMs, formMs } = await run.ctx.forms.verify(run.ortSession);
  run.ev(run.m.formVerified(verdict, origMs, formMs));
}

/** CAPTURE_FORM: no verdict stands for these bytes; capture the form now (the key's lock is held). */
async function captureForm(run, a) {
  if (!(await sourceConfirmed(run))) return;
  const bytes = await run.ctx.forms.capture(a.value);
  if (bytes) run.ctx.bytes = bytes; // the FORM load's bytes from here on (ALLOC adopts them)
  run.ev(run.m.captured(bytes?.byteLength ?? 0));
}

async function releaseSession(run) {
  await run.ortSession?.release().catch(() => {});
  run.ortSession = null;
}

/** The session actions' handlers, by action type. */
export const SESSION_ACTIONS = {
  [ACT.VALIDATE]: validate,
  [ACT.CREATE_SESSION]: createSessionAction,
  [ACT.VERIFY_FORM]: verifyForm,
  [ACT.CAPTURE_FORM]: captureForm,
  [ACT.RELEASE_SESSION]: releaseSession,
};
