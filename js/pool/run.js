// One run through the pool: each input gets the tensor C picks (written in
// place, or a kept/caller device tensor bound as it is), each output C can
// plan is preallocated and passed as a fetch, onnxruntime runs on those
// bindings, what it allocated itself is adopted, and device outputs are read
// back to pooled CPU arrays unless the caller keeps them. A run C says the
// pool cannot help (the wasm EP, nothing kept, nothing on a device) steps
// aside: js/pool/pass-through.js.
import { OrtkeepError } from '../errors.js';
import { inProxyWorker } from '../ort-adapter.js';
import { POOL_PLACE } from '../core-constants.js';
import { BACKEND, SLOT } from './pool-core.js';
import { applyActions } from './actions.js';
import { DEVICE_LOCATIONS } from './feed-capture.js';
import { onnxType } from './dtypes.js';
import { cpuFeed } from './feeds.js';
import { runPassThrough } from './pass-through.js';
import { readOutputs } from './readback.js';
import { refusalError } from './refusal.js';

const NO_NAMES = Object.freeze([]);

/**
 * @param {object} ctx {ort, ortSession, st, inputSpecs, outputSpecs, keptHandle: WeakMap, copies, hooks(entry), feeds, debug?, slotName?}
 * @param {Record<string, unknown>} feeds captured at the run() call (js/pool/feed-capture.js)
 * @param {{fetches?: string[], keep?: string[]}} options
 */
