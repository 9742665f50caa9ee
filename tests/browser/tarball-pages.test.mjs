// The packed tarball (npm pack) unpacked as an app's node_modules/ortkeep and
// served by a plain static server, in Chromium: the README's script-tag
// example (its CDN URLs pointed at the app's node_modules; forms on, loaded
// twice in one profile: the second visit from IndexedDB in the verified
// optimized form, the capturing loaders found next to the bundle and
// onnxruntime-web's .wasm beside the package), a module
// worker, a classic worker (importScripts with the script-tag bundle) and a
// page under a strict Content-Security-Policy each load a real model (silero
// v5) and answer like plain onnxruntime-web; a core wasm URL that fails is
// CORE_LOAD saying what to do; a page that imports onnxruntime-web by its
// file's path has its .wasm found beside the package with a ranged GET. What
// the tarball does not ship fails here. The server answers like real ones: no
// Content-Length, the model gzipped, HEAD refused for the .wasm files.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { launchBrowser } from '../../scripts/chromium.mjs';
import { PROFILES, REPO_ROOT, startServer } from '../../scripts/static-server.mjs';
import { REAL_MODELS } from '../models.mjs';

const APP = path.join(REPO_ROOT, 'build/scratch-pages');
const MODEL = REAL_MODELS.find((m) => m.name === 'silero_vad_v5').path;
const ORT = '/node_modules/onnxruntime-web/dist/';

// silero's feeds and the reference, the same in every page and worker
const FEEDS_JS = `export const feeds = (ort) => ({
  input: new ort.Tensor('float32', Float32Array.from({ length: 512 }, (_, i) => Math.sin(i / 9)), [1, 512]),
  state: new ort.Tensor('float32', new Float32Array(256), [2, 1, 128]),
  sr: new ort.Tensor('int64', BigInt64Array.from([16000n]), []),
});
export async function compare(ort, session) {
  const ours = await session.run(feeds(ort));
  const plain = await ort.InferenceSession.create('/model.onnx');
  const theirs = await plain.run(feeds(ort));
  await plain.release();
  return { ours: Array.from(ours.output.data), theirs: Array.from(theirs.output.data) };
}
`;

