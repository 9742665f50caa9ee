// Turns between the caller's runs and ortkeep's background work (capturing,
// storing and verifying forms) on one page. onnxruntime-web's JSEP build
// (the default bundle, whatever the execution provider) lets one run be in
// flight per page: a session created or run while another session's run is
// in flight breaks both ("Session already started", then "Session mismatch",
// `RuntimeError: memory access out of bounds` and a run that never settles).
// Callers who run their own sessions one at a time must not meet that
// because ortkeep works in the background, so every session of the
// onnxruntime-web that ortkeep uses, the caller's plain ones included, takes
// caller turns (guardOrt), and background work takes one onnxruntime-web
// call at a time, only while no caller call is in flight; a caller call that
// arrives meanwhile waits for that one call (not for the rest of the work).

/**
 * How long the caller must have been away before background work takes a
 * turn: a page's next call comes within a few ms of its last (a load's
 * result, then the next load), and a background call that slipped in
 * between held it 150-450 ms here. Past MAX_DEFER_MS of waiting only for
 * quiet (a caller running every few ms), it takes the first free turn.
 */
const QUIET_MS = 100;
const MAX_DEFER_MS = 2000;

/** Caller runs and loads in flight. */
let callers = 0;
/** When the last caller call ended (performance.now()). */
let callerEnded = 0;
/** Settles when the background call in progress ends (null: none). */
let holder = null;
/** Ends the background call in progress early: its device was lost. */
let abandon = null;
/** Background work waiting for the callers to finish. */
let idle = [];
/** The page's GPU device was lost: onnxruntime-web's device work never settles again. */
let lost = false;
/** Devices watched for loss. */
const watched = new WeakSet();

function callerDone() {
  callerEnded = performance.now();
  if (--callers === 0) wakeIdle();
}

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
  return callerLoad(fn);
}

/**
 * A caller's load (or create) from its start to its session: background
 * work starts no new onnxruntime-web call meanwhile (the one in progress
 * ends first), so a page's next model is not slowed by the forms of its
 * last (a WebGPU model's load after a wasm one's first visit: 2.2 s with
 * the wasm model's forms verified beside it, 1.3 s without, here). The
 * load's own calls take caller turns as ever; where it waits for what the
 * background may hold (a key's lock), it steps aside (asideWait).
 * @template T
 * @param {() => Promise<T>} fn
 * @returns {Promise<T>}
 */
export async function callerLoad(fn) {
  callers++;
  try {
    return await fn();
  } finally {
    callerDone();
  }
}

/**
 * A wait inside a caller's load that background work may be what ends (a
 * key's lock its store or a revision holds; another load in flight that
 * waits for such a lock): the load holds no background work back meanwhile.
 * A caller still counted while it waits deadlocks the page (a revision
 * holding the lock waits for its turn, which waits for the caller).
 * @template T
 * @param {Promise<T>} wait
 * @returns {Promise<T>}
 */
export async function asideWait(wait) {
  callerDone();
  try {
    return await wait;
  } finally {
    callers++;
  }
}

/** No background turn came within the wait allowed (the page's own calls left none). */
export class NoTurn extends Error {}

/**
 * One background onnxruntime-web call: waits until no caller run and no
 * other background call is in flight, then runs alone.
 * @template T
 * @param {() => Promise<T>} fn
 * @param {{maxWaitMs?: number}} [options] give up (NoTurn, fn not called) once waited this long
 * @returns {Promise<T>}
 */
export async function backgroundTurn(fn, { maxWaitMs = Infinity } = {}) {
  // a lost device releases the holder (watchDevice), so these waits end
  const since = performance.now();
  const left = () => maxWaitMs - (performance.now() - since);
  const giveUp = () => {
    throw new NoTurn(`no background turn in ${maxWaitMs} ms: the page's own calls left none`);
  };
  for (;;) {
    while (holder) {
      await holder;
      if (left() <= 0) giveUp();
    }
    if (callers === 0) {
      const quiet = performance.now() - callerEnded;
      if (quiet >= QUIET_MS || performance.now() - since >= MAX_DEFER_MS) break;
      await new Promise((resolve) => setTimeout(resolve, QUIET_MS - quiet));
      continue;
    }
    if (left() <= 0) giveUp();
    await new Promise((resolve) => {
      idle.push(resolve);
      if (Number.isFinite(maxWaitMs)) setTimeout(resolve, left());
    });
  }
  if (lost) throw new Error('the GPU device was lost: no more background work in this page');
  let release;
  holder = new Promise((resolve) => {
    release = resolve;
  });
  const mine = holder;
  const abandoned = new Promise((_, reject) => {
    abandon = () => reject(new Error('the GPU device was lost during background work'));
  });
  try {
    const work = fn();
    work.catch(() => {}); // settles after its device was lost, if ever: nobody waits for it then
    return await Promise.race([work, abandoned]);
  } finally {
    if (holder === mine) {
      holder = null;
      abandon = null;
    }
    release();
  }
}

