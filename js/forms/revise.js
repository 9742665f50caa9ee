// A verified form's verdict, revised from warm loads (cache/form_tiers.h,
// ok_form_revise). A warm load that the core found suspect (its form
// created within 10% of the original's time at verification) times the
// original once beside it, off the caller's path: the one extra session it
// adds. The pair goes to a revising FORM load, which tallies it under the
// key's lock and, after three pairs that with the verification say the form
// took more than 105% of the original's time, demotes it to a "slower"
// tombstone (tried again after a week).
import { REVISION } from '../core-constants.js';
import { runLoad } from '../cache/load-driver.js';
import { LoadMachine } from '../cache/load-machine.js';
import { formName } from '../cache/messages.js';
import { createSession } from '../ort-adapter.js';
import { quietOptions } from '../options.js';
import { backgroundOrt } from './turns.js';

/**
 * How long the original's creation, read under the model's key lock, may
 * wait for a background turn before the revision is given up: a page whose
 * own calls never leave one (runs kept overlapping) would otherwise hold
 * every other load of the model behind that lock, other tabs' too. A turn
 * comes within 100 ms of quiet, and within 2 s of calls a few ms apart.
 */
const LOCKED_TURN_WAIT_MS = 3000;

const now = () => (globalThis.performance ?? Date).now();
/** ok_load_info.revision, as formsReady.revision.status says it. */
const REVISION_NAME = Object.freeze({
  [REVISION.TALLIED]: 'tallied',
  [REVISION.KEPT]: 'kept',
  [REVISION.DEMOTED]: 'demoted',
  [REVISION.NOT_COUNTED]: 'not-counted',
});

/**
 * The original's creation, timed as verification times it (the caller's
 * options, one onnxruntime-web call at a time beside the caller's): from
 * the caller's bytes, or read back from IndexedDB (checked chunk by chunk)
 * for a URL. Its session is released at once. ms, or null.
 */
async function timeOriginal({ ort, core, cache, src, key, sessionOptions }) {
  if (src.kind === 'bytes') {
    const t0 = now();
    const session = await createSession(backgroundOrt(ort), src.bytes, sessionOptions);
    const ms = now() - t0;
    await session.release();
    return ms;
  }
  const machine = new LoadMachine(core.m, cache.index, {
    source: 'url',
    raw: key,
    url: src.url,
    pageUrl: src.pageUrl,
    mode: 'only-if-cached',
    formCtx: null,
  });
  const locked = backgroundOrt(ort, { createWaitMs: LOCKED_TURN_WAIT_MS });
  // no turn in time: the creation fails, the load lets go of the lock (the stored copy is kept: the refusal is
  // not the bytes'), and the revision is not made
  const r = await runLoad({ machine, core, cache, ort: locked, sessionOptions, url: src.url });
  await r.ortSession.release();
  return r.timings.createMs ?? null;
}

/**
 * Never throws: a revision that cannot be made leaves the verdict as it was.
 * @param {object} p
 * @param {object} p.ort onnxruntime-web (its sessions here take background turns: turns.js backgroundOrt)
 * @param {object} p.info the warm load's core info (revise set, form, key, sha256, createUs)
 * @returns {Promise<{form: string, formMs: number, originalMs: number, status: 'tallied'|'kept'|'demoted'|'not-counted'}|null>}
 */
export async function reviseForm({ ort, core, cache, forms, src, info, sessionOptions: given, debug }) {
  const sessionOptions = quietOptions(given);
  // a task later: the caller's code after `await load()` goes first
  await new Promise((resolve) => setTimeout(resolve, 0));
  try {
    const originalMs = await timeOriginal({ ort, core, cache, src, key: info.key, sessionOptions });
    if (!originalMs) return null;
    const machine = new LoadMachine(core.m, cache.index, {
      source: 'form',
      raw: info.key,
      url: src.url ?? `bytes sha256:${info.sha256}`,
      formCtx: forms.ctx,
      form: info.form,
      sourceSha256: info.sha256,
    });
    const formUs = info.createUs;
    const origUs = Math.min(0xffffffff, Math.max(1, Math.round(originalMs * 1000)));
    const r = await runLoad({
      machine,
      core,
      cache,
      ort: backgroundOrt(ort), // a tally: it creates no session
      sessionOptions,
      url: src.url ?? null,
      revise: { formUs, origUs },
    });
    const out = {
      form: formName(info.form),
      formMs: formUs / 1000,
      originalMs,
      status: REVISION_NAME[r.info.revision] ?? 'not-counted',
    };
    debug?.(`ortkeep: form revision ${JSON.stringify(out)}`);
    return out;
  } catch (e) {
    debug?.(`ortkeep: the form's revision was not made (${e?.message ?? e})`);
    return null;
  }
}
