// Which session options key a form (js/forms/options-identity.js): every one
// that may change what onnxruntime's optimizer writes, in a canonical text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formOptionsSuffix, formOptionsText } from '../../js/forms/options-identity.js';

test('options that leave the optimized model alone keep the context as it was', async () => {
  const plain = {
    executionProviders: ['webgpu', 'wasm'],
    graphOptimizationLevel: 'all',
    logSeverityLevel: 3,
    intraOpNumThreads: 2,
    enableCpuMemArena: false,
    preferredOutputLocation: 'gpu-buffer',
    externalData: [{ path: 'm.onnx_data', data: 'https://x.test/m.onnx_data' }],
  };
  assert.equal(formOptionsText(plain), '');
  assert.equal(await formOptionsSuffix(plain), '');
  assert.equal(await formOptionsSuffix(undefined), '');
});

test('free-dimension overrides, provider options, config entries and unknown options each change the key', async () => {
  const variants = [
    { freeDimensionOverrides: { batch: 1 } },
    { freeDimensionOverrides: { batch: 3 } },
    { executionProviders: [{ name: 'webgpu', preferredLayout: 'NHWC' }] },
    { executionProviders: [{ name: 'webgpu', preferredLayout: 'NCHW' }] },
    { extra: { session: { disable_prepacking: '1' } } },
    { enableGraphCapture: true },
    { someFutureOption: 'x' },
  ];
  const suffixes = await Promise.all(variants.map(formOptionsSuffix));
  for (const s of suffixes) assert.match(s, /^;opts=[0-9a-f]{16}$/);
  assert.equal(new Set(suffixes).size, variants.length);
});

test('the key does not depend on the order options are written in', async () => {
  const a = { freeDimensionOverrides: { batch: 1, seq: 8 }, extra: { session: { a: '1', b: '2' } } };
  const b = { extra: { session: { b: '2', a: '1' } }, freeDimensionOverrides: { seq: 8, batch: 1 } };
  assert.equal(await formOptionsSuffix(a), await formOptionsSuffix(b));
  // a provider named only by an object with no options is the same as its name
  assert.equal(formOptionsText({ executionProviders: [{ name: 'wasm' }] }), '');
});
