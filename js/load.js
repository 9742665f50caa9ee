// load(): from a source to a Session. The memory tier shares live sessions
// and loads in flight; everything else is one run of the C load machine
// (js/cache/load-driver.js carries it out).
//
// The imports, in the order a load calls them: sources, the memory tier,
// the runtime and the core, the page's cache, the machine and its driver
// (which store, fetch and create), the data files, the session.
import { CACHE_LIMIT, CACHE_MODE, LOAD_FLAG, TIER } from './core-constants.js';
import { OrtkeepError } from './errors.js';
import { raceAbort } from './util/abort.js';
import { normalizeSource } from './sources.js';
import { acquire, memoryKey } from './cache/memory-tier.js';
import { getCore } from './core/module.js';
import { resolveOrt } from './ort-adapter.js';
import { pickPrepared } from './forms/prepared.js';
import { cacheForLoad } from './cache/page-cache.js';
import { deviceAvailable } from './devices/detect.js';
import { formHooks, formInfo, formsFor, storeForms } from './forms/tiers.js';
import { LoadMachine } from './cache/load-machine.js';
import { runLoad } from './cache/load-driver.js';
import { externalDataPlan } from './external-data.js';
import { loadDataFiles } from './cache/data-files.js';
import { boundToDevice, poolFallsBackToCpu } from './pool/session-options.js';
import { persist } from './cache/quota.js';
import { memoryReport } from './memory-report.js';
import { Session, poolDeviceName, poolSessionOptions } from './session.js';
import { isNode } from './platform/node.js';
import { normalizeOptions } from './options.js';

const now = () => (globalThis.performance ?? Date).now();
const TIER_NAME = Object.fromEntries(Object.entries(TIER).map(([k, v]) => [v, k.toLowerCase()]));

/**
 * Loads an ONNX model and creates an onnxruntime-web session for it.
 * @param {string|URL|Uint8Array|ArrayBuffer|ArrayBufferView|Blob} source
 * @param {import('./index.d.ts').LoadOptions} [options]
 * @returns {Promise<Session>}
 */
