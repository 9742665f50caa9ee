// Capturing onnxruntime-web's optimized model in Chromium, through the
// derived loader of each bundle a page can import (the default JSEP bundle,
// the wasm-only bundle): each captured form passes the C reader, and a
// session created from each captured form at 'disabled' answers like the
// original (within 1e-4 absolute: fusions reorder float sums). What each
// form saves in creation is `npm run bench -- forms`'s to measure: a test
// times nothing.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assembleChunkedModel, CHUNKED_MODELS, REAL_MODELS } from '../models.mjs';
import { PROFILES } from '../../scripts/static-server.mjs';
import { useBrowser } from './browser-env.mjs';

// models as `vite preview` serves them: gzipped as they stream, no Content-Length, weak ETag
const env = useBrowser({ files: PROFILES.vitePreview });
const url = (name) => `/${REAL_MODELS.find((m) => m.name === name).path}`;
const TOLERANCE = 1e-4;
const LOADER = {
  jsep: 'ort-wasm-simd-threaded.jsep.mjs',
  wasm: 'ort-wasm-simd-threaded.mjs',
  asyncify: 'ort-wasm-simd-threaded.asyncify.mjs',
  jspi: 'ort-wasm-simd-threaded.jspi.mjs',
};

const MODELS = {
  jsep: ['silero_vad_v5', 'ppocr_v2_cls', 'ppocr_v4_det'],
  wasm: ['silero_vad_v5', 'ppocr_v2_cls'],
  asyncify: ['silero_vad_v5'],
  jspi: ['silero_vad_v5'],
};

for (const bundle of ['jsep', 'wasm', 'asyncify', 'jspi']) {
  describe(`Chromium, ${bundle} bundle`, () => {
    for (const name of MODELS[bundle]) {
      test(`${name}: .onnx and .ort captured at 'extended' reload at 'disabled' with the original's outputs`, async () => {
        const page = await env.newPage(`/tests/browser/pages/forms.html?bundle=${bundle}`);
        const line = [];
        for (const format of ['onnx', 'ort']) {
          const r = await page.evaluate(([n, u, f]) => window.captureAndCompare(n, u, f), [name, url(name), format]);
          assert.equal(r.loader, LOADER[bundle]);
          assert.ok(r.sameNames);
          assert.ok(r.readerIrVersion > 0, `the C reader accepts the captured .${format}`);
          if (format === 'ort') assert.equal(r.head, 'ORTM');
          for (const [reloaded, capturing] of r.diffs) {
            assert.ok(reloaded <= TOLERANCE, `${format}: reloaded form differs by ${reloaded}`);
            assert.ok(capturing <= TOLERANCE, `${format}: capturing session differs by ${capturing}`);
          }
          line.push(`.${format} ${r.size} bytes, capturing create ${Math.round(r.captureMs)} ms`);
        }
        console.log(`[forms chromium ${bundle}] ${name}: ${line.join('; ')}`);
        await page.context().close();
      });
    }
  });
}

test("Chromium, jsep bundle: isnet_quint8 (44 MB) captured in both forms, reloaded at 'disabled'", async () => {
  // Outputs are not compared: one run of isnet takes ~9 s on this machine.
  const model = CHUNKED_MODELS.find((m) => m.name === 'isnet_quint8');
  await assembleChunkedModel(model);
  const page = await env.newPage('/tests/browser/pages/forms.html');
  const line = [];
  for (const format of ['onnx', 'ort']) {
    const r = await page.evaluate(
      ([u, f]) => window.captureAndCompare('isnet_quint8', u, f, { seeds: [] }),
      [`/${model.path}`, format],
    );
    assert.ok(r.sameNames);
    assert.ok(r.readerIrVersion > 0);
    line.push(`.${format} ${r.size} bytes`);
  }
  console.log(`[forms chromium jsep] isnet_quint8: ${line.join('; ')}`);
  await page.context().close();
});

test("Chromium: a build derived for another onnxruntime-web version is not used: the page's own loader is derived in the page and captures", async () => {
  const page = await env.newPage('/tests/browser/pages/forms.html?noinstall=1');
  const r = await page.evaluate((u) => window.capturedFor('1.29.0', u), url('ppocr_v2_cls'));
  assert.equal(r.derived, 'page', JSON.stringify(r));
  assert.equal(r.version, await page.evaluate(() => window.ort.env.versions.web));
  assert.ok(r.bytes > 0 && r.irVersion > 0);
  await page.context().close();
});

test('Chromium: a CSP that does not allow the derived loader turns forms off (loader-blocked); sessions still work', async () => {
  const page = await env.newPage('/tests/browser/pages/forms.html?csp=1');
  const r = await page.evaluate((u) => window.captureUnderCsp('ppocr_v2_cls', u), url('ppocr_v2_cls'));
  assert.equal(r.refusal?.code, 'FORMS_OFF', JSON.stringify(r));
  assert.equal(r.refusal.reason, 'loader-blocked');
  assert.match(r.refusal.message, /Content-Security-Policy/);
  assert.ok(r.ran);
  await page.context().close();
});
