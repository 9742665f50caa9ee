// Bytes handed to load() with their external data handed as bytes too (as
// transformers.js hands a model past 2 GB: `externalData: [{ path, data }]`):
// a form of such a model may fold weights of the data files into itself, so
// it is keyed by all of them. Each part is known as js/util/bytes-identity.js
// knows bytes (a glance and the hash beside the load, or the hash first), and
// the core names them together (ok_form_given_source_id). Data given by URL
// or as a Blob, or past what a form can be made of (ok_form_names_given_data),
// is not named, and such a load is not content-keyed (LOAD_FLAG.DATA_UNNAMED,
// the core's rule): a form of the model bytes alone may have been made beside
// other data files.
import { identifyBytes } from './bytes-identity.js';

/**
 * The caller's externalData entries, when every one is bytes in memory and
 * each path is named once: [] when none is given, null when they cannot be
 * named (a URL, a Blob, a path twice).
 * @param {{externalData?: {path: string, data: unknown}[]}|undefined} sessionOptions
 * @returns {{path: string, bytes: Uint8Array}[]|null}
 */
export function givenDataBytes(sessionOptions) {
  const given = sessionOptions?.externalData;
  if (!Array.isArray(given) || !given.length) return [];
  const out = [];
  for (const e of given) {
    const d = e?.data;
    const bytes =
      d instanceof ArrayBuffer
        ? new Uint8Array(d)
        : ArrayBuffer.isView(d)
          ? new Uint8Array(d.buffer, d.byteOffset, d.byteLength)
          : null;
    if (typeof e?.path !== 'string' || !bytes || out.some((o) => o.path === e.path)) return null;
    out.push({ path: e.path, bytes });
  }
  return out;
}

/**
 * identifyBytes' answer for the model and its data files together: `sha256`
 * (and `confirm()`) the core's id of them all; `model()` the model's own
 * SHA-256 once confirmed; `recheck()` hashes everything again (the caller's
 * bytes unchanged since load(), before a form of them is stored).
 * @param {Uint8Array} bytes the model
 * @param {{path: string, bytes: Uint8Array}[]} data from givenDataBytes, not empty
 * @param {boolean} glance as identifyBytes
 * @param {(modelSha256: string, files: {path: string, sha256: string}[]) => string} combine the core's rule
 */
export async function identifyWithData(bytes, data, glance, combine) {
  const all = [bytes, ...data.map((d) => d.bytes)];
  const parts = await Promise.all(all.map((b) => identifyBytes(b, glance)));
  const named = (shas) =>
    shas.includes(null)
      ? null
      : combine(
          shas[0],
          data.map((d, i) => ({ path: d.path, sha256: shas[i + 1] })),
        );
  return {
    sha256: named(parts.map((p) => p.sha256)),
    confirm: () => Promise.all(parts.map((p) => p.confirm())).then(named),
    hinted: parts.some((p) => p.hinted),
    glanceMs: parts.reduce((n, p) => n + p.glanceMs, 0),
    besideMs: () => parts.reduce((n, p) => n + p.besideMs(), 0),
    fed: () => Promise.all(parts.map((p) => p.fed())).then(() => {}),
    model: () => parts[0].confirm(),
    recheck: async () => named(await Promise.all(parts.map((p) => p.recheck()))),
  };
}
