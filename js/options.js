// One option shape for load() and the drop-in InferenceSession.create():
// onnxruntime-web's SessionOptions flat, exactly as onnxruntime-web takes
// them, beside ortkeep's own keys. An option neither knows is a typed
// INVALID_ARG naming it and the nearest known name: a misspelt or misplaced
// option is never silently dropped. The older nesting (`sessionOptions: {…}`)
// still works for one release, with a deprecation warning.
//
// Inside ortkeep the shape stays what the load path reads: ortkeep's keys,
// `executionProviders`, and every other onnxruntime-web key under
// `sessionOptions` (what onnxruntime-web's create() is given).
import { OrtkeepError } from './errors.js';

/**
 * onnxruntime-common's InferenceSession.SessionOptions (and the
 * OnnxModelOptions it extends), key for key; tests/js/options.test.mjs reads
 * the installed type and fails when onnxruntime-web adds or drops one.
 */
export const ORT_SESSION_OPTIONS = Object.freeze([
  'executionProviders',
  'intraOpNumThreads',
  'interOpNumThreads',
  'freeDimensionOverrides',
  'graphOptimizationLevel',
  'enableCpuMemArena',
  'enableMemPattern',
  'executionMode',
  'optimizedModelFilePath',
  'enableProfiling',
  'profileFilePrefix',
  'logId',
  'logSeverityLevel',
  'logVerbosityLevel',
  'preferredOutputLocation',
  'enableGraphCapture',
  'extra',
  'externalData',
]);

/** ortkeep's own load() options (js/index.d.ts LoadOptions). */
export const ORTKEEP_OPTIONS = Object.freeze([
  'ort',
  'integrity',
  'signal',
  'onProgress',
  'cache',
  'onWarning',
  'fetch',
  'debug',
  'chunkSize',
  'persist',
  'memory',
  'verify',
  'pool',
  'forms',
  'runtime',
  'manifest',
  'onEvent',
]);

/** The deprecated nesting of onnxruntime-web's options. */
const NESTED = 'sessionOptions';

/** onnxruntime-common's InferenceSession.RunOptions, and ortkeep's run() keys. */
export const ORT_RUN_OPTIONS = Object.freeze(['logSeverityLevel', 'logVerbosityLevel', 'terminate', 'tag', 'extra']);
export const ORTKEEP_RUN_OPTIONS = Object.freeze(['fetches', 'keep']);

const ORT_KEYS = new Set(ORT_SESSION_OPTIONS);
const OWN_KEYS = new Set(ORTKEEP_OPTIONS);
const ALL_KEYS = [...ORTKEEP_OPTIONS, ...ORT_SESSION_OPTIONS];

/** Marks options already in the internal shape (load() calls itself with them). */
const NORMALIZED = Symbol('ortkeep.normalizedOptions');

let warnedNesting = false;

/**
 * Checks the caller's options and returns them in the internal shape.
 * @param {object|undefined|null} options flat onnxruntime-web SessionOptions + ortkeep's keys
 * @param {{where?: string, warn?: (message: string) => void}} [how] where: the caller's name, for messages
 * @returns {object} ortkeep's keys, `executionProviders` when given, `sessionOptions` with the rest
 */
