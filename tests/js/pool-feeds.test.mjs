// Pool behaviour on real feeds in Node (onnxruntime-web's wasm backend):
// fallback EP lists, inputs read at call time, bad dims refused before the
// pool changes. Outputs must equal onnxruntime-web's own on the same inputs.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import * as ort from 'onnxruntime-web';
import { load, OrtkeepError } from '../../js/index.js';
import { REPO_ROOT } from '../../scripts/static-server.mjs';
import { FEEDS, maxAbsDiff } from '../browser/pages/feeds.js';
import { REAL_MODELS } from '../models.mjs';

ort.env.wasm.numThreads = 1;
const modelBytes = (name) => readFile(path.join(REPO_ROOT, REAL_MODELS.find((m) => m.name === name).path));

test("['webgpu', 'wasm'] without WebGPU: the pool runs on the CPU path, device 'cpu'", async () => {
  assert.equal(globalThis.navigator?.gpu, undefined, 'this test needs a runtime without WebGPU');
  const bytes = await modelBytes('silero_vad_v5');
  const session = await load(bytes, { ort, executionProviders: ['webgpu', 'wasm'] });
  const reference = await ort.InferenceSession.create(bytes, { executionProviders: ['wasm'] });
  for (const seed of [1, 2, 3]) {
    const ours = await session.run(FEEDS.silero_vad_v5(ort, seed));
    const theirs = await reference.run(FEEDS.silero_vad_v5(ort, seed));
    assert.deepEqual(ours.output.dims, theirs.output.dims);
    assert.equal(maxAbsDiff(ours, theirs), 0);
  }
  assert.equal(session.pool.stats().device, 'cpu');
  assert.equal(session.pool.device, 'cpu');
  session.pool.check();
  await session.dispose();
  await reference.release();
});

test('three un-awaited runs, the caller refills one buffer right after run(): each run sees its call-time data', async () => {
  const bytes = await modelBytes('silero_vad_v5');
  const session = await load(bytes, { ort });
  const reference = await ort.InferenceSession.create(bytes, { executionProviders: ['wasm'] });
  const shared = new Float32Array(512);
  const state = new Float32Array(2 * 128);
  const sr = new BigInt64Array([16000n]);
  const fill = (seed) => {
    for (let i = 0; i < shared.length; i++) shared[i] = Math.sin(i * 0.01 * seed) * 0.5;
  };
  const promises = [];
  const expected = [];
  for (const seed of [1, 2, 3]) {
    fill(seed);
    expected.push(
      await reference.run({
        input: new ort.Tensor('float32', shared.slice(), [1, 512]),
        state: new ort.Tensor('float32', state.slice(), [2, 1, 128]),
        sr: new ort.Tensor('int64', sr.slice(), []),
      }),
    );
  }
  for (const seed of [1, 2, 3]) {
    fill(seed);
    promises.push(
      session.run({
        input: { data: shared, dims: [1, 512] },
        state: { data: state, dims: [2, 1, 128] },
        sr: { data: sr, dims: [] },
      }),
    );
    shared.fill(99); // refilled before any run completes
  }
  const results = await Promise.all(promises);
  results.forEach((r, k) => assert.equal(maxAbsDiff(r, expected[k]), 0, `run ${k}`));
  assert.notEqual(maxAbsDiff(results[0], results[2]), 0, 'the three inputs must give different outputs');
  session.pool.check();
  await session.dispose();
  await reference.release();
});

