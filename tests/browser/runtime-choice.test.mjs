// Which onnxruntime-web build a page starts (js/runtime-choice.js, the C rule
// ok_runtime_flavour): the page's first load() listing only 'wasm' starts the
import { setTimeout as sleep } from 'node:timers/promises';
// plain build (the page requests ort-wasm-simd-threaded.wasm, never the
// 28 MB .jsep.wasm), forms on or off; 'webgpu' first, runtime: 'full', an
// earlier visit that listed 'webgpu', or files the app named start the
// entry's own build. The plain build is a head start, never a rule: a later
// WebGPU load (load(), either drop-in, transformers.js) runs on WebGPU on the
// entry's build started beside it (js/runtime-beside.js), as onnxruntime-web
// alone would, and the next visit starts the full build. Outputs equal
// onnxruntime-web's own in every case. WebGPU is SwiftShader's here.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { modelPath, useCacheBrowser } from './cache-env.mjs';

const env = useCacheBrowser({ webgpu: true });
const SILERO = modelPath('silero_vad_v5');

/** A fresh page on a clean origin (cache and record cleared), and the .wasm files it requests. */
async function freshVisit({ clear = true } = {}) {
  if (clear) await env.reset();
  return visit();
}

async function visit() {
  const page = await env.newPage();
  const wasm = [];
  page.on('request', (r) => {
    const name = new URL(r.url()).pathname.split('/').pop();
    if (name.endsWith('.wasm') && name.startsWith('ort-wasm')) wasm.push(name);
  });
  return { page, wasm };
}

/** In the page: load through ortkeep, two runs against onnxruntime-web's own session on the wasm EP. */
async function loadAndCompare(url, options) {
  const warnings = [];
  try {
    const r = await window.check(url, 'silero_vad_v5', { ...options, onWarning: (w) => warnings.push(w.code) });
    return { ok: true, diffs: r.diffs, warnings: [...warnings, ...r.warnings] };
  } catch (e) {
    return { ok: false, code: e.code, message: e.message, warnings };
  }
}

const load = (page, options) =>
  page.evaluate(`(${loadAndCompare})(${JSON.stringify(SILERO)}, ${JSON.stringify(options)})`);

test("load() listing only 'wasm' starts the plain build, forms on (captured in it) and off; outputs equal onnxruntime-web's", async () => {
  for (const forms of [true, false]) {
    const { page, wasm } = await freshVisit();
    // what the load's background work kept: a form, or each one's verdict
    await page.evaluate(() => {
      const load = window.ortkeep.load;
      window.ortkeep.load = async (...a) => {
        const s = await load(...a);
        window.background = s.formsReady;
        return s;
      };
    });
    const r = await load(page, { forms, executionProviders: ['wasm'] });
    assert.equal(r.ok, true, r.message);
    assert.deepEqual(r.diffs, [0, 0]);
    assert.deepEqual([...new Set(wasm)], ['ort-wasm-simd-threaded.wasm'], `forms ${forms}: ${wasm}`);
    if (forms) {
      // a form captured and verified in the plain build: kept, or judged
      // slower than the original (this shared machine times it), never
      // failed to capture or to probe; a kept one serves the next visit
      const background = await page.evaluate(() => window.background);
      assert.ok(
        background.stored || (background.failed.length && background.failed.every((f) => f.reason === 'form-slower')),
        JSON.stringify(background),
      );
      await page.evaluate(() => window.ortkeep.cache.settled());
      await page.close();
      const next = await visit();
      const r2 = await next.page.evaluate(async (url) => {
        const s = await window.ortkeep.load(url, { forms: true });
        const form = s.info.form?.chosen ?? null;
        await s.dispose();
        return form;
      }, SILERO);
      assert.notEqual(r2, null);
      const kept = JSON.stringify(background);
      if (background.stored) assert.notEqual(r2, 'original', `the second visit is served in the form kept: ${kept}`);
      else assert.equal(r2, 'original', `no form kept: the second visit is served the original: ${kept}`);
      assert.deepEqual([...new Set(next.wasm)], ['ort-wasm-simd-threaded.wasm']);
      await next.page.close();
    } else await page.close();
  }
});

