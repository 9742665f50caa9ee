// A warm load reads its Blob records as one composed Blob, and the browser
// hands a Blob's bytes to the thread that reads it through a data pipe, a
// piece at a time: for a 47 MB model ~300 ms of the page's main thread,
// taken while onnxruntime-web's start needed the same thread. So while that
// start is still to come, one worker reads it instead and transfers the
// buffer back (no copy): a second visit through transformers.js 2380 ms
// against 2720 (medians of 6, side by side). With onnxruntime-web started
// the page's thread is free, and the worker's start and hop cost more than
// they save (ppocr_v4_det's read 105-130 ms against 58-76), so the page
// reads (the rule: ok_read_beside in cache/host_policy.h). Where no worker
// runs, or its read fails, the page reads the Blob itself (and so meets the
// real error).
import { pageWorker } from '../util/inline-worker.js';

const WORKER_SOURCE = `onmessage = async ({ data: { id, blob } }) => {
  let buffer = null;
  try {
    buffer = await blob.arrayBuffer();
  } catch {}
  postMessage({ id, buffer }, buffer ? [buffer] : []);
};
postMessage({ t: 'up' });`;

const reader = pageWorker(WORKER_SOURCE);

/**
 * A Blob's bytes, read in the page's read worker where asked and one runs.
 * @param {Blob} blob
 * @param {boolean} beside whether the core said the worker reads (ok_read_beside; else the page reads)
 * @returns {Promise<ArrayBuffer>}
 */
export async function readBlob(blob, beside) {
  const w = beside ? reader.get() : null;
  if (w) {
    const { id, reply } = reader.expect();
    w.postMessage({ id, blob });
    const buffer = (await reply)?.buffer;
    if (buffer) return buffer;
  }
  return blob.arrayBuffer();
}
