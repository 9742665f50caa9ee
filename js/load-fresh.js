// loadFresh(): one load through the C load machine (js/cache/load-driver.js
// carries it out), from a normalized source to a Session.
//
// The imports, in the order a load calls them: the runtime and the core, the
// page's cache, forms, the machine and its driver (which store, fetch and
// create), the data files, forms stored in the background, the session.
import { LOAD_FLAG, TIER } from './core-constants.js';
import { raceAbort } from './util/abort.js';
import { getCore } from './core/module.js';
import { resolveOrt } from './ort-adapter.js';
import { cacheForLoad } from './cache/page-cache.js';
import { deviceAvailable } from './devices/detect.js';
import { formsFor, installLoader, loaderSettled } from './forms/availability.js';
import { formHooks } from './forms/driver-hooks.js';
import { LoadMachine } from './cache/load-machine.js';
import { runLoad } from './cache/load-driver.js';
import { externalDataPlan } from './external-data.js';
import { loadDataFiles } from './cache/data-files.js';
import { backgroundOrt } from './forms/turns.js';
import { storeForms } from './forms/tiers.js';
import { reviseForm } from './forms/revise.js';
import { boundToDevice, poolFallsBackToCpu } from './pool/session-options.js';
import { persist } from './cache/quota.js';
import { trackStore, trackWork } from './cache/background-work.js';
import { Session, poolDeviceName, poolSessionOptions } from './session.js';
import { formInfo } from './forms/session-info.js';
import { createdInPlace } from './forms/in-place.js';
import { memoryReport } from './memory-report.js';
import { isNode } from './platform/node.js';
import { startRuntime } from './runtime-start.js';
import { chooseRuntime, needsBuildBeside, usePlainBuild, warmNextStart } from './runtime-choice.js';
import { answerAppCreates, buildBeside, startBesideEarly } from './runtime-beside.js';

const now = () => (globalThis.performance ?? Date).now();
const TIER_NAME = Object.fromEntries(Object.entries(TIER).map(([k, v]) => [v, k.toLowerCase()]));

/** A warm load served by a form that the core wants the original timed beside (ok_load_info.revise). */
function revisable(r, forms, cache) {
  return !!(r.info.revise && forms.ctx && !forms.off && cache);
}

/**
 * One load of a normalized source (js/sources.js) through the C load machine:
 * the page's cache, forms, the machine and its driver (store, fetch, create),
 * the data files, the Session; forms stored in the background after.
 * @returns {Promise<Session>}
 */
