// A C pool refusal as the typed error a caller reads: C says what was wrong
// (ok_pool_refusal: reason, dim, expected, got); this only words it.
import { OrtkeepError } from '../errors.js';
import { DTYPE, POOL_LIMIT } from '../core-constants.js';
import { PoolStatus } from './pool-core.js';
import { ONNX_TO_ORT_TYPE, ORT_TYPE_TO_ONNX as ORT_TYPE_CODE } from './dtypes.js';

const shown = (dims) => `[${dims?.join(', ') ?? ''}]`;

/**
 * @param {unknown} e what a pool call threw (other errors pass through)
 * @param {{kind: 'input'|'output', name: string, declared?: unknown[]|null, dims?: number[], type?: string}} slot
 */
export function refusalError(e, slot) {
  if (!(e instanceof PoolStatus)) return e;
  const what = `${slot.kind} '${slot.name}'`;
  const r = e.refusal;
  switch (r?.reason) {
    case 'DTYPE':
      return new OrtkeepError(
        'SHAPE',
        `ortkeep: ${what} must be ${ONNX_TO_ORT_TYPE[r.expected] ?? r.expected}, got ${ONNX_TO_ORT_TYPE[r.got] ?? r.got}`,
      );
    case 'RANK':
      return e.status === 'LIMIT'
        ? new OrtkeepError('LIMIT', `ortkeep: ${what} has rank ${r.got}; the pool takes up to ${r.expected}`)
        : new OrtkeepError(
            'SHAPE',
            `ortkeep: ${what} must have rank ${r.expected} ${shown(slot.declared)}, got ${shown(slot.dims)}`,
          );
    case 'DIM':
      return new OrtkeepError(
        'SHAPE',
        `ortkeep: ${what} dim ${r.dim} must be ${r.expected}, got ${r.got} (dims ${shown(slot.dims)}; the model declares ${shown(slot.declared)})`,
      );
    case 'DATA': {
      const bits = DTYPE[ORT_TYPE_CODE[slot.type]]?.bits;
      const elements = (bytes) => (bits >= 8 ? `${bytes / (bits / 8)} elements` : `${bytes} bytes`);
      return new OrtkeepError(
        'BAD_FEED',
        `ortkeep: ${what} has ${elements(r.got)} but dims ${shown(slot.dims)} need ${elements(r.expected)} (${r.got} of ${r.expected} bytes of ${slot.type})`,
      );
    }
    case 'TOO_BIG':
      return r.dim === null
        ? new OrtkeepError('LIMIT', `ortkeep: ${what} with dims ${shown(slot.dims)} is too big for one tensor`)
        : new OrtkeepError(
            'LIMIT',
            `ortkeep: ${what} dim ${r.dim} is ${r.got}; the largest the pool allocates is ${POOL_LIMIT.MAX_DIM}`,
          );
    case 'NEGATIVE':
      return new OrtkeepError('BAD_FEED', `ortkeep: ${what} dim ${r.dim} is negative (dims ${shown(slot.dims)})`);
    case 'NO_SIZE':
      return new OrtkeepError(
        'BAD_FEED',
        `ortkeep: ${what} has type ${ONNX_TO_ORT_TYPE[r.got] ?? r.got}, which has no fixed size`,
      );
    default:
      break;
  }
  switch (e.status) {
    case 'IN_USE':
      return new OrtkeepError(
        'BAD_FEED',
        `ortkeep: ${what} is fed a kept tensor that is bound elsewhere or written by this run; feed it to one input, in a later run`,
      );
    case 'STATE':
    case 'NOT_FOUND':
      return new OrtkeepError('BAD_FEED', `ortkeep: ${what} is fed a kept tensor that was released`);
    default:
      return new OrtkeepError(e.status, `ortkeep: tensor pool: ${e.message}`);
  }
}
