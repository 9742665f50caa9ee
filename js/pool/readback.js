// Device outputs to CPU arrays through the readback pool: the staging
// buffers (WebGPU) are pool tensors, kept between runs. The CPU array each
// output lands in is new every run and the caller's, as onnxruntime-web's
// outputs are: a pooled one would be rewritten by the next run under a
// caller still holding the last one. Sizes are C's (the handle's exact bytes).
import { BACKEND } from './pool-core.js';
import { TYPED_ARRAYS, onnxType } from './dtypes.js';
import { applyActions } from './actions.js';

/**
 * @param {object} st the pool state (js/pool/state.js)
 * @param {{j: number, entry: object, name: string}[]} reads device outputs of this run
 * @param {Record<string, unknown>} out results by output name, filled here
 */
export async function readOutputs(st, reads, out) {
  const { rb, rbMap, rbDevs, dev, slots, cpu } = st;
  const items = [];
  for (const { j, entry, name } of reads) {
    let staging = null;
    if (dev.staging) {
      rb.output(slots.staging(j), BACKEND.webgpu, onnxType(entry.type), entry.dims);
      staging = (await applyActions(rb, rbMap, rbDevs)).buffer;
    }
    const bytes = new ArrayBuffer(entry.size);
    items.push({ src: entry.buffer, staging, dst: new Uint8Array(bytes) });
    out[name] = cpu.bind({ buffer: bytes, byteOffset: 0 }, entry);
  }
  await dev.readback(items);
}

/** getData() of a kept device tensor: a fresh CPU array, staged through the scratch slot. */
export function download(st, entry) {
  const run = st.scratchLock.then(async () => {
    const { rb, rbMap, rbDevs, dev, slots } = st;
    const Ctor = TYPED_ARRAYS[entry.type];
    const result = new Ctor(Math.floor(entry.size / Ctor.BYTES_PER_ELEMENT));
    let staging = null;
    if (dev.staging) {
      rb.output(slots.scratch, BACKEND.webgpu, onnxType(entry.type), entry.dims);
      staging = (await applyActions(rb, rbMap, rbDevs)).buffer;
    }
    await dev.readback([{ src: entry.buffer, staging, dst: new Uint8Array(result.buffer, 0, entry.size) }]);
    return result;
  });
  st.scratchLock = run.catch(() => {});
  return run;
}
