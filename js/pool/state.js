// A session's pool state, made on its first run: the device onnxruntime
// really runs on, the C pool with every input and output declared, and the
// readback pool that stages device outputs into CPU arrays.
import { CpuDevice } from '../devices/cpu.js';
import { WebGpuDevice } from '../devices/webgpu.js';
import { WebNNDevice } from '../devices/webnn.js';
import { POOL_LIMIT, POOL_PLACE } from '../core-constants.js';
import { OrtkeepError } from '../errors.js';
import { adapterKind, ortGpuDevice } from '../devices/detect.js';
import { BACKEND, PoolCore, deviceVerdict } from './pool-core.js';
import { hasCpuFallback } from './session-options.js';
import { declareSlots } from './shapes.js';

/**
 * The readback pool's slots (same C policy, separate free lists): per output
 * j, slot j holds the staging buffer its copy goes through; slot nOut serves
 * getData() on kept tensors. The CPU arrays are the caller's, new each run.
 */
export const readbackSlots = (nOut) => ({
  staging: (j) => j,
  scratch: nOut,
  count: nOut + 1,
});

/**
 * @param {object} s {ort, core, deviceName, poolOptions, eps, inputSpecs, outputSpecs}
 * @returns {Promise<object>} {core, dev, cpu, pool, rb, devs, rbDevs, map, rbMap, slots, deviceName}
 */
export async function createPoolState({ ort, core, deviceName, poolOptions, eps, inputSpecs, outputSpecs }) {
  core ??= await (await import('../core/module.js')).getCore();
  const cpu = new CpuDevice(ort);
  // The device onnxruntime really got: with a fallback list (['webgpu',
  // 'wasm']) and no adapter it quietly runs on wasm, and so does the pool.
  // What the browser has is read in js/devices/detect.js; the verdict is C's.
  let found = null;
  if (deviceName === 'webgpu') {
    found = poolOptions.gpuDevice ? new WebGpuDevice(ort, poolOptions.gpuDevice) : await ortGpuDevice(ort);
  } else if (deviceName === 'webnn') {
    const context = poolOptions.context ?? eps?.find?.((ep) => ep?.name === 'webnn')?.context;
    found = context?.createTensor ? new WebNNDevice(ort, context) : null;
  } else if (deviceName !== 'cpu') {
    throw new OrtkeepError('INVALID_ARG', `ortkeep: unknown pool device '${deviceName}' (cpu, webgpu, webnn)`);
  }
  const verdict = deviceVerdict(core, {
    wanted: BACKEND[deviceName],
    available: !!found,
    chosenByCaller: !!poolOptions.device,
    cpuFallback: hasCpuFallback(eps),
  });
  if (verdict < 0) throw new OrtkeepError('INVALID_ARG', MISSING_DEVICE[deviceName]);
  const dev = verdict === BACKEND.cpu ? cpu : found;
  if (dev === cpu) deviceName = 'cpu';
  const budgetBytes = poolOptions.budgetBytes ?? POOL_LIMIT.DEFAULT_BUDGET;
  // pool.placement: 'auto' (C measures, see ok_pool_placement_next), or the caller's 'device' / 'cpu'
  const chosen = poolOptions.placement ?? 'auto';
  const placement = chosen === 'device' ? POOL_PLACE.DEVICE : chosen === 'cpu' ? POOL_PLACE.CPU : null;
  if (chosen !== 'auto' && !placement) {
    throw new OrtkeepError('INVALID_ARG', `ortkeep: pool.placement must be 'auto', 'device' or 'cpu'; got '${chosen}'`);
  }
  const nOut = outputSpecs.length;
  const slots = readbackSlots(nOut);
  const pool = new PoolCore(core, { inputs: inputSpecs.length, outputs: nOut, budgetBytes });
  let rb;
  try {
    declareSlots(pool, inputSpecs, outputSpecs);
    if (dev.backend === BACKEND.webgpu && !placement) pool.placementAdapter(await adapterKind(ort, dev.device));
    rb = new PoolCore(core, { inputs: 0, outputs: slots.count, budgetBytes });
  } catch (e) {
    pool.free();
    throw e;
  }
  const devs = [cpu, null, null];
  devs[dev.backend] = dev;
  const rbDevs = [cpu, dev.staging ?? null, null];
  return {
    core,
    dev,
    cpu,
    pool,
    rb,
    devs,
    rbDevs,
    slots,
    deviceName,
    placement,
    map: new Map(),
    rbMap: new Map(),
    scratchLock: Promise.resolve(),
  };
}

const MISSING_DEVICE = {
  webgpu:
    "ortkeep: pool device 'webgpu' needs onnxruntime-web's GPUDevice (ort.env.webgpu.device); create the session with executionProviders: ['webgpu']",
  webnn:
    "ortkeep: pool device 'webnn' needs the MLContext the session runs on: executionProviders: [{name: 'webnn', context}] or pool: {context}",
};
