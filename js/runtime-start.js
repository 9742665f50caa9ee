// onnxruntime-web starts (loads and compiles its wasm, starts the execution
// provider) inside its first InferenceSession.create, and given a URL it
// fetches the model only after that start. A page's first load() starts it
// at once instead, with a session of a 65-byte model of ortkeep's own,
// beside the load's lock, lookup and IndexedDB read or download, so the
// model's creation finds it started. With the JSEP build (28 MB) the start
// held the main thread that the read's callbacks then waited for, and a
// second visit was no faster; with the plain build (js/runtime-choice.js)
// it is: a second visit 0.26x plain against 0.28x started after the read,
// 0.39x against 0.44x with forms off (silero, 4 fresh profiles each).
import { createSession, tinyModel } from './ort-adapter.js';
import { quietOptions } from './options.js';
import { ortHeapBytes } from './forms/capture-loader.js';
import { callerTurn } from './forms/turns.js';
import { isNode } from './platform/node.js';

/** onnxruntime-webs (by their env) that made a model session of ortkeep's in this page. */
const modelMade = new WeakSet();
/** onnxruntime-webs that ortkeep started in this page. */
const up = new WeakSet();
/** A start in progress, by env. */
const starting = new WeakMap();

const keyOf = (ort) => ort.env ?? ort;

/**
 * Whether a model session made now is the page's first: onnxruntime-web
 * started with it or just before it, its code still cold.
 */
export const firstModelSession = (ort) => !modelMade.has(keyOf(ort));

/** A model session was made. */
export const modelSessionMade = (ort) => modelMade.add(keyOf(ort));

/**
 * Whether onnxruntime-web has started in this page (ortkeep started it, made a
 * model session with it, or its capturing loader runs); until then its start
 * is yet to hold the main thread.
 */
export const runtimeUp = (ort) => !ort || up.has(keyOf(ort)) || modelMade.has(keyOf(ort)) || ortHeapBytes() !== null;

/** The start in progress in this page, if any: a creation waits for it first. */
export const startInFlight = (ort) => starting.get(keyOf(ort)) ?? null;

/**
 * Starts onnxruntime-web with the caller's execution providers unless it
 * has started (or is starting) in this page; in browsers only (a Node
 * process has no first visit to shorten). Call once forms have installed
 * their loader: it is picked at this start. Never rejects: whatever fails
 * here fails again, reported, in the model's own creation.
 * @param {object} ort onnxruntime-web
 * @param {unknown[]} executionProviders the load's
 * @param {{beside?: boolean}} [how] beside: `ort` is an instance started beside the app's
 *   (js/runtime-beside.js), which the capturing loader, a page-wide global, does not serve
 * @returns {Promise<void>|null} settles when the start is over; null: nothing to wait for
 */
export function startRuntime(ort, executionProviders, { beside = false } = {}) {
  const key = keyOf(ort);
  if (isNode || up.has(key) || modelMade.has(key) || (!beside && ortHeapBytes() !== null)) return null;
  let p = starting.get(key);
  if (!p) {
    p = callerTurn(() => createSession(ort, tinyModel(), quietOptions({ executionProviders })))
      .then((session) => {
        up.add(key);
        return session.release();
      })
      .catch(() => {})
      .finally(() => starting.delete(key));
    starting.set(key, p);
  }
  return p;
}