export function normalizeOptions(options, how = {}) {
  if (options == null) options = {};
  if (typeof options !== 'object' || Array.isArray(options)) {
    throw new OrtkeepError(
      'INVALID_ARG',
      `ortkeep: ${how.where ?? 'load()'} options must be an object, not ${describe(options)}`,
    );
  }
  if (options[NORMALIZED]) return options;
  const out = { [NORMALIZED]: true };
  const session = {};
  for (const key of Object.keys(options)) {
    const value = options[key];
    if (OWN_KEYS.has(key)) out[key] = value;
    else if (ORT_KEYS.has(key)) session[key] = value;
    else if (key !== NESTED) throw unknownOption(key, ALL_KEYS, how.where ?? 'load()');
  }
  const nested = options[NESTED];
  if (nested !== undefined && nested !== null) {
    if (typeof nested !== 'object' || Array.isArray(nested)) {
      throw new OrtkeepError('INVALID_ARG', `ortkeep: sessionOptions must be an object, not ${describe(nested)}`);
    }
    for (const key of Object.keys(nested)) {
      if (!ORT_KEYS.has(key)) throw unknownOption(key, ORT_SESSION_OPTIONS, `${how.where ?? 'load()'} sessionOptions`);
    }
    if (!warnedNesting) {
      warnedNesting = true;
      (how.warn ?? ((m) => console.warn(m)))(
        'ortkeep: options.sessionOptions is deprecated and will be removed in the next release; ' +
          "pass onnxruntime-web's options flat, beside ortkeep's (load(src, { executionProviders, graphOptimizationLevel, … }))",
      );
    }
  }
  // Flat wins over the old nesting when both name a key.
  const merged = { ...nested, ...session };
  if (merged.executionProviders !== undefined) out.executionProviders = merged.executionProviders;
  delete merged.executionProviders;
  if (Object.keys(merged).length) out.sessionOptions = merged;
  return out;
}

/**
 * Splits run()'s second argument when it is an object: ortkeep's keys
 * (fetches, keep) and onnxruntime-web's RunOptions.
 * @returns {{fetches?: string[], keep?: string[], runOptions?: object}}
 */
export function splitRunOptions(options) {
  const own = {};
  const runOptions = {};
  for (const key of Object.keys(options)) {
    if (ORTKEEP_RUN_OPTIONS.includes(key)) own[key] = options[key];
    else if (ORT_RUN_OPTIONS.includes(key)) runOptions[key] = options[key];
    else throw unknownOption(key, [...ORTKEEP_RUN_OPTIONS, ...ORT_RUN_OPTIONS], 'run()');
  }
  if (Object.keys(runOptions).length) own.runOptions = runOptions;
  return own;
}

/** INVALID_ARG naming the option and the nearest known one. */
export function unknownOption(key, known, where) {
  const nearest = nearestName(key, known);
  const hint = nearest ? `; did you mean '${nearest}'?` : `; known options: ${known.join(', ')}`;
  return new OrtkeepError('INVALID_ARG', `ortkeep: unknown ${where} option '${key}'${hint}`, {
    details: { option: key, nearest },
  });
}

/**
 * The known name closest to `name` (case-insensitive edit distance), or null
 * when none is close enough to be a plausible slip.
 */
