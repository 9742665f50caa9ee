// What a caller may pass to load(), as the load machine takes it, and how the
// load knows it: a URL (resolved against the page; in Node a path or a file:
// URL), or bytes in memory (Uint8Array, ArrayBuffer, shared or not, any view,
// Blob) known by their SHA-256. Which URLs may be cached and which are
// refused is the machine's decision, not this file's. knowSource() is the
// one entry: load() calls it once, and the steps after it read its fields
// (sha256, identity, flags, keepForms) rather than ask again.
//
// Bytes are known by their SHA-256: the memory tier's key, the key of their
// forms. Hashing 44 MB takes ~80 ms here, 12% of a warm load. So a load
// first takes a glance: a fingerprint (the length and 1 MiB sampled across
// the bytes, ~3 ms) names the SHA-256 a previous load of this origin
// computed. The load starts with it while the full hash runs beside it
// (sha256Beside, js/util/sha256.js). Nothing from that key reaches the
// caller and nothing is stored under it before the full hash confirms it
// (js/cache/session-actions.js); on a mismatch the load starts again with
// the true one (js/load.js). Where nothing is remembered (first visit, a
// worker: no localStorage) the full hash comes first.
//
// Bytes handed with their external data handed as bytes too (as
// transformers.js hands a model past 2 GB: `externalData: [{ path, data }]`):
// a form of such a model may fold weights of the data files into itself, so
// it is keyed by all of them. Each part is known as the model's bytes are (a
// glance and the hash beside the load, or the hash first), and the core
// names them together (ok_form_given_source_id). Data given by URL or as a
// Blob, or past what a form can be made of (ok_form_names_given_data), is
// not named, and such a load is not content-keyed (LOAD_FLAG.DATA_UNNAMED,
// the core's rule): a form of the model bytes alone may have been made
// beside other data files.
import { CACHE_MODE, LOAD_FLAG } from './core-constants.js';
import { OrtkeepError } from './errors.js';
import { getCore } from './core/module.js';
import { isNode, pathToUrl } from './platform/node.js';
import { sha256Beside, sha256Hex } from './util/sha256.js';

const SCHEME = /^[a-zA-Z][a-zA-Z0-9+.-]*:/;
const WINDOWS_DRIVE = /^[a-zA-Z]:[\\/]/;

/**
 * Bytes at most this long are hashed whole at once: the glance and the hash
 * beside the load cost as much (4.7 MB: 16 ms in full; 25-30 ms with both).
 */
const GLANCE_FROM = 16 << 20;
/** The fingerprint: the length and this many pieces of PIECE bytes, evenly spaced. */
const PIECES = 64;
const PIECE = 16 << 10;
/** How many fingerprints an origin remembers (most recent first). */
const REMEMBERED = 64;
const STORAGE_KEY = 'ortkeep:bytes-sha256';

/** The full hash ran and named other bytes than the hint: the load starts again with the true key. */
export class IdentityMismatch extends Error {
  constructor() {
    super('ortkeep: the bytes are not the ones their fingerprint named');
    this.name = 'IdentityMismatch';
  }
}

/**
 * The source of a load, normalized; bytes with how the load knows them:
 * `sha256` the key of the load (a fingerprint's hint where `identity.hinted`),
 * `identity` as identifyBytes answers, `flags` the LOAD_FLAG bits of the data
 * handed beside them (GIVEN_DATA: `sha256` names them too; DATA_UNNAMED: none
 * can be), `keepForms` whether they may keep forms under their content.
 * @param {string|URL|Uint8Array|ArrayBuffer|SharedArrayBuffer|ArrayBufferView|Blob} source
 * @param {import('./index.d.ts').LoadOptions} options as normalizeOptions leaves them
 * @returns {Promise<{kind: 'url', raw: string, url: string, pageUrl: string|null}
 *                  |{kind: 'bytes', bytes: Uint8Array, sha256: string|null, identity: object, flags: number, keepForms: boolean}>}
 */
