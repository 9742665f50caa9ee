// The load driver's hands on the network (js/cache/load-driver.js): a
// request as FETCH asks, the body streamed (or the caller's bytes served as
// one), a fetch cancelled, the wait before a retry. The body is read ahead
// (read-ahead.js); its pieces are fed by the driver's loop when the queue
// is empty (the contract).
import { ACTION_FLAG, CACHE_ACTION as ACT, HOST_POLICY } from '../core-constants.js';
import { request } from './network.js';

const dec = new TextDecoder();

async function fetchAction(run, a) {
  run.ahead?.stop();
  if (run.body) await run.body.cancel();
  run.body = null;
  const url = dec.decode(a.blob);
  let res;
  try {
    res = await request(
      url,
      { flags: a.flags, from: a.value, ifNoneMatch: a.name, ifModifiedSince: dec.decode(a.aux) },
      { signal: run.ac.signal, fetch: run.ctx.fetch },
    );
  } catch {
    if (!run.aborted) run.ev(run.m.fetchFailed());
    return;
  }
  run.body = res.body;
  run.ev(run.m.response(res.status, res.type, res.headers));
}

function stream(run, a) {
  run.offset = a.value;
  run.total = a.value2;
  run.hostSha = (a.flags & ACTION_FLAG.STREAM_HOST_SHA256) !== 0; // hashed here at its end (load-driver.js)
  if (run.ctx.bytes) {
    run.body = bytesBody(run.ctx.bytes);
    run.buf.adopt(run.ctx.bytes); // the caller's bytes are the model buffer
  }
  run.streaming = true;
  run.progress('download', run.offset, run.total);
}

async function cancelFetch(run) {
  run.streaming = false;
  run.ahead?.stop();
  if (run.body) await run.body.cancel();
  run.body = null;
}

async function wait(run, a) {
  try {
    await sleep(a.value, run.ac.signal);
  } catch {
    return; /* aborted */
  }
  run.ev(run.m.waited());
}

/** The caller's bytes as a body, in views of HOST_POLICY.PIECE_BYTES (no copy). */
function bytesBody(bytes) {
  let at = 0;
  return {
    async next() {
      if (at >= bytes.byteLength) return null;
      const piece = bytes.subarray(at, Math.min(bytes.byteLength, at + HOST_POLICY.PIECE_BYTES));
      at += piece.byteLength;
      return piece;
    },
    async cancel() {},
  };
}

function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}

/** The network actions' handlers, by action type. */
export const NETWORK_ACTIONS = {
  [ACT.FETCH]: fetchAction,
  [ACT.STREAM]: stream,
  [ACT.CANCEL_FETCH]: cancelFetch,
  [ACT.WAIT]: wait,
};
