// Optimized forms in load(): the hands of the C core's form tiers
// (cache/ok_load.h: form contexts, ok_load_capture_form, FORM loads). A load
// serving the original learns which tier the core names; after the caller
// has its session, that tier is captured from the original's bytes and
// stored by a FORM load, which verifies it (a session at 'disabled' must give the
// original's outputs on probe inputs and create faster) and commits it or a
// tombstone; a tombstone makes the core name the next tier, captured and
// stored in the same background run. Which tier, what is trusted, what is
// kept: all the core's; here only onnxruntime-web is driven.
import { FACT, FORM, FORM_STATUS, LOAD_FLAG, NOTE, PROBE, PROBE_FACT, VERIFY } from '../core-constants.js';
import { getCore } from '../core/module.js';
import { isNode } from '../platform/node.js';
import { runLoad } from '../cache/load-driver.js';
import { LoadMachine } from '../cache/load-machine.js';
import { formName, reasonName } from '../cache/messages.js';
import { captureOptimized } from './capture.js';
import { captureLoader } from './capture-loader.js';
import { compareOutputs, probeFeeds, runProbes } from './probe.js';
import { sha256Hex } from '../sources.js';
import { formOptionsSuffix } from './options-identity.js';
import { backgroundOrt, guardOrt } from './turns.js';
import { bestMs, formContext, probeVerdict } from './policy.js';

const now = () => (globalThis.performance ?? Date).now();

/** Per realm: the capturing loader installed, or why forms are off. */
let realm = null;
/** Forms turned off in this page: said once, through onWarning and the console. */
let warned = false;

/** One FORMS_OFF warning per page, with the reason and what to do. */
function warnFormsOff(e, onWarning) {
  if (warned) return;
  warned = true;
  const w = {
    code: 'FORMS_OFF',
    reason: e?.details?.reason ?? 'capture unavailable',
    message: `${e?.message ?? e} (ortkeep loads models in their original form in this page)`,
  };
  console.warn(w.message);
  try {
    onWarning?.(w);
  } catch {
    /* the caller's handler */
  }
}

/**
 * Whether this load may use forms, and its context string. Forms need a
 * cache to keep them and the capturing loader installed before onnxruntime-web
 * creates its first session in this realm; anything else turns them off with
 * one warning per page (everything else works as before).
 * @returns {Promise<{ctx: string, version: string, level: string, eps: string[], bundle: string} | {off: string}>}
 */
