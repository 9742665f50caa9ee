// ortkeep's public API: load a model (any source), run it, dispose it.
import { getCore, setCoreWasmUrl } from './core.js';
import { OrtkeepError } from './errors.js';
import { createSession, resolveOrt } from './ort-adapter.js';
import { Session, poolSessionOptions } from './session.js';
import { cache } from './cache.js';
import { acquire as acquireLive, memoryKey } from './cache/memory-tier.js';
import { cacheKeyFor, contentKey, normalizeUrl, readModel, sriSha256Hex, toHex, warn } from './cache/model-cache.js';

export { OrtkeepError, Session, cache, setCoreWasmUrl };

const now = () => (globalThis.performance ?? Date).now();

/**
 * Loads an ONNX model and creates an onnxruntime-web session for it.
 * @param {string|URL|Uint8Array|ArrayBuffer|Blob} source
 * @param {import('./index.d.ts').LoadOptions} [options]
 * @returns {Promise<Session>}
 */
export async function load(source, options = {}) {
  // The memory tier: the same model with the same session options, still
  // live in this page, is shared (reference-counted) instead of re-created.
  const mode = options.cache ?? 'default';
  if ((mode === 'default' || mode === 'only-if-cached') && options.memory !== false) {
    const key = await sourceKey(source, options);
    if (key) return acquireLive(memoryKey(key, options), () => loadFresh(source, options));
  }
  return loadFresh(source, options);
}

async function sourceKey(source, options) {
  if (typeof source === 'string' || source instanceof URL) return cacheKeyFor(normalizeUrl(source), options.integrity);
  const bytes = source instanceof ArrayBuffer ? new Uint8Array(source) : ArrayBuffer.isView(source) ? source : null;
  if (!bytes || !globalThis.crypto?.subtle) return null;
  return contentKey(toHex(new Uint8Array(await crypto.subtle.digest('SHA-256', bytes))));
}

async function loadFresh(source, options, corruptRetries = 2) {
  const t0 = now();
  const ort = await resolveOrt(options);
  const core = await getCore();
  const tReady = now();
  const { bytes, url, sha256: knownSha256, cache: cacheInfo, verified } = await readModel(source, options);
  const tBytes = now();
  let model;
  let ortSession = null;
  let tRead = tBytes;
  const sessionOptions = poolSessionOptions(options, { executionProviders: options.executionProviders ?? ['wasm'], ...options.sessionOptions });
  // An IndexedDB hit may come back before its chunk digests are checked
  // (`verified` pending): the session is created meanwhile, and returned
  // only once every chunk is verified. Nothing built from unverified bytes
  // ever reaches the caller.
  const work = (async () => {
    options.onProgress?.({ loaded: bytes.byteLength, total: bytes.byteLength, phase: 'verify' });
    // A cache entry's (or a cached download's) SHA-256 is known: no second hash.
    model = core.inspect(bytes, knownSha256 ?? undefined);
    if (options.integrity) checkIntegrity(options.integrity, model.sha256, url);
    tRead = now();
    options.onProgress?.({ loaded: bytes.byteLength, total: bytes.byteLength, phase: 'create-session' });
    ortSession = await createSession(ort, bytes, sessionOptions);
  })();
  let tSession;
  let verifyWaitMs = 0;
  if (verified) {
    const [w, v] = await Promise.allSettled([work.finally(() => { tSession = now(); }), verified]);
    verifyWaitMs = now() - tSession;
    if (v.status === 'rejected' || v.value !== true) {
      // Built from bytes that did not verify (or could not be): never served.
      await ortSession?.release().catch(() => {});
      if (v.status === 'rejected') {
        const e = v.reason;
        if ((options.cache ?? 'default') === 'only-if-cached') throw e;
        warn(options, 'CACHE_ERROR', `ortkeep: the model cache failed while verifying (${e?.message ?? e}); loading ${normalizeUrl(source)} from the network uncached`);
        return loadFresh(source, { ...options, cache: 'no-store' }, corruptRetries);
      }
      // CORRUPT (already warned): the core dropped the entry and asked for a
      // refetch, so loading again misses and downloads. A session-create
      // error on those bytes is the corruption's, not reported.
      if (corruptRetries <= 0) throw new OrtkeepError('CORRUPT', `ortkeep: ${normalizeUrl(source)} kept failing its chunk digests in the model cache; try again`);
      return loadFresh(source, options, corruptRetries - 1);
    }
    if (w.status === 'rejected') throw w.reason;
  } else {
    await work;
    tSession = now();
  }
  return new Session(ort, ortSession, {
    model,
    source: { url: url ?? (typeof source === 'string' || source instanceof URL ? normalizeUrl(source) : null), bytes: bytes.byteLength, sha256: model.sha256 },
    cache: cacheInfo,
    timings: { runtimeMs: tReady - t0, bytesMs: tBytes - tReady, readMs: tRead - tBytes, createMs: tSession - tRead, verifyWaitMs, totalMs: now() - t0 },
  }, { core, pool: options.pool, executionProviders: sessionOptions.executionProviders });
}

/**
 * Reads a model with ortkeep's C reader without creating a session.
 * @param {Uint8Array|ArrayBuffer} bytes
 */
export async function inspect(bytes) {
  const core = await getCore();
  return core.inspect(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes));
}

function checkIntegrity(integrity, sha256Hex, url) {
  // The same SRI parse that keys the cache (model-cache.js sriSha256Hex).
  const expected = sriSha256Hex(integrity);
  if (!expected) throw new OrtkeepError('INVALID_ARG', `ortkeep: integrity must look like 'sha256-<base64>', got '${integrity}'`);
  if (expected !== sha256Hex) {
    throw new OrtkeepError('INTEGRITY', `ortkeep: ${url ?? 'model'} does not match its integrity (expected sha256 ${expected}, got ${sha256Hex}); refusing to use it`);
  }
}
