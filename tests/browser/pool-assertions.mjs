// Assertions shared by the WebGPU and WebNN pool suites.
import assert from 'node:assert/strict';

/** The bad-feeds check of pages/pool-suite.js: codes, messages naming the input, recovery. */
export function assertBadFeeds(r) {
  const expected = [
    /^BAD_FEED: .*'x' is missing/,
    /^BAD_FEED: .*'bogus' is not an input/,
    /^SHAPE: .*'state_in' must be float32, got int32/,
    /^SHAPE: .*'past' must have rank 3/,
    /^SHAPE: .*'x' dim 1 must be 8/,
    /^BAD_FEED: .*'x' has 7 elements/,
    /^BAD_FEED: .*'state_in' .*released/,
    /^BAD_FEED: .*'state_in' .*bound elsewhere/,
  ];
  assert.equal(r.errors.length, expected.length, r.errors.join('\n'));
  r.errors.forEach((e, i) => assert.match(e, expected[i]));
  assert.ok(r.afterErrors < 1e-5 && r.againDiff < 1e-5, `after errors: ${r.afterErrors}, ${r.againDiff}`);
  assert.equal(r.externalAlive, true, 'the caller-owned tensor was not destroyed');
  assert.equal(r.liveAfter, 0);
}

/**
 * The caller-owns-outputs check of pages/pool-suite.js: each run's outputs,
 * read after later runs, equal the wasm EP for that run's own input.
 */
export function assertCallerOwnsOutputs(r) {
  assert.ok(r.reuses > 0, 'the pool pinned (else this proves nothing about it)');
  // another input's outputs would be off by refsGap; the kernels' own error is far below it
  for (const d of [...r.sequential, ...r.together])
    assert.ok(d < r.refsGap / 100, `max |ours - wasm EP| = ${d}, gap ${r.refsGap}`);
}

/** The shape-change check of pages/pool-suite.js: re-pins, equal to the wasm EP within `tolerance`. */
export function assertShapeChange(r, tolerance) {
  assert.ok(r.diff < tolerance, `max diff ${r.diff}`);
  assert.ok(r.stats.repins > 0, JSON.stringify(r.stats));
  assert.equal(r.liveAfter, 0);
}

/**
 * The chained-decoder check of pages/pool-suite.js: kept outputs match the CPU
 * reference and stay at `location` once the pool has learned how `present`
 * grows (two steps, in which onnxruntime allocates it on the CPU).
 */
export function assertChain(r, location, tolerance) {
  assert.ok(r.diff < tolerance, `max diff ${r.diff}`);
  assert.deepEqual(r.dims, [1, 9, 8]);
  assert.deepEqual([...new Set(r.locations.slice(2))], [location], r.locations.join(', '));
  assert.ok(r.liveBefore > 0, 'kept tensors were live before dispose()');
  assert.equal(r.liveAfter, 0);
}
