// Assertions shared by the WebGPU and WebNN pool suites.
import assert from 'node:assert/strict';

/** The bad-feeds check of pages/pool-suite.js: codes, messages naming the input, recovery. */
export function assertBadFeeds(r) {
  const expected = [
    /^BAD_FEED: .*'x' is missing/, /^BAD_FEED: .*'bogus' is not an input/, /^SHAPE: .*'state_in' must be float32, got int32/,
    /^SHAPE: .*'past' must have rank 3/, /^SHAPE: .*'x' dim 1 must be 8/, /^BAD_FEED: .*'x' has 7 elements/,
    /^BAD_FEED: .*'state_in' .*released/, /^BAD_FEED: .*'state_in' .*bound elsewhere/,
  ];
  assert.equal(r.errors.length, expected.length, r.errors.join('\n'));
  r.errors.forEach((e, i) => assert.match(e, expected[i]));
  assert.ok(r.afterErrors < 1e-5 && r.againDiff < 1e-5, `after errors: ${r.afterErrors}, ${r.againDiff}`);
  assert.equal(r.externalAlive, true, 'the caller-owned tensor was not destroyed');
  assert.equal(r.liveAfter, 0);
}
