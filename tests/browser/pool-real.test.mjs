// The tensor pool on what real models do: value-dependent output shapes
// (NonZero), outputs with symbolic or no declared dims, feeds refilled while
// runs queue, a bad first feed, two handles of one session at once (WebGPU,
// SwiftShader); and the usual fallback list in a Chromium without WebGPU.
// Every output is compared with onnxruntime-web's wasm EP on the same
// inputs, shapes included, and pool.check() runs after.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { launchBrowser } from '../../scripts/chromium.mjs';
import { REAL_MODELS } from '../models.mjs';
import { makeShapesModel } from '../shapes-model.mjs';
import { PROFILES } from '../../scripts/static-server.mjs';
import { useBrowser } from './browser-env.mjs';

// models as `vite preview` serves them: gzipped as they stream, no Content-Length, weak ETag
const env = useBrowser({ webgpu: true, files: PROFILES.vitePreview });
const SHAPES = '/build/models/shapes.onnx';
const VAD = `/${REAL_MODELS.find((m) => m.name === 'silero_vad_v5').path}`;
const JARVIS = `/${REAL_MODELS.find((m) => m.name === 'oww_hey_jarvis').path}`;

// In the page: run `session` and a wasm reference on the same x; the outputs
// as {name: {dims, data}} (numbers), and the largest difference.
const PAGE_HELPERS = () => {
  const plain = (out) =>
    Object.fromEntries(
      Object.entries(out).map(([k, t]) => [k, { dims: [...t.dims], data: Array.from(t.data, Number) }]),
    );
  window.compareRun = async (session, reference, x) => {
    const ours = plain(await session.run({ x: { data: Float32Array.from(x), dims: [x.length] } }));
    const theirs = plain(
      await reference.run({ x: new window.ort.Tensor('float32', Float32Array.from(x), [x.length]) }),
    );
    return { ours, theirs };
  };
  window.plainOut = plain;
};