test('typed-array, string, NaN, negative and huge dims on the first run: typed errors, then valid runs work', async () => {
  const bytes = await modelBytes('ppocr_v2_cls');
  const session = await load(bytes, { ort });
  const reference = await ort.InferenceSession.create(bytes, { executionProviders: ['wasm'] });
  const good = FEEDS.ppocr_v2_cls(ort, 1);
  const data = good.x.data;
  const cases = [
    [new Uint32Array([1, 3, 48, 192]), 'BAD_FEED', /array of integers; got a Uint32Array/],
    [['1', 3, 48, 192], 'BAD_FEED', /array of integers/],
    [[1, 3, NaN, 192], 'BAD_FEED', /array of integers/],
    ['1,3,48,192', 'BAD_FEED', /array of integers/],
    // the C pool's verdicts, worded by JS: which dim, what it got
    [[1, 3, 48, 2 ** 40], 'LIMIT', /dim 3 is 1099511627776; the largest the pool allocates is 2147483647/],
    [[1, -3, 48, 192], 'BAD_FEED', /dim 1 is negative/],
    [
      [1, 3, 48, 191],
      'BAD_FEED',
      /has 27648 elements but dims \[1, 3, 48, 191\] need 27504 elements \(110592 of 110016 bytes of float32\)/,
    ],
  ];
  for (const [dims, code, message] of cases) {
    await assert.rejects(
      session.run({ x: { data, dims } }),
      (e) => e instanceof OrtkeepError && e.code === code && /input 'x'/.test(e.message) && message.test(e.message),
      String(dims),
    );
  }
  session.pool.check();
  for (const seed of [1, 2]) {
    const ours = await session.run(FEEDS.ppocr_v2_cls(ort, seed));
    const theirs = await reference.run(FEEDS.ppocr_v2_cls(ort, seed));
    assert.equal(maxAbsDiff(ours, theirs), 0);
  }
  session.pool.check();
  await session.dispose();
  await reference.release();
});

