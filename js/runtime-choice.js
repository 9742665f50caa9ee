// Which onnxruntime-web build the page starts. onnxruntime-web picks its
// Emscripten loader and .wasm once, at its first session, and its default
// entry picks the JSEP build (28 MB in 1.30): the wasm and V8's compile of
// it were most of a second visit (a tiny model's session 675-743 ms; 304 ms
// from the plain build's 14 MB). The page's first load starts the plain
// build where nothing asks for more (the C rule: ok_runtime_flavour): a
// head start, never a rule. A later load that lists an EP the plain build
// lacks gets the entry's build started beside it (ok_runtime_serves:
// BESIDE; js/runtime-beside.js), and the page's record makes the next
// visit start the full build at once, or, where wasm-only loads came too,
// the plain build for those and the full one beside it at once
// (ok_runtime_beside_early).
import { RUNTIME, RUNTIME_FACT, RUNTIME_SERVE } from './core-constants.js';
import { OrtkeepError } from './errors.js';
import { plainBuildUrls } from './forms/ort-files.js';
import { isNode } from './platform/node.js';
import { afterWork } from './cache/background-work.js';

const FLAVOUR = { wasm: RUNTIME.WASM, jsep: RUNTIME.JSEP, asyncify: RUNTIME.ASYNCIFY, jspi: RUNTIME.JSPI };
const NAME = Object.fromEntries(Object.entries(FLAVOUR).map(([k, v]) => [v, k]));
/** What the page's loads at this origin have asked for (localStorage: read before the first session). */
const RECORD_KEY = 'ortkeep.runtime';

/** Per realm: the choice, once made: {entry, flavour, plain} (a promise until then). */
let choice = null;
/** wasmPaths objects ortkeep set itself (the plain build's files): not the app's choice. */
const ortkeepPaths = new WeakSet();

/** Whether a load lists an EP that needs more than the plain build (the core's table). */
export function listsDevice(core, executionProviders) {
  return (executionProviders ?? ['wasm']).some((ep) =>
    core.epNeedsMore(String(typeof ep === 'string' ? ep : ep?.name)),
  );
}

function readRecord() {
  if (isNode) return {}; // a Node process has no visits (and newer Nodes warn at localStorage)
  try {
    return JSON.parse(globalThis.localStorage?.getItem(RECORD_KEY) ?? 'null') ?? {};
  } catch {
    return {}; // no storage here (a worker, an opaque origin): nothing recorded
  }
}

/** What the origin's record says of earlier visits, as the core's facts. */
function recordFacts() {
  const seen = readRecord();
  return (seen.device ? RUNTIME_FACT.DEVICE_SEEN : 0) | (wasmSeen(seen) ? RUNTIME_FACT.WASM_SEEN : 0);
}

/** Whether a record says wasm-only loads came; one from before `wasm` was kept ({loads, device}) says so only where no device load did. */
const wasmSeen = (r) => !!(r.wasm ?? (r.loads && !r.device));

/** Notes what a load asked for (a device EP, or wasm only), for the next visit's start. */
function record(device) {
  if (isNode) return;
  const r = readRecord();
  const next = { loads: true, wasm: wasmSeen(r) || !device, device: !!(r.device || device) };
  if (r.loads && r.wasm === next.wasm && !!r.device === next.device) return;
  try {
    globalThis.localStorage?.setItem(RECORD_KEY, JSON.stringify(next));
  } catch {
    /* a full or refused storage: the next visit decides as this one did */
  }
}

/** Forgets what this origin's loads asked for (cache.clear()). */
export function forgetRuntimeRecord() {
  if (isNode) return;
  try {
    globalThis.localStorage?.removeItem(RECORD_KEY);
  } catch {
    /* no storage here */
  }
}

/** Whether the app chose onnxruntime-web's files itself, or started it already (its choice stands). */
function appChose(ort) {
  const wasm = ort.env?.wasm ?? {};
  const paths = wasm.wasmPaths;
  return !!(
    wasm.wasmBinary ||
    wasm.proxy ||
    (typeof paths === 'string' && !wholeDist(paths, ort)) ||
    (paths && typeof paths === 'object' && (paths.mjs || paths.wasm)) ||
    ortFetched()
  );
}

/**
 * Whether a wasmPaths folder is a whole onnxruntime-web dist/ of this
 * version (an npm install served as is, a CDN's versioned path): every
 * build's files are there, so the plain one is taken from the folder the
 * app chose. Any other folder may hold only the files the app copied.
 */