export async function formsFor(ort, options, sessionOptions, storable) {
  // On by default; forms: false opts out. The bundle the page runs cannot be
  // seen from onnxruntime-web's exports: the default one's loader unless
  // forms.bundle names another.
  if (options.forms === false) return { off: 'turned off (forms: false)' };
  const opt = options.forms && typeof options.forms === 'object' ? options.forms : {};
  // Node has no IndexedDB to keep forms in (prepare writes them ahead of time)
  if (isNode && !opt.bundle) return { off: 'no IndexedDB' };
  const bundle = opt.bundle ?? (isNode ? 'wasm' : 'jsep');
  // installed at the page's first load, whatever it loads: onnxruntime-web
  // picks its loader once, at its first session
  realm ??= captureLoader(ort, {
    bundle,
    captureBase: opt.captureBase,
    wasmUrl: opt.wasmUrl,
    loaderUrl: opt.loaderUrl,
  }).then(
    (loader) => ({ ok: true, loader }),
    (e) => ({ ok: false, why: e?.details?.reason ?? 'capture unavailable', error: e }),
  );
  const r = await realm;
  if (r.error) warnFormsOff(r.error, options.onWarning);
  if (!r.ok) return { off: r.why };
  // from here on ortkeep may work in the background: the caller's own
  // sessions of this onnxruntime-web take turns with it
  guardOrt(ort);
  const eps = (sessionOptions.executionProviders ?? ['wasm']).map((ep) => (typeof ep === 'string' ? ep : ep.name));
  const version = ort.env.versions.web;
  const c = formContext(await getCore(), {
    version,
    eps,
    level: sessionOptions.graphOptimizationLevel,
    storable,
    ownWriter: !!sessionOptions.optimizedModelFilePath,
  });
  if (c.off) return { off: c.off };
  // the options that change what the optimizer writes are part of the form's identity
  let opts;
  try {
    opts = await formOptionsSuffix(sessionOptions);
  } catch (e) {
    return { off: `these session options cannot key a form (${e?.message ?? e})` };
  }
  return { ctx: `${c.ctx}${opts}`, version, level: c.level, eps, bundle, loader: r.loader };
}

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
export function formHooks(ort, forms, emit, core, onWarning) {
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

/**
 * Stores what the load captured, and every tier after it that the core asks
 * for, off the caller's critical path. Never throws: a form that cannot be
 * kept leaves the original serving.
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
  // every session this creates and runs takes turns with the caller's calls
  ort = backgroundOrt(ort);
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
      flags: LOAD_FLAG.CAPTURE_LATER,
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
            bytes = captured && named === FORM.onnx ? await stamped(core, captured, forms, original.sha256) : captured;
            return bytes;
          },
          verify: (session) => verify(ort, core, session, bytes, original, sessionOptions, probe),
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

/**
 * One tier captured from the original's bytes: a session created with
 * onnxruntime's optimized-model writer on (then released) and the artifact
 * self-tested: its bytes; null: onnxruntime wrote nothing usable or could
 * not create the session (a tombstone for this tier); undefined: forms went
 * off in this page (onnxruntime-web started with another loader), said once.
 */
async function captureTier(ort, originalBytes, form, forms, sessionOptions, onWarning) {
  try {
    const c = await captureOptimized(ort, originalBytes, {
      level: forms.level,
      format: formName(form),
      sessionOptions,
      loader: forms.loader,
    });
    await c.session.release();
    return c.bytes;
  } catch (e) {
    if (e?.details?.session) await e.details.session.release().catch(() => {});
    if (e?.code !== 'FORMS_OFF') return null;
    realm = Promise.resolve({ ok: false, why: e.details?.reason, error: e });
    warnFormsOff(e, onWarning);
    return undefined;
  }
}

/** The .onnx form with the normalization stamp as its last metadata_props entry. */
async function stamped(core, bytes, forms, sourceSha) {
  const artifact = await sha256Hex(bytes);
  const tail = core.stampTail({
    producer: 'ortkeep',
    ort: forms.version,
    ep: forms.eps.join(','),
    level: forms.level,
    source: sourceSha,
    artifact,
  });
  const out = new Uint8Array(bytes.byteLength + tail.byteLength);
  out.set(bytes);
  out.set(tail, bytes.byteLength);
  return out;
}

/**
 * VERIFY_FORM: the form's session against a session of the original created
 * as the caller's, on probe inputs. The core's protocol (VERIFY): creations
 * timed interleaved, original first and last, the form between, each side
 * taken at its best sample (ok_form_best_us); the verdict is the core's from
 * what the round trip showed (ok_form_probe_verdict). Probes that do not run
 * on the original at the caller's probe shapes are retried at longer ones
 * (probeLadder) before the form is called unverifiable.
 * @returns {Promise<{verdict: number, origMs: number, formMs: number}>}
 */
async function verify(ort, core, formSession, formBytes, original, sessionOptions, probe) {
  const timed = async (bytes, options) => {
    const t0 = now();
    const session = await ort.InferenceSession.create(bytes, options);
    return { session, ms: now() - t0 };
  };
  const samples = { original: [], form: [] };
  let ref = null;
  let seen = 0;
  const judged = () => ({
    verdict: probeVerdict(core, seen),
    origMs: samples.original.length ? bestMs(core, samples.original) : 0,
    formMs: samples.form.length ? bestMs(core, samples.form) : 0,
  });
  try {
    for (let i = 0; i < Math.max(VERIFY.ORIGINAL_CREATES, VERIFY.FORM_CREATES); i++) {
      for (const side of ['original', 'form']) {
        const count = side === 'original' ? VERIFY.ORIGINAL_CREATES : VERIFY.FORM_CREATES;
        if (i >= count) continue;
        const t =
          side === 'original'
            ? await timed(original.bytes, sessionOptions)
            : await timed(formBytes, { ...sessionOptions, graphOptimizationLevel: 'disabled' });
        samples[side].push(t.ms);
        // the original's last session is kept as the probes' reference
        if (side === 'original' && i === count - 1) ref = t.session;
        else await t.session.release();
      }
    }
    seen |= PROBE_FACT.CREATED;
  } catch {
    await ref?.release().catch(() => {});
    return judged();
  }
  const wrap = (feeds) =>
    Object.fromEntries(Object.entries(feeds).map(([k, f]) => [k, new ort.Tensor(f.type, f.data, f.dims)]));
  try {
    let feeds = null;
    let expected = null;
    for (const shapes of probeLadder(original.report, probe)) {
      try {
        feeds = probeFeeds(original.report, { count: VERIFY.PROBE_SETS, ...shapes });
        expected = await runProbes((f) => ref.run(wrap(f)), feeds);
        break;
      } catch {
        expected = null;
      }
    }
    if (!expected) return judged();
    seen |= PROBE_FACT.REFERENCE_RAN;
    let actual;
    try {
      actual = await runProbes((f) => formSession.run(wrap(f)), feeds);
    } catch {
      return judged();
    }
    seen |= PROBE_FACT.FORM_RAN;
    if (compareOutputs(expected, actual, probe?.tolerance).equal) seen |= PROBE_FACT.EQUAL;
    return judged();
  } finally {
    await ref.release().catch(() => {});
  }
}

/**
 * The caller's probe shapes, then every free dim at PROBE.LONG_DIM (256;
 * images: H and W), then only each input's last unnamed dim at it and the rest at 1 (audio and
 * sequences whose other inputs carry an unnamed batch dim: silero v5 takes
 * input [?, ?] and state [2, ?, 128], which the other two cannot both fit).
 */
function* probeLadder(report, probe = {}) {
  const given = { freeDimensionOverrides: probe.freeDimensionOverrides ?? {}, inputDims: probe.inputDims ?? {} };
  yield given;
  const names = new Set();
  for (const input of report.inputs ?? []) for (const d of input.dims ?? []) if (typeof d === 'string') names.add(d);
  const big = Object.fromEntries([...names].map((n) => [n, PROBE.LONG_DIM]));
  const inputDims = {};
  for (const input of report.inputs ?? []) {
    if (input.dims?.some((d) => d === null))
      inputDims[input.name] = input.dims.map((d, i) => (typeof d === 'number' ? d : i === 0 ? 1 : PROBE.LONG_DIM));
  }
  yield {
    freeDimensionOverrides: { ...big, ...given.freeDimensionOverrides },
    inputDims: { ...inputDims, ...given.inputDims },
  };
  const lastOnly = {};
  for (const input of report.inputs ?? []) {
    const dims = input.dims ?? [];
    if (!dims.some((d) => d === null)) continue;
    lastOnly[input.name] = dims.map((d, i) => {
      if (typeof d === 'number') return d;
      if (typeof d === 'string') return given.freeDimensionOverrides[d] ?? 1;
      return i === dims.length - 1 ? PROBE.LONG_DIM : 1;
    });
  }
  if (Object.keys(lastOnly).length)
    yield { freeDimensionOverrides: given.freeDimensionOverrides, inputDims: { ...lastOnly, ...given.inputDims } };
}

/** session.info.form for a finished load. */
export function formInfo(forms, served, createMs, capturing, stamped) {
  if (forms.off) return { form: 'original', level: null, createMs, chosen: 'off', why: forms.off };
  if (served) return { form: formName(served), level: 'disabled', createMs, chosen: 'verified' };
  if (stamped) return { form: 'original', level: 'disabled', createMs, chosen: 'stamped' };
  return {
    form: 'original',
    level: forms.level,
    createMs,
    chosen: capturing ? 'capturing' : 'original',
    ...(capturing ? { capturing: formName(capturing) } : {}),
  };
}
