// A model's external data files, loaded through the same load machine as
// the model (streaming, resume, retries, integrity of the model's bytes they
// were stored beside) while the model's load waits at CREATE_SESSION. Each
// file is one DATA load; the model's load decides how they are kept
// (partsMode): read from IndexedDB beside a stored model, staged and
// committed in one transaction with a model being stored, or not stored.
import { LOAD_FLAG, PARTS, STATUS } from '../core-constants.js';
import { OrtkeepError } from '../errors.js';
import { LoadMachine } from './load-core.js';
import { runLoad } from './load-driver.js';

/**
 * Loads every file of `plan` for the model load `parent` (CREATING) and
 * hands each to it (adoptPart). Returns onnxruntime-web's `externalData`.
 * @param {import('../external-data.js').DataPlan} plan
 * @param {LoadMachine} parent the model's load
 * @param {object} ctx what the model's load was given: index, core, cache, mode, flags, chunkSize,
 *   signal, fetch, onProgress, onWarning, debug
 * @returns {Promise<{path: string, data: unknown}[]>}
 */
export async function loadDataFiles(plan, parent, ctx) {
  const info = parent.info();
  const how = parent.partsMode();
  const out = [...plan.given];
  for (const file of plan.files) {
    const machine = new LoadMachine(ctx.core.m, ctx.index, {
      // a model that is not stored (bytes) has no key: its hash names it
      source: 'data', raw: info.key || `sha256:${info.sha256}|form:original`, url: file.url, part: file.path, sourceSha256: info.sha256,
      bytesLength: file.minBytes, chunkSize: ctx.chunkSize,
      mode: how === PARTS.UNSTORED ? 'no-store' : ctx.mode,
      flags: ctx.flags | (how === PARTS.OWNER_STORED ? LOAD_FLAG.OWNER_STORED : 0),
    });
    let r;
    try {
      r = await runLoad({
        machine, core: ctx.core, cache: ctx.cache, signal: ctx.signal, url: file.url, fetch: ctx.fetch,
        onWarning: ctx.onWarning, debug: ctx.debug,
        onProgress: ctx.onProgress && ((p) => ctx.onProgress({ ...p, file: file.path })),
        // at DONE, before the machine is freed: its stored file joins the model's commit
        adopt: (m) => {
          const st = parent.adoptPart(m);
          if (st !== STATUS.OK) throw new OrtkeepError('STATE', `ortkeep: the model's load refused its data file (${st})`);
        },
      });
    } catch (e) {
      if (e?.code === 'ABORTED' || e?.code === 'NOMEM') throw e;
      throw new OrtkeepError('EXTERNAL_DATA', `ortkeep: the external data file ${JSON.stringify(file.path)} of ${ctx.modelUrl} could not be loaded: ${String(e?.message ?? e).replace(/^ortkeep: /, '')}`, { cause: e, details: { path: file.path, url: file.url, code: e?.code } });
    }
    out.push({ path: file.path, data: r.bytes });
    ctx.warnings?.push(...r.warnings);
  }
  return out;
}