/**
 * In the page: GPUBuffers made by any device from here on (GPUDevice.prototype.createBuffer, wrapped once),
 * then a load through ortkeep: its outputs against onnxruntime-web's own on the wasm EP, where its outputs lie,
 * and whether they are the app's Tensors.
 */
async function loadOnDevice(url, { keep, ...options }) {
  if (!window.gpuMade) {
    window.gpuMade = 0;
    const create = GPUDevice.prototype.createBuffer;
    GPUDevice.prototype.createBuffer = function counted(...a) {
      window.gpuMade++;
      return create.apply(this, a);
    };
  }
  const { ortkeep, ortDirect: ort, feeds } = window;
  const warnings = [];
  const before = window.gpuMade;
  let s;
  try {
    s = await ortkeep.load(url, { ...options, onWarning: (w) => warnings.push(w.code) });
  } catch (e) {
    return { ok: false, code: e.code, message: e.message, warnings };
  }
  const ref = await ort.InferenceSession.create(await (await fetch(url)).arrayBuffer());
  const diffs = [];
  const locations = [];
  let appTensors = true;
  for (const seed of [1, 2]) {
    const out = await s.run(feeds.FEEDS.silero_vad_v5(ort, seed), keep ? { keep: s.outputNames } : {});
    const want = await ref.run(feeds.FEEDS.silero_vad_v5(ort, seed));
    const got = await feeds.onCpu(ort, out); // kept GPU outputs back to the pool, through the app's Tensor
    locations.push(...got.locations);
    appTensors &&= got.own;
    diffs.push(feeds.maxAbsDiff(got.cpu, want));
  }
  await ref.release();
  await s.dispose();
  return {
    ok: true,
    diffs,
    warnings,
    gpuBuffers: window.gpuMade - before,
    locations: [...new Set(locations)],
    appTensors,
    deviceShared: !!ort.env.webgpu?.device,
  };
}

const onDevice = (page, options) =>
  page.evaluate(`(${loadOnDevice})(${JSON.stringify(SILERO)}, ${JSON.stringify(options)})`);

test("a 'webgpu' load after a plain start runs on WebGPU, as onnxruntime-web alone does: the entry's build started beside, with or without 'wasm' listed, an output kept on the device a GPU tensor of the app's; the next visit starts it beside the plain one at once", async () => {
  const { page, wasm } = await freshVisit();
  assert.equal((await load(page, { executionProviders: ['wasm'] })).ok, true);
  const cases = [
    { executionProviders: ['webgpu'] },
    { executionProviders: ['webgpu', 'wasm'] },
    { executionProviders: ['webgpu', 'wasm'], keep: true },
  ];
  for (const options of cases) {
    const r = await onDevice(page, { ...options, forms: true });
    const name = JSON.stringify(options);
    assert.equal(r.ok, true, `${name}: ${r.message}`);
    assert.ok(
      r.diffs.every((d) => d < 1e-4),
      `${name}: ${r.diffs}`,
    );
    assert.ok(r.gpuBuffers > 0, `${name}: the session made no GPUBuffer (${r.gpuBuffers})`);
    assert.deepEqual(r.warnings, [], name);
    assert.equal(r.appTensors, true, `${name}: outputs are the app's onnxruntime-web Tensors`);
    assert.deepEqual(r.locations, options.keep ? ['gpu-buffer'] : ['cpu'], name);
    assert.equal(r.deviceShared, true, `${name}: ort.env.webgpu.device is the device the session runs on`);
  }
  // the page's own instance kept the plain build; the entry's JSEP build was started beside it
  assert.deepEqual([...new Set(wasm)], ['ort-wasm-simd-threaded.wasm', 'ort-wasm-simd-threaded.jsep.wasm']);
  await page.close();
  // the next visit: the record says this origin makes wasm and WebGPU sessions: the plain build for the
  // wasm load, the entry's started beside it at once, ahead of the WebGPU load (it is fetched with no
  // device load asked for yet)
  const next = await visit();
  assert.equal((await load(next.page, { executionProviders: ['wasm'] })).ok, true);
  const jsep = 'ort-wasm-simd-threaded.jsep.wasm';
  for (let t0 = Date.now(); !next.wasm.includes(jsep) && Date.now() - t0 < 10_000; ) await sleep(50);
  assert.deepEqual([...new Set(next.wasm)], ['ort-wasm-simd-threaded.wasm', jsep], 'the entry build started early');
  const gpu = await onDevice(next.page, { executionProviders: ['webgpu'] });
  assert.equal(gpu.ok, true, gpu.message);
  assert.ok(
    gpu.diffs.every((d) => d < 1e-4),
    String(gpu.diffs),
  );
  assert.deepEqual([...new Set(next.wasm)], ['ort-wasm-simd-threaded.wasm', jsep]);
  await next.page.close();
});