export async function load(source, options = {}) {
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
  const src = await raceAbort(normalizeSource(source), options.signal);
  if ((mode === 'default' || mode === 'only-if-cached') && options.memory !== false) {
    // the memory tier: a live session (or a load in flight) with the same key is shared
    const key = await memoryKey(src, options);
    if (key) return acquire(key, (signal) => loadFresh(src, options, signal), options.signal);
  }
  return loadFresh(src, options, options.signal);
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
    return load(source, rest);
  }
  const session = await load(pick.url, {
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

async function loadFresh(src, options, signal) {
  const t0 = now();
  const mode = options.cache ?? 'default';
  const [ort, core] = await raceAbort(Promise.all([resolveOrt(options), getCore()]), signal);
  const tReady = now();
  const {
    cache,
    index,
    flags: cacheFlags,
  } = await cacheForLoad(core, src.kind === 'url' && mode !== 'no-store', signal);
  const flags = cacheFlags | (isNode ? LOAD_FLAG.NODE : 0) | (options.verify === false ? LOAD_FLAG.NO_VERIFY : 0);
  const baseOptions = { executionProviders: options.executionProviders ?? ['wasm'], ...options.sessionOptions };
  const wanted = poolDeviceName(options.pool, baseOptions.executionProviders);
  // A fallback list without the device: onnxruntime will run on wasm; so does the pool (C's verdict).
  const poolOptions =
    wanted !== 'cpu' &&
    poolFallsBackToCpu(
      core,
      wanted,
      options.pool,
      baseOptions.executionProviders,
      await deviceAvailable(wanted, baseOptions.executionProviders),
    )
      ? { ...options, pool: { ...options.pool, device: 'cpu' } }
      : options;
  const sessionOptions = poolSessionOptions(poolOptions, baseOptions);
  const debug = options.debug
    ? typeof options.debug === 'function'
      ? options.debug
      : (line) => console.debug(line)
    : null;
  const events = [];
  const emit = (ev) => {
    events.push(ev);
    debug?.(`ortkeep: ${ev.type} ${JSON.stringify(ev)}`);
    try {
      options.onEvent?.(ev);
    } catch {
      /* the caller's handler */
    }
  };
  const forms = await raceAbort(
    formsFor(ort, options, baseOptions, !!cache && src.kind === 'url' && mode !== 'no-store'),
    signal,
  );
  const hooks = forms.ctx ? formHooks(ort, forms, emit, core, options.onWarning) : null;
  const machine = new LoadMachine(core.m, index, {
    source: src.kind,
    raw: src.raw,
    url: src.url,
    pageUrl: src.pageUrl,
    integrity: options.integrity ?? null,
    mode,
    chunkSize: options.chunkSize,
    flags,
    bytesLength: src.bytes?.byteLength,
    formCtx: forms.ctx ?? null,
  });
  const r = await runLoad({
    machine,
    core,
    cache,
    ort,
    sessionOptions,
    bytes: src.bytes,
    signal,
    url: src.url ?? null,
    dataFiles: (report, parent, warnings) => {
      const plan = externalDataPlan(report, src.url ?? null, baseOptions, globalThis.location?.href);
      return (
        plan &&
        loadDataFiles(plan, parent, {
          core,
          index,
          cache,
          signal,
          fetch: options.fetch,
          modelUrl: src.url ?? 'the model',
          onProgress: options.onProgress,
          onWarning: options.onWarning,
          debug,
          warnings,
        })
      );
    },
    sessionOptionsFor: (report, externalData) =>
      poolSessionOptions(poolOptions, externalData ? { ...baseOptions, externalData } : baseOptions),
    onProgress: options.onProgress,
    onWarning: options.onWarning,
    fetch: options.fetch,
    debug,
    forms: hooks,
  });
  // Off the caller's critical path: store (and verify) what was captured.
  const captured = hooks?.state.captured;
  const formsReady =
    captured && r.stored
      ? storeForms({
          // the form's sessions read the original's data files, as loaded
          ort,
          core,
          cache,
          forms,
          first: captured,
          probe: options.forms?.probe,
          emit,
          debug,
          onWarning: options.onWarning,
          sessionOptions: r.externalData ? { ...baseOptions, externalData: r.externalData } : baseOptions,
          original: { bytes: r.bytes, report: r.report, sha256: r.info.sha256, key: r.info.key, url: src.url },
        }).then((out) => ({ ...out, events }))
      : Promise.resolve({ stored: null, failed: [], events });
  // Ask once a model is stored; the browser answers (or prompts) on its own time.
  if (options.persist && r.stored) persist().catch(() => {});
  const tier = TIER_NAME[r.tier];
  const cacheInfo =
    src.kind === 'url'
      ? {
          tier,
          bytes: r.info.total,
          key: cache ? r.info.key : null,
          stored: r.stored,
          verified: r.verified,
          ...(r.resumedFrom ? { resumedFrom: r.resumedFrom } : {}),
          timings: { ...r.timings },
        }
      : null;
  const session = new Session(
    ort,
    r.ortSession,
    {
      model: r.report,
      form: formInfo(
        forms,
        r.info.form,
        r.timings.createMs,
        captured && r.stored ? captured.form : 0,
        hooks?.state.stamped,
      ),
      memory: memoryReport(core, r.memory, r.report, emit),
      source: {
        url: src.url ?? null,
        bytes: r.info.sourceTotal || r.info.total,
        sha256: r.info.sha256 ?? r.report.sha256,
      },
      cache: cacheInfo,
      warnings: r.warnings,
      timings: { runtimeMs: tReady - t0, ...r.timings, totalMs: now() - t0 },
    },
    {
      core,
      pool: poolOptions.pool,
      executionProviders: sessionOptions.executionProviders,
      debug,
      boundToDevice: boundToDevice(sessionOptions),
    },
  );
  /** Settles when ortkeep's background work for this load (capturing, verifying and storing forms) is done. */
  Object.defineProperty(session, 'formsReady', { value: formsReady });
  return session;
}
