// Bytes handed to load() are known by their SHA-256: the memory tier's key,
// the key of their forms. Hashing 44 MB takes ~80 ms here, 12% of a warm
// load. So a load first takes a glance: a fingerprint (the length and 1 MiB
// sampled across the bytes, ~3 ms) names the SHA-256 a previous load of
// this origin computed. The load starts with it while the full hash runs
// beside it (js/util/sha256-beside.js). Nothing from that key reaches the
// caller and nothing is stored under it before the full hash confirms it
// (js/cache/session-actions.js); on a mismatch the load starts again with
// the true one (js/load.js). Where nothing is remembered (first visit, a
// worker: no localStorage) the full hash comes first.
import { sha256Hex } from './sha256.js';
import { sha256Beside } from './sha256-beside.js';
import { isNode } from '../platform/node.js';

/**
 * Bytes at most this long are hashed whole at once: the glance and the hash
 * beside the load cost as much (4.7 MB: 16 ms in full; 25-30 ms with both).
 */
const GLANCE_FROM = 16 << 20;
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
 * How load() knows bytes: `sha256` to key the load now; `confirm()` settles
 * with the true SHA-256 (null without WebCrypto); `hinted` when `sha256`
 * came from a fingerprint and is only a candidate until `confirm()` agrees
 * `glanceMs` the time to here, `besideMs()` the main thread's time since on
 * the hash beside the load; `fed()` settles once that hash needs the main
 * thread no more (sha256Beside); `model()` the same as `confirm()` (the
 * model's own hash: js/util/content-identity.js names data too);
 * `recheck()` hashes the bytes again (unchanged since load()?).
 * @param {Uint8Array} bytes
 * @param {boolean} [glance] false: hash in full first (no form can serve this load)
 * @returns {Promise<{sha256: string|null, confirm: () => Promise<string|null>, hinted: boolean, glanceMs: number, besideMs: () => number, fed: () => Promise<void>, model: () => Promise<string|null>, recheck: () => Promise<string|null>}>}
 */
export async function identifyBytes(bytes, glance = true) {
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
  // with a hint, the full hash runs beside the load from now; without, it is the load's first step
  const beside = hint ? sha256Beside(bytes) : null;
  const full = beside ? beside.done : sha256Hex(bytes);
  if (print) full.then((sha) => remember(print, sha)).catch(() => {});
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
