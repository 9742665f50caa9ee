// Feeds are read when run() is called, not when the run's turn comes: runs
// queue on a session, and a caller may refill its buffer as soon as run()
// has returned its promise. CPU data is copied here, synchronously, and
// every dims array is checked, so a bad feed is a typed error before the
// pool or onnxruntime sees anything (whether the sizes fit the model is the
// C pool's verdict, at the run's turn). Device tensors (GPUBuffer, MLTensor,
// kept outputs) are bound as they are: their contents are read when the run
// executes, as onnxruntime-web does.
import { OrtkeepError } from '../errors.js';

/** ort.Tensor locations that hold device memory: bound as they are. */
export const DEVICE_LOCATIONS = new Set(['gpu-buffer', 'ml-tensor']);

function checkDims(name, dims) {
  if (dims === undefined) return undefined;
  if (!Array.isArray(dims) || !dims.every(Number.isSafeInteger)) {
    const shown = ArrayBuffer.isView(dims) ? `a ${dims.constructor.name}` : JSON.stringify(dims);
    throw new OrtkeepError('BAD_FEED', `ortkeep: input '${name}' dims must be an array of integers; got ${shown}`);
  }
  return dims.slice();
}

/**
 * @param {object} ort onnxruntime-web
 * @param {Record<string, unknown>} feeds what the caller passed
 * @param {(value: object) => boolean} isKept whether a value is a kept output of this session
 * @param {import('./feed-copies.js').FeedCopies} copies the session's recycled copies
 * @returns {Record<string, unknown>} the same feeds, CPU data copied ({type, data, dims} records)
 */
export function captureFeeds(ort, feeds, isKept, copies) {
  if (!feeds || typeof feeds !== 'object')
    throw new OrtkeepError('BAD_FEED', 'ortkeep: run() takes an object of input name → tensor');
  const out = {};
  for (const [name, value] of Object.entries(feeds)) {
    if (value && typeof value === 'object' && isKept(value)) {
      out[name] = value;
      continue;
    }
    if (value instanceof ort.Tensor) {
      if (DEVICE_LOCATIONS.has(value.location)) {
        out[name] = value;
        continue;
      }
      if (value.location !== 'cpu' && value.location !== 'cpu-pinned') {
        throw new OrtkeepError(
          'BAD_FEED',
          `ortkeep: input '${name}' is a ${value.location} tensor this session cannot bind`,
        );
      }
      // a plain record, not a new ort.Tensor: the pool writes it into its own tensor
      out[name] = { type: value.type, data: copies.copy(value.data), dims: checkDims(name, [...value.dims]) };
      continue;
    }
    if (ArrayBuffer.isView(value)) {
      out[name] = copies.copy(value);
      continue;
    }
    if (value && typeof value === 'object' && 'data' in value) {
      out[name] = { data: copies.copy(value.data), dims: checkDims(name, value.dims), type: value.type };
      continue;
    }
    out[name] = value; // refused with the input's name when it is bound
  }
  return out;
}
