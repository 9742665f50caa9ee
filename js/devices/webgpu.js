// WebGPU hands for the tensor pool: GPUBuffers on onnxruntime-web's own
// GPUDevice (ort.env.webgpu.device), bound with ort.Tensor.fromGpuBuffer.
// Inputs are written in place with queue.writeBuffer; outputs are
// preallocated buffers passed as fetches; CPU copies go through MAP_READ
// staging buffers that the readback pool (also C-decided) keeps per output.
import { BACKEND } from '../pool/pool-core.js';

// GPUBufferUsage / GPUMapMode values (constants, so Node can import this file).
const MAP_READ = 0x0001;
const COPY_SRC = 0x0004;
const COPY_DST = 0x0008;
const STORAGE = 0x0080;
const MODE_READ = 0x0001;

const align4 = (n) => (n + 3) & ~3;

export class WebGpuDevice {
  /** @param {object} ort onnxruntime-web  @param {GPUDevice} device the device ORT runs on */
  constructor(ort, device) {
    this.ort = ort;
    this.device = device;
    this.name = 'webgpu';
    this.backend = BACKEND.webgpu;
    this.location = 'gpu-buffer';
    this.pad = new Uint8Array(0); // for writes whose size is not a multiple of 4
    // What the device reports on its own: validation errors nobody captured
    // (work on a GPUBuffer destroyed under the pool) and loss. A run compares
    // the count before and after (js/pool/run.js); C then drops the pool's
    // tensors (ok_pool_device_failed).
    this.errors = 0;
    this.lastError = null;
    this.lostInfo = null;
    device.addEventListener?.('uncapturederror', (ev) => {
      this.errors++;
      this.lastError = ev.error?.message ?? String(ev.error);
    });
    device.lost?.then((info) => {
      this.lostInfo = info ?? { message: 'lost' };
      this.errors++;
    });
    /** The staging-buffer face of this device, for the readback pool. */
    this.staging = {
      create: (bytes, handle) =>
        device.createBuffer({ size: bytes, usage: MAP_READ | COPY_DST, label: `ortkeep:staging:${handle}` }),
      destroy: (buffer) => buffer.destroy(),
      bind: () => null,
    };
  }

  /** ort.env.webgpu.device once a WebGPU session exists (a GPUDevice or a promise of one). */
  static async fromOrt(ort) {
    const device = await ort.env?.webgpu?.device;
    if (!device?.createBuffer) return null;
    return new WebGpuDevice(ort, device);
  }

  create(bytes, handle) {
    return this.device.createBuffer({ size: bytes, usage: STORAGE | COPY_SRC | COPY_DST, label: `ortkeep:${handle}` });
  }

  destroy(buffer) {
    buffer.destroy();
  }

  bind(buffer, { type, dims, download, dispose }) {
    return this.ort.Tensor.fromGpuBuffer(buffer, { dataType: type, dims, download, dispose });
  }

  upload(entry, data) {
    const n = data.byteLength;
    if (!n) return;
    if (n % 4 === 0) {
      this.device.queue.writeBuffer(entry.buffer, 0, data.buffer, data.byteOffset, n);
      return;
    }
    const padded = align4(n);
    if (this.pad.length < padded) this.pad = new Uint8Array(padded);
    this.pad.set(new Uint8Array(data.buffer, data.byteOffset, n));
    this.pad.fill(0, n, padded);
    this.device.queue.writeBuffer(entry.buffer, 0, this.pad.buffer, 0, padded);
  }

  /** ORT's own output tensor (ADOPT): the pool keeps it; DESTROY disposes it back to ORT. */
  adopted(tensor) {
    return tensor;
  }
  bufferOf(obj) {
    return obj.gpuBuffer ?? obj;
  }
  capacityOf(tensor) {
    return tensor.gpuBuffer.size;
  }
  destroyAdopted(tensor) {
    tensor.dispose();
  }

  /**
   * Copies device buffers to CPU arrays through staging buffers: one
   * command buffer, all maps in parallel.
   * @param {Array<{src: GPUBuffer, staging: GPUBuffer, dst: Uint8Array}>} items
   */
  async readback(items) {
    const encoder = this.device.createCommandEncoder();
    for (const it of items) encoder.copyBufferToBuffer(it.src, 0, it.staging, 0, align4(it.dst.byteLength));
    this.device.queue.submit([encoder.finish()]);
    await Promise.all(items.map((it) => it.staging.mapAsync(MODE_READ, 0, align4(it.dst.byteLength))));
    for (const it of items) {
      const n = it.dst.byteLength;
      it.dst.set(new Uint8Array(it.staging.getMappedRange(0, align4(n)), 0, n));
      it.staging.unmap();
    }
  }
}
