// loadShared(): the memory tier's side of a load. A live session (or a load
// in flight) with the same key is shared; everything else is one fresh load
// (js/load-fresh.js) that later loads of the key may share.
//
// The imports, in the order a load calls them: the memory tier's key, the
// fresh load, the memory tier.
import { raceAbort } from './util/abort.js';
import { IdentityMismatch } from './sources.js';
import { memoryKey } from './cache/memory-key.js';
import { loadFresh } from './load-fresh.js';
import { acquire, isLive } from './cache/memory-tier.js';

/**
 * A known source (js/sources.js knowSource) loaded, or shared where
 * `shareable` and the memory tier holds its key.
 * @throws {IdentityMismatch} a live session's bytes are not the ones the fingerprint named (load() starts again)
 * @returns {Promise<import('./session.js').Session>}
 */
export async function loadShared(src, options, shareable) {
  const key = shareable ? await memoryKey(src, options) : null;
  if (key && src.identity?.hinted && isLive(key)) {
    // a live session is shared only with the bytes it was made from
    const sha = await raceAbort(src.identity.confirm(), options.signal);
    if (sha !== src.sha256) throw new IdentityMismatch();
    src.identity = { ...src.identity, hinted: false };
  }
  const fresh = (signal) => loadFresh(src, options, signal);
  return key ? acquire(key, fresh, options.signal) : fresh(options.signal);
}
