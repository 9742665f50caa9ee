// The entry's build started beside the plain one. ortkeep's head start
// (js/runtime-choice.js) may start onnxruntime-web's plain (wasm-only) build
// where the page's entry would start its full one (JSEP, WebGPU), and
// onnxruntime-web loads one build per instance, at its first session. A
// later load that lists an EP only the full build has gets it all the same,
// at that load: a second instance of the same onnxruntime-web (its ES module
// from the folder the plain build came from, with its own Emscripten module,
// .wasm and InferenceSession), which ortkeep owns. Its sessions take the
// app's Tensors (the instance's Tensor class accepts them: both are
// onnxruntime-common's, field for field) and hand the app its own Tensors
// back (js/session.js, through tensorBoundary below).
//
// What this relies on, checked when the instance starts: the ES module of
// the entry's build lies beside the plain build's files (ort.min.mjs JSEP,
// ort.webgpu.min.mjs, ort.jspi.min.mjs; in dist/ of onnxruntime-web 1.21.0,
// 1.22.0, 1.27.0, 1.30.0 and 1.31.0-dev, checked), and it is the page's
// version. Where either fails the load is a typed RUNTIME error naming the
// URL tried: worse than plain onnxruntime-web, which would have started the
// full build itself (docs/limits.md says so; not met in any dist/ checked).
import { OrtkeepError } from './errors.js';
import { createArguments } from './options.js';
import { listsDevice } from './runtime-choice.js';
import { startRuntime } from './runtime-start.js';

/** The ES module of each full build, by the entry's flavour. */
const MODULE_FILE = { jsep: 'ort.min.mjs', asyncify: 'ort.webgpu.min.mjs', jspi: 'ort.jspi.min.mjs' };
/** The instance's URL names it apart from the app's own import of the same file (a module is one per URL). */
const INSTANCE_TAG = '#ortkeep-beside';
/** The instance started beside each app onnxruntime-web (by its env), a promise until it is. */
const instances = new WeakMap();
/** Tensors handed to the app, back to the instance's own (kept outputs fed again, released). */
const ownTensor = new WeakMap();

/** The folder the page's plain build came from: its onnxruntime-web dist/. */
function distFolder(started) {
  const wasm = started.plain?.wasm ?? started.paths?.wasm;
  if (!wasm) return null;
  try {
    return new URL('.', new URL(String(wasm.href ?? wasm), globalThis.location?.href)).href;
  } catch {
    return null;
  }
}

/**
 * The entry's build beside the page's plain one: the onnxruntime-web
 * instance this page's loads of that kind run on, started once.
 * @param {object} appOrt the app's onnxruntime-web (the plain build started in it)
 * @param {{entry: string, plain?: {wasm: string}|null, paths?: unknown}} started chooseRuntime's answer
 * @returns {Promise<object>} the instance's module namespace
 */
export function buildBeside(appOrt, started) {
  const key = appOrt.env ?? appOrt;
  let p = instances.get(key);
  if (!p) {
    p = startBeside(appOrt, started);
    instances.set(key, p);
    p.catch(() => instances.delete(key));
  }
  return p;
}

/**
 * The entry's build started beside the plain one at the page's first load,
 * where earlier visits here made device sessions as well as wasm ones
 * (chooseRuntime's besideEarly): its module imported and its wasm started
 * (a wasm session of ortkeep's tiny model, so no GPU is asked for), so the
 * page's first device load finds it up. It starts once the page's own
 * build has: the two started together on two cores took 1.3-1.4 s each
 * (the plain one's 0.5 s alone), delaying the wasm load's result. A head
 * start: a failure here is met again, typed, by the load that needs it.
 * @param {object} appOrt @param {object} started chooseRuntime's answer
 * @param {Promise<void>|null} after the page's own start (startRuntime's answer)
 */
export function startBesideEarly(appOrt, started, after) {
  Promise.resolve(after)
    .then(() => buildBeside(appOrt, started))
    .then((ns) => startRuntime(ns, ['wasm'], { beside: true }))
    .catch(() => {});
}

async function startBeside(appOrt, started) {
  const folder = distFolder(started);
  const file = MODULE_FILE[started.entry];
  const version = appOrt.env?.versions?.web;
  if (!folder || !file)
    throw new OrtkeepError('RUNTIME', `ortkeep: no ${started.entry} build of onnxruntime-web ${version} to start`);
  const url = new URL(file + INSTANCE_TAG, folder).href;
  let ns;
  try {
    ns = await import(/* @vite-ignore */ /* webpackIgnore: true */ url);
  } catch (e) {
    throw new OrtkeepError('RUNTIME', `ortkeep: could not start onnxruntime-web's ${started.entry} build from ${url}`, {
      cause: e,
    });
  }
  if (ns.env?.versions?.web !== version)
    throw new OrtkeepError(
      'RUNTIME',
      `ortkeep: ${url} is onnxruntime-web ${ns.env?.versions?.web}, not the page's ${version}: not started`,
    );
  mirrorEnv(appOrt.env, ns.env, started);
  acceptAppTensors(ns.Tensor, appOrt.Tensor);
  shareDevice(appOrt.env, ns.env);
  return ns;
}

