// The core's wasm memory after loading isnet (44 MB) in Chromium, cold
// (download, hash, validate, store) and warm (from IndexedDB, in a new page
// and in the same page):
// the model is streamed through the core in pieces, never copied in whole,
// so the core stays under 8 MiB (it was 58 MiB when the reader took the
// whole model). Wasm memory never shrinks, so its size after a load is the
// load's peak.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { assembleChunkedModel, CHUNKED_MODELS } from '../models.mjs';
import { useCacheBrowser } from './cache-env.mjs';

const env = useCacheBrowser();
const ISNET = CHUNKED_MODELS.find((m) => m.name === 'isnet_quint8');
const URL_PATH = `/${ISNET.path}`;
const LIMIT = 8 << 20;

before(() => assembleChunkedModel(ISNET));

/** Loads in a fresh page; the tier and the core's memory before and after. */
async function loadAndMeasure(page) {
  return page.evaluate(async (u) => {
    const core = await (await import('/js/core/module.js')).getCore();
    const before = core.memoryBytes();
    const s = await window.ortkeep.load(u, { memory: false });
    const tier = s.info.cache.tier;
    await s.dispose();
    return { tier, before, after: core.memoryBytes() };
  }, URL_PATH);
}

test('isnet cold and warm: the core stays under 8 MiB of wasm memory', async () => {
  await env.reset();
  const page = await env.newPage();
  const cold = await loadAndMeasure(page);
  const coldThenWarm = await loadAndMeasure(page); // both in one page: the sum
  await page.close();
  const page2 = await env.newPage();
  const warm = await loadAndMeasure(page2);
  await page2.close();
  const mib = (n) => `${(n / 1048576).toFixed(1)} MiB`;
  console.log(
    `core wasm memory, isnet_quint8: cold ${mib(cold.before)} -> ${mib(cold.after)}, warm ${mib(warm.before)} -> ${mib(warm.after)}, both in one page ${mib(coldThenWarm.after)}`,
  );
  assert.equal(cold.tier, 'network');
  assert.equal(warm.tier, 'indexeddb');
  assert.equal(coldThenWarm.tier, 'indexeddb');
  assert.equal(env.server.count(URL_PATH), 1, 'the warm load made no request');
  assert.ok(cold.after < LIMIT, `cold: ${mib(cold.after)}`);
  assert.ok(warm.after < LIMIT, `warm: ${mib(warm.after)}`);
  assert.ok(coldThenWarm.after < LIMIT, `cold then warm in one page: ${mib(coldThenWarm.after)}`);
});
