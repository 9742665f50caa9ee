// Abort helpers any module may use: an AbortSignal's reason as ortkeep's
// ABORTED error, and a promise that gives up as soon as the signal fires.
import { OrtkeepError } from '../errors.js';

/** The ABORTED error for `signal` (its reason as the cause). */
export function abortedError(signal) {
  return new OrtkeepError(
    'ABORTED',
    `ortkeep: the load was aborted${signal?.reason !== undefined ? `: ${signal.reason?.message ?? signal.reason}` : ''}`,
    { cause: signal?.reason },
  );
}

/** `promise`, or ABORTED as soon as `signal` fires. */
export function raceAbort(promise, signal) {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(abortedError(signal));
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(abortedError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
