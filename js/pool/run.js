// One run through the pool: each input gets the tensor C picks (written in
// place, or a kept/caller device tensor bound as it is), each output C can
// plan is preallocated and passed as a fetch, onnxruntime runs on those
// bindings, what it allocated itself is adopted, and device outputs are read
// back to pooled CPU arrays unless the caller keeps them.
import { OrtkeepError } from '../errors.js';
import { BACKEND, SLOT } from '../tensor-pool.js';
import { applyActions } from './actions.js';
import { DEVICE_LOCATIONS } from './capture.js';
import { onnxType } from './dtypes.js';
import { cpuFeed } from './feeds.js';
import { readOutputs } from './readback.js';
import { refusalError } from './refusal.js';

const NO_NAMES = Object.freeze([]);

/**
 * @param {object} ctx {ort, ortSession, st, inputSpecs, outputSpecs, keptHandle: WeakMap, hooks(entry), feeds, fetches, debug?, slotName?}
 * @param {Record<string, unknown>} feeds captured at the run() call (js/pool/capture.js)
 * @param {{fetches?: string[], keep?: string[]}} options
 */
export async function runPooled(ctx, feeds, options) {
  const { st, inputSpecs, outputSpecs } = ctx;
  const { pool, dev } = st;
  const inputNames = inputSpecs.map((s) => s.name);
  const outputNames = outputSpecs.map((s) => s.name);
  for (const name of Object.keys(feeds)) {
    if (!inputNames.includes(name)) {
      throw new OrtkeepError('BAD_FEED', `ortkeep: '${name}' is not an input of this model (inputs: ${inputNames.join(', ')})`);
    }
  }
  for (const name of inputNames) {
    if (!(name in feeds)) throw new OrtkeepError('BAD_FEED', `ortkeep: input '${name}' is missing (inputs: ${inputNames.join(', ')})`);
  }
  const keep = options.keep ?? NO_NAMES;
  const wanted = options.fetches ? [...new Set([...options.fetches, ...keep])] : outputNames;
  for (const name of [...keep, ...wanted]) {
    if (!outputNames.includes(name)) {
      throw new OrtkeepError('INVALID_ARG', `ortkeep: '${name}' is not an output of this model (outputs: ${outputNames.join(', ')})`);
    }
  }

  pool.runBegin();
  try {
    const ortFeeds = ctx.feeds;
    for (let i = 0; i < inputSpecs.length; i++) {
      ortFeeds[inputSpecs[i].name] = await bindInput(ctx, i, feeds[inputSpecs[i].name]);
    }
    // Outputs C plans (known before the run) are preallocated and passed as
    // fetches; for the others (null) onnxruntime allocates and the pool adopts.
    const fetches = ctx.fetches;
    for (const k of Object.keys(fetches)) delete fetches[k];
    for (let j = 0; j < outputSpecs.length; j++) {
      const spec = outputSpecs[j];
      if (!wanted.includes(spec.name)) continue;
      let planned = null;
      if (dev.backend !== BACKEND.cpu && pool.outputAuto(j, dev.backend)) {
        planned = (await applyActions(pool, st.map, st.devs, null, owner(ctx, spec))).tensor;
      }
      fetches[spec.name] = planned;
    }

    let results;
    try {
      results = await ctx.ortSession.run(ortFeeds, fetches, options.runOptions);
    } catch (e) {
      throw new OrtkeepError('RUN', `ortkeep: onnxruntime-web failed to run: ${e?.message ?? e}`, { cause: e });
    }

    const out = {};
    const reads = [];
    for (let j = 0; j < outputSpecs.length; j++) {
      const name = outputSpecs[j].name;
      if (!wanted.includes(name)) continue;
      const result = results[name];
      const kept = keep.includes(name);
      let entry = fetches[name] ? st.map.get(pool.pinned(SLOT.output, j)) : null;
      if (!entry && result && (kept || (dev.backend !== BACKEND.cpu && result.location === dev.location))) {
        entry = await adopt(ctx, j, result);
      }
      if (!entry) { // a CPU result (wasm EP, or an output onnxruntime kept on CPU)
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
    return out;
  } finally {
    pool.runEnd();
    await applyActions(pool, st.map, st.devs, null, owner(ctx, null));
  }
}

const owner = (ctx, spec) => ({ hooks: ctx.hooks, name: spec?.name, debug: ctx.debug, slotName: ctx.slotName });

/** A pool call for a slot; a refusal becomes the typed error that names it. */
function call(fn, slot) {
  try {
    return fn();
  } catch (e) {
    throw refusalError(e, slot);
  }
}

async function bindInput(ctx, i, value) {
  const { st, inputSpecs } = ctx;
  const { pool, dev, map, devs } = st;
  const spec = inputSpecs[i];
  const slot = { kind: 'input', name: spec.name, declared: spec.dims };
  const kept = value && typeof value === 'object' ? ctx.keptHandle.get(value) : undefined;
  if (kept !== undefined) {
    call(() => pool.inputBind(i, kept), slot);
    return (await applyActions(pool, map, devs, null, owner(ctx, spec))).tensor;
  }
  if (value instanceof ctx.ort.Tensor && DEVICE_LOCATIONS.has(value.location)) {
    if (value.location !== dev.location) {
      throw new OrtkeepError('BAD_FEED', `ortkeep: input '${spec.name}' is a ${value.location} tensor but this session's pool runs on ${dev.name}`);
    }
    call(() => pool.bindExternal(SLOT.input, i, dev.backend, onnxType(value.type), value.dims), { ...slot, dims: value.dims, type: value.type });
    return (await applyActions(pool, map, devs, { external: value }, owner(ctx, spec))).tensor;
  }
  const { type, data, dims } = cpuFeed(ctx.ort, spec, value);
  if (type === 'string') return new ctx.ort.Tensor(type, data, dims); // strings stay out of the pool
  call(() => pool.feed(i, dev.backend, onnxType(type), dims, data.byteLength), { ...slot, dims, type });
  const entry = await applyActions(pool, map, devs, null, owner(ctx, spec));
  devs[entry.backend].upload(entry, data); // C may place a small int64/bool input on the CPU
  return entry.tensor;
}

/** Pins what onnxruntime allocated for output j (ADOPT). */
async function adopt(ctx, j, result) {
  const { st, outputSpecs } = ctx;
  const dev = result.location === 'cpu' ? st.cpu : st.dev;
  const spec = outputSpecs[j];
  call(() => st.pool.adopt(j, dev.backend, onnxType(result.type), result.dims, dev.capacityOf(result)), { kind: 'output', name: spec.name, dims: result.dims, type: result.type });
  return applyActions(st.pool, st.map, st.devs, { adopted: result }, owner(ctx, spec));
}
