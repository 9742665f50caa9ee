// Carries out the C pool's action lists on the devices (js/devices/*.js).
// A map handle → entry mirrors the pool: the device object (ArrayBuffer,
// GPUBuffer, MLTensor, or the tensor onnxruntime allocated), its current
// binding as an ort.Tensor, and the dtype, dims and exact byte size C holds
// for it. Nothing here decides anything: C said what to do.
import { OrtkeepError } from '../errors.js';
import { BACKEND, OP } from './pool-core.js';
import { ONNX_TO_ORT_TYPE } from './dtypes.js';

const OP_NAME = Object.fromEntries(Object.entries(OP).map(([k, v]) => [v, k]));
const BACKEND_NAME = Object.fromEntries(Object.entries(BACKEND).map(([k, v]) => [v, k]));

/**
 * Carries out the pool's current action list. `ctx` carries the objects C
 * cannot know: {external} (the caller's device tensor) or {adopted} (the
 * tensor onnxruntime returned). Returns the entry of the slot action
 * (CREATE/REUSE/TAKE/BIND/EXTERNAL/ADOPT/KEEP), if any. Every record is read
 * before the first await, so a pool call made meanwhile (a release()) cannot
 * change what is carried out. Device objects are made before anything is
 * bound; a device failure leaves the entry without an object, which the next
 * REUSE/TAKE of that handle creates again, so the map never disagrees with C.
 * @param {{hooks?: (entry: object) => void, name?: string, debug?: (line: string) => void, slotName?: (kind: number, index: number) => string}} [owner]
 *   getData()/dispose() hooks for kept tensors, the slot's name for errors, the `debug` option's sink
 */
export async function applyActions(pool, map, devs, ctx = null, owner = null) {
  let result = null;
  let pending = null; // entries to create or re-bind (CREATE/TAKE: rare)
  for (let k = 0; k < pool.count; k++) {
    const op = pool.op(k);
    const handle = pool.handle(k);
    if (owner?.debug && op !== OP.REUSE) owner.debug(describeAction(pool, k, owner));
    let entry = map.get(handle);
    switch (op) {
      case OP.CREATE:
        entry = {
          handle,
          backend: pool.backend(k),
          bytes: pool.bytes(k),
          obj: null,
          buffer: null,
          tensor: null,
          type: null,
          dims: null,
          size: 0,
        };
        owner?.hooks?.(entry);
        map.set(handle, entry);
        (pending ??= []).push(describe(pool, entry));
        result = entry;
        break;
      case OP.TAKE:
        (pending ??= []).push(describe(pool, entry));
        result = entry;
        break;
      case OP.REUSE: // same dtype and dims: the binding holds
        if (!entry.obj) (pending ??= []).push(entry);
        result = entry;
        break;
      case OP.DESTROY:
        map.delete(handle);
        if (entry?.obj) {
          const dev = devs[entry.backend];
          try {
            if (entry.adopted) dev.destroyAdopted(entry.obj);
            else dev.destroy(entry.obj);
          } catch {
            /* already gone; nothing left to release */
          }
        }
        break;
      case OP.BIND:
      case OP.KEEP:
        if (op === OP.KEEP) entry.kept = true;
        result = entry;
        break;
      case OP.EXTERNAL: {
        const dev = devs[pool.backend(k)];
        const t = ctx.external;
        entry = {
          handle,
          backend: pool.backend(k),
          external: true,
          obj: t,
          buffer: dev?.bufferOf?.(t) ?? null,
          tensor: t,
          type: t.type,
          dims: t.dims,
          size: pool.handleBytes(handle),
        };
        map.set(handle, entry);
        result = entry;
        break;
      }
      case OP.FORGET:
        map.delete(handle); // the caller's tensor: never destroyed here
        break;
      case OP.ADOPT: {
        const dev = devs[pool.backend(k)];
        const t = ctx.adopted;
        const obj = dev.adopted(t);
        entry = {
          handle,
          backend: pool.backend(k),
          adopted: true,
          obj,
          buffer: dev.bufferOf?.(obj) ?? null,
          tensor: null,
          type: t.type,
          dims: t.dims,
          size: pool.handleBytes(handle),
        };
        owner?.hooks?.(entry);
        entry.tensor = dev.backend === BACKEND.cpu ? t : dev.bind(entry.buffer, entry);
        map.set(handle, entry);
        result = entry;
        break;
      }
      default:
        throw new OrtkeepError('CORRUPT', `ortkeep: unknown pool action ${op}`);
    }
  }
  if (pending) {
    let failure = null;
    for (const entry of pending) {
      try {
        await materialize(entry, devs[entry.backend]);
      } catch (e) {
        failure ??= e;
      }
    }
    if (failure) {
      const where = owner?.name ? ` for '${owner.name}'` : '';
      throw new OrtkeepError(
        'DEVICE',
        `ortkeep: could not create a device tensor${where}: ${failure?.message ?? failure}`,
        { cause: failure },
      );
    }
  }
  return result;
}

/** One readable line for a pool decision (the `debug` option; REUSE, the steady state, is not logged). */
function describeAction(pool, k, owner) {
  const kind = pool.kind(k);
  const slot =
    kind === 0 || kind === 1
      ? ` ${owner.slotName?.(kind, pool.index(k)) ?? `${kind ? 'output' : 'input'} ${pool.index(k)}`}`
      : '';
  return `ortkeep pool: ${OP_NAME[pool.op(k)]} #${pool.handle(k)}${slot} ${BACKEND_NAME[pool.backend(k)]}, ${pool.bytes(k)} B held`;
}

/** The dtype, dims and exact bytes C now holds for the entry's handle. */
function describe(pool, entry) {
  entry.type = ONNX_TO_ORT_TYPE[pool.handleDtype(entry.handle)] ?? null;
  entry.dims = pool.handleDims(entry.handle);
  entry.size = pool.handleBytes(entry.handle);
  return entry;
}

/** Creates the device object if missing and binds it as entry.type+dims. */
async function materialize(entry, dev) {
  if (!entry.obj) {
    const obj = await dev.create(entry.bytes, entry.handle, entry.type, entry.dims);
    entry.obj = obj;
    entry.buffer = dev.backend === BACKEND.cpu ? null : obj;
  }
  const storage = dev.backend === BACKEND.cpu ? entry.obj : entry.buffer;
  entry.tensor = entry.type ? dev.bind(storage, entry) : null;
}
