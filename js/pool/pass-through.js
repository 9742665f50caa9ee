// A run the pool steps aside from (C's verdict, ok_pool_pass_through): on the
// CPU backend (the wasm EP) onnxruntime-web copies every CPU input into its
// own heap and allocates every output afresh, so a pinned array buys nothing
// there and costs a copy and the pool's bookkeeping per run. Such a run keeps
// what the pool path promises the caller: each input checked by C as
// ok_pool_feed checks it (the same typed errors), the feeds as they were
// when run() was called (js/pool/feed-capture.js copied them), and outputs
// that are onnxruntime-web's own, new each run, so the caller's.
import { OrtkeepError } from '../errors.js';
import { onnxType } from './dtypes.js';
import { cpuFeed } from './feeds.js';
import { refusalError } from './refusal.js';

/**
 * @param {object} ctx the run context (js/pool/run.js)
 * @param {Record<string, unknown>} feeds captured at the run() call
 * @param {string[]} wanted the outputs to fetch
 * @param {{fetches?: string[], runOptions?: object}} options
 */
export async function runPassThrough(ctx, feeds, wanted, options) {
  const { ort, st, inputSpecs } = ctx;
  const ortFeeds = {};
  const used = [];
  try {
    for (let i = 0; i < inputSpecs.length; i++) {
      const spec = inputSpecs[i];
      const { type, data, dims } = cpuFeed(ort, spec, feeds[spec.name]);
      used.push(data);
      if (type !== 'string') {
        try {
          st.pool.checkFeed(i, onnxType(type), dims, data.byteLength);
        } catch (e) {
          throw refusalError(e, { kind: 'input', name: spec.name, declared: spec.dims, dims, type });
        }
      }
      ortFeeds[spec.name] = new ort.Tensor(type, data, dims);
    }
    try {
      return await (options.fetches || options.runOptions
        ? ctx.ortSession.run(ortFeeds, wanted, options.runOptions)
        : ctx.ortSession.run(ortFeeds));
    } catch (e) {
      throw new OrtkeepError('RUN', `ortkeep: onnxruntime-web failed to run: ${e?.message ?? e}`, { cause: e });
    }
  } finally {
    // onnxruntime-web copied them into its heap: the copies are the next run's
    for (const data of used) ctx.copies?.recycle(data);
  }
}
