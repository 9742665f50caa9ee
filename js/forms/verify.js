// VERIFY_FORM: a form's session against the original's, timed interleaved and
// run on probe inputs; the verdict is the core's (js/forms/policy.js).
import { PROBE, PROBE_FACT, VERIFY } from '../core-constants.js';
import { compareOutputs, probeFeeds, QUIET_RUN, runProbes } from './probe.js';
import { bestMs, probeVerdict } from './policy.js';
import { createSession } from '../ort-adapter.js';

const now = () => (globalThis.performance ?? Date).now();

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
export async function verify(ort, core, formSession, formBytes, format, original, sessionOptions, probe) {
  // each side created as a load would serve it (an .ort form in place where it can be)
  const timed = async (bytes, options, how) => {
    const t0 = now();
    const session = await createSession(ort, bytes, options, how);
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
            : await timed(
                formBytes,
                { ...sessionOptions, graphOptimizationLevel: 'disabled' },
                { ortForm: format === 'ort' },
              );
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
    // integers 0..3 first, then 0..1 (a BERT's token_type_ids index a table of 2 rows)
    ladder: for (const shapes of probeLadder(original.report, probe)) {
      for (const intSpan of [4, 2]) {
        try {
          feeds = probeFeeds(original.report, { count: VERIFY.PROBE_SETS, ...shapes, intSpan });
          expected = await runProbes((f) => ref.run(wrap(f), QUIET_RUN), feeds);
          break ladder;
        } catch {
          expected = null;
        }
      }
    }
    if (!expected) return judged();
    seen |= PROBE_FACT.REFERENCE_RAN;
    let actual;
    try {
      actual = await runProbes((f) => formSession.run(wrap(f), QUIET_RUN), feeds);
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
