// A model's external data files, loaded through the same load machine as
// the model (streaming, resume, retries) while the model's load waits at
// CREATE_SESSION. Each file is one DATA load owned by the model's load, from
// which the core takes how the file is kept: read from IndexedDB beside a
// stored model, staged and committed in one transaction with a model being
// stored, or not stored.
import { LOAD_POLICY, STATUS } from '../core-constants.js';
import { OrtkeepError } from '../errors.js';
import { LoadMachine } from './load-machine.js';
import { runLoad } from './load-driver.js';

/**
 * Loads every file of `plan` for the model load `parent` (CREATING) and
 * hands each to it (adoptPart). Returns onnxruntime-web's `externalData`.
 * @param {import('../external-data.js').DataPlan} plan
 * @param {LoadMachine} parent the model's load
 * @param {object} ctx what the model's load was given: index, core, cache, signal, fetch, onProgress,
 *   onWarning, debug, modelUrl, warnings, caller (a caller's load: js/forms/turns.js)
 * @returns {Promise<{path: string, data: unknown}[]>}
 */
export async function loadDataFiles(plan, parent, ctx) {
  // every file is planned before any is fetched: the core refuses the one
  // that would take the set past what one session holds (LIMIT)
  const machines = [];
  try {
    for (const file of plan.files) {
      machines.push(
        new LoadMachine(ctx.core.m, ctx.index, {
          source: 'data',
          owner: parent,
          url: file.url,
          part: file.path,
          bytesLength: file.minBytes,
        }),
      );
    }
  } catch (e) {
    for (const m of machines) m.free();
    if (e?.code !== 'LIMIT') throw e;
    const bytes = plan.files.reduce((n, f) => n + f.minBytes, 0);
    throw new OrtkeepError(
      'LIMIT',
      `ortkeep: the model's external data holds ${bytes} bytes; one onnxruntime-web session holds at most ${LOAD_POLICY.MAX_SESSION_BYTES} with the model (the wasm32 heap)`,
      { cause: e },
    );
  }
  const out = [...plan.given];
  for (let i = 0; i < plan.files.length; i++) {
    const file = plan.files[i];
    let r;
    try {
      r = await runLoad({
        caller: ctx.caller,
        machine: machines[i],
        core: ctx.core,
        cache: ctx.cache,
        signal: ctx.signal,
        url: file.url,
        fetch: ctx.fetch,
        onWarning: ctx.onWarning,
        debug: ctx.debug,
        onProgress: ctx.onProgress && ((p) => ctx.onProgress({ ...p, file: file.path })),
        // at DONE, before the machine is freed: its stored file joins the model's commit
        adopt: (m) => {
          const st = parent.adoptPart(m);
          if (st !== STATUS.OK)
            throw new OrtkeepError('STATE', `ortkeep: the model's load refused its data file (${st})`);
        },
      });
    } catch (e) {
      for (const m of machines.slice(i + 1)) m.free();
      if (e?.code === 'ABORTED' || e?.code === 'NOMEM') throw e;
      throw new OrtkeepError(
        'EXTERNAL_DATA',
        `ortkeep: the external data file ${JSON.stringify(file.path)} of ${ctx.modelUrl} could not be loaded: ${String(e?.message ?? e).replace(/^ortkeep: /, '')}`,
        { cause: e, details: { path: file.path, url: file.url, code: e?.code } },
      );
    }
    out.push({ path: file.path, data: r.bytes });
    ctx.warnings?.push(...r.warnings);
  }
  return out;
}
