// Turns between the caller's calls and background work (js/forms/turns.js),
// on their own: a background call waits for no caller in flight, a caller
// waiting aside holds none back, and a bounded wait gives up without
// calling. (The pages where these decide a load: tests/browser/forms-tiers.)
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { NoTurn, asideWait, backgroundTurn, callerLoad } from '../../js/forms/turns.js';

const later = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

test('a background call waits while a caller is in flight, and runs once it ended and the page was quiet', async () => {
  let end;
  const caller = callerLoad(() => new Promise((resolve) => (end = resolve)));
  const ran = [];
  const bg = backgroundTurn(async () => ran.push('bg'));
  await later(300);
  assert.deepEqual(ran, [], 'not while the caller is in flight');
  end();
  await caller;
  await bg;
  assert.deepEqual(ran, ['bg']);
});

test('a caller waiting aside (for what background work holds) holds no background call back', async () => {
  let free;
  const held = new Promise((resolve) => (free = resolve));
  // the caller waits aside for `held`, which only the background call ends
  const caller = callerLoad(() => asideWait(held));
  const bg = backgroundTurn(async () => free('freed'));
  assert.equal(await Promise.race([caller, later(5000).then(() => 'deadlocked')]), 'freed');
  await bg;
});

test('a bounded background wait gives up with NoTurn, its call never made, while a caller stays in flight; unbounded, it runs after', async () => {
  let end;
  const caller = callerLoad(() => new Promise((resolve) => (end = resolve)));
  let called = false;
  const t0 = performance.now();
  await assert.rejects(
    backgroundTurn(
      async () => {
        called = true;
      },
      { maxWaitMs: 200 },
    ),
    NoTurn,
  );
  const waited = performance.now() - t0;
  assert.ok(waited >= 190 && waited < 2000, `gave up after ${waited} ms`);
  assert.equal(called, false);
  const bg = backgroundTurn(async () => 'ran');
  end();
  await caller;
  assert.equal(await bg, 'ran');
});

test('a second caller sharing a load in flight (the memory tier) waits aside too: background work the first waits for still gets its turn', async () => {
  const { acquire } = await import('../../js/cache/memory-tier.js');
  let free;
  const lock = new Promise((resolve) => (free = resolve));
  const base = { info: {}, dispose: async () => {} };
  // the first load waits aside for a lock background work holds; the second shares the first
  const create = () => asideWait(lock).then(() => base);
  const loads = Promise.all([1, 2].map(() => callerLoad(() => acquire('turns-test-key', create))));
  const bg = backgroundTurn(async () => free());
  const r = await Promise.race([loads, later(5000).then(() => 'deadlocked')]);
  assert.notEqual(r, 'deadlocked');
  await bg;
});
