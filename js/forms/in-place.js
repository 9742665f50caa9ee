// An .ort form created in place: its bytes copied once into onnxruntime-web's
// own heap, and onnxruntime told to use them there (session config
// use_ort_model_bytes_directly and use_ort_model_bytes_for_initializers)
// instead of onnxruntime-web copying them in and onnxruntime copying every
// initializer out again. Measured on bench-bert (45 MiB of weights, the
// plain build, Chromium, medians of 3): creation 195 ms against 500 ms for
// the .onnx form and 516 ms for the .ort form created plainly; the wasm
// heap 66 MiB against 145 MiB.
//
// onnxruntime-web (1.21 on) takes a Uint8Array that lies on its own heap as
// it is (`modelData.buffer === HEAPU8.buffer`) and frees it when the
// creation ends (1.21.0, 1.22.0, 1.27.0, 1.30.0, 1.31.0-dev, checked). So
// three of the module's exports are watched: _free skips those bytes,
// _OrtCreateSession ties them to the session handle it makes from them
// (which also proves onnxruntime-web used them where they lie), and
// _OrtReleaseSession frees them after that handle's release, whichever
// wrapper of the session released it. Which rule the running version
// follows is checked at each creation, not assumed: onnxruntime's main
// branch (after 1.31-dev) keeps the buffer with the session when
// use_ort_model_bytes_for_initializers is '1' and frees it itself right
// after _OrtReleaseSession. A creation during which onnxruntime-web never
// tried to free the bytes is that rule: they are then its own to free, and
// ortkeep lets that one free through and frees nothing (one free per
// buffer either way: tests/browser/forms-in-place.test.mjs). A creation that did not take them in
// place (a module other than the one this onnxruntime-web drives, a heap
// that grew meanwhile) made a session over memory it freed: that session is
// released unused and the caller creates plainly.
import { LOADED_KEY } from './loader-patch.js';

/** onnxruntime's session config keys (onnxruntime_session_options_config_keys.h). */
const IN_PLACE_CONFIG = { use_ort_model_bytes_directly: '1', use_ort_model_bytes_for_initializers: '1' };

/**
 * The Emscripten module of onnxruntime-web `ort`, where ortkeep's derived
 * loader runs it in this realm (null elsewhere: onnxruntime-web's own
 * loader, another version's, a proxy worker).
 */
export function ortModuleOf(ort) {
  const loaded = globalThis[Symbol.for(LOADED_KEY)];
  const m = loaded?.module;
  if (!m || loaded.version !== ort?.env?.versions?.web) return null;
  if (typeof m._malloc !== 'function' || typeof m._free !== 'function' || !(m.HEAPU8 instanceof Uint8Array))
    return null;
  return m;
}

/** Sessions created in place. */
const made = new WeakSet();

/** Whether `session` was created in place (session.info.form.inPlace). */
export function createdInPlace(session) {
  return !!session && made.has(session);
}

/** Per module: its own free, the bytes kept in its heap, and which session handle holds which. */
const guards = new WeakMap();

/**
 * Wraps the module's export `name` with `wrap(inner)`. An accessor, not a
 * plain property: 1.21 and 1.22 export through stubs that overwrite their
 * own property on first call; that write now replaces the inner function.
 */
function watch(m, name, wrap) {
  let inner = m[name];
  const outer = wrap((...args) => inner(...args));
  Object.defineProperty(m, name, {
    configurable: true,
    enumerable: true,
    get: () => outer,
    set: (v) => {
      inner = v;
    },
  });
}

const settled = (r, then) => (r && typeof r.then === 'function' ? r.then(then) : then(r));

function guardOf(m) {
  const g = guards.get(m);
  if (g) return g;
  // kept: bytes ortkeep frees; freeTried: kept bytes onnxruntime-web tried to free (its creation-end free)
  const own = { kept: new Set(), handles: new Map(), free: null, freeTried: new Set() };
  watch(m, '_free', (free) => {
    own.free = free;
    return (p) => {
      if (!own.kept.has(p)) return free(p);
      own.freeTried.add(p);
    };
  });
  watch(m, '_OrtCreateSession', (create) => (data, ...rest) => {
    const r = create(data, ...rest);
    if (!own.kept.has(data)) return r;
    return settled(r, (h) => {
      if (h) own.handles.set(h, data);
      return h;
    });
  });
  watch(
    m,
    '_OrtReleaseSession',
    (release) =>
      (h, ...rest) =>
        settled(release(h, ...rest), (r) => {
          const p = own.handles.get(h);
          if (p !== undefined) {
            own.handles.delete(h);
            drop(own, p);
          }
          return r;
        }),
  );
  guards.set(m, own);
  return own;
}

/** Frees kept bytes once. */
function drop(g, p) {
  if (g.kept.delete(p)) g.free(p);
}

/** Whether a session handle of `g` holds the bytes at `p`. */
const held = (g, p) => [...g.handles.values()].includes(p);

/**
 * Creates a session of the .ort form `bytes` in `m`'s heap.
 * @param {object} ort onnxruntime-web (its InferenceSession)
 * @param {object} m the module ortModuleOf(ort) gave
 * @param {Uint8Array} bytes an .ort form
 * @param {object} sessionOptions the caller's
 * @returns {Promise<object|null>} the session; null when its heap could not take the bytes
 *   or onnxruntime-web did not use them in place (nothing is left behind: create plainly)
 * @throws what onnxruntime-web's creation throws (the bytes are freed)
 */
export async function createInPlace(ort, m, bytes, sessionOptions) {
  const g = guardOf(m);
  const ptr = m._malloc(bytes.byteLength);
  if (!ptr) return null;
  m.HEAPU8.set(bytes, ptr);
  g.kept.add(ptr);
  const extra = sessionOptions?.extra ?? {};
  const options = { ...sessionOptions, extra: { ...extra, session: { ...(extra.session ?? {}), ...IN_PLACE_CONFIG } } };
  let session;
  try {
    session = await ort.InferenceSession.create(new Uint8Array(m.HEAPU8.buffer, ptr, bytes.byteLength), options);
  } catch (e) {
    g.freeTried.delete(ptr);
    drop(g, ptr); // a handle made and released on the way out freed them already
    throw e;
  }
  if (!held(g, ptr)) {
    // onnxruntime-web copied the bytes elsewhere and freed its copy: this
    // session's weights lie in freed memory, so it is never run
    g.freeTried.delete(ptr);
    await session.release().catch(() => {});
    drop(g, ptr);
    return null;
  }
  if (!g.freeTried.delete(ptr)) {
    // onnxruntime-web keeps the bytes with the session and frees them after its release: its own to free
    g.kept.delete(ptr);
    for (const [h, p] of g.handles) if (p === ptr) g.handles.delete(h);
  }
  made.add(session);
  return session;
}
