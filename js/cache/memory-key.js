// The memory tier's key: loads with equal keys share one live session
// (js/cache/memory-tier.js). The core decides which facts of a load make its
// session; this hands them over canonical.
import { LOAD_FLAG } from '../core-constants.js';
import { getCore } from '../core/module.js';
import { sha256Hex } from '../util/sha256.js';

/**
 * The memory-tier key of a load, or null when it cannot be shared (bytes
 * where WebCrypto is missing). The core decides which facts of a load make
 * its session (ok_session_share_key); this hands them over canonical: the
 * source (`url:<url>`, or `sha256:<hex>` of bytes) and the options as JSON.
 * @param {{kind: 'url', url: string}|{kind: 'bytes', bytes: Uint8Array, sha256?: string|null, flags?: number}} src
 * @returns {Promise<string|null>}
 */
export async function memoryKey(src, options) {
  const sourceKey = src.kind === 'url' ? `url:${src.url}` : src.sha256 ? `sha256:${src.sha256}` : null;
  if (!sourceKey) return null;
  let sessionOptions = options.sessionOptions;
  if (src.kind === 'bytes' && (src.flags ?? 0) & LOAD_FLAG.GIVEN_DATA && sessionOptions?.externalData) {
    // the source's SHA-256 names these data files' bytes already (js/sources.js)
    const externalData = sessionOptions.externalData.map((e) => ({ path: e.path, data: 'named-by-source' }));
    sessionOptions = { ...sessionOptions, externalData };
  }
  const names = await contentNames([options.executionProviders, sessionOptions]);
  if (!names) return null;
  const core = await getCore();
  // the holder's own value: a Node Buffer reaches a replacer already turned into JSON by its toJSON()
  const json = (v) =>
    v === undefined || v === null
      ? null
      : JSON.stringify(v, function (key, value) {
          return names.get(this[key]) ?? value;
        });
  return core.sessionShareKey(
    sourceKey,
    options.integrity ?? null,
    json(options.executionProviders),
    json(sessionOptions),
  );
}

const isBytes = (v) => ArrayBuffer.isView(v) || v instanceof ArrayBuffer || isShared(v);
const isShared = (v) => typeof SharedArrayBuffer !== 'undefined' && v instanceof SharedArrayBuffer;

/**
 * Names for the bytes in the options (externalData given as bytes), never
 * spelt out (JSON of a 100 MB array is a string of hundreds of MB): bytes by
 * their SHA-256, read now, for the caller may have written new weights into
 * the same buffer since a live session was made of it; a Blob by identity
 * (its bytes cannot change). null when bytes are given and WebCrypto is missing.
 * @returns {Promise<Map<unknown, string>|null>}
 */
async function contentNames(values) {
  const found = [];
  function collect(key, value) {
    const raw = this[key];
    if (isBytes(raw) || (typeof Blob !== 'undefined' && raw instanceof Blob)) {
      found.push(raw);
      return null; // not walked into
    }
    return value;
  }
  for (const v of values) if (v !== undefined && v !== null) JSON.stringify(v, collect);
  const names = new Map();
  if (!found.length) return names;
  if (found.some(isBytes) && !globalThis.crypto?.subtle) return null;
  await Promise.all(
    [...new Set(found)].map(async (value) => {
      if (!isBytes(value)) {
        if (!blobIds.has(value)) blobIds.set(value, ++nextBlobId);
        names.set(value, `blob#${blobIds.get(value)}`);
        return;
      }
      names.set(value, `sha256:${await sha256Hex(value)}`);
    }),
  );
  return names;
}

const blobIds = new WeakMap();
let nextBlobId = 0;
