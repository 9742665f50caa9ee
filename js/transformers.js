// ortkeep/transformers: `import 'ortkeep/transformers'` before importing
// @huggingface/transformers makes ortkeep its onnxruntime and its model-file
// store, and leaves the app's device choice ('wasm', 'webgpu', the default)
// as it was:
// - sessions: the onnxruntime-web module transformers.js imports creates
//   them through ortkeep (js/dropin/shared-ort.js): 'onnxruntime-web/webgpu'
//   for transformers.js 4, 'onnxruntime-web' for 3 (shared when the app has
//   one copy of it). transformers.js's own hook,
//   globalThis[Symbol.for('onnxruntime')], is left unset: with it,
//   transformers.js lists no devices and refuses 'wasm' and the default.
// - files: env.customCache (and transformers.js 4's env.fetch) are ortkeep's
//   (js/dropin/transformers-store.js): the models in ortkeep's IndexedDB
//   cache, the small files beside them in the Cache API.
import { env } from '@huggingface/transformers';
import { cache } from './cache/admin.js';
import { routeSessionsThroughOrtkeep } from './dropin/shared-ort.js';
import { resolveStandIns, transformersStore } from './dropin/transformers-store.js';
import { getCore } from './core/module.js';
import { plainForDefaults } from './runtime-choice.js';

const major = Number.parseInt(String(env.version), 10);
// Only the entry this transformers.js imports is loaded (a static import of
// both would add the other bundle's code to every app). Routing settles before
// any model file is answered (the store waits for it), so no session is made
// before it: transformers.js creates one only from a file it was answered.
const routed = (major >= 4 ? import('onnxruntime-web/webgpu') : import('onnxruntime-web')).then(async (ort) => {
  // transformers.js 4's own default files (jsDelivr's .asyncify build, which it
  // fetches into wasmBinary at its first session): the plain build's from the
  // same folder where the origin's record says wasm is all this page lists
  // (single-threaded only: a threaded plain build from transformers.js's blob: loader is not tried)
  const threads = globalThis.crossOriginIsolated && ort.env?.wasm?.numThreads !== 1;
  if (major >= 4 && ort.env?.versions?.web && !threads) {
    const folder = `https://cdn.jsdelivr.net/npm/onnxruntime-web@${ort.env.versions.web}/dist/`;
    const defaults = {
      mjs: `${folder}ort-wasm-simd-threaded.asyncify.mjs`,
      wasm: `${folder}ort-wasm-simd-threaded.asyncify.wasm`,
    };
    try {
      plainForDefaults(await getCore(), ort, defaults, 'asyncify');
    } catch {
      /* the defaults stay: the choice is only a speed-up */
    }
  }
  // the forms' capturing loader is that entry's
  return routeSessionsThroughOrtkeep(ort, { source: resolveStandIns, entry: major >= 4 ? 'webgpu' : 'default' });
});

/** The URLs of the models and data files ortkeep's cache holds (the page's IndexedDB), asked afresh: other tabs store too. */
async function storedUrls() {
  try {
    return new Set((await cache.list()).flatMap((e) => [e.url, ...(e.dataFiles ?? []).map((f) => f.url)]));
  } catch {
    return new Set(); // no IndexedDB: nothing is stored, every model is fetched
  }
}

// transformers.js 3 has no env.fetch: it fetches a file it did not find in the cache itself
const fetchHook = typeof env.fetch === 'function';
const store = transformersStore({
  fetch: fetchHook ? env.fetch : undefined,
  storedUrls,
  ready: routed,
  // without the hook, match() answers a model file transformers.js would fetch from where it would
  probeOnMatch: fetchHook ? null : (key) => fetchedFrom(key),
});
// transformers.js 4 fetches onnxruntime-web's .wasm into its cache and hands
// it over as bytes (env.useWasmCache): a start from bytes compiles without
// streaming or V8's code cache (782 against 675 ms to a tiny session, JSEP),
// and it stores a second copy of a file the HTTP cache keeps. ortkeep starts
// onnxruntime-web from the build's URL (js/runtime-choice.js); an app that
// sets env.useWasmCache after this import has it back.
if (env.useWasmCache) env.useWasmCache = false;
env.useCustomCache = true;
env.customCache = store;
env.useBrowserCache = false;
if (fetchHook) env.fetch = (url, init) => store.fetch(url, init);

/** Whether transformers.js 3 would fetch a file from this cache key, as its getModelFile() decides. */
function fetchedFrom(key) {
  const remote = String(key).startsWith(env.remoteHost);
  return remote ? env.allowRemoteModels : env.allowLocalModels;
}

export { env };
