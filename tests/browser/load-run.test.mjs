// load(url).run() in real Chromium through the three ways a page without a
// bundler can take ortkeep — the ESM source (import map), the one-module
// ESM build (dist/ortkeep.mjs) and the script-tag bundle (window.ortkeep) —
// compared with onnxruntime-web called directly.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { REAL_MODELS } from '../models.mjs';
import { PROFILES } from '../../scripts/static-server.mjs';
import { useBrowser } from './browser-env.mjs';

// Every file chunked, no Content-Length (Node's res.pipe), as many dev servers answer.
const env = useBrowser({ files: PROFILES.nodePipe });
const url = (name) => `/${REAL_MODELS.find((m) => m.name === name).path}`;

async function compareWithOrt(page, name) {
  return page.evaluate(
    async ({ name, url }) => {
      const { ortkeep, ortDirect: ort, feeds } = window;
      const progress = [];
      const session = await ortkeep.load(url, { onProgress: (p) => progress.push(p.phase) });
      const reference = await ort.InferenceSession.create(url);
      const diffs = [];
      for (const seed of [1, 2, 3]) {
        const ours = await session.run(feeds.FEEDS[name](ort, seed));
        const theirs = await reference.run(feeds.FEEDS[name](ort, seed));
        diffs.push(feeds.maxAbsDiff(ours, theirs));
      }
      const result = {
        diffs,
        inputNames: session.inputNames,
        graphs: session.info.model.totals.graphs,
        sha256: session.info.source.sha256,
        phases: [...new Set(progress)],
      };
      await session.dispose();
      await reference.release();
      return result;
    },
    { name, url: url(name) },
  );
}

for (const [label, pagePath] of [
  ['ESM build', '/tests/browser/pages/esm.html'],
  ['one-module ESM build (dist/ortkeep.mjs)', '/tests/browser/pages/esm-bundle.html'],
  ['script-tag bundle', '/tests/browser/pages/script-tag.html'],
]) {
  describe(`${label} in Chromium`, () => {
    for (const name of ['silero_vad_v5', 'silero_vad_legacy', 'ppocr_v4_det']) {
      test(`${name}: outputs equal onnxruntime-web's`, async () => {
        const page = await env.newPage(pagePath);
        const r = await compareWithOrt(page, name);
        assert.deepEqual(r.diffs, [0, 0, 0]);
        assert.match(r.sha256, /^[0-9a-f]{64}$/);
        assert.ok(r.graphs >= 1);
        assert.deepEqual(r.phases, ['download', 'verify', 'create-session']);
        await page.context().close();
      });
    }
  });
}

test("one-module ESM build: ortkeep's code is one request, and its core and capturing loaders are found beside it (the form is captured and stored)", async () => {
  const context = await env.browser.newContext();
  const page = await context.newPage();
  const requests = [];
  page.on('request', (r) => requests.push(new URL(r.url()).pathname));
  await page.goto(`${env.server.origin}/tests/browser/pages/esm-bundle.html`);
  await page.waitForFunction(() => window.ready === true, null, { timeout: 20000 });
  const r = await page.evaluate(async (u) => {
    const warnings = [];
    const session = await window.ortkeep.load(u, { onWarning: (w) => warnings.push(w.code) });
    const background = await session.formsReady;
    await session.dispose();
    return { stored: background.stored, failed: background.failed, warnings };
  }, url('silero_vad_v5'));
  assert.deepEqual(r.warnings, []);
  // A form timed slower than the original is a verdict on this machine's load, not a
  // missing loader: only that reason may appear (a loader not found says otherwise).
  assert.deepEqual(
    r.failed.filter((f) => f.reason !== 'form-slower'),
    [],
    JSON.stringify(r),
  );
  // captured through the bundle's loaders: a form stored, or every form timed (and judged slower)
  assert.ok(
    ['onnx', 'ort'].includes(r.stored) || (r.stored === null && r.failed.length > 0),
    `a form captured: ${JSON.stringify(r)}`,
  );
  assert.deepEqual(
    requests.filter((p) => p.startsWith('/js/')),
    [],
    'nothing from the source tree',
  );
  assert.equal(requests.filter((p) => p === '/dist/ortkeep.mjs').length, 1);
  assert.ok(requests.includes('/dist/ortkeep-core.wasm'), requests.join(' '));
  assert.ok(
    requests.some((p) => p.startsWith('/dist/ort-capture/')),
    requests.join(' '),
  );
  await context.close();
});

