// A published library through the drop-in, in Chromium: the app is written
// here like a background-removal library with onnxruntime-web as its peer.
// It imports the default `onnxruntime-web` (aliased to ortkeep's drop-in by
// an import map), fetches its model itself, points onnxruntime-web at one
// build's loader and .wasm as blob: URLs (`env.wasm.wasmPaths = { mjs, wasm }`:
// the plain wasm-only build, then the JSEP build) and calls
// `InferenceSession.create(arrayBuffer, { executionProviders: ['wasm'],
// graphOptimizationLevel: 'all' })`. ortkeep must pair its capturing loader
// with the flavour and version the page named, or stay out of the way:
// outputs equal to plain onnxruntime-web running the same app, on two
// visits, the second from the verified form; not one console warning or
// error and not one failed request, on either visit. onnxruntime-web 1.30.0
// (ortkeep's build derived its capturing loaders from it) and 1.21.0 (the
// library's peer: derived in the page from the blob: loader's text).
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { REPO_ROOT } from '../../scripts/static-server.mjs';
import { modelPath, useCacheBrowser } from './cache-env.mjs';

const DIR = 'build/scratch-dropin-library';
const MODEL = modelPath('ppocr_v2_cls');
/** The alias each version is installed under (package.json devDependencies). */
const VERSIONS = { '1.30.0': 'onnxruntime-web', '1.21.0': 'ort121' };
/** The build the library names, by its loader's and .wasm's base name. */
const FLAVOURS = { plain: 'ort-wasm-simd-threaded', jsep: 'ort-wasm-simd-threaded.jsep' };
const env = useCacheBrowser();

// The library: it fetches its model and onnxruntime-web's files itself.
const LIBRARY_JS = `import * as ort from 'onnxruntime-web';
const blobOf = async (url, type) =>
  URL.createObjectURL(new Blob([await (await fetch(url)).arrayBuffer()], { type }));
export async function classify(modelUrl, { dist, flavour }) {
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.wasmPaths = {
    mjs: await blobOf(dist + flavour + '.mjs', 'text/javascript'),
    wasm: await blobOf(dist + flavour + '.wasm', 'application/wasm'),
  };
  const model = await (await fetch(modelUrl)).arrayBuffer();
  const session = await ort.InferenceSession.create(model, { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
  const x = new ort.Tensor('float32', Float32Array.from({ length: 3 * 48 * 192 }, (_, i) => Math.sin(i / 7)), [1, 3, 48, 192]);
  const out = await session.run({ [session.inputNames[0]]: x });
  return { session, output: Array.from(out[session.outputNames[0]].data), version: ort.env.versions.web };
}
`;

/** The app's page: `onnxruntime-web` is ortkeep's drop-in (ortkeep) or the real package (plain). */
function appPage(pkg, mode) {
  const real = `/node_modules/${pkg}/dist/ort.min.mjs`;
  const imports = { 'onnxruntime-web': mode === 'ortkeep' ? '/js/onnxruntime-web.js' : real, '#onnxruntime-web': real };
  return `<!doctype html><meta charset="utf-8"><title>library app</title>
<script type="importmap">${JSON.stringify({ imports })}</script>
<script type="module">
  import { classify } from './library.js';
  const flavour = new URLSearchParams(location.search).get('flavour');
  try {
    const r = await classify(${JSON.stringify(MODEL)}, { dist: '/node_modules/${pkg}/dist/', flavour });
    const background = r.session.formsReady ? await r.session.formsReady : null;
    window.result = { ok: true, version: r.version, output: r.output, form: r.session.info?.form ?? null,
      stored: background?.stored ?? null, failed: background?.failed ?? [] };
  } catch (e) {
    window.result = { ok: false, code: e?.code, message: String(e?.message ?? e) };
  }
</script>`;
}

