// Turns between the caller's runs and ortkeep's background work (capturing,
// storing and verifying forms) on one page. onnxruntime-web's WebGPU (and
// WebNN) backends keep one device and one command stream per page: a session
// created or run while another session's run is in flight breaks both
// ("Session already started", then `RuntimeError: memory access out of
// bounds` and a run that never settles). So background work takes one
// onnxruntime-web call at a time, and only while no caller run is in flight;
// a caller run that arrives meanwhile waits for that one call (not for the
// rest of the background work). The wasm backend runs each call to the end
// on its own: callers there take no turn.

/** Caller runs in flight. */
let callers = 0;
/** Settles when the background call in progress ends (null: none). */
let holder = null;
/** Background work waiting for the callers to finish. */
let idle = [];

function wakeIdle() {
  const waiting = idle;
  idle = [];
  for (const wake of waiting) wake();
}

/**
 * A caller's run (or release): waits while a background call is in
 * progress, then runs beside the caller's other runs.
 * @template T
 * @param {() => Promise<T>} fn
 * @returns {Promise<T>}
 */
export async function callerTurn(fn) {
  while (holder) await holder;
  callers++;
  try {
    return await fn();
  } finally {
    if (--callers === 0) wakeIdle();
  }
}

/**
 * One background onnxruntime-web call: waits until no caller run and no
 * other background call is in flight, then runs alone.
 * @template T
 * @param {() => Promise<T>} fn
 * @returns {Promise<T>}
 */
export async function backgroundTurn(fn) {
  for (;;) {
    while (holder) await holder;
    if (callers === 0) break;
    await new Promise((resolve) => idle.push(resolve));
  }
  let release;
  holder = new Promise((resolve) => {
    release = resolve;
  });
  try {
    return await fn();
  } finally {
    holder = null;
    release();
  }
}

/** Execution providers that share the page's device with every other session. */
export function onDevice(executionProviders) {
  return (executionProviders ?? ['wasm']).some((ep) => {
    const name = typeof ep === 'string' ? ep : ep?.name;
    return name !== 'wasm' && name !== 'cpu';
  });
}

/** A session whose run() and release() take background turns. */
function backgroundSession(session) {
  return new Proxy(session, {
    get(target, prop) {
      if (prop === 'run') return (...args) => backgroundTurn(() => target.run(...args));
      if (prop === 'release') return () => backgroundTurn(() => target.release());
      const v = Reflect.get(target, prop, target);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}

/**
 * onnxruntime-web as background work sees it: every session it creates is
 * created, run and released in background turns. Everything else is the
 * module's own.
 * @param {object} ort onnxruntime-web
 * @returns {object}
 */
export function backgroundOrt(ort) {
  const InferenceSession = {
    create: (...args) => backgroundTurn(() => ort.InferenceSession.create(...args)).then(backgroundSession),
  };
  return new Proxy(ort, {
    get(target, prop) {
      return prop === 'InferenceSession' ? InferenceSession : Reflect.get(target, prop, target);
    },
  });
}
