// Big models, opt-in (`npm run test:large`; minutes and gigabytes, not part
// of `npm test`): generated external-data models (tests/fixtures/
// make_big_model.py) of about 600 MB (two files) and 2.5 GB (two files of
// 1.25 GB) load through ortkeep in Chromium, are stored in IndexedDB with
// their data files, and after a browser restart load again from IndexedDB
// with zero requests for every file; the outputs are the rows the generator
// wrote; the core's wasm memory stays under 8 MiB whatever the model's size.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { makeBigModel } from '../models.mjs';
import { useCacheBrowser } from '../browser/cache-env.mjs';

const env = useCacheBrowser();
const MODELS = [
  { name: '600 MB', dir: 'build/fixtures/big600', mb: 600, files: 2 },
  { name: '2.5 GB', dir: 'build/fixtures/big2500', mb: 2560, files: 2 },
];
const LIMIT = 8 << 20;

before(() => {
  for (const m of MODELS) makeBigModel([m.dir, m.mb, m.files]);
});
after(() => env.reset?.().catch(() => {}));

/** Loads, checks four rows of each table against the generator's formula, reports the tier and timings. */
function loadAndCheck(page, url) {
  return page.evaluate(async (url) => {
    const { ortkeep, ortDirect: ort } = window;
    const core = await (await import('/js/core/module.js')).getCore();
    const t0 = performance.now();
    const s = await ortkeep.load(url, { ort, memory: false });
    const ms = performance.now() - t0;
    const ids = [0n, 1n, 7777n, 123457n];
    const out = await s.run({ ids: new ort.Tensor('int64', BigInt64Array.from(ids), [4]) });
    const bad = [];
    for (const [name, t] of Object.entries(out)) {
      const n = t.dims[1];
      const tableRows =
        s.info.model.externalData.find((e) => e.initializer === `table${name.slice(1)}`).length / (n * 4);
      ids.forEach((id, i) => {
        const r = Number(id) % tableRows;
        for (const c of [0, 1, 511, 1023]) {
          const want = Math.fround(Math.fround(((r * n + c) % 65521) / 65521) - 0.5);
          if (t.data[i * n + c] !== want) bad.push({ name, r, c, got: t.data[i * n + c], want });
        }
      });
    }
    const info = {
      tier: s.info.cache.tier,
      stored: s.info.cache.stored,
      timings: s.info.cache.timings,
      warnings: s.info.warnings,
    };
    await s.dispose();
    return { ms, info, bad: bad.slice(0, 5), outputs: Object.keys(out).length, core: core.memoryBytes() };
  }, url);
}

for (const m of MODELS) {
  test(`${m.name} in ${m.files} external data files: loads, is stored, reloads from IndexedDB after a restart with no request`, async () => {
    await env.reset();
    const url = `/${m.dir}/big.onnx`;
    const files = [url, ...Array.from({ length: m.files }, (_, i) => `/${m.dir}/big.onnx_data${i ? `_${i}` : ''}`)];
    let page = await env.newPage();
    const cold = await loadAndCheck(page, url);
    await page.close();
    assert.deepEqual(cold.bad, []);
    assert.equal(cold.outputs, m.files);
    assert.equal(cold.info.tier, 'network');
    assert.equal(cold.info.stored, true, JSON.stringify(cold.info));
    assert.deepEqual(
      files.map((f) => env.server.count(f)),
      files.map(() => 1),
    );

    await env.restart();
    env.server.resetCounts();
    page = await env.newPage();
    const warm = await loadAndCheck(page, url);
    const list = await page.evaluate(() => window.ortkeep.cache.list());
    await page.close();
    assert.deepEqual(warm.bad, []);
    assert.equal(warm.info.tier, 'indexeddb');
    assert.deepEqual(
      files.map((f) => env.server.count(f)),
      files.map(() => 0),
      'no request for the model or any data file',
    );
    assert.equal(list.length, 1);
    assert.equal(list[0].dataFiles.length, m.files);
    const mib = (n) => `${(n / 1048576).toFixed(1)} MiB`;
    console.log(
      `# ${m.name}: cold ${(cold.ms / 1000).toFixed(1)} s, warm ${(warm.ms / 1000).toFixed(1)} s (read ${(warm.info.timings.readMs / 1000).toFixed(1)} s + data ${((warm.info.timings.dataMs ?? 0) / 1000).toFixed(1)} s + create ${(warm.info.timings.createMs / 1000).toFixed(1)} s); core wasm memory cold ${mib(cold.core)}, warm ${mib(warm.core)}`,
    );
    assert.ok(cold.core < LIMIT, `core after the cold load: ${mib(cold.core)}`);
    assert.ok(warm.core < LIMIT, `core after the warm load: ${mib(warm.core)}`);
  });
}