describe('tensor pool on real-model shapes (WebGPU, SwiftShader)', () => {
  let page;
  before(async () => {
    makeShapesModel();
    page = await env.newPage('/tests/browser/pages/pool.html');
    page.setDefaultTimeout(120000);
    await page.evaluate(PAGE_HELPERS);
  });

  test('NonZero with changing counts, at the same and at changing input dims (all-zero too), a symbolic output and an output with no dims: equal to the wasm EP, shapes included', async () => {
    const r = await page.evaluate(async (url) => {
      const { ort, ortkeep } = window;
      const s = await ortkeep.load(url, { ort, executionProviders: ['webgpu'] });
      const reference = await ort.InferenceSession.create(url, { executionProviders: ['wasm'] });
      // NonZero runs on onnxruntime's CPU EP and reads the pooled GPUBuffer
      // of x back; onnxruntime-web keeps the size it first registered for a
      // GPUBuffer bound again to the same input, so the C pool never hands x
      // its last buffer with another size (N changes here, back and forth,
      // within one size class). An all-zero x gives a zero-size idx.
      const inputs = [
        [1, 0, 2, 0, 0],
        [0, 0, 0, 3, 0],
        [1, 2, 3],
        [0, 3, 0, 0, 0, 0, 7],
        [5, 0, 1, 0, 2],
        [0, 0, 0, 0],
        [1, 0, 2, 0, 0],
      ];
      const runs = [];
      for (const x of inputs) runs.push(await window.compareRun(s, reference, x));
      const stats = s.pool.stats();
      const ok = s.pool.check();
      await s.dispose();
      await reference.release();
      return { runs, stats, ok };
    }, SHAPES);
    const counts = [];
    for (const { ours, theirs } of r.runs) {
      assert.deepEqual(ours, theirs);
      counts.push(ours.idx.dims[1]);
    }
    assert.deepEqual(counts, [2, 1, 3, 2, 3, 0, 2], 'the NonZero counts change, at the same dims and with the dims');
    assert.equal(r.stats.device, 'webgpu');
    assert.equal(r.ok, true);
  });

  test('a symbolic output is pinned per shape: with x cycling through three sizes, after warm-up the pool makes no tensor per run; all outputs together make no more GPUBuffers than onnxruntime-web alone', async () => {
    const r = await page.evaluate(async (url) => {
      const { ort, ortkeep, gpu } = window;
      const x = (n, k) => ({ x: { data: Float32Array.from({ length: n }, (_, i) => ((i + k) % 3) - 1), dims: [n] } });
      const s = await ortkeep.load(url, { ort, executionProviders: ['webgpu'], memory: false });
      await s.formsReady; // the first visit's background form work makes GPUBuffers of its own
      const plainS = await ort.InferenceSession.create(url, { executionProviders: ['webgpu'] });
      const per = async (fn) => {
        for (let k = 0; k < 3; k++) await fn(k);
        const c0 = gpu.created;
        for (let k = 0; k < 10; k++) await fn(k);
        return (gpu.created - c0) / 10;
      };
      // the pool's own creations (onnxruntime makes its own staging buffers
      // to read x back for the CPU-EP NonZero, with or without ortkeep)
      const c0 = s.pool.stats().creates;
      const n = (k) => 5 + (k % 3);
      await per((k) => s.run(x(n(k), k), { fetches: ['y'] }));
      const warm = s.pool.stats().creates;
      await per((k) => s.run(x(n(k), k), { fetches: ['y'] }));
      const ours = (s.pool.stats().creates - warm) / 13;
      const oursAll = await per((k) => s.run(x(n(k), k)));
      const theirs = await per((k) => plainS.run({ x: new ort.Tensor('float32', x(n(k), k).x.data, [n(k)]) }));
      const ok = s.pool.check();
      await s.dispose();
      await plainS.release();
      return { ours, oursAll, theirs, ok, firstCreates: warm - c0 };
    }, SHAPES);
    assert.ok(r.firstCreates >= 1, 'the warm-up created the pinned tensors');
    assert.equal(r.ours, 0, 'the pinned symbolic output needs no new pool tensor per run');
    assert.ok(r.oursAll <= r.theirs, `ortkeep ${r.oursAll} GPUBuffers per run vs onnxruntime-web ${r.theirs}`);
    assert.equal(r.ok, true);
  });

  test('typed-array, string, NaN and huge dims are typed errors before the pool changes; the next valid runs work', async () => {
    const r = await page.evaluate(async (url) => {
      const { ort, ortkeep } = window;
      const s = await ortkeep.load(url, { ort, executionProviders: ['webgpu'], memory: false });
      const reference = await ort.InferenceSession.create(url, { executionProviders: ['wasm'] });
      const bad = [new Uint32Array([5]), ['5'], [NaN], [2 ** 40]];
      const errors = [];
      for (const dims of bad) {
        errors.push(
          await s.run({ x: { data: new Float32Array(5), dims } }).then(
            () => 'ran',
            (e) => `${e.name}:${e.code}`,
          ),
        );
      }
      const good = [];
      for (const x of [
        [1, 0, 3, 0, 5],
        [0, 2, 0, 4, 0],
      ])
        good.push(await window.compareRun(s, reference, x));
      const ok = s.pool.check();
      await s.dispose();
      await reference.release();
      return { errors, good, ok };
    }, SHAPES);
    // dims that are not integers: BAD_FEED at the call; a dim past 2^31-1: the C pool's LIMIT
    assert.deepEqual(r.errors, [
      'OrtkeepError:BAD_FEED',
      'OrtkeepError:BAD_FEED',
      'OrtkeepError:BAD_FEED',
      'OrtkeepError:LIMIT',
    ]);
    for (const { ours, theirs } of r.good) assert.deepEqual(ours, theirs);
    assert.equal(r.ok, true);
  });

  test('three un-awaited runs, the caller refilling one buffer after each call: each run computes on what it was given', async () => {
    const r = await page.evaluate(async (url) => {
      const { ort, ortkeep } = window;
      const s = await ortkeep.load(url, { ort, executionProviders: ['webgpu'], memory: false });
      const reference = await ort.InferenceSession.create(url, { executionProviders: ['wasm'] });
      const given = [
        [1, 0, 2, 0],
        [0, 0, 3, 0],
        [4, 5, 6, 7],
      ];
      const buf = new Float32Array(4);
      const pending = [];
      for (const x of given) {
        buf.set(x);
        pending.push(s.run({ x: { data: buf, dims: [4] } }).then(window.plainOut)); // outputs are pooled: copy each as it comes
      }
      buf.fill(-9);
      const ours = await Promise.all(pending);
      const theirs = [];
      for (const x of given)
        theirs.push(window.plainOut(await reference.run({ x: new ort.Tensor('float32', Float32Array.from(x), [4]) })));
      const ok = s.pool.check();
      await s.dispose();
      await reference.release();
      return { ours, theirs, ok };
    }, SHAPES);
    assert.deepEqual(r.ours, r.theirs);
    assert.equal(r.ok, true);
  });

  test('two handles of one model (one shared onnxruntime session) running at once: no "Session already started", every output right', async () => {
    // It hung at random, about once in four runs beside a CPU hog (a deadlock
    // between the two loads and a background revision of an earlier load,
    // fixed 2026-12-08; forms-tiers reproduces it at will): where each load
    // got to is recorded, and read out at a deadline, not a 10-minute hang.
    const done = page.evaluate(async (url) => {
      const { ort, ortkeep } = window;
      const reached = (window.reached = []);
      const [a, b] = await Promise.all(
        [1, 2].map((k) =>
          ortkeep
            .load(url, { ort, executionProviders: ['webgpu'], onProgress: (e) => reached.push(`${k}:${e.phase}`) })
            .then((s) => {
              reached.push(`${k}:loaded`);
              return s;
            }),
        ),
      );
      const reference = await ort.InferenceSession.create(url, { executionProviders: ['wasm'] });
      reached.push('reference');
      const xs = Array.from({ length: 6 }, (_, k) => Array.from({ length: 6 }, (_, i) => ((i * 7 + k) % 4) - 1));
      const ours = await Promise.all(
        xs.map((x, k) =>
          (k % 2 ? a : b).run({ x: { data: Float32Array.from(x), dims: [x.length] } }).then(window.plainOut),
        ),
      );
      reached.push('runs');
      const theirs = [];
      for (const x of xs)
        theirs.push(
          window.plainOut(await reference.run({ x: new ort.Tensor('float32', Float32Array.from(x), [x.length]) })),
        );
      const shared = a.info.cache?.tier === 'memory' || b.info.cache?.tier === 'memory';
      const ok = a.pool.check();
      await a.dispose();
      await b.dispose();
      await reference.release();
      return { ours, theirs, shared, ok };
    }, SHAPES);
    let timer;
    const r = await Promise.race([done, new Promise((resolve) => (timer = setTimeout(resolve, 90_000, null)))]);
    clearTimeout(timer);
    if (!r) {
      // where each load got to (no phase: stopped before reading or downloading), the page's Web Locks,
      // and whether onnxruntime-web's GPU device still finishes work (a wedged GPU stack, not ortkeep)
      const seen = await page.evaluate(async () => {
        const within = (p) =>
          Promise.race([p, new Promise((resolve) => setTimeout(resolve, 5000, 'no answer in 5 s'))]);
        const device = await within(Promise.resolve(window.ort.env.webgpu?.device));
        const ortDevice = device?.queue
          ? await within(device.queue.onSubmittedWorkDone().then(() => 'finishes work'))
          : String(device);
        return { reached: window.reached, locks: await navigator.locks.query(), ortDevice };
      });
      assert.fail(`not done in 90 s: ${JSON.stringify(seen)}`);
    }
    assert.equal(r.shared, true, "the second handle shares the first one's session");
    assert.deepEqual(r.ours, r.theirs);
    assert.equal(r.ok, true);
  });

  test("a real model with an int64 control input (silero v5's sr) on WebGPU: sr stays on the CPU, so ortkeep makes no more GPUBuffers per run than onnxruntime-web alone; outputs equal", async () => {
    const r = await page.evaluate(async (url) => {
      const { ort, ortkeep, gpu } = window;
      const feeds = (k) => ({
        input: new ort.Tensor(
          'float32',
          Float32Array.from({ length: 512 }, (_, i) => Math.sin((i + k * 512) / 7)),
          [1, 512],
        ),
        state: new ort.Tensor('float32', new Float32Array(256), [2, 1, 128]),
        sr: new ort.Tensor('int64', BigInt64Array.from([16000n]), []),
      });
      const per = async (fn) => {
        for (let k = 0; k < 3; k++) await fn(k);
        const c0 = gpu.created;
        for (let k = 0; k < 10; k++) await fn(k);
        return (gpu.created - c0) / 10;
      };
      const s = await ortkeep.load(url, { ort, executionProviders: ['webgpu'], memory: false });
      await s.formsReady; // the background form work's sessions make GPUBuffers of their own
      const plain = await ort.InferenceSession.create(url, { executionProviders: ['webgpu'] });
      const ours = await per((k) => s.run(feeds(k)));
      const theirs = await per((k) => plain.run(feeds(k)));
      const a = await s.run(feeds(5));
      const b = await plain.run(feeds(5));
      const diff = Math.max(
        ...Array.from(a.output.data, (v, i) => Math.abs(v - b.output.data[i])),
        ...Array.from(a.stateN.data, (v, i) => Math.abs(v - b.stateN.data[i])),
      );
      const ok = s.pool.check();
      await s.dispose();
      await plain.release();
      return { ours, theirs, diff, ok };
    }, VAD);
    assert.ok(r.ours <= r.theirs, `ortkeep ${r.ours} GPUBuffers per run vs onnxruntime-web ${r.theirs}`);
    assert.ok(r.diff < 1e-5, `max |ours - plain| = ${r.diff}`);
    assert.equal(r.ok, true);
  });
});

