// The memory tier's key: loads with equal keys share one live session
// (js/cache/memory-tier.js). The core decides which facts of a load make its
// session; this hands them over canonical.
import { getCore } from '../core/module.js';

/**
 * The memory-tier key of a load, or null when it cannot be shared (bytes
 * where WebCrypto is missing). The core decides which facts of a load make
 * its session (ok_session_share_key); this hands them over canonical: the
 * source (`url:<url>`, or `sha256:<hex>` of bytes) and the options as JSON.
 * @param {{kind: 'url', url: string}|{kind: 'bytes', bytes: Uint8Array, sha256?: string|null}} src
 * @returns {Promise<string|null>}
 */
export async function memoryKey(src, options) {
  const sourceKey = src.kind === 'url' ? `url:${src.url}` : src.sha256 ? `sha256:${src.sha256}` : null;
  if (!sourceKey) return null;
  const core = await getCore();
  const json = (v) => (v === undefined || v === null ? null : JSON.stringify(v, byIdentity));
  return core.sessionShareKey(
    sourceKey,
    options.integrity ?? null,
    json(options.executionProviders),
    json(options.sessionOptions),
  );
}

// Bytes in the options (externalData given as bytes) are named by identity,
// never spelt out: JSON of a 100 MB array is a string of hundreds of MB.
const bytesIds = new WeakMap();
let nextBytesId = 0;
function byIdentity(key, value) {
  if (
    !ArrayBuffer.isView(value) &&
    !(value instanceof ArrayBuffer) &&
    !(typeof Blob !== 'undefined' && value instanceof Blob)
  )
    return value;
  const target = ArrayBuffer.isView(value) ? value.buffer : value;
  if (!bytesIds.has(target)) bytesIds.set(target, ++nextBytesId);
  return ArrayBuffer.isView(value)
    ? `bytes#${bytesIds.get(target)}@${value.byteOffset}+${value.byteLength}`
    : `bytes#${bytesIds.get(target)}`;
}
