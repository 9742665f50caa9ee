// The session options that are part of a form's identity. onnxruntime's
// optimizer writes a different model for different options: a free
// dimension override becomes a fixed shape in the form (a form captured at
// batch 1 refuses batch 3), execution-provider options change the layout it
// picks (webgpu's preferredLayout), session config entries (`extra`) switch
// optimizers on or off. So every option that is not known to leave the
// optimized model alone goes into the form's context, as a digest: a load
// with other options never gets a form made with these. An unknown option
// counts (a new onnxruntime-web option costs one more form, never a wrong
// one).
import { sha256Hex } from '../util/sha256.js';

/** Options that change how a session runs or reports, never what the optimizer writes. */
const NO_EFFECT = new Set([
  'executionProviders', // the names are in the context; their options are kept below
  'graphOptimizationLevel', // in the context
  'externalData', // where the data files are: what they hold is the form's source (cache/form_tiers.c)
  'logId',
  'logSeverityLevel',
  'logVerbosityLevel',
  'enableProfiling',
  'profileFilePrefix',
  'intraOpNumThreads',
  'interOpNumThreads',
  'enableCpuMemArena',
  'enableMemPattern',
  'executionMode',
  'preferredOutputLocation',
]);

/** JSON with object keys sorted at every depth: equal options, equal text. */
function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const keys = Object.keys(value)
      .filter((k) => value[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * What of these session options shapes the optimized model, as canonical
 * text ('' when nothing does: the context stays as it was before options
 * counted, so forms stored then still serve).
 * @param {object} sessionOptions the caller's session options
 * @returns {string}
 */
export function formOptionsText(sessionOptions) {
  const kept = {};
  for (const [k, v] of Object.entries(sessionOptions ?? {})) {
    if (!NO_EFFECT.has(k) && v !== undefined) kept[k] = v;
  }
  // an execution provider given as an object carries options beyond its name
  const epOptions = (sessionOptions?.executionProviders ?? [])
    .map((ep) => (typeof ep === 'string' ? null : ep))
    .filter((ep) => ep && Object.keys(ep).some((k) => k !== 'name' && ep[k] !== undefined));
  if (epOptions.length) {
    kept.executionProviders = sessionOptions.executionProviders.map((ep) =>
      typeof ep === 'string' ? { name: ep } : ep,
    );
  }
  return Object.keys(kept).length ? canonical(kept) : '';
}

/**
 * The context suffix for these options: '' or ';opts=<16 hex digits of
 * SHA-256>' (the context holds no '|' and stays short).
 * @param {object} sessionOptions
 * @returns {Promise<string>}
 */
export async function formOptionsSuffix(sessionOptions) {
  const text = formOptionsText(sessionOptions);
  if (!text) return '';
  const hex = await sha256Hex(new TextEncoder().encode(text));
  return `;opts=${hex.slice(0, 16)}`;
}