function wholeDist(prefix, ort) {
  try {
    const { pathname } = new URL(prefix, globalThis.location?.href);
    const version = ort.env?.versions?.web;
    return (
      /\/node_modules\/onnxruntime-web\/dist\/$/.test(pathname) ||
      (!!version && pathname.endsWith(`/onnxruntime-web@${version}/dist/`))
    );
  } catch {
    return false;
  }
}

/** An onnxruntime-web .wasm fetched in this page already: started by the app's own session. */
function ortFetched() {
  try {
    return globalThis.performance
      .getEntriesByType('resource')
      .some((e) => /\/ort-wasm-simd-threaded[\w.-]*\.wasm(?:[?#]|$)/.test(e.name));
  } catch {
    return false;
  }
}

/**
 * The build this page starts, chosen at its first load (later loads get the
 * same answer): the flavour's name ('wasm', 'jsep', …) and, for the plain
 * build chosen over the entry's, its files. Browsers only: a Node process
 * starts the plain build already.
 * @param {import('./core/module.js').Core} core
 * @param {object} ort onnxruntime-web
 * @param {object} options the load's (runtime: 'auto' | 'full' | 'after-visit'; forms.bundle: the entry's flavour)
 * @returns {Promise<{entry: string, flavour: string, plain: {mjs: string, wasm: string}|null, besideEarly: boolean}>}
 */
export function chooseRuntime(core, ort, options) {
  const runtime = options.runtime ?? 'auto';
  if (!['auto', 'full', 'after-visit'].includes(runtime))
    return Promise.reject(
      new OrtkeepError('INVALID_ARG', `ortkeep: runtime must be 'auto', 'full' or 'after-visit'; got ${runtime}`),
    );
  const forms = options.forms && typeof options.forms === 'object' ? options.forms : {};
  const entry = forms.bundle ?? (isNode ? 'wasm' : 'jsep');
  choice ??= decide(core, ort, options, entry).catch(() => ({ entry, flavour: entry, plain: null }));
  return choice;
}

async function decide(core, ort, options, entry) {
  const runtime = options.runtime ?? 'auto';
  let facts =
    (listsDevice(core, options.executionProviders) ? RUNTIME_FACT.DEVICE_EP : 0) |
    recordFacts() |
    (runtime === 'full' ? RUNTIME_FACT.FULL : 0) |
    (runtime === 'after-visit' ? RUNTIME_FACT.UNKNOWN_FUTURE : 0) |
    (appChose(ort) ? RUNTIME_FACT.APP_CHOSE : 0);
  const want = (f) => core.m._ok_runtime_flavour(FLAVOUR[entry] ?? 0, f) >>> 0;
  // the plain build's files are looked for only where they could be used
  let plain = null;
  if (!isNode && want(facts | RUNTIME_FACT.PLAIN_FOUND) === RUNTIME.WASM && entry !== 'wasm') {
    plain = await plainBuildUrls(ort);
    if (plain) facts |= RUNTIME_FACT.PLAIN_FOUND;
  }
  // the files the app named say which build starts (a later WebGPU load must know)
  const flavour = (facts & RUNTIME_FACT.APP_CHOSE && namedFlavour(ort)) || NAME[want(facts)] || entry;
  if (flavour !== 'wasm' || entry === 'wasm') plain = null;
  // earlier visits here made device sessions too: the entry's build starts beside the plain one now
  const besideEarly = !!plain && !!core.m._ok_runtime_beside_early(FLAVOUR[flavour], FLAVOUR[entry], facts);
  // own: the app's files start (and will next visit); paths: as the app set them, before forms' loader
  const paths = ort.env?.wasm?.wasmPaths;
  const own = !!(facts & RUNTIME_FACT.APP_CHOSE) && !(paths && ortkeepPaths.has(paths));
  return { entry, flavour, plain, runtime, own, paths, besideEarly };
}

/** This page fetches ahead the build the next visit starts. */
let warming = false;

/**
 * The build the next visit here starts, fetched into the browser's HTTP
 * cache once this page's background work is over, where it is not the one
 * this page started: a drop-in's first visit starts its entry's full build
 * ('after-visit'), the next one the plain build once this visit listed only
 * 'wasm', and that visit then downloaded it (14 MB) and compiled it cold on
 * its way to the first result: a second visit through transformers.js
 * 2229-2294 ms with it fetched ahead, against 2562-2963 without. Decided
 * again when the work is over (a later load here may have asked for more).
 * Call once a load's own background work is tracked (js/cache/background-work.js).
 * @param {import('./core/module.js').Core} core
 * @param {object} ort onnxruntime-web
 * @param {object} started chooseRuntime's answer
 */
export function warmNextStart(core, ort, started) {
  if (warming || isNode || started.own !== false || started.flavour === 'wasm' || started.entry === 'wasm') return;
  if (globalThis.navigator?.connection?.saveData) return; // the user asked for less data
  warming = true;
  afterWork(async () => {
    const facts =
      recordFacts() |
      RUNTIME_FACT.PLAIN_FOUND |
      (started.runtime === 'full' ? RUNTIME_FACT.FULL : 0) |
      (started.runtime === 'after-visit' ? RUNTIME_FACT.UNKNOWN_FUTURE : 0);
    if (core.m._ok_runtime_flavour(FLAVOUR[started.entry] ?? 0, facts) >>> 0 !== RUNTIME.WASM) return;
    const plain = await plainBuildUrls(ort, started.paths);
    for (const url of plain ? [plain.mjs, plain.wasm] : []) {
      const r = await fetch(url, { priority: 'low' });
      await r.body?.pipeTo(new WritableStream()); // read to its end (an unread body is an aborted request), kept by the HTTP cache only
    }
  });
}

/** The build of the .wasm the app named by URL (env.wasm.wasmPaths.wasm), if its name says it. */
function namedFlavour(ort) {
  const wasm = ort.env?.wasm?.wasmPaths?.wasm;
  if (!wasm) return null;
  try {
    const name = new URL(String(wasm.href ?? wasm), globalThis.location?.href).pathname.split('/').pop();
    const m = /^ort-wasm-simd-threaded(?:\.(jsep|asyncify|jspi))?\.wasm$/.exec(name);
    return m ? (m[1] ?? 'wasm') : null;
  } catch {
    return null;
  }
}

/**
 * A library's own default files for onnxruntime-web (transformers.js 4 names
 * jsDelivr's `.asyncify` build of this version before any session, and fetches
 * it into wasmBinary at its first): swapped for the plain build's files in the
 * same folder where the drop-in's rule (the origin's record: an earlier visit
 * listed only 'wasm') picks the plain build. Call before the library's first
 * session; the app's own choice is never touched (only `defaults` is).
 * @param {import('./core/module.js').Core} core
 * @param {object} ort onnxruntime-web
 * @param {{mjs: string, wasm: string}} defaults the library's default files, as it sets them
 * @param {string} entry the entry's flavour ('asyncify', …)
 * @returns {boolean} whether the plain files were named
 */
export function plainForDefaults(core, ort, defaults, entry) {
  const paths = ort.env?.wasm?.wasmPaths;
  if (isNode || !paths || paths.mjs !== defaults.mjs || paths.wasm !== defaults.wasm || ort.env.wasm.wasmBinary)
    return false;
  const facts = RUNTIME_FACT.UNKNOWN_FUTURE | RUNTIME_FACT.PLAIN_FOUND | recordFacts();
  if (core.m._ok_runtime_flavour(FLAVOUR[entry] ?? 0, facts) >>> 0 !== RUNTIME.WASM) return false;
  ort.env.wasm.wasmPaths = {
    mjs: new URL('ort-wasm-simd-threaded.mjs', defaults.wasm).href,
    wasm: new URL('ort-wasm-simd-threaded.wasm', defaults.wasm).href,
  };
  ortkeepPaths.add(ort.env.wasm.wasmPaths);
  return true;
}

/**
 * Points onnxruntime-web at the plain build's files (a load with forms off,
 * or whose capturing loader was refused), unless the app has named files
 * of its own since.
 * @param {object} ort onnxruntime-web
 * @param {{mjs: string, wasm: string}} plain
 */
export function usePlainBuild(ort, plain) {
  if (appChose(ort)) return;
  ort.env.wasm.wasmPaths = { mjs: plain.mjs, wasm: plain.wasm };
  ortkeepPaths.add(ort.env.wasm.wasmPaths);
}

/**
 * Whether a load needs the entry's build started beside the page's (BESIDE):
 * ortkeep's head start took the plain build and the load lists an EP only
 * the entry's build has. Anything else is onnxruntime-web's to answer, as
 * without ortkeep (an app that chose the plain build itself gets its errors
 * and fallbacks). Records what was asked, for the next visit's start.
 * @param {import('./core/module.js').Core} core
 * @param {{entry: string, flavour: string, own?: boolean}} started chooseRuntime's answer
 * @param {unknown[]|undefined} executionProviders the load's
 * @returns {boolean}
 */
export function needsBuildBeside(core, started, executionProviders) {
  const device = listsDevice(core, executionProviders);
  record(device);
  const verdict = core.m._ok_runtime_serves(FLAVOUR[started.flavour], FLAVOUR[started.entry], +device, +!!started.own);
  return verdict === RUNTIME_SERVE.BESIDE;
}