test("the entry's own build: 'webgpu' listed first, runtime: 'full', or the app's own .wasm", async () => {
  const cases = [
    { name: 'webgpu first', options: { executionProviders: ['webgpu', 'wasm'] }, later: ['webgpu'] },
    { name: "runtime: 'full'", options: { executionProviders: ['wasm'], runtime: 'full' }, later: ['webgpu'] },
    { name: 'app wasmPaths', options: { executionProviders: ['wasm'] }, paths: true, later: ['webgpu'] },
  ];
  for (const c of cases) {
    const { page, wasm } = await freshVisit();
    if (c.paths)
      await page.evaluate(() => {
        window.ortDirect.env.wasm.wasmPaths = {
          wasm: '/node_modules/onnxruntime-web/dist/ort-wasm-simd-threaded.jsep.wasm',
        };
      });
    const first = await load(page, c.options);
    assert.equal(first.ok, true, `${c.name}: ${first.message}`);
    const later = await load(page, { executionProviders: c.later });
    assert.equal(later.ok, true, `${c.name}: ${later.message}`);
    assert.ok(!later.warnings.includes('RUNTIME_FALLBACK'), c.name);
    assert.deepEqual([...new Set(wasm)], ['ort-wasm-simd-threaded.jsep.wasm'], c.name);
    await page.close();
  }
});

test("an app that runs onnxruntime-web in its proxy worker (env.wasm.proxy): its choice stands, the model is stored and the next visit served from IndexedDB, outputs equal onnxruntime-web's, state kept and fed back too", async () => {
  // the proxy worker takes the model's whole ArrayBuffer and every CPU
  // input's (transfers): every load failed so before ortkeep gave it a copy
  // of its own, and a second run that kept an output after the pool's tensor
  // had gone with the first
  await env.reset();
  for (const tier of ['network', 'indexeddb']) {
    const { page } = await visit();
    const r = await page.evaluate(async (url) => {
      window.ortDirect.env.wasm.proxy = true;
      // the Blobs handed to ortkeep's read worker: none, as onnxruntime-web's start never holds this thread
      const readBeside = [];
      const post = Worker.prototype.postMessage;
      Worker.prototype.postMessage = function (data, ...rest) {
        if (data?.blob instanceof Blob) readBeside.push(data.blob.size);
        return post.call(this, data, ...rest);
      };
      try {
        // forms on, as ortkeep ships (this page's loads leave them off unless named)
        const c = await window.check(url, 'silero_vad_v5', { forms: true });
        // its state kept and fed back (the pool's path on the CPU, whose
        // tensors the worker would take): each step equal to onnxruntime-web's
        const { ortkeep, ortDirect: ort, feeds } = window;
        const s = await ortkeep.load(url, { forms: true });
        const ref = await ort.InferenceSession.create(await (await fetch(url)).arrayBuffer());
        const steps = [];
        let state = null;
        let refState = null;
        for (let seed = 1; seed <= 4; seed++) {
          const f = feeds.FEEDS.silero_vad_v5(ort, seed);
          const out = await s.run({ ...f, state: state ?? f.state }, { keep: ['stateN'] });
          const g = feeds.FEEDS.silero_vad_v5(ort, seed);
          const want = await ref.run({ ...g, state: refState ?? g.state });
          steps.push(feeds.maxAbsDiff(out, want));
          state = out.stateN;
          refState = want.stateN;
        }
        await s.dispose();
        await ref.release();
        return {
          ok: true,
          diffs: c.diffs,
          steps,
          tier: c.cache.tier,
          stored: c.cache.stored,
          warnings: c.warnings,
          readBeside,
        };
      } catch (e) {
        return { ok: false, message: e.message };
      }
    }, SILERO);
    assert.equal(r.ok, true, r.message);
    assert.deepEqual(r.diffs, [0, 0]);
    assert.deepEqual(r.steps, [0, 0, 0, 0]);
    assert.equal(r.tier, tier);
    assert.equal(r.stored, true);
    assert.deepEqual(r.warnings, ['FORMS_OFF'], 'forms are off in a proxy worker, said once a page');
    assert.deepEqual(r.readBeside, [], "the warm read is the page's own (ok_read_beside: RUNTIME_AWAY)");
    await page.close();
  }
});

