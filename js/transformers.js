// ortkeep/transformers: `import 'ortkeep/transformers'` before importing
// @huggingface/transformers makes ortkeep its onnxruntime and its model-file
// store, and leaves the app's device choice ('wasm', 'webgpu', the default)
// as it was:
// - sessions: the onnxruntime-web module transformers.js imports
//   (onnxruntime-web/webgpu, shared when the app has one copy of it) creates
//   them through ortkeep (js/dropin/shared-ort.js). transformers.js's own
//   hook, globalThis[Symbol.for('onnxruntime')], is left unset: with it,
//   transformers.js 4 lists no devices and refuses 'wasm' and the default.
// - files: env.customCache and env.fetch are ortkeep's
//   (js/dropin/transformers-store.js): the models in ortkeep's IndexedDB
//   cache, the small files beside them in the Cache API.
import * as ort from 'onnxruntime-web/webgpu';
import { env } from '@huggingface/transformers';
import { cache } from './cache/admin.js';
import { routeSessionsThroughOrtkeep } from './dropin/shared-ort.js';
import { resolveStandIns, transformersStore } from './dropin/transformers-store.js';

// transformers.js imports onnxruntime-web/webgpu: the forms' capturing loader is that entry's
routeSessionsThroughOrtkeep(ort, { source: resolveStandIns, entry: 'webgpu' });

/** The URLs of the models and data files ortkeep's cache holds (the page's IndexedDB), asked afresh: other tabs store too. */
async function storedUrls() {
  try {
    return new Set((await cache.list()).flatMap((e) => [e.url, ...(e.dataFiles ?? []).map((f) => f.url)]));
  } catch {
    return new Set(); // no IndexedDB: nothing is stored, every model is fetched
  }
}

const store = transformersStore({ fetch: env.fetch, storedUrls });
env.useCustomCache = true;
env.customCache = store;
env.useBrowserCache = false;
env.fetch = (url, init) => store.fetch(url, init);

export { env };