export async function runPooled(ctx, feeds, options) {
  const { st, inputSpecs, outputSpecs } = ctx;
  const { pool, dev } = st;
  // the model's names, once per session (a run's checks are most of ortkeep's time on a small model)
  const inputNames = (ctx.inputNames ??= inputSpecs.map((s) => s.name));
  const outputNames = (ctx.outputNames ??= outputSpecs.map((s) => s.name));
  for (const name in feeds) {
    if (!inputNames.includes(name)) {
      throw new OrtkeepError(
        'BAD_FEED',
        `ortkeep: '${name}' is not an input of this model (inputs: ${inputNames.join(', ')})`,
      );
    }
  }
  for (const name of inputNames) {
    if (!(name in feeds))
      throw new OrtkeepError('BAD_FEED', `ortkeep: input '${name}' is missing (inputs: ${inputNames.join(', ')})`);
  }
  const keep = options.keep ?? NO_NAMES;
  const wanted = options.fetches ? [...new Set([...options.fetches, ...keep])] : outputNames;
  if (wanted !== outputNames || keep.length) {
    for (const name of [...keep, ...wanted]) {
      if (!outputNames.includes(name)) {
        throw new OrtkeepError(
          'INVALID_ARG',
          `ortkeep: '${name}' is not an output of this model (outputs: ${outputNames.join(', ')})`,
        );
      }
    }
  }

  if (dev.lostInfo) throw lostError(dev);
  if (st.poisoned) {
    throw new OrtkeepError(
      'STATE',
      'ortkeep: a run of this session failed while its outputs were bound to the device ' +
        "(preferredOutputLocation): onnxruntime-web 1.30 then reuses that run's bindings in every later run; load the model again",
    );
  }
  const deviceFed = Object.values(feeds).some((v) => isDeviceTensor(ctx, v));
  // C's verdict: on the CPU backend a run that keeps nothing and binds nothing
  // on a device gains nothing from the pool (js/pool/pass-through.js); where
  // onnxruntime-web's proxy worker takes every CPU input's buffer, no CPU run
  // is the pool's (its tensors would be detached by the run they are bound to)
  if (pool.passThrough(dev.backend, keep.length, deviceFed || ctx.boundToDevice, inProxyWorker(ctx.ort))) {
    return runPassThrough(ctx, feeds, wanted, options);
  }
  const errorsBefore = dev.errors ?? 0;
  // Where this run keeps inputs and outputs: C's placement verdict, measured
  // over the first runs (ok_pool_placement_next); a run that chains device
  // tensors settles it on the device.
  const onDevice = dev.backend !== BACKEND.cpu;
  const chained = keep.length > 0 || deviceFed;
  if (onDevice && chained) pool.placementReport(POOL_PLACE.DEVICE, 0, true);
  else if (onDevice && st.placement) pool.placementReport(st.placement, 0, true); // the caller chose
  const placement = onDevice ? pool.placementNext() : POOL_PLACE.DEVICE;
  const backend = placement === POOL_PLACE.CPU ? BACKEND.cpu : dev.backend;
  const t0 = performance.now();
  pool.runBegin();
  try {
    const ortFeeds = ctx.feeds;
    for (let i = 0; i < inputSpecs.length; i++) {
      ortFeeds[inputSpecs[i].name] = await bindInput(ctx, i, feeds[inputSpecs[i].name], backend);
    }
    // Outputs C plans (known before the run) are preallocated and passed as
    // fetches; for the others (null) onnxruntime allocates and the pool adopts.
    // a fresh object: deleting last run's keys would turn a reused one into a slow dictionary
    const fetches = {};
    for (let j = 0; j < outputSpecs.length; j++) {
      const spec = outputSpecs[j];
      if (!wanted.includes(spec.name)) continue;
      let planned = null;
      if (backend !== BACKEND.cpu && pool.outputAuto(j, backend)) {
        planned = (await applyActions(pool, st.map, st.devs, null, owner(ctx, spec))).tensor;
      }
      fetches[spec.name] = planned;
    }

    let results;
    try {
      results = await ctx.ortSession.run(ortFeeds, fetches, options.runOptions);
    } catch (e) {
      // C's verdict: were outputs preallocated for this run (a model may
      // declare a wrong dim)? Then once more, letting onnxruntime allocate them.
      // With the caller's preferredOutputLocation on a device, onnxruntime-web's
      // IO binding keeps this failed run's bindings: no later run can be right.
      if (ctx.boundToDevice) st.poisoned = true;
      if (ctx.boundToDevice || !pool.runFailed()) throw runError(e);
      outputSpecs.forEach((spec, j) => {
        if (fetches[spec.name] && !pool.pinned(SLOT.output, j)) fetches[spec.name] = null;
      });
      try {
        results = await ctx.ortSession.run(ortFeeds, fetches);
      } catch (again) {
        throw runError(again);
      }
    }

    const out = {};
    const reads = [];
    for (let j = 0; j < outputSpecs.length; j++) {
      const name = outputSpecs[j].name;
      if (!wanted.includes(name)) continue;
      const result = results[name];
      const kept = keep.includes(name);
      let entry = fetches[name] ? st.map.get(pool.pinned(SLOT.output, j)) : null;
      if (!entry && result && kept && backend !== BACKEND.cpu && result.location === 'cpu') {
        entry = await keptToDevice(ctx, j, result);
      } else if (!entry && result) entry = await adopt(ctx, j, result, kept);
      if (!entry) {
        // C left it to the caller: a CPU result nobody keeps (wasm EP, or an output onnxruntime kept on CPU)
        out[name] = result;
        continue;
      }
      if (kept) {
        pool.keep(j);
        await applyActions(pool, st.map, st.devs, null, owner(ctx, outputSpecs[j]));
        ctx.keptHandle.set(entry.tensor, entry.handle);
        out[name] = entry.tensor;
      } else if (dev.backend === BACKEND.cpu) {
        out[name] = entry.tensor;
      } else {
        reads.push({ j, entry, name });
      }
    }
    if (reads.length) await readOutputs(st, reads, out);
    if ((dev.errors ?? 0) !== errorsBefore) throw new Error('device error'); // caught just below
    if (onDevice) pool.placementReport(placement, Math.round((performance.now() - t0) * 1000), chained);
    return out;
  } catch (e) {
    if ((dev.errors ?? 0) === errorsBefore) throw e;
    // The device refused work of this run (a buffer destroyed under the
    // pool, a lost device): no pool tensor can be trusted; C drops them all,
    // and the next run starts on fresh ones.
    pool.deviceFailed();
    await applyActions(pool, st.map, st.devs, null, owner(ctx, null));
    if (dev.lostInfo) throw lostError(dev);
    if (st.poisoned) {
      throw new OrtkeepError(
        'STATE',
        'ortkeep: a run of this session failed while its outputs were bound to the device ' +
          "(preferredOutputLocation): onnxruntime-web 1.30 then reuses that run's bindings in every later run; load the model again",
      );
    }
    const why = dev.lastError ?? e?.message ?? e;
    throw new OrtkeepError(
      'DEVICE',
      `ortkeep: the GPU refused this run's work (${why}); the pool dropped its buffers, ` +
        'the next run makes new ones',
      { cause: e },
    );
  } finally {
    pool.runEnd();
    await applyActions(pool, st.map, st.devs, null, owner(ctx, null));
  }
}

