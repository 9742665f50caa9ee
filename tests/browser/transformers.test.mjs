// transformers.js 4.3.1 and 3.8.1 (the transformers3 alias, which has no
// env.fetch: its model files are answered from env.customCache.match()) with
// `import 'ortkeep/transformers'` (its web build in
// Chromium, the app's code unchanged but for that one import; models made
// by tests/fixtures/make_hf_models.py in the Hugging Face layout): a
// feature-extraction pipeline on device 'wasm' and the default device gives
// the same embeddings as transformers.js alone, and a text-generation
// pipeline (a decoder fed its past key values) the same text; the sessions are ortkeep's,
// and the first visit captures and verifies a form (kept, or judged slower);
// the second visit (new page, same profile) makes no request for a model
// file; a model whose weights are in model.onnx_data the same; a model file
// answered by an HTML page is ortkeep's typed error and nothing is stored.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { REPO_ROOT } from '../../scripts/static-server.mjs';
import { useCacheBrowser } from './cache-env.mjs';

const MODELS = path.join(REPO_ROOT, 'build/hf-models');
// WebGPU on (SwiftShader): the text-generation test counts GPUBuffers per token
const env = useCacheBrowser({ webgpu: true });

/** The app's page, with ortkeep's one line or without, on transformers.js 4.3.1 or (major 3) 3.8.1. */
async function appPage(withOrtkeep, major = 4, { cdn = false } = {}) {
  const page = await env.context.newPage();
  page.on('pageerror', (e) => console.error('[page error]', e.message));
  // what an app's error monitoring would see (the browser's own favicon request aside), its times masked
  page.noise = [];
  page.on('console', (m) => {
    if (['error', 'warning'].includes(m.type()) && !/favicon\.ico$/.test(m.location()?.url ?? ''))
      page.noise.push(`${m.type()}: ${m.text().replace(/\d[\d:. -]*/g, '#')}`);
  });
  // which onnxruntime-web build the page starts: the .wasm it requests
  page.ortWasm = new Set();
  page.on('request', (r) => {
    const name = new URL(r.url()).pathname.split('/').pop();
    if (/^ort-wasm.*\.wasm$/.test(name)) page.ortWasm.add(name);
  });
  const query = new URLSearchParams({
    ...(withOrtkeep ? { ortkeep: '1' } : {}),
    ...(major === 3 ? { transformers: '3' } : {}),
    ...(cdn ? { cdn: '1' } : {}),
  });
  await page.goto(`${env.origin}/tests/browser/pages/transformers.html?${query}`);
  await page.waitForFunction(() => window.ready === true, null, { timeout: 60000 });
  return page;
}

/** The app: a feature-extraction pipeline, mean-pooled and normalized embeddings of two sentences. */
const embed = (page, model, device) =>
  page.evaluate(
    async ({ model, device }) => {
      const { pipeline } = window.transformers;
      try {
        const extractor = await pipeline('feature-extraction', model, { dtype: 'fp32', ...(device ? { device } : {}) });
        const output = await extractor(['hello world', 'ortkeep keeps models in the browser cache'], {
          pooling: 'mean',
          normalize: true,
        });
        const session = extractor.model.sessions.model;
        const result = {
          ok: true,
          dims: output.dims,
          data: Array.from(output.data),
          ortkeep: typeof session.pool?.stats === 'function',
          tier: session.info?.cache?.tier ?? null,
          form: session.info?.form?.chosen ?? null,
          // what the background work kept (a form, or each tier's verdict)
          background: (await session.formsReady) ?? null,
        };
        await extractor.dispose();
        return result;
      } catch (e) {
        return { ok: false, name: e?.name, code: e?.code, message: String(e?.message ?? e) };
      }
    },
    { model, device },
  );