/** The app's settings, as its own instance would start with them (the wasm paths only where the app chose a folder). */
function mirrorEnv(app, own, started) {
  for (const k of ['logLevel', 'debug']) if (app[k] !== undefined) own[k] = app[k];
  for (const k of ['numThreads', 'simd', 'initTimeout', 'trace'])
    if (app.wasm?.[k] !== undefined) own.wasm[k] = app.wasm[k];
  if (typeof started.paths === 'string') own.wasm.wasmPaths = started.paths;
  for (const k of ['powerPreference', 'forceFallbackAdapter', 'adapter', 'profiling', 'validateInputContent'])
    if (app.webgpu?.[k] !== undefined && own.webgpu) own.webgpu[k] = app.webgpu[k];
}

/**
 * The instance's checks (InferenceSession.run's `instanceof Tensor`) take
 * the app's Tensors too: onnxruntime-web reads their fields only. The
 * instance is ortkeep's: no object of the app's is changed.
 */
function acceptAppTensors(OwnTensor, AppTensor) {
  const own = Function.prototype[Symbol.hasInstance];
  Object.defineProperty(OwnTensor, Symbol.hasInstance, {
    value: (v) => own.call(OwnTensor, v) || own.call(AppTensor, v),
    configurable: true,
  });
}

/**
 * `ort.env.webgpu.device`, read by apps to make the GPUBuffers they feed:
 * the instance's device once it has one, where the app's own instance (the
 * plain build) has none. The app's env.webgpu gains that one getter, and
 * only where it has no device of its own.
 */
function shareDevice(app, own) {
  if (!app?.webgpu || !own?.webgpu || app.webgpu.device !== undefined) return;
  const d = Object.getOwnPropertyDescriptor(app.webgpu, 'device');
  if (d && !d.configurable) return;
  Object.defineProperty(app.webgpu, 'device', { get: () => own.webgpu.device, enumerable: true, configurable: true });
}

/** The app's InferenceSession classes whose create() ortkeep answers for device EPs. */
const answered = new WeakSet();

/**
 * The app's own InferenceSession.create() after ortkeep started the plain
 * build in its instance (an app that calls onnxruntime-web itself beside
 * load(), as the demo does): a creation listing an EP that build lacks is
 * made on the instance beside, its outputs handed back as the app's
 * Tensors, as plain onnxruntime-web would have created it; any other is
 * the app's instance's, untouched. It changes an object of the app's only
 * because ortkeep changed what that instance starts, and only where
 * `create` can be replaced (onnxruntime-common's static method, writable
 * in 1.20 through 1.31-dev); a frozen class is left as it is.
 * @param {object} appOrt the app's onnxruntime-web, started plain by ortkeep
 * @param {object} started chooseRuntime's answer
 * @param {{epNeedsMore: (name: string) => boolean}} core
 */
export function answerAppCreates(appOrt, started, core) {
  const Session = appOrt.InferenceSession;
  if (!Session || answered.has(Session)) return;
  const d = Object.getOwnPropertyDescriptor(Session, 'create');
  if (!d || typeof d.value !== 'function' || !d.writable || Object.isFrozen(Session)) return;
  answered.add(Session);
  const create = d.value;
  Session.create = async function create_(...args) {
    let options;
    try {
      ({ options } = createArguments(...args));
    } catch {
      return create.apply(this, args); // onnxruntime-web's own error, as without ortkeep
    }
    // no list is onnxruntime-web's default, wasm, which this instance has
    if (!options?.executionProviders || !listsDevice(core, options.executionProviders)) return create.apply(this, args);
    const ns = await buildBeside(appOrt, started);
    const session = await ns.InferenceSession.create(...args);
    const boundary = tensorBoundary(appOrt.Tensor);
    const run = session.run.bind(session);
    session.run = async (feeds, ...rest) => boundary.outputs(await run(boundary.feeds(feeds), ...rest));
    return session;
  };
}

/**
 * A session's boundary with the app where it runs on the instance beside:
 * the app's Tensors in (its own re-made tensors given back as the
 * instance's), the instance's out as the app's (same data, same device
 * buffer: nothing copied).
 * @param {Function} AppTensor the app's onnxruntime-web Tensor class
 */
export function tensorBoundary(AppTensor) {
  const isApp = (v) => Function.prototype[Symbol.hasInstance].call(AppTensor, v);
  const toApp = (t) => {
    if (!t || typeof t !== 'object' || isApp(t)) return t;
    const hooks = { dataType: t.type, dims: t.dims, download: () => t.getData(), dispose: () => t.dispose() };
    let a;
    if (t.location === 'gpu-buffer') a = AppTensor.fromGpuBuffer(t.gpuBuffer, hooks);
    else if (t.location === 'ml-tensor') a = AppTensor.fromMLTensor(t.mlTensor, hooks);
    else if (t.location === 'cpu-pinned') a = AppTensor.fromPinnedBuffer(t.type, t.data, t.dims);
    else a = new AppTensor(t.type, t.data, t.dims);
    ownTensor.set(a, t);
    return a;
  };
  return {
    /** The instance's tensor behind one handed to the app, or the value as it is. */
    inward: (v) => (v && typeof v === 'object' && ownTensor.get(v)) || v,
    feeds: (feeds) =>
      feeds && typeof feeds === 'object'
        ? Object.fromEntries(Object.entries(feeds).map(([k, v]) => [k, (v && ownTensor.get(v)) || v]))
        : feeds,
    outputs: (out) => Object.fromEntries(Object.entries(out).map(([k, v]) => [k, toApp(v)])),
  };
}
