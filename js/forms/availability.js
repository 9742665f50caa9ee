// Whether a load may use optimized forms, and its form context: the
// capturing loader installed once per realm before onnxruntime-web's first
// session, FORMS_OFF said once per page, the context string the core makes.
import { getCore } from '../core/module.js';
import { isNode } from '../platform/node.js';
import { captureLoader } from './capture-loader.js';
import { formOptionsSuffix } from './options-identity.js';
import { guardOrt } from './turns.js';
import { formContext } from './policy.js';

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

/** A capture found forms off in this page (FORMS_OFF): later loads get them off, said once. */
export function formsWentOff(e, onWarning) {
  realm = Promise.resolve({ ok: false, why: e.details?.reason, error: e });
  warnFormsOff(e, onWarning);
}