/** The app: a text-generation pipeline, greedy, `tokens` new tokens (the decoder runs once per token, its past fed back). */
const generate = (page, model, device, tokens = 12) =>
  page.evaluate(
    async ({ model, device, tokens }) => {
      const { pipeline } = window.transformers;
      try {
        const generator = await pipeline('text-generation', model, { dtype: 'fp32', ...(device ? { device } : {}) });
        const session = generator.model.sessions.model;
        // the past each step is given: the cache grows by one token per step
        const pasts = [];
        const buffers = []; // GPUBuffers made during each step
        const run = session.run.bind(session);
        session.run = async (feeds, ...rest) => {
          pasts.push(feeds['past_key_values.0.key'].dims[2]);
          const before = window.gpu.created;
          const out = await run(feeds, ...rest);
          buffers.push(window.gpu.created - before);
          return out;
        };
        const [out] = await generator('hello ortkeep', { max_new_tokens: tokens, do_sample: false });
        const result = {
          ok: true,
          text: out.generated_text,
          pasts,
          buffers,
          ortkeep: typeof session.pool?.stats === 'function',
          tier: session.info?.cache?.tier ?? null,
        };
        await generator.dispose();
        return result;
      } catch (e) {
        return { ok: false, name: e?.name, code: e?.code, message: String(e?.message ?? e) };
      }
    },
    { model, device, tokens },
  );

const modelRequests = (model) =>
  [...env.server.counts.keys()]
    .filter((p) => p.startsWith(`/build/hf-models/${model}/`))
    .reduce((n, p) => n + env.server.count(p), 0);

