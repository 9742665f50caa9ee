// What a CPU feed is: an ort.Tensor, a typed array, or {data, dims, type},
// normalised to {type, data, dims} without making an ort.Tensor. Whether its
// dims and size fit the model is the C pool's verdict (ok_pool_feed).
import { OrtkeepError } from '../errors.js';
import { TYPED_ARRAYS, TYPED_ARRAY_TO_ORT_TYPE } from './dtypes.js';

/** @param {{name: string, dims: unknown[]|null}} spec the input as the model declares it */
export function cpuFeed(ort, spec, value) {
  const name = spec.name;
  if (value instanceof ort.Tensor) {
    if (value.location !== 'cpu' && value.location !== 'cpu-pinned') {
      throw new OrtkeepError(
        'BAD_FEED',
        `ortkeep: input '${name}' is a ${value.location} tensor this session cannot bind`,
      );
    }
    return { type: value.type, data: value.data, dims: value.dims };
  }
  // A bare typed array takes the model's dims when they are all fixed.
  const staticDims = spec.dims?.every((d) => typeof d === 'number') ? spec.dims : undefined;
  let data = value;
  let dims = staticDims;
  let type;
  if (value && !ArrayBuffer.isView(value) && typeof value === 'object' && 'data' in value) {
    ({ data, dims = staticDims, type } = value);
  }
  if (!ArrayBuffer.isView(data) && !Array.isArray(data)) {
    throw new OrtkeepError(
      'BAD_FEED',
      `ortkeep: input '${name}' must be an ort.Tensor, a typed array, {data, dims}, or a kept output`,
    );
  }
  type ??= TYPED_ARRAY_TO_ORT_TYPE.get(data.constructor) ?? (Array.isArray(data) ? 'string' : undefined);
  if (!dims) {
    throw new OrtkeepError(
      'BAD_FEED',
      `ortkeep: input '${name}' has no dims and the model does not fix its shape; pass {data, dims}`,
    );
  }
  if (!type || (type !== 'string' && !TYPED_ARRAYS[type])) {
    throw new OrtkeepError('BAD_FEED', `ortkeep: input '${name}' has an unsupported data type`);
  }
  if (type !== 'string' && data.BYTES_PER_ELEMENT !== TYPED_ARRAYS[type].BYTES_PER_ELEMENT) {
    throw new OrtkeepError(
      'SHAPE',
      `ortkeep: input '${name}' is declared ${type} but its data is a ${data.constructor.name}`,
    );
  }
  return { type, data, dims };
}