export function nearestName(name, known) {
  const lower = name.toLowerCase();
  let best = null;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const d = editDistance(lower, candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  // a slip: a few letters off, relative to the length; else a different name
  return bestDistance <= Math.max(2, Math.floor(Math.min(name.length, best?.length ?? 0) / 3)) ? best : null;
}

/** Levenshtein distance with transpositions counted as one edit. */
function editDistance(a, b) {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d = Array.from({ length: rows }, (_, i) => {
    const row = new Array(cols).fill(0);
    row[0] = i;
    return row;
  });
  for (let j = 0; j < cols; j++) d[0][j] = j;
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

function describe(v) {
  return Array.isArray(v) ? 'an array' : v === null ? 'null' : typeof v;
}

/**
 * run()'s arguments after the feeds, in onnxruntime-web's overloads and
 * ortkeep's: (fetches[] , runOptions?), ({outputName: null, …}, runOptions?),
 * ({fetches?, keep?, …RunOptions}).
 * @param {unknown} arg1
 * @param {unknown} arg2
 * @param {readonly string[]} outputNames
 * @returns {{fetches?: string[], keep?: string[], runOptions?: object}}
 */
export function runArguments(arg1, arg2, outputNames) {
  let out;
  if (arg1 == null) out = {};
  else if (Array.isArray(arg1)) out = { fetches: arg1 };
  else if (typeof arg1 !== 'object')
    throw new OrtkeepError(
      'INVALID_ARG',
      `ortkeep: run()'s second argument must be fetches or options, not ${describe(arg1)}`,
    );
  else if (Object.keys(arg1).some((k) => outputNames.includes(k))) out = fetchMap(arg1, outputNames);
  else out = splitRunOptions(arg1);
  if (arg2 != null) {
    if (typeof arg2 !== 'object' || Array.isArray(arg2))
      throw new OrtkeepError('INVALID_ARG', `ortkeep: run() options must be an object, not ${describe(arg2)}`);
    for (const key of Object.keys(arg2)) {
      if (!ORT_RUN_OPTIONS.includes(key)) throw unknownOption(key, ORT_RUN_OPTIONS, 'run()');
    }
    out.runOptions = { ...out.runOptions, ...arg2 };
  }
  return out;
}

/** onnxruntime-web's fetch map: output name → null (the pool preallocates; a caller's tensor is not taken). */
function fetchMap(map, outputNames) {
  const fetches = [];
  for (const [name, value] of Object.entries(map)) {
    if (!outputNames.includes(name)) throw unknownOption(name, outputNames, 'run() fetches');
    if (value != null) {
      throw new OrtkeepError(
        'INVALID_ARG',
        `ortkeep: run() fetches '${name}' with a preallocated tensor; ortkeep's pool preallocates outputs itself: pass null (or list the names)`,
      );
    }
    fetches.push(name);
  }
  return { fetches };
}

/** onnxruntime-common's overloads of create(), as it checks them (typed errors here). */
export function createArguments(arg0, arg1, arg2, arg3) {
  const isObject = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);
  const optionsAt = (v) => {
    if (v === undefined || isObject(v)) return v;
    throw new OrtkeepError('INVALID_ARG', "ortkeep: InferenceSession.create()'s options must be an object");
  };
  if (
    typeof arg0 === 'string' ||
    arg0 instanceof URL ||
    arg0 instanceof Uint8Array ||
    (typeof Blob !== 'undefined' && arg0 instanceof Blob)
  ) {
    return { source: arg0, options: optionsAt(arg1) };
  }
  const isBuffer =
    arg0 instanceof ArrayBuffer || (typeof SharedArrayBuffer !== 'undefined' && arg0 instanceof SharedArrayBuffer);
  if (!isBuffer) {
    throw new OrtkeepError(
      'INVALID_ARG',
      'ortkeep: InferenceSession.create() takes a URL or path, a Uint8Array, or an ArrayBuffer (with byteOffset and byteLength)',
    );
  }
  if (typeof arg1 !== 'number') return { source: new Uint8Array(arg0), options: optionsAt(arg1) };
  const byteOffset = arg1;
  if (!Number.isSafeInteger(byteOffset) || byteOffset < 0 || byteOffset >= arg0.byteLength) {
    throw new OrtkeepError('INVALID_ARG', `ortkeep: byteOffset ${byteOffset} is out of range [0, ${arg0.byteLength})`);
  }
  let byteLength = arg0.byteLength - byteOffset;
  let options = arg2;
  if (typeof arg2 === 'number') {
    byteLength = arg2;
    if (!Number.isSafeInteger(byteLength) || byteLength <= 0 || byteOffset + byteLength > arg0.byteLength) {
      throw new OrtkeepError(
        'INVALID_ARG',
        `ortkeep: byteLength ${byteLength} is out of range (0, ${arg0.byteLength - byteOffset}]`,
      );
    }
    options = arg3;
  }
  return { source: new Uint8Array(arg0, byteOffset, byteLength), options: optionsAt(options) };
}

/**
 * Options for a session ortkeep creates for its own work (the runtime's
 * start, a form's capture, verification, revision): onnxruntime logs no
 * louder than errors (3), or the caller's level where that is quieter, so
 * nothing reaches the console that the caller's own calls would not print
 * (a capture at 'all' makes onnxruntime warn about its NCHWc transformer).
 * @param {object} [sessionOptions]
 */
export function quietOptions(sessionOptions = {}) {
  return { ...sessionOptions, logSeverityLevel: Math.max(3, sessionOptions.logSeverityLevel ?? 0) };
}
