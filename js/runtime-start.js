// onnxruntime-web starts (loads and compiles its wasm, starts the execution
// provider) inside its first InferenceSession.create, and given a URL it
// fetches the model only after that start. A page's first load() starts it
// beside its own work instead (the lock, the IndexedDB read or the
// download, the checks) with a session of a 65-byte model of ortkeep's
// own, so the model's creation finds it started: a first visit overlaps
// the download with the start-up, a later one the IndexedDB read.
import { createSession } from './ort-adapter.js';
import { ortHeapBytes } from './forms/capture-loader.js';
import { callerTurn } from './forms/turns.js';
import { isNode } from './platform/node.js';

/** y = Identity(x), x and y float32 [1] (ONNX IR 8, opset 13). */
const TINY_MODEL = 'CAg6NwoQCgF4EgF5IghJZGVudGl0eRIBc1oPCgF4EgoKCAgBEgQKAggBYg8KAXkSCgoICAESBAoCCAFCBAoAEA0=';

/** The onnxruntime-webs (by their env) that made a session in this page: a later creation holds no start-up. */
const started = new WeakSet();
/** A start in progress, by env. */
const starting = new WeakMap();

const keyOf = (ort) => ort.env ?? ort;

/** Whether onnxruntime-web made a session of ortkeep's in this page already. */
export const runtimeStarted = (ort) => started.has(keyOf(ort));

/** A session was made: onnxruntime-web has started. */
export const markStarted = (ort) => started.add(keyOf(ort));

/**
 * Starts onnxruntime-web with the caller's execution providers unless it
 * has started (or is starting) in this page; in browsers only (a Node
 * process has no first visit to shorten). Call once forms have installed
 * their loader: it is picked at this start. Never rejects: whatever fails
 * here fails again, reported, in the model's own creation.
 * @param {object} ort onnxruntime-web
 * @param {unknown[]} executionProviders the load's
 * @returns {Promise<void>|null} settles when the start is over; null: nothing to wait for
 */
export function startRuntime(ort, executionProviders) {
  const key = keyOf(ort);
  if (isNode || started.has(key) || ortHeapBytes() !== null) return null;
  let p = starting.get(key);
  if (!p) {
    const bytes = Uint8Array.from(atob(TINY_MODEL), (c) => c.charCodeAt(0));
    p = callerTurn(() => createSession(ort, bytes, { executionProviders }))
      .then((session) => {
        started.add(key);
        return session.release();
      })
      .catch(() => {})
      .finally(() => starting.delete(key));
    starting.set(key, p);
  }
  return p;
}