test('script-tag bundle in a classic worker (importScripts): outputs equal onnxruntime-web on the page', async () => {
  const page = await env.newPage('/tests/browser/pages/script-tag.html');
  const r = await page.evaluate(async (u) => {
    const { ortDirect: ort, feeds } = window;
    const worker = new Worker('/tests/browser/pages/classic-worker.js');
    const got = await new Promise((resolve) => {
      worker.onmessage = (m) => resolve(m.data);
      worker.onerror = (e) => resolve({ ok: false, message: e.message });
      worker.postMessage({ url: u, model: 'silero_vad_v5' });
    });
    worker.terminate();
    if (!got.ok) return got;
    const reference = await (await ort.InferenceSession.create(u)).run(feeds.FEEDS.silero_vad_v5(ort, 1));
    let diff = 0;
    for (const [k, t] of Object.entries(reference)) {
      const w = got.outputs[k];
      if (!w || w.data.length !== t.data.length || String(w.dims) !== String(t.dims))
        return { ok: false, message: `output ${k} differs in shape` };
      for (let i = 0; i < t.data.length; i++) diff = Math.max(diff, Math.abs(Number(t.data[i]) - w.data[i]));
    }
    return { ok: true, diff, names: Object.keys(got.outputs).sort() };
  }, url('silero_vad_v5'));
  assert.equal(r.ok, true, r.message);
  assert.deepEqual(r.names, ['output', 'stateN']);
  assert.equal(r.diff, 0);
  await page.context().close();
});

test("onnxruntime-web's habits: run(feeds, fetchNames), inputMetadata/outputMetadata, release()", async () => {
  const page = await env.newPage('/tests/browser/pages/esm.html');
  const r = await page.evaluate(async (u) => {
    const { ortkeep, ortDirect: ort, feeds } = window;
    const s = await ortkeep.load(u, { memory: false });
    const reference = await ort.InferenceSession.create(u);
    const only = await s.run(feeds.FEEDS.silero_vad_v5(ort, 1), ['output']);
    const theirs = await reference.run(feeds.FEEDS.silero_vad_v5(ort, 1), ['output']);
    const out = {
      names: Object.keys(only),
      diff: feeds.maxAbsDiff(only, theirs),
      meta:
        JSON.stringify([s.inputMetadata, s.outputMetadata]) ===
        JSON.stringify([reference.inputMetadata, reference.outputMetadata]),
      metaLength: s.inputMetadata.length,
    };
    await s.release();
    out.released = await s.run(feeds.FEEDS.silero_vad_v5(ort, 1)).then(
      () => 'ran',
      (e) => e.code,
    );
    await reference.release();
    return out;
  }, url('silero_vad_v5'));
  assert.deepEqual(r.names, ['output']);
  assert.equal(r.diff, 0);
  assert.equal(r.meta, true);
  assert.equal(r.metaLength, 3);
  assert.equal(r.released, 'DISPOSED');
  await page.context().close();
});

describe('errors in Chromium', () => {
  test('HTTP 404 and a truncated download are typed errors', async () => {
    env.handler = (req, res, { pathname }) => {
      if (pathname !== '/cut/model.onnx') return false;
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end(Buffer.alloc(3000, 0x0a)); // nested length-delimited fields that run off the end
      return true;
    };
    const page = await env.newPage('/tests/browser/pages/esm.html');
    const codes = await page.evaluate(async () => {
      const out = [];
      for (const u of ['/no/such/model.onnx', '/cut/model.onnx']) {
        try {
          await window.ortkeep.load(u);
          out.push('loaded');
        } catch (e) {
          out.push(`${e.name}:${e.code}`);
        }
      }
      return out;
    });
    env.handler = null;
    assert.equal(codes[0], 'OrtkeepError:NETWORK');
    assert.match(codes[1], /^OrtkeepError:(TRUNCATED|BAD_WIRE_TYPE|NOT_ONNX|TOO_DEEP)$/);
    await page.context().close();
  });

  test('a core .wasm URL answered by an SPA fallback (200 text/html) is a CORE_LOAD error that says what to configure', async () => {
    env.handler = (req, res, { pathname }) => {
      if (!pathname.startsWith('/node_modules/.vite/')) return false;
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><html><body><div id="app"></div></body></html>');
      return true;
    };
    const page = await env.newPage('/tests/browser/pages/esm.html');
    const e = await page.evaluate(async () => {
      // where Vite 5-7's pre-bundling makes import.meta.url point
      const ok = window.ortkeep;
      ok.setCoreWasmUrl('/node_modules/.vite/deps/ortkeep-core.wasm');
      try {
        await ok.inspect(new Uint8Array([8, 7]));
        return 'loaded';
      } catch (x) {
        return { name: x.name, code: x.code, message: x.message };
      }
    });
    env.handler = null;
    assert.equal(e.name, 'OrtkeepError');
    assert.equal(e.code, 'CORE_LOAD');
    assert.match(e.message, /SPA fallback/);
    assert.match(e.message, /optimizeDeps: \{ exclude: \['ortkeep'\] \}/);
    assert.match(e.message, /setCoreWasmUrl/);
    await page.context().close();
  });
});
