// A session's pool state, made on its first run: the device onnxruntime
// really runs on, the C pool with every input and output declared, and the
// readback pool that stages device outputs into CPU arrays.
import { CpuDevice } from '../devices/cpu.js';
import { WebGpuDevice } from '../devices/webgpu.js';
import { WebNNDevice } from '../devices/webnn.js';
import { OrtkeepError } from '../errors.js';
import { PoolCore } from '../tensor-pool.js';
import { hasCpuFallback } from './session-options.js';
import { declareSlots } from './shapes.js';

const DEFAULT_BUDGET = 64 * 1024 * 1024;

/**
 * The readback pool's slots (same C policy, separate free lists): per output
 * j, slot j holds the staging buffer and slot nOut+j the CPU array its copy
 * lands in; slot 2*nOut serves getData() on kept tensors.
 */
export const readbackSlots = (nOut) => ({ staging: (j) => j, host: (j) => nOut + j, scratch: 2 * nOut, count: 2 * nOut + 1 });

/**
 * @param {object} s {ort, core, deviceName, poolOptions, eps, inputSpecs, outputSpecs}
 * @returns {Promise<object>} {core, dev, cpu, pool, rb, devs, rbDevs, map, rbMap, slots, deviceName}
 */
export async function createPoolState({ ort, core, deviceName, poolOptions, eps, inputSpecs, outputSpecs }) {
  core ??= await (await import('../core/module.js')).getCore();
  const cpu = new CpuDevice(ort);
  let dev = cpu;
  // The device onnxruntime really got: with a fallback list (['webgpu',
  // 'wasm']) and no adapter it quietly runs on wasm, and so does the pool.
  const fallback = !poolOptions.device && hasCpuFallback(eps);
  if (deviceName === 'webgpu') {
    dev = poolOptions.gpuDevice ? new WebGpuDevice(ort, poolOptions.gpuDevice) : await gpuDeviceOf(ort);
    if (!dev && fallback) {
      dev = cpu;
      deviceName = 'cpu';
    } else if (!dev) {
      throw new OrtkeepError('INVALID_ARG', "ortkeep: pool device 'webgpu' needs onnxruntime-web's GPUDevice (ort.env.webgpu.device); create the session with executionProviders: ['webgpu']");
    }
  } else if (deviceName === 'webnn') {
    const context = poolOptions.context ?? eps?.find?.((ep) => ep?.name === 'webnn')?.context;
    if (context?.createTensor) {
      dev = new WebNNDevice(ort, context);
    } else if (fallback) {
      deviceName = 'cpu';
    } else {
      throw new OrtkeepError('INVALID_ARG', "ortkeep: pool device 'webnn' needs the MLContext the session runs on: executionProviders: [{name: 'webnn', context}] or pool: {context}");
    }
  } else if (deviceName !== 'cpu') {
    throw new OrtkeepError('INVALID_ARG', `ortkeep: unknown pool device '${deviceName}' (cpu, webgpu, webnn)`);
  }
  const budgetBytes = poolOptions.budgetBytes ?? DEFAULT_BUDGET;
  const nOut = outputSpecs.length;
  const slots = readbackSlots(nOut);
  const pool = new PoolCore(core, { inputs: inputSpecs.length, outputs: nOut, budgetBytes });
  let rb;
  try {
    declareSlots(pool, inputSpecs, outputSpecs);
    rb = new PoolCore(core, { inputs: 0, outputs: slots.count, budgetBytes });
  } catch (e) {
    pool.free();
    throw e;
  }
  const devs = [cpu, null, null];
  devs[dev.backend] = dev;
  const rbDevs = [cpu, dev.staging ?? null, null];
  return { core, dev, cpu, pool, rb, devs, rbDevs, slots, deviceName, map: new Map(), rbMap: new Map(), scratchLock: Promise.resolve() };
}

/** onnxruntime-web's GPUDevice, if its WebGPU backend was initialised; never waits on an adapter that is not there. */
async function gpuDeviceOf(ort) {
  if (typeof navigator === 'undefined' || !navigator.gpu) return null;
  try {
    return await WebGpuDevice.fromOrt(ort);
  } catch {
    return null;
  }
}
