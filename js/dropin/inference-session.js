// onnxruntime-web's InferenceSession, made by ortkeep: the same create()
// overloads and flat SessionOptions, a session with the same run(), names,
// metadata, release() and profiling calls; under it ortkeep's load() (the
// model cache for URLs, the memory tier, the forms, the tensor pool). The
// session is ortkeep's Session, so `.pool` and `.info` are there too.
import { load } from '../load.js';
import { createArguments, normalizeOptions } from '../options.js';
import { realOrt, refusedAsModel } from '../ort-adapter.js';
import { Session } from '../session.js';
import { bundleForEntry } from '../forms/entry-bundle.js';
import { LOADED_KEY } from '../forms/capture-loader.js';
import { formsOff } from '../forms/forms-off.js';
import { formsWentOff } from '../forms/availability.js';

const DEVICE_LOCATIONS = new Set(['gpu-buffer', 'ml-tensor']);

/**
 * An InferenceSession factory over `ort` (the real onnxruntime-web).
 * @param {object} ort the onnxruntime-web module (or window.ort) whose Tensor, env and backends are used
 * @param {{defaults?: () => object, source?: (source: unknown, options: object) => {source: unknown, options: object}, entry?: string}} [how]
 *   defaults: ortkeep options added to every create() (the caller's win); source: rewrites what create() was given;
 *   entry: which onnxruntime-web entry `ort` is (js/forms/entry-bundle.js): the forms' capturing loader is its flavour
 */
export function makeInferenceSession(ort, how = {}) {
  ort = realOrt(ort);
  const Base = ort.InferenceSession;
  /** Set once a creation failed through the capturing loader where onnxruntime-web's own succeeded: plain for the page. */
  let plainOnly = false;
  // biome-ignore lint/complexity/noStaticOnlyClass: onnxruntime-web's InferenceSession is a class with a static create()
  return class InferenceSession {
    /** The onnxruntime-web this wraps (js/ort-adapter.js realOrt: ortkeep itself creates sessions there). */
    static [Symbol.for('ortkeep.realOrt')] = ort;

    /**
     * create(urlOrPath, options?), create(bytes, options?), create(arrayBuffer, byteOffset, byteLength?, options?)
     * @returns {Promise<Session>}
     */
    static async create(arg0, arg1, arg2, arg3) {
      let { source, options } = createArguments(arg0, arg1, arg2, arg3);
      // after how.source: transformers.js's stand-in bytes are resolved for a plain creation too
      if (how.source) ({ source, options } = how.source(source, options ?? {}));
      if (plainOnly) return Base.create(source, options);
      const given = normalizeOptions(options, { where: 'InferenceSession.create()' });
      const forms = given.forms === false ? false : withBundle(given.forms, how.entry, ort);
      let session;
      try {
        session = await load(source, {
          // the app's later sessions are its own: the plain build once a visit showed wasm is all it asks
          runtime: 'after-visit',
          ...how.defaults?.(),
          ...given,
          ...(forms === undefined ? {} : { forms }),
          ort,
        });
      } catch (e) {
        // Never a session that fails where onnxruntime-web's own succeeds: a creation that
        // failed while ortkeep's capturing loader runs here is tried plainly once
        // (a model onnxruntime-web refuses as such fails plainly too: no second try)
        if (e?.code !== 'SESSION_CREATE' || !globalThis[Symbol.for(LOADED_KEY)] || refusedAsModel(e)) throw e;
        let plain;
        try {
          plain = await Base.create(source, options);
        } catch {
          throw e; // onnxruntime-web fails it too: ortkeep's error says what
        }
        plainOnly = true;
        formsWentOff(
          formsOff(
            'capture-path-failed',
            `a session that onnxruntime-web creates failed through ortkeep's capturing loader (${e.message}); ` +
              "ortkeep creates this page's sessions with onnxruntime-web directly; please report it with the onnxruntime-web version",
            e,
          ),
          given.onWarning,
        );
        return plain;
      }
      const keep = onDeviceOutputs(given.sessionOptions?.preferredOutputLocation, session.outputNames);
      if (keep.length && session.pool.device !== 'cpu') session._keepOnDevice(keep);
      return session;
    }

    /** `session instanceof InferenceSession` holds for ortkeep's sessions and onnxruntime-web's own. */
    static [Symbol.hasInstance](value) {
      return value instanceof Session || (typeof Base === 'function' && value instanceof Base);
    }
  };
}

/** The caller's forms option with the capturing loader of `ort`'s entry, unless the caller named one. */
function withBundle(forms, entry, ort) {
  if (!entry || (forms && typeof forms === 'object' && forms.bundle)) return forms;
  const bundle = bundleForEntry(entry, ort.env?.versions?.web);
  return { ...(forms && typeof forms === 'object' ? forms : {}), bundle };
}

/** The outputs the caller's preferredOutputLocation places on a device. */
function onDeviceOutputs(location, outputNames) {
  if (typeof location === 'string') return DEVICE_LOCATIONS.has(location) ? [...outputNames] : [];
  if (!location || typeof location !== 'object') return [];
  return outputNames.filter((n) => DEVICE_LOCATIONS.has(location[n]));
}