const lostError = (dev) =>
  new OrtkeepError(
    'DEVICE',
    `ortkeep: the GPU device was lost (${dev.lostInfo.message || dev.lostInfo.reason}); load the model again`,
  );

const owner = (ctx, spec) => ({ hooks: ctx.hooks, name: spec?.name, debug: ctx.debug, slotName: ctx.slotName });

/** A pool call for a slot; a refusal becomes the typed error that names it (slot(): made only then). */
function call(fn, slot) {
  try {
    return fn();
  } catch (e) {
    throw refusalError(e, slot());
  }
}

/** A kept output of this session, or a device tensor of the caller's. */
const isDeviceTensor = (ctx, v) =>
  !!v &&
  typeof v === 'object' &&
  (ctx.keptHandle.has(v) || (v instanceof ctx.ort.Tensor && DEVICE_LOCATIONS.has(v.location)));

async function bindInput(ctx, i, value, backend) {
  const { st, inputSpecs } = ctx;
  const { pool, dev, map, devs } = st;
  const spec = inputSpecs[i];
  const slot = () => ({ kind: 'input', name: spec.name, declared: spec.dims });
  const kept = value && typeof value === 'object' ? ctx.keptHandle.get(value) : undefined;
  if (kept !== undefined) {
    call(() => pool.inputBind(i, kept), slot);
    return (await applyActions(pool, map, devs, null, owner(ctx, spec))).tensor;
  }
  if (value instanceof ctx.ort.Tensor && DEVICE_LOCATIONS.has(value.location)) {
    if (value.location !== dev.location) {
      throw new OrtkeepError(
        'BAD_FEED',
        `ortkeep: input '${spec.name}' is a ${value.location} tensor but this session's pool runs on ${dev.name}`,
      );
    }
    call(
      () => pool.bindExternal(SLOT.input, i, dev.backend, onnxType(value.type), value.dims),
      () => ({ ...slot(), dims: value.dims, type: value.type }),
    );
    return (await applyActions(pool, map, devs, { external: value }, owner(ctx, spec))).tensor;
  }
  const { type, data, dims } = cpuFeed(ctx.ort, spec, value);
  if (type === 'string') return new ctx.ort.Tensor(type, data, dims); // strings stay out of the pool
  call(
    () => pool.feed(i, backend, onnxType(type), dims, data.byteLength),
    () => ({ ...slot(), dims, type }),
  );
  const entry = await applyActions(pool, map, devs, null, owner(ctx, spec));
  devs[entry.backend].upload(entry, data); // C may place a small int64/bool input on the CPU
  // written into the pool's tensor (a device's upload copies at the call): the copy is the next run's
  if (entry.tensor.location !== 'cpu' || entry.tensor.data !== data) ctx.copies?.recycle(data);
  return entry.tensor;
}

/** What onnxruntime allocated for output j: C pins it (ADOPT) or leaves it to the caller (null). */
async function adopt(ctx, j, result, kept) {
  const { st, outputSpecs } = ctx;
  const dev = result.location === st.dev.location ? st.dev : st.cpu;
  const spec = outputSpecs[j];
  const slot = () => ({ kind: 'output', name: spec.name, dims: result.dims, type: result.type });
  const capacity = dev.capacityOf(result);
  if (!call(() => st.pool.result(j, dev.backend, onnxType(result.type), result.dims, capacity, kept), slot))
    return null;
  return applyActions(st.pool, st.map, st.devs, { adopted: result }, owner(ctx, spec));
}

/**
 * A kept output onnxruntime returned on the CPU (the pool could not
 * preallocate it: dims the model leaves unknown, such as silero's stateN):
 * written into a pool tensor on the session's device, so `keep` means the
 * device whatever the declared dims, and fed back it is an input onnxruntime
 * reads in place (no upload of its own). C picks the tensor (reuse, take or
 * create, within the budget).
 */
async function keptToDevice(ctx, j, result) {
  const { st, outputSpecs } = ctx;
  const spec = outputSpecs[j];
  call(
    () => st.pool.output(j, st.dev.backend, onnxType(result.type), result.dims),
    () => ({ kind: 'output', name: spec.name, dims: result.dims, type: result.type }),
  );
  const entry = await applyActions(st.pool, st.map, st.devs, null, owner(ctx, spec));
  st.dev.upload(entry, result.data);
  return entry;
}

/** onnxruntime's own failure, typed; the message is onnxruntime's. */
const runError = (e) =>
  new OrtkeepError('RUN', `ortkeep: onnxruntime-web failed to run: ${e?.message ?? e}`, { cause: e });
