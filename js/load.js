// load(): from a source to a Session. The memory tier shares live sessions
// and loads in flight (js/load-shared.js); everything else is one fresh load
// (js/load-fresh.js).
//
// The imports, in the order a load calls them: the source and its identity,
// the memory tier (js/load-shared.js).
import { CACHE_LIMIT, CACHE_MODE } from './core-constants.js';
import { OrtkeepError } from './errors.js';
import { raceAbort } from './util/abort.js';
import { IdentityMismatch, knowSource } from './sources.js';
import { loadShared } from './load-shared.js';
import { resolveOrt } from './ort-adapter.js';
import { pickPrepared } from './forms/prepared.js';
import { normalizeOptions } from './options.js';
import { openAhead } from './cache/page-cache.js';
import { isNode } from './platform/node.js';
import { callerLoad } from './forms/turns.js';

// The page's cache opens as ortkeep is imported, where an earlier visit made it
// (openAhead): a task later, so the import itself is not held.
if (!isNode) setTimeout(openAhead, 0);

/**
 * Loads an ONNX model and creates an onnxruntime-web session for it.
 * @param {string|URL|Uint8Array|ArrayBuffer|ArrayBufferView|Blob} source
 * @param {import('./index.d.ts').LoadOptions} [options]
 * @returns {Promise<Session>}
 */
export function load(source, options = {}) {
  // background work (the forms of earlier loads) waits while a caller's load is under way
  return callerLoad(() => loadNow(source, options));
}

async function loadNow(source, options) {
  options = normalizeOptions(options);
  const mode = options.cache ?? 'default';
  if (!(mode in CACHE_MODE)) {
    throw new OrtkeepError(
      'INVALID_ARG',
      `ortkeep: cache must be one of ${Object.keys(CACHE_MODE).join(', ')}; got '${mode}'`,
    );
  }
  const { MIN_CHUNK_SIZE, MAX_CHUNK_SIZE } = CACHE_LIMIT;
  if (
    options.chunkSize !== undefined &&
    !(Number.isInteger(options.chunkSize) && options.chunkSize >= MIN_CHUNK_SIZE && options.chunkSize <= MAX_CHUNK_SIZE)
  ) {
    throw new OrtkeepError(
      'INVALID_ARG',
      `ortkeep: chunkSize must be an integer from ${MIN_CHUNK_SIZE} to ${MAX_CHUNK_SIZE}; got ${options.chunkSize}`,
    );
  }
  if (options.manifest) return loadPrepared(source, options);
  // the source, and bytes known by their SHA-256 (js/sources.js): what every later step reads
  const src = await raceAbort(knowSource(source, options), options.signal);
  // the memory tier: a live session (or a load in flight) with the same key is shared
  const shareable = (mode === 'default' || mode === 'only-if-cached') && options.memory !== false;
  // at most twice: a second time only where the fingerprint named other bytes
  for (let again = false; ; again = true) {
    try {
      return await loadShared(src, options, shareable);
    } catch (e) {
      if (again || !(e instanceof IdentityMismatch)) throw e;
      // the fingerprint named other bytes: again, keyed by these bytes' own hash
      src.sha256 = await src.identity.confirm();
      src.identity = { ...src.identity, hinted: false };
    }
  }
}

/** load(url, {manifest}): the best form `ortkeep prepare` verified for this page, else the original. */
async function loadPrepared(source, options) {
  const { manifest, ...rest } = options;
  const ort = await raceAbort(resolveOrt(options), options.signal);
  const pick = await raceAbort(
    pickPrepared(manifest, ort, options.executionProviders ?? options.sessionOptions?.executionProviders ?? ['wasm']),
    options.signal,
  );
  if (!pick.url) {
    try {
      options.onEvent?.({ type: 'manifest-unusable', why: pick.why });
    } catch {
      /* the caller's handler */
    }
    return loadNow(source, rest);
  }
  // loadNow, not load(): inside this caller's load already (a nested one would count the caller twice, and
  // background work holding the key's lock would wait for a caller that waits for it)
  const session = await loadNow(pick.url, {
    ...rest,
    integrity: pick.integrity,
    forms: false,
    sessionOptions: { ...rest.sessionOptions, graphOptimizationLevel: 'disabled' },
  });
  session.info.form = {
    form: pick.format,
    level: 'disabled',
    createMs: session.info.timings.createMs ?? null,
    chosen: 'prepared',
    url: pick.url,
  };
  return session;
}