/** One visit: the page's result, and every console warning or error and failed request on the way. */
async function visit(pkg, mode, flavour) {
  const page = await env.context.newPage();
  const noise = [];
  page.on('console', (m) => {
    // the browser's own favicon request aside (a 404 here: its first page on a cleared profile)
    if (/\/favicon\.ico$/.test(m.location()?.url ?? '')) return;
    if (m.type() === 'warning' || m.type() === 'error') noise.push(`console.${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => noise.push(`page error: ${e.message}`));
  page.on('requestfailed', (r) => noise.push(`request failed: ${r.url()} ${r.failure()?.errorText}`));
  page.on('response', (r) => {
    if (r.status() >= 400) noise.push(`HTTP ${r.status()}: ${r.url()}`);
  });
  try {
    await page.goto(`${env.origin}/${DIR}/${pkg}-${mode}.html?flavour=${FLAVOURS[flavour]}`);
    await page.waitForFunction(() => window.result !== undefined, null, { timeout: 120000 });
    return { ...(await page.evaluate(() => window.result)), noise };
  } finally {
    await page.close();
  }
}

/** |a-b| <= 1e-4 + 1e-3|a|, the forms' round-trip tolerance (fusions reorder float sums). */
function assertClose(ours, theirs, what) {
  assert.equal(ours.length, theirs.length, what);
  ours.forEach((a, i) =>
    assert.ok(Math.abs(a - theirs[i]) <= 1e-4 + 1e-3 * Math.abs(a), `${what}: output ${i}: ${a} vs ${theirs[i]}`),
  );
}

describe('a library through the drop-in, naming blob: URLs of one onnxruntime-web build (Chromium)', () => {
  before(() => {
    mkdirSync(path.join(REPO_ROOT, DIR), { recursive: true });
    writeFileSync(path.join(REPO_ROOT, DIR, 'library.js'), LIBRARY_JS);
    for (const [version, pkg] of Object.entries(VERSIONS)) {
      const installed = JSON.parse(readFileSync(path.join(REPO_ROOT, 'node_modules', pkg, 'package.json'), 'utf8'));
      assert.equal(installed.version, version, `node_modules/${pkg} is onnxruntime-web ${version}`);
      for (const mode of ['ortkeep', 'plain'])
        writeFileSync(path.join(REPO_ROOT, DIR, `${pkg}-${mode}.html`), appPage(pkg, mode));
    }
  });

  for (const [version, pkg] of Object.entries(VERSIONS)) {
    for (const flavour of Object.keys(FLAVOURS)) {
      test(`onnxruntime-web ${version}, the ${flavour} build as blob: URLs: create(arrayBuffer) equal to plain onnxruntime-web on two visits, the second from the verified form; a quiet console`, async () => {
        await env.reset();
        const plain = await visit(pkg, 'plain', flavour);
        assert.equal(plain.ok, true, `plain onnxruntime-web: ${plain.message}`);
        assert.equal(plain.version, version);
        const first = await visit(pkg, 'ortkeep', flavour);
        assert.equal(first.ok, true, `first visit: ${first.code}: ${first.message} ${first.noise.join(' | ')}`);
        assert.deepEqual(first.output, plain.output, 'the original equals plain onnxruntime-web');
        assert.equal(first.form.chosen, 'capturing', JSON.stringify(first.form));
        assert.ok(['onnx', 'ort'].includes(first.stored), `a form was verified: ${JSON.stringify(first.failed)}`);
        const second = await visit(pkg, 'ortkeep', flavour);
        assert.equal(second.ok, true, `second visit: ${second.code}: ${second.message}`);
        assert.deepEqual(
          { form: second.form.form, level: second.form.level, chosen: second.form.chosen },
          { form: first.stored, level: 'disabled', chosen: 'verified' },
        );
        assertClose(second.output, plain.output, 'the verified form against plain onnxruntime-web');
        for (const [i, v] of [plain, first, second].entries())
          assert.deepEqual(
            v.noise,
            [],
            `${['plain', 'first visit', 'second visit'][i]}: nothing in the console, no failed request`,
          );
      });
    }
  }
});

// A script-tag page from a CDN: onnxruntime-web pinned to 1.30.0 and
// ortkeep's drop-in bundle pinned to its own version, where the CDN's
// unversioned onnxruntime-web path answers a newer release (here the
// 1.31-dev build). onnxruntime-web's files must come from the version the page
// runs (next to its own script), never from the unversioned path beside
// ortkeep's: a 1.30 loader paired with another release's .wasm never settles.
const CDN = {
  '/cdn/npm/onnxruntime-web@1.30.0/dist/': '/node_modules/onnxruntime-web/dist/',
  '/cdn/npm/onnxruntime-web/dist/': '/node_modules/ort131/dist/',
  '/cdn/npm/ortkeep@0.1.0/dist/': '/dist/',
};

function cdnPage(withOrtkeep) {
  return `<!doctype html><meta charset="utf-8"><title>CDN app</title>
<script src="/cdn/npm/onnxruntime-web@1.30.0/dist/ort.min.js"></script>
${withOrtkeep ? '<script src="/cdn/npm/ortkeep@0.1.0/dist/ortkeep-onnxruntime-web.iife.js"></script>' : ''}
<script type="module">
  ort.env.wasm.numThreads = 1;
  const settled = (p, ms) =>
    Promise.race([p, new Promise((_, reject) => setTimeout(() => reject(new Error('create() did not settle in ' + ms + ' ms')), ms))]);
  try {
    const session = await settled(ort.InferenceSession.create(${JSON.stringify(MODEL)}, { executionProviders: ['wasm'] }), 60000);
    const x = new ort.Tensor('float32', Float32Array.from({ length: 3 * 48 * 192 }, (_, i) => Math.sin(i / 7)), [1, 3, 48, 192]);
    const out = await session.run({ [session.inputNames[0]]: x });
    const background = session.formsReady ? await session.formsReady : null;
    window.result = { ok: true, version: ort.env.versions.web, output: Array.from(out[session.outputNames[0]].data),
      form: session.info?.form ?? null, stored: background?.stored ?? null, failed: background?.failed ?? [] };
  } catch (e) {
    window.result = { ok: false, code: e?.code, message: String(e?.message ?? e) };
  }
</script>`;
}

describe('a CDN page whose unversioned onnxruntime-web path answers a newer release (Chromium)', () => {
  before(() => {
    writeFileSync(path.join(REPO_ROOT, DIR, 'cdn-plain.html'), cdnPage(false));
    writeFileSync(path.join(REPO_ROOT, DIR, 'cdn-ortkeep.html'), cdnPage(true));
  });

  test("the drop-in's create(url) settles, equal to plain onnxruntime-web on two visits, the second from the verified form; nothing asked of the unversioned path", async () => {
    await env.reset();
    env.handler = (req, res, { pathname, serveFile }) => {
      const prefix = Object.keys(CDN).find((p) => pathname.startsWith(p));
      if (!prefix) return false;
      return serveFile(req, res, CDN[prefix] + pathname.slice(prefix.length), {}).then(() => true);
    };
    const unversioned = () =>
      env.server.log.filter((r) => r.pathname.startsWith('/cdn/npm/onnxruntime-web/')).map((r) => r.pathname);
    const plain = await visit('cdn', 'plain', 'plain');
    assert.equal(plain.ok, true, `plain onnxruntime-web: ${plain.message}`);
    assert.equal(plain.version, '1.30.0');
    const first = await visit('cdn', 'ortkeep', 'plain');
    assert.equal(first.ok, true, `first visit: ${first.code}: ${first.message} ${first.noise.join(' | ')}`);
    assert.deepEqual(first.output, plain.output, 'the original equals plain onnxruntime-web');
    assert.equal(first.form.chosen, 'capturing', JSON.stringify(first.form));
    assert.ok(['onnx', 'ort'].includes(first.stored), `a form was verified: ${JSON.stringify(first.failed)}`);
    const second = await visit('cdn', 'ortkeep', 'plain');
    assert.equal(second.ok, true, `second visit: ${second.code}: ${second.message}`);
    assert.equal(second.form.chosen, 'verified', JSON.stringify(second.form));
    assertClose(second.output, plain.output, 'the verified form against plain onnxruntime-web');
    assert.deepEqual(unversioned(), [], 'no request to the unversioned onnxruntime-web path');
    for (const [i, v] of [plain, first, second].entries())
      assert.deepEqual(
        v.noise,
        [],
        `${['plain', 'first visit', 'second visit'][i]}: nothing in the console, no failed request`,
      );
  });
});

// ortkeep's own work prints nothing the app's calls would not: a plain
// load(url) page (the default entry, forms on, onnxruntime-web's level 'all',
// whose optimized-model writer warns about its NCHWc transformer) on two
// visits, the second from the verified form.
const LOAD_PAGE = `<!doctype html><meta charset="utf-8"><title>load(url)</title>
<script type="importmap">${JSON.stringify({ imports: { 'onnxruntime-web': '/node_modules/onnxruntime-web/dist/ort.min.mjs' } })}</script>
<script type="module">
  import * as ort from 'onnxruntime-web';
  import { load } from '/js/index.js';
  ort.env.wasm.numThreads = 1;
  try {
    const session = await load(${JSON.stringify(MODEL)}, { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
    const x = new ort.Tensor('float32', Float32Array.from({ length: 3 * 48 * 192 }, (_, i) => Math.sin(i / 7)), [1, 3, 48, 192]);
    const out = await session.run({ [session.inputNames[0]]: x });
    const background = await session.formsReady;
    window.result = { ok: true, version: ort.env.versions.web, output: Array.from(out[session.outputNames[0]].data),
      form: session.info.form, stored: background.stored, failed: background.failed };
  } catch (e) {
    window.result = { ok: false, code: e?.code, message: String(e?.message ?? e) };
  }
</script>`;

describe('a plain load(url) page (Chromium)', () => {
  before(() => writeFileSync(path.join(REPO_ROOT, DIR, 'load-ortkeep.html'), LOAD_PAGE));

  test('two visits, the second from the verified form: nothing in the console and no failed request', async () => {
    await env.reset();
    const first = await visit('load', 'ortkeep', 'plain');
    assert.equal(first.ok, true, `first visit: ${first.code}: ${first.message} ${first.noise.join(' | ')}`);
    assert.ok(['onnx', 'ort'].includes(first.stored), `a form was verified: ${JSON.stringify(first.failed)}`);
    const second = await visit('load', 'ortkeep', 'plain');
    assert.equal(second.ok, true, `second visit: ${second.code}: ${second.message}`);
    assert.equal(second.form.chosen, 'verified', JSON.stringify(second.form));
    assertClose(second.output, first.output, 'the verified form against the original');
    assert.deepEqual(first.noise, [], 'first visit: nothing in the console, no failed request');
    assert.deepEqual(second.noise, [], 'second visit: nothing in the console, no failed request');
  });
});