describe('keep on an output whose dims the model leaves unknown (silero v5 stateN), WebGPU', () => {
  let page;
  before(async () => {
    page = await env.newPage('/tests/browser/pages/pool.html');
    page.setDefaultTimeout(300000);
  });

  test("stateN kept and fed back as state: a gpu-buffer from the first run on, outputs equal plain onnxruntime-web's chain, GPUBuffers per run no more than onnxruntime-web's own preferredOutputLocation", async () => {
    const r = await page.evaluate(async (url) => {
      const { ort, ortkeep, gpu } = window;
      const input = (k) =>
        new ort.Tensor(
          'float32',
          Float32Array.from({ length: 512 }, (_, i) => Math.sin((i + k * 512) / 7)),
          [1, 512],
        );
      const sr = () => new ort.Tensor('int64', BigInt64Array.from([16000n]), []);
      const zeros = () => new ort.Tensor('float32', new Float32Array(256), [2, 1, 128]);
      const STEPS = 14;
      // the reference: plain onnxruntime-web, CPU tensors, state fed back
      const cpu = await ort.InferenceSession.create(url, { executionProviders: ['webgpu'] });
      const want = [];
      let state = zeros();
      for (let k = 0; k < STEPS; k++) {
        const o = await cpu.run({ input: input(k), state, sr: sr() });
        want.push(o.output.data[0]);
        state = o.stateN;
      }
      await cpu.release();
      // plain onnxruntime-web keeping stateN on the GPU (its own best option)
      const plain = await ort.InferenceSession.create(url, {
        executionProviders: ['webgpu'],
        preferredOutputLocation: { stateN: 'gpu-buffer' },
      });
      const perRun = async (step) => {
        let c0 = 0;
        for (let k = 0; k < STEPS; k++) {
          if (k === 4) c0 = gpu.created;
          await step(k);
        }
        return (gpu.created - c0) / (STEPS - 4);
      };
      state = zeros();
      const theirs = await perRun(async (k) => {
        const o = await plain.run({ input: input(k), state, sr: sr() });
        if (k > 0) state.dispose();
        state = o.stateN;
      });
      state.dispose?.();
      await plain.release();
      const s = await ortkeep.load(url, { ort, executionProviders: ['webgpu'], memory: false });
      await s.formsReady; // its background sessions make GPUBuffers of their own
      const locations = [];
      let diff = 0;
      state = zeros();
      const ours = await perRun(async (k) => {
        const o = await s.run({ input: input(k), state, sr: sr() }, { keep: ['stateN'] });
        locations.push(o.stateN.location);
        diff = Math.max(diff, Math.abs(o.output.data[0] - want[k]));
        if (k > 0) state.dispose();
        state = o.stateN;
      });
      const kept = Array.from(await state.getData()).length;
      state.dispose();
      const ok = s.pool.check();
      await s.dispose();
      return { ours, theirs, diff, locations, kept, ok };
    }, VAD);
    console.log(
      `# silero stateN kept: GPUBuffers per run ${r.ours} (onnxruntime-web preferredOutputLocation ${r.theirs}), max diff ${r.diff}`,
    );
    assert.deepEqual(new Set(r.locations), new Set(['gpu-buffer']), r.locations.join(' '));
    assert.equal(r.kept, 256);
    assert.ok(r.diff < 1e-5, `max |ours - plain| = ${r.diff}`);
    assert.ok(r.ours <= r.theirs, `ortkeep ${r.ours} GPUBuffers per run vs onnxruntime-web ${r.theirs}`);
    assert.equal(r.ok, true);
  });
});