/**
 * Watches a GPUDevice (or a promise of one): once it is lost, a background
 * call on it never settles, so callers stop waiting for it and no more
 * background work starts in this page (the caller's own runs then fail with
 * a typed DEVICE error instead of hanging).
 * @param {unknown} device
 */
export async function watchDevice(device) {
  const d = await device;
  if (!d?.lost || watched.has(d)) return;
  watched.add(d);
  d.lost.then(() => {
    lost = true;
    abandon?.();
  });
}

/** A session prototype's own run/release, for the prototypes guarded. */
const ownRuns = new WeakMap();
/** An InferenceSession class's own create, for the classes guarded. */
const ownCreates = new WeakMap();

/** @returns {boolean} false only where the prototype's run and release could not be wrapped (frozen) */
function guardPrototype(proto) {
  // no run of its own to wrap (ortkeep's drop-in class: its sessions are ortkeep's, which take turns themselves)
  if (!proto || typeof proto.run !== 'function') return true;
  if (ownRuns.has(proto)) return true;
  const calls = { run: proto.run, release: proto.release };
  try {
    proto.run = function run(...args) {
      return callerTurn(() => calls.run.apply(this, args));
    };
    proto.release = function release(...args) {
      return callerTurn(() => calls.release.apply(this, args));
    };
  } catch {
    // frozen (or a getter only): put back what a half-done patch changed
    try {
      if (proto.run !== calls.run) proto.run = calls.run;
    } catch {
      /* run itself could not be written: nothing changed */
    }
    return false;
  }
  ownRuns.set(proto, calls);
  return true;
}

/** A session's own (unguarded) run and release. */
function ownRunsOf(session) {
  return ownRuns.get(Object.getPrototypeOf(session)) ?? { run: session.run, release: session.release };
}

/**
 * Makes every session of this onnxruntime-web (sessions the caller creates
 * with it directly included) create, run and release in caller turns, once
 * per module. Called before ortkeep's first background work in the page
 * (written against onnxruntime-web 1.21-1.31-dev, whose InferenceSession is
 * a plain class: a writable static create, run and release on the
 * prototype). Where they cannot be written (a frozen class), nothing is
 * changed and the answer is false: the caller's own sessions could then
 * meet background work mid-run, so the page makes none (forms off).
 * @param {object} ort onnxruntime-web
 * @returns {boolean} false only where the class could not be wrapped (frozen)
 */
export function guardOrt(ort) {
  const InferenceSession = ort?.InferenceSession;
  if (typeof InferenceSession !== 'function') return true;
  if (ownCreates.has(InferenceSession)) return true;
  const create = InferenceSession.create;
  try {
    InferenceSession.create = function guardedCreate(...args) {
      return callerTurn(() => create.apply(this, args));
    };
  } catch {
    return false;
  }
  if (!guardPrototype(InferenceSession.prototype)) {
    try {
      InferenceSession.create = create;
    } catch {
      /* written a moment ago: writable */
    }
    return false;
  }
  ownCreates.set(InferenceSession, create);
  return true;
}

/** A session whose run() and release() take background turns. */
function backgroundSession(session) {
  const calls = ownRunsOf(session);
  return new Proxy(session, {
    get(target, prop) {
      if (prop === 'run') return (...args) => backgroundTurn(() => calls.run.apply(target, args));
      if (prop === 'release') return () => backgroundTurn(() => calls.release.apply(target));
      const v = Reflect.get(target, prop, target);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}

/**
 * onnxruntime-web as background work sees it: every session it creates is
 * created, run and released in background turns, through onnxruntime-web's
 * own (unguarded) calls. Everything else is the module's own.
 * @param {object} ort onnxruntime-web
 * @param {{createWaitMs?: number}} [options] a creation that gets no turn this long fails (NoTurn): for work
 *   that holds what callers may wait for (a key's lock) while it waits
 * @returns {object}
 */
export function backgroundOrt(ort, { createWaitMs = Infinity } = {}) {
  const create = ownCreates.get(ort.InferenceSession) ?? ort.InferenceSession.create;
  const InferenceSession = {
    create: async (...args) => {
      const s = await backgroundTurn(() => create.apply(ort.InferenceSession, args), { maxWaitMs: createWaitMs });
      // a WebGPU session exists now: its device is onnxruntime-web's
      if (typeof navigator !== 'undefined' && navigator.gpu) await watchDevice(ort.env?.webgpu?.device).catch(() => {});
      return backgroundSession(s);
    },
  };
  // ort's other exports read through; not a Proxy: the drop-in's view of
  // onnxruntime-web is frozen, and a Proxy may not answer another value for
  // a frozen property (every capture through ortkeep/transformers failed so)
  const view = Object.create(ort);
  Object.defineProperty(view, 'InferenceSession', { value: InferenceSession });
  return view;
}
