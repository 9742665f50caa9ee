// A loaded model: the onnxruntime-web session plus what ortkeep's reader
// found in the model. Feeds are checked against the model's declared inputs
// before ORT sees them, so a wrong feed fails with the input's name.
import { OrtkeepError } from './errors.js';
import { ONNX_TO_ORT_TYPE, toOrtTensor } from './ort-adapter.js';

export class Session {
  /**
   * @param {object} ort onnxruntime-web
   * @param {object} ortSession an ort.InferenceSession
   * @param {object} info what load() learned: reader report, source, timings
   */
  constructor(ort, ortSession, info) {
    this.ort = ort;
    this.ortSession = ortSession;
    this.info = info;
    this.disposed = false;
    const declared = new Map((info.model?.inputs ?? []).map((i) => [i.name, i]));
    // ORT's names are the truth (old IR versions list initializers as inputs).
    this.inputSpecs = ortSession.inputNames.map((name) => declared.get(name) ?? { name, elemType: 0, dims: null });
  }

  /** @returns {readonly string[]} */
  get inputNames() { return this.ortSession.inputNames; }

  /** @returns {readonly string[]} */
  get outputNames() { return this.ortSession.outputNames; }

  /**
   * Runs the model.
   * @param {Record<string, unknown>} feeds input name → ort.Tensor, {data, dims}, or typed array
   * @param {{fetches?: string[]}} [options]
   * @returns {Promise<Record<string, import('onnxruntime-web').Tensor>>}
   */
  async run(feeds, options = {}) {
    if (this.disposed) throw new OrtkeepError('DISPOSED', 'ortkeep: run() on a disposed session; load the model again');
    if (!feeds || typeof feeds !== 'object') throw new OrtkeepError('BAD_FEED', 'ortkeep: run() takes an object of input name → tensor');
    const tensors = {};
    for (const name of Object.keys(feeds)) {
      if (!this.ortSession.inputNames.includes(name)) {
        throw new OrtkeepError('BAD_FEED', `ortkeep: '${name}' is not an input of this model (inputs: ${this.inputNames.join(', ')})`);
      }
    }
    for (const spec of this.inputSpecs) {
      if (!(spec.name in feeds)) {
        throw new OrtkeepError('BAD_FEED', `ortkeep: input '${spec.name}' is missing (inputs: ${this.inputNames.join(', ')})`);
      }
      const staticDims = spec.dims && spec.dims.every((d) => typeof d === 'number') ? spec.dims : undefined;
      const tensor = toOrtTensor(this.ort, spec.name, feeds[spec.name], staticDims);
      checkAgainstSpec(spec, tensor);
      tensors[spec.name] = tensor;
    }
    try {
      return options.fetches ? await this.ortSession.run(tensors, options.fetches) : await this.ortSession.run(tensors);
    } catch (e) {
      throw new OrtkeepError('RUN', `ortkeep: onnxruntime-web failed to run: ${e?.message ?? e}`, { cause: e });
    }
  }

  /** Releases the onnxruntime-web session. Safe to call twice. */
  async dispose() {
    if (this.disposed) return;
    this.disposed = true;
    await this.ortSession.release();
  }
}

function checkAgainstSpec(spec, tensor) {
  const expectedType = ONNX_TO_ORT_TYPE[spec.elemType];
  if (expectedType && tensor.type !== expectedType) {
    throw new OrtkeepError('SHAPE', `ortkeep: input '${spec.name}' must be ${expectedType}, got ${tensor.type}`);
  }
  if (!spec.dims) return;
  if (tensor.dims.length !== spec.dims.length) {
    throw new OrtkeepError('SHAPE', `ortkeep: input '${spec.name}' must have rank ${spec.dims.length} [${spec.dims.join(', ')}], got [${tensor.dims.join(', ')}]`);
  }
  spec.dims.forEach((d, i) => {
    if (typeof d === 'number' && d > 0 && tensor.dims[i] !== d) {
      throw new OrtkeepError('SHAPE', `ortkeep: input '${spec.name}' dim ${i} must be ${d}, got [${tensor.dims.join(', ')}]`);
    }
  });
}
