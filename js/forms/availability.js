// Whether a load may use optimized forms, and its form context: the
// capturing loader installed once per realm before onnxruntime-web's first
// session, FORMS_OFF said once per page, the context string the core makes
// (cache/form_policy.h, asked here with the facts JS sees).
import { FORM_LOAD, FORMS_OFF } from '../core-constants.js';
import { getCore } from '../core/module.js';
import { isNode } from '../platform/node.js';
import { captureLoader } from './capture-loader.js';
import { inProxyWorker } from '../ort-adapter.js';
import { usePlainBuild } from '../runtime-choice.js';
import { formOptionsSuffix } from './options-identity.js';
import { guardOrt } from './turns.js';

/** Per realm: the capturing loader installed, or why forms are off. */
let realm = null;
/** ... and its outcome, once it has one. */
let outcome = null;
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
function formContext(core, { version, eps, level, storable, ownWriter }) {
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

/**
 * Whether this load may use forms, and its context string. Forms need a
 * cache to keep them and the capturing loader installed before onnxruntime-web
 * creates its first session in this realm; anything else turns them off with
 * one warning per page (everything else works as before).
 * @returns {Promise<{ctx: string, version: string, level: string, eps: string[], bundle: string, inPlace: boolean, loader: object|null, installing?: Promise<object>} | {off: string, installing?: Promise<object>}>}
 *   installing: the capturing loader still being installed (loaderSettled waits for it)
 */
export async function formsFor(ort, options, sessionOptions, storable) {
  const off = formsOffFor(options);
  if (off) return off;
  const bundle = options.forms?.bundle ?? (isNode ? 'wasm' : 'jsep');
  const install = installLoader(ort, options);
  // Known already (a later load in the page): as it came out. Else the load
  // goes on beside the installation, which every onnxruntime-web session of
  // the load waits for (loaderSettled): it took 30-100 ms of a page's first
  // load here, now beside the lock, the lookup and the read or download.
  if (outcome && !outcome.ok) {
    if (outcome.error) warnFormsOff(outcome.error, options.onWarning);
    return { off: outcome.why };
  }
  if (outcome && !guardOrt(ort)) return unguarded(options.onWarning);
  // forms off for this load's own reasons still wait for it: the page's other loads may have them
  const pending = outcome ? {} : { installing: install };
  const eps = (sessionOptions.executionProviders ?? ['wasm']).map((ep) => (typeof ep === 'string' ? ep : ep.name));
  const version = ort.env.versions.web;
  const c = formContext(await getCore(), {
    version,
    eps,
    level: sessionOptions.graphOptimizationLevel,
    storable,
    ownWriter: !!sessionOptions.optimizedModelFilePath,
  });
  if (c.off) return { off: c.off, ...pending };
  // the options that change what the optimizer writes are part of the form's identity
  let opts;
  try {
    opts = await formOptionsSuffix(sessionOptions);
  } catch (e) {
    return { off: `these session options cannot key a form (${e?.message ?? e})`, ...pending };
  }
  // an .ort form is created in onnxruntime-web's heap where ortkeep's loader runs it on this thread
  // (js/forms/in-place.js), and is then the tier tried first (LOAD_FLAG.ORT_IN_PLACE)
  const inPlace = !isNode && !inProxyWorker(ort);
  return {
    ctx: `${c.ctx}${opts}`,
    version,
    level: c.level,
    eps,
    bundle,
    inPlace,
    loader: outcome?.loader ?? null,
    ...pending,
  };
}

/**
 * Waits for the capturing loader a load went on beside (formsFor), before
 * the load's first onnxruntime-web session: installed, `forms.loader` is it;
 * refused, `forms.off` says why (one FORMS_OFF for the page), and the load
 * captures nothing (a verified form it found still serves).
 * @returns {Promise<boolean>} whether it had to wait
 */
export async function loaderSettled(ort, forms, onWarning) {
  if (!forms?.installing) return false;
  const r = await forms.installing;
  delete forms.installing;
  if (r.ok && !guardOrt(ort)) forms.off = unguarded(onWarning).off;
  else if (r.ok) forms.loader = r.loader;
  else {
    if (r.error) warnFormsOff(r.error, onWarning);
    forms.off = r.why;
  }
  return true;
}

/**
 * Forms off where onnxruntime-web's InferenceSession cannot be made to take
 * turns (guardOrt: a frozen class): background work could meet the app's own
 * runs mid-run, which plain onnxruntime-web never has. Said once per page.
 */
function unguarded(onWarning) {
  const why =
    "onnxruntime-web's InferenceSession cannot be wrapped (frozen), so background work could meet the page's own runs";
  warnFormsOff({ message: `ortkeep: forms are off: ${why}`, details: { reason: 'frozen' } }, onWarning);
  return { off: why };
}

/** Forms this load cannot have whatever the page: forms: false, or Node without a named bundle. */
function formsOffFor(options) {
  // On by default; forms: false opts out.
  if (options.forms === false) return { off: 'turned off (forms: false)' };
  // Node has no IndexedDB to keep forms in (prepare writes them ahead of time)
  if (isNode && !options.forms?.bundle) return { off: 'no IndexedDB' };
  return null;
}

/**
 * The capturing loader, installed at the page's first load with forms,
 * whatever it loads: onnxruntime-web picks its loader once, at its first
 * session. Begun as early as the load can (load-fresh.js: beside opening
 * the cache: reading its manifest and importing it took 30-100 ms of a
 * page's first load here); never rejects.
 * @returns {Promise<{ok: true, loader: object} | {ok: false, why: string, error: unknown}> | null}
 */
export function installLoader(ort, options, runtime) {
  if (formsOffFor(options)) return null;
  const opt = options.forms && typeof options.forms === 'object' ? options.forms : {};
  // The bundle the page runs cannot be seen from onnxruntime-web's exports:
  // the default one's loader unless forms.bundle names another; the build
  // the page starts (js/runtime-choice.js) may be the plain one instead.
  realm ??= captureLoader(ort, {
    bundle: runtime?.flavour ?? opt.bundle ?? (isNode ? 'wasm' : 'jsep'),
    captureBase: opt.captureBase,
    wasmUrl: runtime?.plain?.wasm ?? opt.wasmUrl,
    loaderUrl: opt.loaderUrl,
  })
    .then(
      (loader) => ({ ok: true, loader }),
      (e) => {
        // forms off: the build chosen still starts, uncaptured
        if (runtime?.plain) usePlainBuild(ort, runtime.plain);
        return { ok: false, why: e?.details?.reason ?? 'capture unavailable', error: e };
      },
    )
    .then((r) => {
      outcome = r;
      return r;
    });
  return realm;
}

/** A capture found forms off in this page (FORMS_OFF): later loads get them off, said once. */
export function formsWentOff(e, onWarning) {
  outcome = { ok: false, why: e.details?.reason, error: e };
  realm = Promise.resolve(outcome);
  warnFormsOff(e, onWarning);
}