test("debug: one line per pool decision (create, take, destroy), none for the steady-state reuse; the load machine's lines come first", async () => {
  const bytes = await modelBytes('ppocr_v2_cls');
  const lines = [];
  const session = await load(bytes, { ort, debug: (line) => lines.push(line) });
  const loadLines = lines.length;
  assert.ok(loadLines > 0 && lines.every((l) => l.startsWith('ortkeep: ')), lines.join('\n'));
  const out = session.outputNames[0];
  // on the wasm EP the pool steps aside unless a run keeps an output: keep one
  const run = async (w, keep = [out]) => {
    const r = await session.run({ x: { data: new Float32Array(3 * 48 * w), dims: [1, 3, 48, w] } }, { keep });
    if (keep.length) r[out].dispose();
  };
  await run(192, []);
  assert.equal(lines.length, loadLines, 'a run the pool steps aside from decides nothing');
  await run(192);
  // 110592 bytes of data in the 114688-byte size class C chose
  assert.deepEqual(lines.slice(loadLines), [
    "ortkeep pool: CREATE #1 input 'x' cpu, 114688 B held",
    `ortkeep pool: ADOPT #2 output '${out}' cpu, 8 B held`,
    `ortkeep pool: KEEP #2 output '${out}' cpu, 8 B held`,
  ]);
  const before = lines.length;
  await run(192);
  assert.deepEqual(
    lines.slice(before).map((l) => l.split(' ')[2]),
    ['ADOPT', 'KEEP'],
    'the same shape again: the input reused, no line for it',
  );
  await run(100);
  assert.match(lines.at(-3), /^ortkeep pool: (CREATE|TAKE) #\d+ input 'x' cpu, \d+ B held$/);
  session.pool.check();
  await session.dispose();
  assert.match(lines.at(-1), /^ortkeep pool: DESTROY #\d+ cpu, \d+ B held$/);
});

test("wasm EP, nothing kept: the pool steps aside (no pool tensor made or written), outputs equal plain onnxruntime-web and stay the caller's, under Promise.all too", async () => {
  const bytes = await modelBytes('silero_vad_v5');
  const session = await load(bytes, { ort, executionProviders: ['wasm'], memory: false });
  const reference = await ort.InferenceSession.create(bytes, { executionProviders: ['wasm'] });
  const first = await session.run(FEEDS.silero_vad_v5(ort, 1));
  const kept = { output: first.output.data.slice(), stateN: first.stateN.data.slice() };
  for (const seed of [1, 2, 3]) {
    const ours = await session.run(FEEDS.silero_vad_v5(ort, seed));
    const theirs = await reference.run(FEEDS.silero_vad_v5(ort, seed));
    assert.equal(maxAbsDiff(ours, theirs), 0, `seed ${seed}`);
    assert.notEqual(ours.stateN.data.buffer, first.stateN.data.buffer, 'a fresh output each run');
  }
  const together = await Promise.all([4, 5, 6].map((seed) => session.run(FEEDS.silero_vad_v5(ort, seed))));
  for (const [k, seed] of [4, 5, 6].entries()) {
    assert.equal(maxAbsDiff(together[k], await reference.run(FEEDS.silero_vad_v5(ort, seed))), 0, `seed ${seed}`);
  }
  assert.equal(new Set(together.map((r) => r.stateN.data.buffer)).size, 3, 'no output handed to two runs');
  assert.deepEqual(first.output.data, kept.output, "a later run never writes into an earlier run's output");
  assert.deepEqual(first.stateN.data, kept.stateN);
  // fetches: only those, as onnxruntime-web gives them
  const only = await session.run(FEEDS.silero_vad_v5(ort, 7), ['output']);
  assert.deepEqual(Object.keys(only), ['output']);
  // the typed errors of the pool path, word for word
  const bad = async (feeds, code, message) =>
    assert.rejects(session.run(feeds), (e) => e instanceof OrtkeepError && e.code === code && message.test(e.message));
  const good = FEEDS.silero_vad_v5(ort, 8);
  await bad({ ...good, extra: good.sr }, 'BAD_FEED', /'extra' is not an input of this model/);
  await bad({ input: good.input, state: good.state }, 'BAD_FEED', /input 'sr' is missing/);
  await bad({ ...good, sr: new ort.Tensor('float32', [16000], []) }, 'SHAPE', /input 'sr' must be int64, got float32/);
  await bad(
    { ...good, state: { data: new Float32Array(2 * 127), dims: [2, 1, 127] } },
    'SHAPE',
    /input 'state' dim 2 must be 128, got 127/,
  );
  await bad({ ...good, input: { data: new Float32Array(511), dims: [1, 512] } }, 'BAD_FEED', /has 511 elements/);
  await assert.rejects(session.run(good, ['nope']), (e) => e.code === 'INVALID_ARG');
  const stats = session.pool.stats();
  // 8 runs, and the 3 the C check refused (names and fetches are refused before)
  assert.equal(stats.passes, 11, JSON.stringify(stats));
  for (const k of ['creates', 'reuses', 'repins', 'takes', 'adopts', 'bytesHeld', 'liveTensors'])
    assert.equal(stats[k], 0, `${k}: ${JSON.stringify(stats)}`);
  session.pool.check();
  await session.dispose();
  assert.equal(session.pool.stats().passes, 11, 'the final counters keep them');
  await assert.rejects(session.run(good), (e) => e.code === 'DISPOSED');
  await reference.release();
});

test('wasm EP with keep: the pool path still runs (the kept state fed back as an input), equal plain onnxruntime-web', async () => {
  const bytes = await modelBytes('silero_vad_v5');
  const session = await load(bytes, { ort, executionProviders: ['wasm'], memory: false });
  const reference = await ort.InferenceSession.create(bytes, { executionProviders: ['wasm'] });
  let ours = await session.run(FEEDS.silero_vad_v5(ort, 1), { keep: ['stateN'] });
  let theirs = await reference.run(FEEDS.silero_vad_v5(ort, 1));
  for (const seed of [2, 3, 4]) {
    assert.equal(maxAbsDiff(ours, theirs), 0, `seed ${seed - 1}`);
    const feeds = FEEDS.silero_vad_v5(ort, seed);
    const next = await session.run({ ...feeds, state: ours.stateN }, { keep: ['stateN'] });
    ours.stateN.dispose();
    ours = next;
    theirs = await reference.run({ ...feeds, state: theirs.stateN });
  }
  assert.equal(maxAbsDiff(ours, theirs), 0);
  const stats = session.pool.stats();
  assert.equal(stats.passes, 0, JSON.stringify(stats));
  assert.ok(stats.creates > 0 && stats.adopts === 4, JSON.stringify(stats));
  ours.stateN.dispose();
  session.pool.check();
  await session.dispose();
  await reference.release();
});