describe('transformers.js with ortkeep/transformers', () => {
  before(async () => {
    execFileSync('/usr/bin/python3', [path.join(REPO_ROOT, 'tests/fixtures/make_hf_models.py'), MODELS]);
    assert.ok(existsSync(path.join(MODELS, 'tiny-bert/onnx/model.onnx')));
    await env.reset();
  });

  for (const [model, device, major] of [
    ['tiny-bert', 'wasm', 4],
    ['tiny-bert', undefined, 4],
    ['tiny-bert-ext', 'wasm', 4],
    ['tiny-bert', 'wasm', 3],
    ['tiny-bert-ext', 'wasm', 3],
  ]) {
    test(`transformers.js ${major}: feature-extraction ${model} on device ${device ?? '(default)'}: equal to transformers.js alone; the second visit requests no model file`, async () => {
      await env.reset();
      const alone = await appPage(false, major);
      const theirs = await embed(alone, model, device);
      await alone.close();
      const quiet = alone.noise;
      assert.equal(theirs.ok, true, theirs.message);
      assert.equal(theirs.ortkeep, false);
      env.server.resetCounts();
      const first = await appPage(true, major);
      const ours = await embed(first, model, device);
      // the person stays a moment: the downloads, served before they were stored, are stored
      await first.evaluate(async () => (await import('/js/index.js')).cache.settled());
      await first.close();
      assert.equal(ours.ok, true, `${ours.code}: ${ours.message}`);
      // the background work (capture, verification probes) prints nothing transformers.js alone does not
      assert.deepEqual(first.noise, quiet, 'the console, as transformers.js alone leaves it');
      assert.equal(ours.ortkeep, true, "the session is ortkeep's");
      assert.equal(ours.tier, 'network');
      assert.deepEqual(ours.dims, theirs.dims);
      assert.deepEqual(ours.data, theirs.data);
      assert.ok(modelRequests(model) > 0);
      // a form is captured and verified through transformers.js's onnxruntime-web: kept, or judged
      // slower than the original (this shared machine times it), never failed to capture or to probe
      assert.ok(
        ours.background.stored || ours.background.failed.every((f) => f.reason === 'form-slower'),
        JSON.stringify(ours.background),
      );
      env.server.resetCounts();
      const second = await appPage(true, major);
      const again = await embed(second, model, device);
      await second.close();
      assert.equal(again.ok, true, `${again.code}: ${again.message}`);
      assert.deepEqual(second.noise, quiet, 'the console, as transformers.js alone leaves it');
      assert.equal(again.tier, 'indexeddb');
      assert.deepEqual(again.data, theirs.data);
      assert.equal(
        modelRequests(model),
        0,
        `requests: ${JSON.stringify([...env.server.counts].filter(([p]) => p.includes('hf-models')))}`,
      );
    });
  }

  for (const [device, major] of [
    ['wasm', 4],
    [undefined, 4],
    [undefined, 3],
    ['webgpu', 3],
  ]) {
    test(`transformers.js ${major}: text-generation tiny-gpt2 (past key values fed back each token) on device ${device ?? '(default)'}: the same text as transformers.js alone; the second visit requests no model file and starts ${device === 'webgpu' ? "the entry's build again" : 'the plain build'}`, async () => {
      await env.reset();
      const alone = await appPage(false, major);
      const theirs = await generate(alone, 'tiny-gpt2', device);
      await alone.close();
      assert.equal(theirs.ok, true, theirs.message);
      assert.equal(theirs.ortkeep, false);
      assert.ok(theirs.text.length > 'hello ortkeep'.length, JSON.stringify(theirs.text));
      // 13 prompt tokens, then one step per new token with the past fed back
      assert.deepEqual(
        theirs.pasts,
        Array.from({ length: 12 }, (_, i) => (i ? 12 + i : 0)),
      );
      const visits = [];
      for (let visit = 0; visit < 2; visit++) {
        env.server.resetCounts();
        const page = await appPage(true, major);
        visits.push(await generate(page, 'tiny-gpt2', device));
        await page.evaluate(async () => (await import('/js/index.js')).cache.settled());
        await page.close();
        visits[visit].requests = modelRequests('tiny-gpt2');
        visits[visit].wasm = [...page.ortWasm];
      }
      // the build each visit starts: the entry's own on the first (the drop-in's 'after-visit'),
      // the plain one from the visit after one that listed only 'wasm', which the first fetched
      // ahead (after its own work: the generation's model was requested first)
      const entry = major === 4 ? 'ort-wasm-simd-threaded.asyncify.wasm' : 'ort-wasm-simd-threaded.jsep.wasm';
      const plain = 'ort-wasm-simd-threaded.wasm';
      assert.deepEqual(
        visits.map((v) => v.wasm),
        device === 'webgpu' ? [[entry], [entry]] : [[entry, plain], [plain]],
      );
      const [first, second] = visits;
      assert.equal(first.ok, true, `${first.code}: ${first.message}`);
      assert.equal(first.ortkeep, true, "the session is ortkeep's");
      assert.equal(first.tier, 'network');
      assert.equal(first.text, theirs.text);
      assert.deepEqual(first.pasts, theirs.pasts);
      assert.equal(second.ok, true, `${second.code}: ${second.message}`);
      assert.equal(second.tier, 'indexeddb');
      assert.equal(second.text, theirs.text);
      assert.equal(second.requests, 0);
    });
  }

  for (const major of [4, 3])
    test(`transformers.js ${major}: a 'webgpu' pipeline after a 'wasm' one, on a visit that started the plain build (after a wasm-only visit): it runs on WebGPU, embeddings as transformers.js alone gives on WebGPU`, async () => {
      await env.reset();
      const alone = await appPage(false, major);
      const theirs = await embed(alone, 'tiny-bert', 'webgpu');
      const aloneMade = await alone.evaluate(() => window.gpu.created);
      await alone.close();
      // transformers.js 3.8.1's onnxruntime-web (1.22 dev, JSEP) fails this model on WebGPU itself
      // ("[WebGPU] Kernel "[Slice] " failed"): then ortkeep's run must fail the same way, not be refused
      assert.equal(theirs.ok, major === 4, theirs.message);
      assert.ok(aloneMade > 0, 'transformers.js alone runs it on WebGPU');
      // the first visit lists only 'wasm': the next one starts the plain build
      const first = await appPage(true, major);
      assert.equal((await embed(first, 'tiny-bert', 'wasm')).ok, true);
      await first.evaluate(async () => (await import('/js/index.js')).cache.settled());
      await first.close();
      const page = await appPage(true, major);
      const wasm = await embed(page, 'tiny-bert', 'wasm');
      assert.equal(wasm.ok, true, wasm.message);
      const made = await page.evaluate(() => window.gpu.created);
      const gpu = await embed(page, 'tiny-bert', 'webgpu');
      if (!theirs.ok) {
        assert.equal(gpu.ok, false);
        assert.ok(gpu.message.endsWith(theirs.message), `the same failure: ${gpu.message}`);
        await page.close();
        return;
      }
      assert.equal(gpu.ok, true, `${gpu.code}: ${gpu.message}`);
      assert.ok((await page.evaluate(() => window.gpu.created)) > made, 'the webgpu pipeline made GPUBuffers');
      assert.deepEqual(gpu.dims, theirs.dims);
      const diff = Math.max(...gpu.data.map((v, i) => Math.abs(v - theirs.data[i])));
      assert.ok(diff < 1e-4, `embeddings differ by ${diff}`);
      const files = [...page.ortWasm];
      await page.evaluate(async () => (await import('/js/index.js')).cache.settled());
      await page.close();
      assert.equal(files[0], 'ort-wasm-simd-threaded.wasm', `the visit started the plain build: ${files}`);
      assert.equal(files.length, 2, `and the entry's build beside it: ${files}`);
    });

  test("transformers.js 4 with its default onnxruntime-web files (jsDelivr's, served here): the first visit starts them (.asyncify), the next the plain build from the same folder, each from its URL (not fetched into bytes first: env.wasm.wasmBinary unset); the same embeddings as transformers.js alone", async () => {
    await env.reset();
    const CDN = /^https:\/\/cdn\.jsdelivr\.net\/npm\/onnxruntime-web@[^/]+\/dist\/[^/]+$/;
    const dist = path.join(REPO_ROOT, 'node_modules/@huggingface/transformers/node_modules/onnxruntime-web/dist');
    await env.context.route(CDN, (route) => {
      const name = new URL(route.request().url()).pathname.split('/').pop();
      return route.fulfill({
        path: path.join(dist, name),
        headers: {
          'access-control-allow-origin': '*',
          'content-type': name.endsWith('.wasm') ? 'application/wasm' : 'text/javascript',
        },
      });
    });
    try {
      const alone = await appPage(false, 4, { cdn: true });
      const theirs = await embed(alone, 'tiny-bert', 'wasm');
      await alone.close();
      assert.equal(theirs.ok, true, theirs.message);
      const visits = [];
      for (let n = 0; n < 2; n++) {
        const page = await appPage(true, 4, { cdn: true });
        const r = await embed(page, 'tiny-bert', 'wasm');
        const bytes = await page.evaluate(() => !!window.ort.env.wasm.wasmBinary);
        await page.evaluate(async () => (await import('/js/index.js')).cache.settled());
        await page.close();
        visits.push({ ...r, wasm: [...page.ortWasm], bytes });
      }
      for (const v of visits) {
        assert.equal(v.ok, true, `${v.code}: ${v.message}`);
        assert.deepEqual(v.data, theirs.data);
        assert.equal(v.bytes, false, 'onnxruntime-web was handed its .wasm as bytes');
      }
      assert.deepEqual(
        visits.map((v) => v.wasm),
        [['ort-wasm-simd-threaded.asyncify.wasm'], ['ort-wasm-simd-threaded.wasm']],
      );
    } finally {
      await env.context.unroute(CDN);
    }
  });

  test("text-generation tiny-gpt2 on WebGPU (SwiftShader), 48 tokens with present kept on the GPU: sessions made through the /webgpu entry's own loader flavour, the same text and steps as transformers.js alone, and fewer GPUBuffers per token", async () => {
    await env.reset();
    const alone = await appPage(false);
    const theirs = await generate(alone, 'tiny-gpt2', 'webgpu', 48);
    await alone.close();
    assert.equal(theirs.ok, true, theirs.message);
    const page = await appPage(true);
    const ours = await generate(page, 'tiny-gpt2', 'webgpu', 48);
    await page.evaluate(async () => (await import('/js/index.js')).cache.settled());
    await page.close();
    // (with the JSEP capturing loader under /webgpu 1.23+ every WebGPU session failed: no webgpuInit)
    assert.equal(ours.ok, true, `${ours.code}: ${ours.message}`);
    assert.equal(ours.ortkeep, true);
    assert.equal(ours.text, theirs.text);
    assert.deepEqual(ours.pasts, theirs.pasts);
    // GPUBuffers per token after the first 16 steps (shaders compiled): onnxruntime-web alone
    // makes a staging buffer per upload and per read-back each token; through the pool the
    // logits' read-back buffer is kept, the int64 inputs are uploaded as alone, and present
    // (kept on the GPU, fed back as past) is re-made about once per 32 tokens
    const perToken = (b) => b.slice(16).reduce((a, n) => a + n, 0) / (b.length - 16);
    console.log(
      `[transformers webgpu] GPUBuffers per token, steps 16-47: ortkeep ${perToken(ours.buffers).toFixed(2)}, transformers.js alone ${perToken(theirs.buffers).toFixed(2)}`,
    );
    assert.ok(
      perToken(ours.buffers) < perToken(theirs.buffers),
      JSON.stringify({ ours: ours.buffers, theirs: theirs.buffers }),
    );
  });

  for (const major of [4, 3])
    test(`transformers.js ${major}: a model file answered by an HTML page fails with ortkeep's typed error; nothing is stored; the next page loads the real model`, async () => {
      await env.reset();
      const html = '<!doctype html><html><body>app shell</body></html>';
      env.handler = (req, res) => {
        if (!req.url.startsWith('/build/hf-models/tiny-bert/onnx/model.onnx')) return false;
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(req.method === 'HEAD' ? undefined : html);
        return true;
      };
      const page = await appPage(true, major);
      const bad = await embed(page, 'tiny-bert', 'wasm');
      const stored = await page.evaluate(async () =>
        (await (await import('/js/index.js')).cache.list()).map((e) => e.url),
      );
      await page.close();
      assert.equal(bad.ok, false);
      assert.equal(bad.name, 'OrtkeepError', bad.message);
      assert.match(bad.message, /HTML/);
      assert.deepEqual(
        stored.filter((u) => u.includes('tiny-bert')),
        [],
      );
      env.handler = null;
      const next = await appPage(true, major);
      const good = await embed(next, 'tiny-bert', 'wasm');
      await next.close();
      assert.equal(good.ok, true, `${good.code}: ${good.message}`);
    });

  for (const [major, status, ignoreRange] of [
    [4, 403, false],
    [3, 405, false],
    [4, 405, true],
  ])
    test(`transformers.js ${major}: a host that refuses HEAD (${status}, as a URL signed for GET does)${ignoreRange ? ' and ignores Range' : ''}: the model file is found by a one-byte GET, never a HEAD, loaded and stored by ortkeep; the console as transformers.js alone leaves it; the second visit requests no model file`, async () => {
      await env.reset();
      const heads = [];
      const firstBytes = []; // GETs of a model file's first byte (the static server answers them)
      env.handler = (req, res, { pathname, serveFile }) => {
        if (!req.url.startsWith('/build/hf-models/tiny-bert/')) return false;
        if (req.method === 'GET' && req.headers.range === 'bytes=0-0') firstBytes.push(req.url);
        // 200 and the whole body to a Range: the probe reads none of it
        if (req.method === 'GET' && ignoreRange) return serveFile(req, res, pathname, { ignoreRange }).then(() => true);
        if (req.method !== 'HEAD') return false;
        heads.push(req.url);
        res.writeHead(status, { allow: 'GET' });
        res.end();
        return true;
      };
      const alone = await appPage(false, major);
      const theirs = await embed(alone, 'tiny-bert', 'wasm');
      await alone.close();
      assert.equal(theirs.ok, true, theirs.message);
      const first = await appPage(true, major);
      const ours = await embed(first, 'tiny-bert', 'wasm');
      await first.evaluate(async () => (await import('/js/index.js')).cache.settled());
      await first.close();
      assert.equal(ours.ok, true, `${ours.code}: ${ours.message}`);
      // a refused HEAD is printed in the app's console by the browser: ortkeep asks with a GET instead
      assert.deepEqual(first.noise, alone.noise, 'the console, as transformers.js alone leaves it');
      assert.deepEqual(heads, [], 'no HEAD request');
      assert.ok(
        firstBytes.some((u) => u.endsWith('/onnx/model.onnx')),
        `the model file probed with a one-byte GET: ${JSON.stringify(firstBytes)}`,
      );
      assert.equal(ours.tier, 'network');
      assert.deepEqual(ours.data, theirs.data);
      env.server.resetCounts();
      const second = await appPage(true, major);
      const again = await embed(second, 'tiny-bert', 'wasm');
      await second.close();
      assert.equal(again.ok, true, `${again.code}: ${again.message}`);
      assert.equal(again.tier, 'indexeddb');
      assert.deepEqual(again.data, theirs.data);
      assert.deepEqual(second.noise, alone.noise, 'the console, as transformers.js alone leaves it');
      assert.equal(modelRequests('tiny-bert'), 0);
    });
});