export async function knowSource(source, options) {
  const src = await normalizeSource(source);
  if (src.kind !== 'bytes') return src;
  // bytes are known by their SHA-256 (WebCrypto: 3x the core's own hash): the
  // memory tier's key, the key of their forms, and the core need not hash them
  const core = await getCore();
  // data files handed as bytes are named with the model (a form may hold
  // their weights) where a form could be made of them: each is hashed every load
  let data = givenDataBytes(options.sessionOptions);
  if (data?.length && !core.namesGivenData(data.reduce((n, d) => n + d.bytes.byteLength, 0))) data = null;
  // data that cannot be named (a URL, a Blob, past that size): the core keys nothing by the model alone
  const flags = data === null ? LOAD_FLAG.DATA_UNNAMED : 0;
  // a glance first only where a form may serve (else no read to hash beside)
  const keepForms = bytesKeepForms(core, options, flags);
  const withData = keepForms && data.length > 0;
  const identity = withData
    ? await identifyWithData(src.bytes, data, true, (sha, files) => core.givenSourceId(sha, files))
    : await identifyBytes(src.bytes, keepForms);
  return {
    ...src,
    sha256: identity.sha256,
    identity,
    flags: withData ? flags | LOAD_FLAG.GIVEN_DATA : flags,
    keepForms,
  };
}

/**
 * What the caller passed, as the load machine takes it: a URL, or a view of the bytes.
 * @param {string|URL|Uint8Array|ArrayBuffer|SharedArrayBuffer|ArrayBufferView|Blob} source
 * @returns {Promise<{kind: 'url', raw: string, url: string, pageUrl: string|null}
 *                  |{kind: 'bytes', bytes: Uint8Array}>}
 */
async function normalizeSource(source) {
  if (typeof source === 'string' || source instanceof URL) {
    const raw = String(source);
    const base = globalThis.location?.href;
    if (isNode && !base && (!SCHEME.test(raw) || WINDOWS_DRIVE.test(raw))) {
      // Node, like onnxruntime-node and fs: a path, relative to the cwd
      return { kind: 'url', raw, url: await pathToUrl(raw), pageUrl: null };
    }
    let url;
    try {
      url = new URL(raw, base).href;
    } catch (e) {
      throw new OrtkeepError(
        'INVALID_SOURCE',
        `ortkeep: '${raw}' is not a URL${base ? '' : ' (outside a page, pass an absolute URL)'}`,
        { cause: e },
      );
    }
    return { kind: 'url', raw, url, pageUrl: base ?? null };
  }
  if (source instanceof Uint8Array) return { kind: 'bytes', bytes: source };
  if (source instanceof ArrayBuffer) return { kind: 'bytes', bytes: new Uint8Array(source) };
  // as onnxruntime-web takes it (a cross-origin-isolated page's memory)
  if (typeof SharedArrayBuffer !== 'undefined' && source instanceof SharedArrayBuffer)
    return { kind: 'bytes', bytes: new Uint8Array(source) };
  if (ArrayBuffer.isView(source))
    return { kind: 'bytes', bytes: new Uint8Array(source.buffer, source.byteOffset, source.byteLength) };
  if (typeof Blob !== 'undefined' && source instanceof Blob)
    return { kind: 'bytes', bytes: new Uint8Array(await source.arrayBuffer()) };
  throw new OrtkeepError(
    'INVALID_SOURCE',
    `ortkeep: load() takes a URL, a path (Node), a Uint8Array, an ArrayBuffer (shared or not) or a Blob, not ${Object.prototype.toString.call(source)}`,
  );
}

/**
 * Whether bytes may keep forms under their content: the core's rule
 * (ok_load_bytes_content_keyed: cache 'default', forms on, no integrity),
 * asked before IndexedDB is opened. A load takes a glance at such bytes;
 * loadFresh() opens IndexedDB for them (`keepForms`); every other bytes load
 * does neither.
 * `flags`: LOAD_FLAG.DATA_UNNAMED where data files beside them cannot be named.
 * @param {{m: object}} core
 */
function bytesKeepForms(core, options, flags = 0) {
  const mode = CACHE_MODE[options.cache ?? 'default'];
  if (mode === undefined) return false; // refused with INVALID_ARG by the load itself
  return !!core.m._ok_load_bytes_content_keyed(options.integrity ? 1 : 0, options.forms !== false ? 1 : 0, mode, flags);
}

