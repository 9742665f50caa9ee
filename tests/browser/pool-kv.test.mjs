// A KV-cache decoder generating 64 tokens on WebGPU (SwiftShader): `present`
// grows by one row per step and is fed back as `past`, the way
// transformers.js runs a decoder. GPUBuffers are counted per token (every
// GPUBuffer the page makes, onnxruntime's own included) for ortkeep and for
// plain onnxruntime-web keeping present on the GPU (preferredOutputLocation:
// 'gpu-buffer'); outputs are compared with onnxruntime-web's wasm EP.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { makeDecoder } from '../decoder-model.mjs';
import { useBrowser } from './browser-env.mjs';

const env = useBrowser({ webgpu: true });
const DECODER = '/build/models/decoder_step.onnx';
const TOKENS = 64;

describe('a KV decoder on WebGPU (SwiftShader)', () => {
  let page;
  before(async () => {
    makeDecoder();
    page = await env.newPage('/tests/browser/pages/pool.html');
    page.setDefaultTimeout(300000);
  });

  test(`${TOKENS} tokens: present served from size classes with headroom (at most one GPUBuffer per 16 tokens in steady state), y read back alone, equal to onnxruntime-web`, async () => {
    const r = await page.evaluate(
      async ({ url, tokens }) => {
        const { ort, ortkeep, gpu } = window;
        const x = (t) => Float32Array.from({ length: 8 }, (_, i) => Math.sin(t * 8 + i));
        const perToken = [];
        // ortkeep: state_out and present kept on the device and fed back; only y is read back
        const s = await ortkeep.load(url, { ort, executionProviders: ['webgpu'], memory: false });
        await s.formsReady; // the first visit's background form work makes GPUBuffers of its own; count the decoder's alone
        let kept = null;
        const ys = [];
        for (let t = 0; t < tokens; t++) {
          const c0 = gpu.created;
          const out = await s.run(
            {
              x: { data: x(t), dims: [1, 8] },
              state_in: kept?.state_out ?? { data: new Float32Array(8), dims: [1, 8] },
              past: kept?.present ?? { data: new Float32Array(8), dims: [1, 1, 8] },
            },
            { fetches: ['y'], keep: ['state_out', 'present'] },
          );
          if (kept) {
            s.pool.release(kept.state_out);
            s.pool.release(kept.present);
          }
          kept = out;
          ys.push(Array.from(out.y.data));
          perToken.push(gpu.created - c0);
        }
        const presentDims = [...kept.present.dims];
        const presentLocation = kept.present.location;
        const stats = s.pool.stats();
        const ok = s.pool.check();
        await s.dispose();
        // plain onnxruntime-web, present and state kept on the GPU between steps
        const plain = await ort.InferenceSession.create(url, {
          executionProviders: ['webgpu'],
          preferredOutputLocation: { state_out: 'gpu-buffer', present: 'gpu-buffer', y: 'cpu' },
        });
        let prev = null;
        const plainPerToken = [];
        for (let t = 0; t < tokens; t++) {
          const c0 = gpu.created;
          const out = await plain.run({
            x: new ort.Tensor('float32', x(t), [1, 8]),
            state_in: prev?.state_out ?? new ort.Tensor('float32', new Float32Array(8), [1, 8]),
            past: prev?.present ?? new ort.Tensor('float32', new Float32Array(8), [1, 1, 8]),
          });
          if (prev) {
            prev.state_out.dispose();
            prev.present.dispose();
          }
          prev = out;
          plainPerToken.push(gpu.created - c0);
        }
        prev.state_out.dispose();
        prev.present.dispose();
        await plain.release();
        // reference: wasm EP, CPU tensors
        const ref = await ort.InferenceSession.create(url, { executionProviders: ['wasm'] });
        let state = new Float32Array(8);
        let past = new Float32Array(8);
        let diff = 0;
        for (let t = 0; t < tokens; t++) {
          const out = await ref.run({
            x: new ort.Tensor('float32', x(t), [1, 8]),
            state_in: new ort.Tensor('float32', state, [1, 8]),
            past: new ort.Tensor('float32', past, [1, t + 1, 8]),
          });
          diff = Math.max(diff, ...Array.from(out.y.data, (v, i) => Math.abs(v - ys[t][i])));
          state = out.state_out.data;
          past = out.present.data;
        }
        await ref.release();
        return { perToken, plainPerToken, presentDims, presentLocation, stats, ok, diff };
      },
      { url: DECODER, tokens: TOKENS },
    );
    const steady = r.perToken.slice(16);
    const ours = steady.reduce((a, b) => a + b, 0) / steady.length;
    const plainSteady = r.plainPerToken.slice(16);
    const theirs = plainSteady.reduce((a, b) => a + b, 0) / plainSteady.length;
    console.log(
      `# KV decoder, ${TOKENS} tokens: GPUBuffers per token after token 16: ortkeep ${ours.toFixed(3)}, onnxruntime-web ${theirs.toFixed(3)}; ` +
        `per token ${r.perToken.join(' ')} (time per token: npm run bench, interleaved; timed here one after the other it read 1.26x, an order effect)`,
    );
    assert.ok(r.diff < 1e-5, `max |ours - wasm EP| = ${r.diff}`);
    assert.deepEqual(r.presentDims, [1, TOKENS + 1, 8]);
    assert.equal(r.presentLocation, 'gpu-buffer');
    assert.ok(ours <= 1 / 16, `ortkeep made ${ours} GPUBuffers per token in steady state`);
    assert.equal(r.stats.retries, 0, 'the learned growth never guessed wrong');
    assert.equal(r.ok, true);
  });
});
