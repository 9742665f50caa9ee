// Quota: with the origin's quota forced small (CDP
// Storage.overrideQuotaForOrigin), a second model evicts the least recently
// used one and is stored; a model bigger than the quota loads uncached with
// a QUOTA warning. Outputs stay equal to onnxruntime-web's.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { modelBytes, modelPath, useCacheBrowser } from './cache-env.mjs';

const env = useCacheBrowser();
const DET = modelPath('ppocr_v4_det');

async function withQuota(page, quotaSize, fn) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Storage.overrideQuotaForOrigin', { origin: env.origin, quotaSize });
  try {
    return await fn();
  } finally {
    await cdp.send('Storage.overrideQuotaForOrigin', { origin: env.origin });
    await cdp.detach();
  }
}

/** The same real model at two URLs: two cache entries of one size. */
async function serveTwo() {
  const bytes = await modelBytes('ppocr_v4_det');
  env.handler = (req, res, { pathname, serveBytes }) => {
    if (pathname !== '/q/a.onnx' && pathname !== '/q/b.onnx') return false;
    serveBytes(req, res, bytes, { etag: '"q"' });
    return true;
  };
  return bytes.length;
}

/** A fresh cache and both models served; runs fn(page) with the quota at `fraction` of one model's size. */
async function underQuota(fraction, fn) {
  await env.reset();
  const size = await serveTwo();
  const page = await env.newPage();
  return { page, r: await withQuota(page, Math.floor(size * fraction), () => fn(page)) };
}

test('quota smaller than two models: the least recently used is evicted, then the new one is stored', async () => {
  const { page, r } = await underQuota(1.6, (page) =>
    page.evaluate(async (ref) => {
      const a = await window.check('/q/a.onnx', 'ppocr_v4_det', {}, ref);
      const b = await window.check('/q/b.onnx', 'ppocr_v4_det', {}, ref);
      return { a, b, list: (await window.ortkeep.cache.list()).map((e) => e.url) };
    }, DET),
  );
  assert.deepEqual(
    [r.a.diffs, r.b.diffs],
    [
      [0, 0],
      [0, 0],
    ],
  );
  assert.equal(r.a.cache.stored, true);
  assert.equal(r.b.cache.stored, true, JSON.stringify(r.b));
  assert.deepEqual(r.list, [`${env.origin}/q/b.onnx`]);
  assert.deepEqual(r.b.warnings, []);
  await page.close();
});

test('quota smaller than one model: loaded uncached with a QUOTA warning', async () => {
  const { page, r } = await underQuota(0.5, (page) =>
    page.evaluate(async (ref) => {
      const a = await window.check('/q/a.onnx', 'ppocr_v4_det', {}, ref);
      return { a, list: await window.ortkeep.cache.list(), raw: await window.raw.dump() };
    }, DET),
  );
  assert.deepEqual(r.a.diffs, [0, 0]);
  assert.equal(r.a.cache.tier, 'network');
  assert.equal(r.a.cache.stored, false);
  assert.ok(r.a.warnings.includes('QUOTA'), JSON.stringify(r.a.warnings));
  assert.deepEqual(r.list, []);
  assert.deepEqual(r.raw.chunks, []);
  await page.close();
});