/**
 * The caller's externalData entries, when every one is bytes in memory and
 * each path is named once: [] when none is given, null when they cannot be
 * named (a URL, a Blob, a path twice). Exported for its test, as identifyWithData.
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

/**
 * How load() knows bytes: `sha256` to key the load now; `confirm()` settles
 * with the true SHA-256 (null without WebCrypto); `hinted` when `sha256`
 * came from a fingerprint and is only a candidate until `confirm()` agrees
 * `glanceMs` the time to here, `besideMs()` the main thread's time since on
 * the hash beside the load; `fed()` settles once that hash needs the main
 * thread no more (sha256Beside); `model()` the same as `confirm()` (the
 * model's own hash: identifyWithData names data too);
 * `recheck()` hashes the bytes again (unchanged since load()?).
 * @param {Uint8Array} bytes
 * @param {boolean} [glance] false: hash in full first (no form can serve this load)
 * @returns {Promise<{sha256: string|null, confirm: () => Promise<string|null>, hinted: boolean, glanceMs: number, besideMs: () => number, fed: () => Promise<void>, model: () => Promise<string|null>, recheck: () => Promise<string|null>}>}
 */
async function identifyBytes(bytes, glance = true) {
  const t0 = performance.now();
  if (!globalThis.crypto?.subtle)
    return {
      sha256: null,
      confirm: async () => null,
      hinted: false,
      glanceMs: 0,
      besideMs: () => 0,
      fed: () => Promise.resolve(),
      model: async () => null,
      recheck: async () => null,
    };
  const print = glance && bytes.byteLength > GLANCE_FROM ? await fingerprint(bytes) : null;
  const hint = print ? recall(print) : null;
  // what the full hash names, remembered under the fingerprint for the next load
  const keep = (sha) => remember(print, sha);
  // with a hint, the full hash runs beside the load from now; without, it is the load's first step
  const beside = hint ? sha256Beside(bytes) : null;
  const full = beside ? beside.done : sha256Hex(bytes);
  if (print) full.then(keep).catch(() => {});
  const confirm = () => full;
  const besideMs = () => beside?.spentMs() ?? 0;
  const fed = () => beside?.fed() ?? Promise.resolve();
  const recheck = () => sha256Hex(bytes);
  const found = { confirm, besideMs, fed, model: confirm, recheck };
  if (hint) return { sha256: hint, hinted: true, glanceMs: performance.now() - t0, ...found };
  return { sha256: await confirm(), hinted: false, glanceMs: performance.now() - t0, ...found };
}

/**
 * SHA-256 of the length and PIECES evenly spaced pieces (the first at 0, the
 * last ending at the end): native code all through, so a page's first load
 * pays no JIT warm-up (a JS loop over 1 MiB took 13-20 ms on a fresh page).
 * Only a hint, never trusted: the full SHA-256 confirms it.
 */
async function fingerprint(bytes) {
  const n = bytes.byteLength;
  const sample = new Uint8Array(8 + PIECES * PIECE);
  new DataView(sample.buffer).setFloat64(0, n, true);
  const step = (n - PIECE) / (PIECES - 1);
  for (let i = 0; i < PIECES; i++) {
    const at = Math.round(i * step);
    sample.set(bytes.subarray(at, at + PIECE), 8 + i * PIECE);
  }
  return sha256Hex(sample);
}

function remembered() {
  try {
    const list = JSON.parse((isNode ? null : globalThis.localStorage?.getItem(STORAGE_KEY)) ?? '[]');
    return Array.isArray(list) ? list : [];
  } catch {
    return []; // no storage here (a worker, an opaque origin) or a damaged entry: hash in full
  }
}

function recall(print) {
  const hit = remembered().find((e) => Array.isArray(e) && e[0] === print);
  return typeof hit?.[1] === 'string' ? hit[1] : null;
}

function remember(print, sha) {
  if (!sha) return;
  try {
    const list = remembered().filter((e) => e?.[0] !== print);
    list.unshift([print, sha]);
    if (!isNode) globalThis.localStorage?.setItem(STORAGE_KEY, JSON.stringify(list.slice(0, REMEMBERED)));
  } catch {
    /* storage full or refused: the next load hashes in full */
  }
}

/** Forgets every fingerprint (cache.clear()): the next loads of bytes hash them in full first. */
export function forgetBytes() {
  try {
    if (!isNode) globalThis.localStorage?.removeItem(STORAGE_KEY);
  } catch {
    /* no storage here */
  }
}