test('a wasmPaths folder that is a whole dist/ of this version: the plain build from that folder', async () => {
  const { page, wasm } = await freshVisit();
  const urls = [];
  page.on('request', (r) => urls.push(new URL(r.url()).pathname));
  await page.evaluate(() => {
    window.ortDirect.env.wasm.wasmPaths = '/node_modules/onnxruntime-web/dist/';
  });
  const r = await load(page, { executionProviders: ['wasm'], forms: false });
  assert.equal(r.ok, true, r.message);
  assert.deepEqual(r.diffs, [0, 0]);
  assert.deepEqual([...new Set(wasm)], ['ort-wasm-simd-threaded.wasm']);
  assert.ok(urls.includes('/node_modules/onnxruntime-web/dist/ort-wasm-simd-threaded.mjs'), urls.join(' '));
  await page.close();
});

test("the drop-in: the entry's build on a first visit, which fetches ahead (once its work is over) the plain build that the next visit starts, once a visit showed 'wasm' is all", async () => {
  await env.reset();
  const requested = [];
  for (let n = 0; n < 2; n++) {
    const page = await env.context.newPage();
    const wasm = [];
    let released = false;
    page.on('request', (r) => {
      const name = new URL(r.url()).pathname.split('/').pop();
      if (name.endsWith('.wasm') && name.startsWith('ort-wasm')) wasm.push(released ? `${name} (ahead)` : name);
    });
    await page.goto(`${env.origin}/tests/browser/pages/dropin.html`);
    await page.waitForFunction(() => window.ready === true, null, { timeout: 20000 });
    const out = await page.evaluate(async (url) => {
      const s = await window.ort.InferenceSession.create(url, { executionProviders: ['wasm'] });
      const names = s.inputNames;
      await s.release();
      return names.length;
    }, SILERO);
    released = true;
    await page.evaluate(() => window.ortkeep.cache.settled());
    assert.ok(out > 0);
    requested.push([...new Set(wasm)]);
    await page.close();
  }
  assert.deepEqual(requested, [
    ['ort-wasm-simd-threaded.jsep.wasm', 'ort-wasm-simd-threaded.wasm (ahead)'],
    ['ort-wasm-simd-threaded.wasm'],
  ]);
});

/**
 * In a drop-in page (window.ort is ortkeep's onnxruntime-web): a wasm session, then WebGPU ones as a library
 * makes them, each against the wasm one: outputs, GPUBuffers made, where outputs lie, whether they are the
 * page's onnxruntime-web Tensors.
 */