/** The README's script-tag block, as written there. */
function readmeScriptTag() {
  const readme = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
  const block = /\nScript tag \(`window\.ortkeep`[\s\S]*?```html\n([\s\S]*?)```/.exec(readme)?.[1];
  assert.ok(block, 'the README has its script-tag example');
  return block;
}

let server;
let browser;
/** HEAD requests for a .wasm (refused), and four-byte GETs of one (ortkeep's probe). */
const wasmHeads = [];
const wasmProbes = [];

describe('the packed tarball in plain pages and workers (Chromium)', () => {
  before(async () => {
    rmSync(APP, { recursive: true, force: true });
    mkdirSync(path.join(APP, 'node_modules/ortkeep'), { recursive: true });
    const out = execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', APP], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
    });
    execFileSync('tar', [
      '-xzf',
      path.join(APP, JSON.parse(out)[0].filename),
      '-C',
      path.join(APP, 'node_modules/ortkeep'),
      '--strip-components=1',
    ]);
    symlinkSync(path.join(REPO_ROOT, 'node_modules/onnxruntime-web'), path.join(APP, 'node_modules/onnxruntime-web'));
    cpSync(path.join(REPO_ROOT, MODEL), path.join(APP, 'model.onnx'));
    writeFileSync(path.join(APP, 'feeds.js'), FEEDS_JS);

    // the README's example, its CDN pointed at this app's node_modules, and a run added after it
    const block = readmeScriptTag();
    // the versions the README pins are the ones this tarball's capturing loaders were derived from
    const pinned = /unpkg\.com\/onnxruntime-web@([^/]+)\//.exec(block)?.[1];
    assert.equal(
      pinned,
      JSON.parse(readFileSync(path.join(REPO_ROOT, 'dist/ort-capture/manifest.json'), 'utf8')).onnxruntimeWeb,
      'the README pins the onnxruntime-web the loaders are derived from',
    );
    assert.equal(
      /unpkg\.com\/ortkeep@([^/]+)\//.exec(block)?.[1],
      JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')).version,
      "the README pins this ortkeep's version",
    );
    const example = block
      .replace(/https:\/\/unpkg\.com\/onnxruntime-web@[^/]+\//, '/node_modules/onnxruntime-web/')
      .replace(/https:\/\/unpkg\.com\/ortkeep@[^/]+\//, '/node_modules/ortkeep/')
      .replace(
        '/* session.run(...) */',
        `ort.env.wasm.numThreads = 1;
    const { compare } = await import('/feeds.js');
    const background = await session.formsReady; // the form is verified after load() resolves
    window.result = { ok: true, tier: session.info.cache.tier, form: session.info.form, stored: background.stored, failed: background.failed, ...(await compare(ort, session)) };`,
      )
      .replace(
        /ortkeep\.load\(('model\.onnx'[^)]*)\)/,
        'ortkeep.load($1).catch((e) => { window.result = { ok: false, code: e.code, message: e.message }; throw e; })',
      );
    writeFileSync(path.join(APP, 'script-tag.html'), `<!doctype html><html><body>\n${example}</body></html>`);

    writeFileSync(
      path.join(APP, 'module-worker.js'),
      `import * as ort from '${ORT}ort.min.mjs';
import { load } from '/node_modules/ortkeep/js/index.js';
import { compare } from '/feeds.js';
ort.env.wasm.numThreads = 1;
try {
  const session = await load('/model.onnx', { ort });
  postMessage({ ok: true, tier: session.info.cache.tier, ...(await compare(ort, session)) });
} catch (e) {
  postMessage({ ok: false, code: e?.code, message: String(e?.message ?? e) });
}
`,
    );
    writeFileSync(
      path.join(APP, 'classic-worker.js'),
      `importScripts('${ORT}ort.min.js', '/node_modules/ortkeep/dist/ortkeep.iife.js');
ort.env.wasm.numThreads = 1;
ort.env.wasm.wasmPaths = '${ORT}'; // onnxruntime-web cannot tell its own URL in a classic worker
(async () => {
  try {
    const { compare } = await import('/feeds.js');
    const session = await ortkeep.load('/model.onnx');
    postMessage({ ok: true, ...(await compare(ort, session)) });
  } catch (e) {
    postMessage({ ok: false, code: e?.code, message: String(e?.message ?? e) });
  }
})();
`,
    );
    const workerPage = (kind) => `<!doctype html><html><body><script>
const w = new Worker('/${kind}-worker.js'${kind === 'module' ? ", { type: 'module' }" : ''});
w.onmessage = (e) => { window.result = e.data; };
w.onerror = (e) => { window.result = { ok: false, message: e.message }; };
</script></body></html>`;
    writeFileSync(path.join(APP, 'module-worker.html'), workerPage('module'));
    writeFileSync(path.join(APP, 'classic-worker.html'), workerPage('classic'));
    // served with a strict CSP (see the handler): no inline script, no eval; wasm compiles
    writeFileSync(
      path.join(APP, 'csp.html'),
      '<!doctype html><html><body><script type="module" src="/csp.js"></script></body></html>',
    );
    writeFileSync(
      path.join(APP, 'csp.js'),
      `import * as ort from '${ORT}ort.min.mjs';
import { load } from '/node_modules/ortkeep/js/index.js';
import { compare } from '/feeds.js';
ort.env.wasm.numThreads = 1;
// the policy is in force: eval is refused
let evalRefused = false;
try { (0, eval)('1'); } catch { evalRefused = true; }
try {
  const session = await load('/model.onnx', { ort });
  window.result = { ok: true, evalRefused, ...(await compare(ort, session)) };
} catch (e) {
  window.result = { ok: false, evalRefused, code: e?.code, message: String(e?.message ?? e) };
}
`,
    );
    writeFileSync(
      path.join(APP, 'core-load.html'),
      `<!doctype html><html><body><script type="module">
import * as ort from '${ORT}ort.min.mjs';
import { load, setCoreWasmUrl } from '/node_modules/ortkeep/js/index.js';
setCoreWasmUrl(new URL('/nowhere/ortkeep-core.wasm', location.href));
try { await load('/model.onnx', { ort }); window.result = { ok: true }; } catch (e) { window.result = { ok: false, name: e.name, code: e.code, message: e.message }; }
</script></body></html>`,
    );

    // onnxruntime-web imported by its file's path: no import map, no script tag to find its .wasm by
    writeFileSync(
      path.join(APP, 'path-import.html'),
      `<!doctype html><html><body><script type="module">
import * as ort from '${ORT}ort.min.mjs';
import { load } from '/node_modules/ortkeep/js/index.js';
import { compare } from '/feeds.js';
ort.env.wasm.numThreads = 1;
try {
  const session = await load('/model.onnx', { ort, forms: { probe: { inputDims: { input: [1, 256] } } } });
  const background = await session.formsReady;
  window.result = { ok: true, form: session.info.form, stored: background.stored, ...(await compare(ort, session)) };
} catch (e) {
  window.result = { ok: false, code: e?.code, message: String(e?.message ?? e) };
}
</script></body></html>`,
    );

    const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self' blob:; connect-src 'self'";
    server = await startServer({
      root: APP,
      // as real servers answer: the model gzipped as it streams with a weak ETag (vite preview), every
      // other file chunked with no Content-Length (Node's res.pipe)
      files: (p) => (p.endsWith('.onnx') ? PROFILES.vitePreview(p) : PROFILES.nodePipe(p)),
      handler: (req, res, { pathname, serveFile }) => {
        // a host that refuses HEAD (405), as one serving URLs signed for GET does
        if (pathname.endsWith('.wasm')) {
          if (req.headers.range === 'bytes=0-3') wasmProbes.push(pathname);
          if (req.method !== 'HEAD') return false;
          wasmHeads.push(pathname);
          res.writeHead(405, { allow: 'GET' });
          res.end();
          return true;
        }
        if (pathname !== '/csp.html') return false;
        res.setHeader('Content-Security-Policy', CSP);
        return serveFile(req, res, pathname, PROFILES.nodePipe(pathname)).then(() => true);
      },
    });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  /** Opens a page of the app in a context, waits for window.result; with the page's errors and warnings. */
  async function visit(context, page) {
    const p = await context.newPage();
    const errors = [];
    const warnings = [];
    p.on('pageerror', (e) => errors.push(e.message));
    p.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
      if (m.type() === 'warning') warnings.push(m.text());
    });
    await p.goto(`${server.origin}/${page}`);
    await p.waitForFunction(() => window.result, null, { timeout: 90000 });
    const r = await p.evaluate(() => window.result);
    await p.close();
    return { ...r, errors, warnings };
  }

  /** One visit in a fresh profile. */
  async function run(page) {
    const context = await browser.newContext();
    try {
      return await visit(context, page);
    } finally {
      await context.close();
    }
  }

  test("script-tag.html (the README's block, forms: true): silero v5 equals plain onnxruntime-web; the second visit loads it from IndexedDB in its verified optimized form", async () => {
    // one profile for both visits, so IndexedDB persists as a returning user's does
    const context = await browser.newContext();
    let first;
    let second;
    try {
      first = await visit(context, 'script-tag.html');
      second = await visit(context, 'script-tag.html');
    } finally {
      await context.close();
    }
    assert.equal(first.ok, true, JSON.stringify(first));
    assert.equal(first.tier, 'network');
    assert.equal(first.ours.length, 1);
    assert.deepEqual(first.ours, first.theirs);
    assert.equal(
      first.form.chosen,
      'capturing',
      `forms are on in a script-tag page: ${JSON.stringify(first.form)} ${first.warnings.join(' | ')}`,
    );
    assert.ok(
      ['onnx', 'ort'].includes(first.stored),
      `a form was verified and stored: ${JSON.stringify(first.failed)}`,
    );
    assert.equal(second.ok, true, JSON.stringify(second));
    assert.equal(second.tier, 'indexeddb');
    assert.deepEqual(
      { form: second.form.form, level: second.form.level, chosen: second.form.chosen },
      { form: first.stored, level: 'disabled', chosen: 'verified' },
    );
    // the forms' round-trip tolerance (fusions reorder float sums)
    second.ours.forEach((a, i) =>
      assert.ok(Math.abs(a - second.theirs[i]) <= 1e-4 + 1e-3 * Math.abs(a), `${a} vs ${second.theirs[i]}`),
    );
    for (const v of [first, second])
      assert.deepEqual(
        v.warnings.filter((w) => /ortkeep/.test(w)),
        [],
        'no ortkeep warning',
      );
  });

  for (const page of ['module-worker.html', 'classic-worker.html', 'csp.html']) {
    test(`${page}: silero v5 through the tarball equals plain onnxruntime-web`, async () => {
      const r = await run(page);
      assert.equal(r.ok, true, JSON.stringify(r));
      assert.equal(r.ours.length, 1);
      assert.deepEqual(r.ours, r.theirs);
      if (page === 'csp.html') assert.equal(r.evalRefused, true, 'the strict CSP is in force');
    });
  }

  test("path-import.html (onnxruntime-web imported by its file's path, forms on) from a host that refuses HEAD: onnxruntime-web's .wasm is found beside the package by a four-byte ranged GET, never a HEAD; a form is verified; silero v5 equals plain onnxruntime-web; no console error", async () => {
    wasmHeads.length = 0;
    wasmProbes.length = 0;
    const r = await run('path-import.html');
    assert.equal(r.ok, true, JSON.stringify(r));
    assert.deepEqual(r.ours, r.theirs);
    assert.equal(r.form.chosen, 'capturing', JSON.stringify(r.form));
    assert.ok(r.stored, 'a form was verified and stored');
    assert.deepEqual(wasmHeads, [], 'no HEAD request');
    assert.ok(
      wasmProbes.some((p) => p === `${ORT}ort-wasm-simd-threaded.wasm`),
      `the .wasm beside the package probed: ${JSON.stringify(wasmProbes)}`,
    );
    assert.deepEqual(r.errors, [], 'no console error');
  });

  test('a core wasm URL that fails is CORE_LOAD saying what to do', async () => {
    const r = await run('core-load.html');
    assert.equal(r.ok, false);
    assert.equal(r.name, 'OrtkeepError');
    assert.equal(r.code, 'CORE_LOAD');
    assert.match(r.message, /setCoreWasmUrl|ortkeep-core\.wasm/);
  });
});
