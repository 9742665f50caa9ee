// The pool on what models declare and how runs fail, in Chromium on WebGPU
// (SwiftShader) and on wasm, every output compared with plain
// onnxruntime-web (wasm EP), shapes included:
// - outputs declared with no shape, with [], with a symbol no input binds,
//   with a wrong fixed dim, while the input dims change every run;
// - forced failures, each followed by valid runs on the same session and on
//   a second handle sharing it: a wrong preallocation, a bad feed that fails
//   inside onnxruntime after good ones, a GPUBuffer destroyed under the pool,
//   a lost device (GPUDevice.destroy()).
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { makeDeclaredModel } from '../declared-model.mjs';
import { useBrowser } from './browser-env.mjs';

const env = useBrowser({ webgpu: true });
const MODEL = '/build/models/declared.onnx';
// x lengths: 3 fits the lie ([3]), the others do not; back and forth
const LENGTHS = [3, 5, 2, 7, 3, 1, 6, 6, 4];

// In the page: helpers that run a session and the plain reference alike.
const PAGE_HELPERS = () => {
  const plain = (out) =>
    Object.fromEntries(
      Object.entries(out).map(([k, t]) => [k, { dims: [...t.dims], data: Array.from(t.data, Number) }]),
    );
  const xy = (n, k) => ({
    x: Float32Array.from({ length: n }, (_, i) => ((i * 3 + k) % 5) - 2),
    y: Float32Array.from({ length: n }, (_, i) => (i + k) % 3),
  });
  window.declared = {
    plain,
    feeds: (n, k) => {
      const { x, y } = xy(n, k);
      return { x: { data: x, dims: [n] }, y: { data: y, dims: [n] } };
    },
    plainFeeds: (n, k) => {
      const { x, y } = xy(n, k);
      return { x: new window.ort.Tensor('float32', x, [n]), y: new window.ort.Tensor('float32', y, [n]) };
    },
    /** One run of each, as plain objects; an error as 'OrtkeepError:CODE'. */
    async both(s, ref, n, k) {
      const ours = await s.run(this.feeds(n, k)).then(plain, (e) => `${e.name}:${e.code}: ${e.message}`);
      const theirs = plain(await ref.run(this.plainFeeds(n, k)));
      return { ours, theirs };
    },
  };
};

for (const ep of ['webgpu', 'wasm']) {
  describe(`declared output shapes and failed runs (${ep})`, () => {
    let page;
    before(async () => {
      makeDeclaredModel();
      page = await env.newPage('/tests/browser/pages/pool.html');
      page.setDefaultTimeout(120000);
      await page.evaluate(PAGE_HELPERS);
    });

    test('no shape, [], a symbol no input binds and a wrong fixed dim, with the input dims changing every run: equal to onnxruntime-web, the lie retried once then adopted', async () => {
      const r = await page.evaluate(
        async ({ url, ep, lengths }) => {
          const { ort, ortkeep, declared } = window;
          const s = await ortkeep.load(url, { ort, executionProviders: [ep], memory: false });
          const ref = await ort.InferenceSession.create(url, { executionProviders: ['wasm'] });
          const runs = [];
          for (let k = 0; k < lengths.length; k++) runs.push(await declared.both(s, ref, lengths[k], k));
          const stats = s.pool.stats();
          const ok = s.pool.check();
          await s.dispose();
          await ref.release();
          return { runs, stats, ok, specs: null };
        },
        { url: MODEL, ep, lengths: LENGTHS },
      );
      r.runs.forEach(({ ours, theirs }, k) => assert.deepEqual(ours, theirs, `run ${k} (x of ${LENGTHS[k]})`));
      assert.deepEqual(r.runs[0].ours.scalar.dims, []);
      assert.deepEqual(r.runs[1].ours.liar.dims, [5]);
      assert.deepEqual(r.runs[1].ours.twice.dims, [10]);
      assert.equal(r.stats.device, ep === 'webgpu' ? 'webgpu' : 'cpu');
      if (ep === 'webgpu') {
        // [3] held for the first run; the second (x of 5) failed on it, ran
        // once more with it adopted, and the lie is known from then on
        assert.equal(r.stats.retries, 1, JSON.stringify(r.stats));
        assert.equal(r.stats.distrusted, 1, JSON.stringify(r.stats));
      } else {
        assert.equal(r.stats.retries, 0, 'on wasm nothing is preallocated');
      }
      assert.equal(r.ok, true);
    });

    test('a bad feed that fails inside onnxruntime after good runs: a typed RUN error, every buffer accounted for, the next runs (and a second handle of the session) work', async () => {
      const r = await page.evaluate(
        async ({ url, ep }) => {
          const { ort, ortkeep, declared, liveOurs } = window;
          const s = await ortkeep.load(url, { ort, executionProviders: [ep] });
          const ref = await ort.InferenceSession.create(url, { executionProviders: ['wasm'] });
          const good = [];
          for (let k = 0; k < 3; k++) good.push(await declared.both(s, ref, 4, k));
          // x of 4, y of 3: both bind N, so the pool plans nothing on N; Add refuses
          const bad = await s
            .run({ x: { data: new Float32Array(4), dims: [4] }, y: { data: new Float32Array(3), dims: [3] } })
            .then(
              () => 'ran',
              (e) => `${e.name}:${e.code}`,
            );
          const okAfterBad = s.pool.check();
          const other = await ortkeep.load(url, { ort, executionProviders: [ep] });
          const after = [];
          for (let k = 0; k < 3; k++) after.push(await declared.both(k % 2 ? other : s, ref, 4 + k, k));
          const shared = other.info.cache?.tier === 'memory';
          const ok = s.pool.check();
          await s.dispose();
          await other.dispose();
          await ref.release();
          return { good, bad, okAfterBad, after, shared, ok, live: liveOurs() };
        },
        { url: MODEL, ep },
      );
      for (const { ours, theirs } of [...r.good, ...r.after]) assert.deepEqual(ours, theirs);
      assert.equal(r.bad, 'OrtkeepError:RUN');
      assert.equal(r.okAfterBad, true);
      assert.equal(r.shared, true, 'the second handle shares the session');
      assert.equal(r.ok, true);
      assert.equal(r.live, 0, 'every GPUBuffer ortkeep made is destroyed after dispose()');
    });
  });
}