describe('fallback execution-provider lists in a Chromium without WebGPU', () => {
  let browser;
  let page;
  before(async () => {
    browser = await launchBrowser(); // no --enable-unsafe-webgpu: no adapter
    const context = await browser.newContext();
    page = await context.newPage();
    await page.goto(`${env.server.origin}/tests/browser/pages/pool.html`);
    await page.waitForFunction(() => window.ready === true);
  });
  after(async () => {
    await browser?.close();
  });

  test("['webgpu', 'wasm'] on a model whose outputs all have fixed dims (onnxruntime-web refuses a gpu-buffer output location on wasm)", async () => {
    const r = await page.evaluate(async (url) => {
      const { ort, ortkeep, feeds } = window;
      const x = () => ({ 'x.1': feeds.noise(ort, [1, 16, 96], 3) });
      const s = await ortkeep.load(url, { ort, executionProviders: ['webgpu', 'wasm'], memory: false });
      const reference = await ort.InferenceSession.create(url, { executionProviders: ['wasm'] });
      const failed = await s.run(x()).then(
        () => null,
        (e) => `${e.code}: ${e.message}`,
      );
      const diff = failed ?? feeds.maxAbsDiff(await s.run(x()), await reference.run(x()));
      const device = s.pool.stats().device;
      await s.dispose();
      await reference.release();
      return { diff, device };
    }, JARVIS);
    assert.equal(r.diff, 0);
    assert.equal(r.device, 'cpu');
  });

  for (const eps of [
    ['webgpu', 'wasm'],
    ['webnn', 'wasm'],
  ]) {
    test(`executionProviders ${JSON.stringify(eps)}: load and run work on the CPU path, stats say so, outputs equal the wasm EP`, async () => {
      const r = await page.evaluate(
        async ({ url, eps }) => {
          const { ort, ortkeep, feeds } = window;
          const adapter = await navigator.gpu?.requestAdapter?.().catch(() => null);
          const s = await ortkeep.load(url, { ort, executionProviders: eps, memory: false });
          const reference = await ort.InferenceSession.create(url, { executionProviders: ['wasm'] });
          const diffs = [];
          for (const seed of [1, 2, 3])
            diffs.push(
              feeds.maxAbsDiff(
                await s.run(feeds.FEEDS.silero_vad_v5(ort, seed)),
                await reference.run(feeds.FEEDS.silero_vad_v5(ort, seed)),
              ),
            );
          const out = { adapter: !!adapter, diffs, device: s.pool.stats().device, ok: s.pool.check() };
          await s.dispose();
          await reference.release();
          return out;
        },
        { url: VAD, eps },
      );
      assert.equal(r.adapter, false, 'this Chromium has no WebGPU adapter');
      assert.deepEqual(r.diffs, [0, 0, 0]);
      assert.equal(r.device, 'cpu');
      assert.equal(r.ok, true);
    });
  }
});