export async function loadFresh(src, options, signal) {
  const t0 = now();
  const mode = options.cache ?? 'default';
  const [appOrt, core] = await raceAbort(Promise.all([resolveOrt(options), getCore()]), signal);
  // the build onnxruntime-web starts in this page (its first load chooses); a load that needs more than
  // that build has runs on the entry's own build, started beside it (js/runtime-beside.js)
  const runtime = await raceAbort(chooseRuntime(core, appOrt, options), signal);
  // the app's own device sessions on an instance ortkeep started plain are made beside it too
  if (runtime.plain) answerAppCreates(appOrt, runtime, core);
  const beside = needsBuildBeside(core, runtime, options.executionProviders);
  const ort = beside ? await raceAbort(buildBeside(appOrt, runtime), signal) : appOrt;
  const tReady = now();
  // forms' capturing loader is installed beside opening the cache (formsFor waits for it); with
  // forms off, onnxruntime-web is pointed at the build chosen itself
  if (!beside && !installLoader(ort, options, runtime) && runtime.plain) usePlainBuild(ort, runtime.plain);
  // URLs are cached; bytes known by their content (src.sha256) keep their
  // forms where the core's rule said (src.keepForms): else they open no IndexedDB, forms off saying so
  const keyed = src.kind === 'url' ? mode !== 'no-store' : !!src.sha256 && src.keepForms;
  const { cache, index, flags: cacheFlags } = await cacheForLoad(core, keyed, signal);
  const flags =
    cacheFlags |
    (isNode ? LOAD_FLAG.NODE : 0) |
    (options.verify === false ? LOAD_FLAG.NO_VERIFY : 0) |
    (globalThis.crypto?.subtle ? LOAD_FLAG.HOST_HASHES : 0) | // a download's SHA-256 natively (load-driver.js)
    (src.flags ?? 0); // bytes: their sha256 names the data given as bytes too (GIVEN_DATA), or no data can be (DATA_UNNAMED)
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
  // bytes keyed by their fingerprint's hint: confirmed before the caller gets a session or anything is
  // captured, and the hash beside fed before onnxruntime's creation holds the main thread (both given up
  // as the load is aborted, as waiting for the forms is)
  const confirmSource = src.identity?.hinted
    ? async () => (await raceAbort(src.identity.confirm(), signal)) === src.sha256
    : null;
  const sourceFed = src.identity?.hinted ? () => raceAbort(src.identity.fed(), signal) : null;
  // the page's capturing loader is its own instance's: a load on the build beside keeps the cache, and its
  // forms come from the next visit, which starts that build in the page (the page's record says so)
  const forms = beside
    ? { off: "on onnxruntime-web's full build started beside the page's plain one" }
    : await raceAbort(formsFor(ort, options, baseOptions, !!cache && keyed), signal);
  // before this load's first onnxruntime-web session the driver waits for forms' capturing loader, if still
  // being installed (forms.loader, or forms.off saying why)
  const settleLoader = () => loaderSettled(ort, forms, options.onWarning);
  const hooks = forms.ctx ? formHooks(forms, emit, core) : null;
  // forms' capturing loader, if still being installed: onnxruntime-web picks its loader at its first session
  const installing = forms.installing ?? null;
  const machine = new LoadMachine(core.m, index, {
    source: src.kind,
    raw: src.raw,
    url: src.url,
    pageUrl: src.pageUrl,
    integrity: options.integrity ?? null,
    mode,
    chunkSize: options.chunkSize,
    flags: flags | (forms.inPlace ? LOAD_FLAG.ORT_IN_PLACE : 0),
    bytesLength: src.bytes?.byteLength,
    formCtx: forms.ctx ?? null,
    // bytes: the core does not hash them again, and keys their forms by it
    sourceSha256: src.kind === 'bytes' ? (src.sha256 ?? undefined) : undefined,
  });
  // at the original's CREATE_SESSION: the model's external data files, each through its own machine
  const dataFiles = (report, parent, warnings) => {
    const plan = externalDataPlan(report, src.url ?? null, baseOptions, globalThis.location?.href);
    return (
      plan &&
      loadDataFiles(plan, parent, {
        caller: true,
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
  };
  // onnxruntime-web starts beside this load's lock, lookup and read or download (js/runtime-start.js),
  // once forms' capturing loader is in place
  const ownStart = installing
    ? installing.then(() => startRuntime(ort, baseOptions.executionProviders))
    : startRuntime(ort, baseOptions.executionProviders);
  // the entry's build beside, where the page's record says device loads come too: after the page's own start
  if (runtime.besideEarly) startBesideEarly(appOrt, runtime, ownStart);
  const r = await runLoad({
    caller: true,
    machine,
    core,
    cache,
    ort,
    sessionOptions,
    bytes: src.bytes,
    signal,
    url: src.url ?? null,
    dataFiles,
    // and no session of this load before it (nor the start above)
    loaderSettled: settleLoader,
    sessionOptionsFor: (report, externalData) =>
      poolSessionOptions(poolOptions, externalData ? { ...baseOptions, externalData } : baseOptions),
    onProgress: options.onProgress,
    onWarning: options.onWarning,
    fetch: options.fetch,
    debug,
    forms: hooks,
    confirmSource,
    sourceFed,
  });
  // A download is served before its store; the store ends behind the caller.
  trackStore(r.storedLater);
  // Off the caller's critical path: once the original is stored, store (and verify) what was captured.
  const captured = hooks?.state.captured;
  // (bytes are never stored: their forms are keyed by their content)
  const capturing = !!captured && !forms.off && (r.stored || src.kind === 'bytes');
  const formsReady = r.storedLater.then((stored) => {
    // forms turned off once the load was under way (loaderSettled) store nothing it captured
    const store = captured && !forms.off && (stored || src.kind === 'bytes');
    if (!store && !revisable(r, forms, cache)) return { stored: null, failed: [], events };
    if (store) {
      return storeForms({
        // every session the background work creates and runs takes turns with the caller's calls
        ort: backgroundOrt(ort),
        core,
        cache,
        forms,
        first: captured,
        probe: options.forms?.probe,
        emit,
        debug,
        onWarning: options.onWarning,
        // the form's sessions read the original's data files, as loaded
        sessionOptions: r.externalData ? { ...baseOptions, externalData: r.externalData } : baseOptions,
        original: {
          bytes: r.bytes,
          report: r.report,
          sha256: r.info.sha256,
          key: r.info.key,
          url: src.url ?? `bytes sha256:${r.info.sha256}`,
          inMemory: src.kind === 'bytes',
          // the caller's bytes (and data given as bytes) hashed again: unchanged since load()?
          recheck: src.identity?.recheck,
        },
      }).then((out) => ({ ...out, events }));
    }
    return reviseForm({ ort, core, cache, forms, src, info: r.info, sessionOptions: baseOptions, debug }).then(
      (revision) => ({ stored: null, failed: [], events, revision }),
    );
  });
  trackWork(formsReady);
  // the build the next visit starts, if not this one: fetched ahead once this work is over
  if (!beside) warmNextStart(core, ort, runtime);
  // Ask once a model is stored; the browser answers (or prompts) on its own time.
  if (options.persist) r.storedLater.then((stored) => stored && persist()).catch(() => {});
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
        capturing ? captured.form : 0,
        hooks?.state.stamped,
        createdInPlace(r.ortSession),
      ),
      memory: memoryReport(core, r.memory, r.report, emit),
      source: {
        url: src.url ?? null,
        bytes: r.info.sourceTotal || r.info.total,
        // the model's own, also where the forms' key names its data given as bytes
        sha256: (src.identity ? await src.identity.model() : r.info.sha256) ?? r.report.sha256,
      },
      cache: cacheInfo,
      warnings: r.warnings,
      timings: {
        // bytes: what knowing them cost the caller: the glance or the full hash; with a
        // hint, the main thread's share of the hash beside the load, and any wait for it
        ...(src.identity
          ? { identifyMs: src.identity.glanceMs + src.identity.besideMs() + (r.timings.confirmMs ?? 0) }
          : {}),
        runtimeMs: tReady - t0,
        ...r.timings,
        totalMs: now() - t0,
      },
    },
    {
      core,
      pool: poolOptions.pool,
      executionProviders: sessionOptions.executionProviders,
      debug,
      boundToDevice: boundToDevice(sessionOptions),
      appTensor: beside ? appOrt.Tensor : undefined,
    },
  );
  // the store behind the caller failed: the info says so from then on (a warning said why)
  r.storedLater.then((stored) => {
    if (cacheInfo) cacheInfo.stored = stored;
  });
  /** Settles when the model's own store is over: true when it is committed to IndexedDB. */
  Object.defineProperty(session, 'cacheSettled', { value: r.storedLater });
  /** Settles when ortkeep's background work for this load (its store; capturing, verifying and storing forms) is done. */
  Object.defineProperty(session, 'formsReady', { value: formsReady });
  return session;
}