describe('device failures under the pool (WebGPU, SwiftShader)', () => {
  let page;
  before(async () => {
    makeDeclaredModel();
    page = await env.newPage('/tests/browser/pages/pool.html');
    page.setDefaultTimeout(120000);
    await page.evaluate(PAGE_HELPERS);
  });

  test('a GPUBuffer of the pool destroyed under it: that run is a typed DEVICE error, the pool drops its buffers, the next runs equal onnxruntime-web', async () => {
    const r = await page.evaluate(async (url) => {
      const { ort, ortkeep, declared, gpu, liveOurs } = window;
      const s = await ortkeep.load(url, { ort, executionProviders: ['webgpu'], memory: false });
      const ref = await ort.InferenceSession.create(url, { executionProviders: ['wasm'] });
      const good = [];
      for (let k = 0; k < 3; k++) good.push(await declared.both(s, ref, 4, k));
      const ours = [...gpu.live].filter(
        (b) => b.label.startsWith('ortkeep:') && !b.label.startsWith('ortkeep:staging'),
      );
      ours.forEach((b) => b.destroy()); // someone else's code destroys the pool's buffers
      const failed = await s.run(declared.feeds(4, 9)).then(
        () => 'ran',
        (e) => `${e.name}:${e.code}`,
      );
      const okAfter = s.pool.check();
      const after = [];
      for (let k = 0; k < 3; k++) after.push(await declared.both(s, ref, 4 + (k % 2), k));
      const stats = s.pool.stats();
      await s.dispose();
      await ref.release();
      return { destroyed: ours.length, good, failed, okAfter, after, stats, live: liveOurs() };
    }, MODEL);
    assert.ok(r.destroyed > 0);
    for (const { ours, theirs } of r.good) assert.deepEqual(ours, theirs);
    assert.equal(r.failed, 'OrtkeepError:DEVICE');
    assert.equal(r.okAfter, true);
    for (const { ours, theirs } of r.after) assert.deepEqual(ours, theirs);
    assert.equal(r.live, 0);
  });

  test("the caller's own preferredOutputLocation 'gpu-buffer' and a failed run: typed RUN, then typed STATE errors, never a later run on the failed run's bindings", async () => {
    const r = await page.evaluate(async (url) => {
      const { ort, ortkeep, declared } = window;
      const s = await ortkeep.load(url, {
        ort,
        executionProviders: ['webgpu'],
        sessionOptions: { preferredOutputLocation: 'gpu-buffer' },
        memory: false,
      });
      const code = (p) =>
        p.then(
          () => 'ran',
          (e) => `${e.name}:${e.code}`,
        );
      const first = await code(s.run(declared.feeds(3, 1)));
      const bad = await code(
        s.run({ x: { data: new Float32Array(4), dims: [4] }, y: { data: new Float32Array(3), dims: [3] } }),
      );
      const next = await code(s.run(declared.feeds(3, 2)));
      const ok = s.pool.check();
      await s.dispose();
      return { first, bad, next, ok };
    }, MODEL);
    assert.deepEqual([r.first, r.bad, r.next], ['ran', 'OrtkeepError:RUN', 'OrtkeepError:STATE']);
    assert.equal(r.ok, true);
  });

  test('a lost device (GPUDevice.destroy()): typed DEVICE errors, no hang, every pool buffer released', async () => {
    const r = await page.evaluate(async (url) => {
      const { ort, ortkeep, declared } = window;
      const s = await ortkeep.load(url, { ort, executionProviders: ['webgpu'], memory: false });
      const before = await s.run(declared.feeds(3, 1)).then(
        () => 'ran',
        (e) => `${e.name}:${e.code}`,
      );
      (await ort.env.webgpu.device).destroy();
      await new Promise((resolve) => setTimeout(resolve, 50));
      const errors = [];
      for (let k = 0; k < 2; k++)
        errors.push(
          await s.run(declared.feeds(3, k)).then(
            () => 'ran',
            (e) => `${e.name}:${e.code}`,
          ),
        );
      const ok = s.pool.check();
      await s.dispose();
      return { before, errors, ok, stats: s.pool.stats() };
    }, MODEL);
    assert.equal(r.before, 'ran');
    assert.deepEqual(r.errors, ['OrtkeepError:DEVICE', 'OrtkeepError:DEVICE']);
    assert.equal(r.ok, true);
    assert.equal(r.stats.liveTensors, 0);
  });
});