async function dropInDevices(url) {
  const { ort } = window;
  const feeds = await import('/tests/browser/pages/feeds.js');
  let made = 0;
  const create = GPUDevice.prototype.createBuffer;
  GPUDevice.prototype.createBuffer = function counted(...a) {
    made++;
    return create.apply(this, a);
  };
  const bytes = new Uint8Array(await (await fetch(url)).arrayBuffer());
  const ref = await ort.InferenceSession.create(bytes.slice(), { executionProviders: ['wasm'] });
  const rows = [];
  for (const options of [
    { executionProviders: ['webgpu'] },
    { executionProviders: ['webgpu', 'wasm'] },
    { executionProviders: ['webgpu', 'wasm'], preferredOutputLocation: 'gpu-buffer' },
  ]) {
    const before = made;
    try {
      const s = await ort.InferenceSession.create(bytes.slice(), options);
      const diffs = [];
      const locations = new Set();
      let own = true;
      for (const seed of [1, 2]) {
        const got = await feeds.onCpu(ort, await s.run(feeds.FEEDS.silero_vad_v5(ort, seed)));
        for (const l of got.locations) locations.add(l);
        own &&= got.own;
        diffs.push(feeds.maxAbsDiff(got.cpu, await ref.run(feeds.FEEDS.silero_vad_v5(ort, seed))));
      }
      await s.release();
      rows.push({ ok: true, options, diffs, gpuBuffers: made - before, locations: [...locations], own });
    } catch (e) {
      rows.push({ ok: false, options, message: e.message });
    }
  }
  await ref.release();
  await window.ortkeep?.cache?.settled?.();
  return rows;
}

for (const [way, pagePath] of [
  ['the drop-in (bundler alias)', '/tests/browser/pages/dropin.html'],
  ['the script-tag drop-in', '/tests/browser/pages/dropin-script-tag.html'],
]) {
  test(`${way}: a library's WebGPU sessions on a visit that started the plain build (after a wasm-only visit) run on WebGPU, a gpu-buffer output a GPU tensor, outputs equal the wasm EP's`, async () => {
    await env.reset();
    const wasmFiles = [];
    for (let n = 0; n < 2; n++) {
      const page = await env.context.newPage();
      const wasm = [];
      page.on('request', (r) => {
        const name = new URL(r.url()).pathname.split('/').pop();
        if (name.endsWith('.wasm') && name.startsWith('ort-wasm')) wasm.push(name);
      });
      await page.goto(`${env.origin}${pagePath}`);
      await page.waitForFunction(() => window.ready === true, null, { timeout: 20000 });
      if (n === 0) {
        // the first visit lists only 'wasm': the next one starts the plain build
        await page.evaluate(async (url) => {
          const s = await window.ort.InferenceSession.create(url, { executionProviders: ['wasm'] });
          await s.release();
          await new Promise((r) => setTimeout(r, 500));
        }, SILERO);
        await page.close();
        continue;
      }
      const rows = await page.evaluate(`(${dropInDevices})(${JSON.stringify(SILERO)})`);
      for (const r of rows) {
        const name = JSON.stringify(r.options);
        assert.equal(r.ok, true, `${name}: ${r.message}`);
        assert.ok(
          r.diffs.every((d) => d < 1e-4),
          `${name}: ${r.diffs}`,
        );
        assert.ok(r.gpuBuffers > 0, `${name}: no GPUBuffer made`);
        assert.equal(r.own, true, `${name}: outputs are the page's onnxruntime-web Tensors`);
        assert.deepEqual(r.locations, r.options.preferredOutputLocation ? ['gpu-buffer'] : ['cpu'], name);
      }
      wasmFiles.push(...new Set(wasm));
      await page.close();
    }
    assert.deepEqual(wasmFiles, ['ort-wasm-simd-threaded.wasm', 'ort-wasm-simd-threaded.jsep.wasm']);
  });
}
