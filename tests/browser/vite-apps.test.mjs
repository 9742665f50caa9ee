// The packed tarball in fresh Vite apps, every major from 5 to 8, dev
// server and production build, in Chromium: a real model
// (silero v5) loads through ortkeep with forms on and no ortkeep
// configuration, its outputs equal plain onnxruntime-web's in the same page,
// and the second visit (same browser profile) loads it from IndexedDB in its
// verified optimized form. That needs the core's .wasm, the capturing loaders
// (dist/ort-capture/) and onnxruntime-web's .wasm found with no help: Vite's
// build emits them from ortkeep's `new URL('…', import.meta.url)` literals,
// its dev server rewrites them, and Vite 5-7's dev pre-bundling moves
// import.meta.url (ortkeep then finds its files at the install path). A core
// URL that answers HTML is CORE_LOAD with the fix. onnxruntime-web is set up
// as its own docs say for bundlers (its .wasm served from /ort/), the same
// for the plain reference; that part is onnxruntime-web's, not ours.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { launchBrowser } from '../../scripts/chromium.mjs';
import { REPO_ROOT } from '../../scripts/static-server.mjs';
import { REAL_MODELS } from '../models.mjs';

const APPS = path.join(REPO_ROOT, 'build/scratch-apps');
const VITES = { vite8: 'vite', vite7: 'vite7', vite6: 'vite6', vite5: 'vite5' }; // app → the package under node_modules/ (vite5 is npm:vite@5, ...)
const MODEL = REAL_MODELS.find((m) => m.name === 'silero_vad_v5').path;

const MAIN_JS = `import * as ort from 'onnxruntime-web';
import { load } from 'ortkeep';

// onnxruntime-web's own bundler setup: its loader is inside its bundle, its
// .wasm served as a static file (Vite moves import.meta.url in dev)
ort.env.wasm.wasmPaths = { wasm: '/ort/ort-wasm-simd-threaded.jsep.wasm' };
ort.env.wasm.numThreads = 1;
const feeds = () => ({
  input: new ort.Tensor('float32', Float32Array.from({ length: 512 }, (_, i) => Math.sin(i / 9)), [1, 512]),
  state: new ort.Tensor('float32', new Float32Array(256), [2, 1, 128]),
  sr: new ort.Tensor('int64', BigInt64Array.from([16000n]), []),
});
async function main() {
  try {
    const session = await load('/silero.onnx', { ort }); // forms on by default
    const ours = await session.run(feeds());
    const background = await session.formsReady; // the form is verified after load() resolves
    const plain = await ort.InferenceSession.create('/silero.onnx');
    const theirs = await plain.run(feeds());
    window.result = {
      ok: true, ours: Array.from(ours.output.data), theirs: Array.from(theirs.output.data),
      tier: session.info.cache.tier, form: session.info.form, stored: background.stored, failed: background.failed,
    };
  } catch (e) {
    window.result = { ok: false, name: e?.name, code: e?.code, message: String(e?.message ?? e) };
  }
}
main(); // no top-level await: Vite 5 builds for es2020
`;

let tarball;
let browser;

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

/**
 * A fresh app: the tarball unpacked as node_modules/ortkeep, onnxruntime-web and Vite linked.
 * ortPackage: the folder under node_modules/ installed as the app's onnxruntime-web (ort127 is onnxruntime-web@1.27.0, ...).
 */
function makeApp(name, viteConfig = null, ortPackage = 'onnxruntime-web') {
  const dir = path.join(APPS, name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(path.join(dir, 'node_modules/ortkeep'), { recursive: true });
  mkdirSync(path.join(dir, 'public/ort'), { recursive: true });
  execFileSync('tar', ['-xzf', tarball, '-C', path.join(dir, 'node_modules/ortkeep'), '--strip-components=1']);
  // hard links: inside the app's root, as an install puts it (Vite serves nothing outside its root)
  execFileSync('cp', [
    '-al',
    path.join(REPO_ROOT, 'node_modules', ortPackage),
    path.join(dir, 'node_modules/onnxruntime-web'),
  ]);
  symlinkSync(path.join(REPO_ROOT, 'node_modules', VITES[name.split('-')[0]]), path.join(dir, 'node_modules/vite'));
  cpSync(
    path.join(REPO_ROOT, 'node_modules', ortPackage, 'dist/ort-wasm-simd-threaded.jsep.wasm'),
    path.join(dir, 'public/ort/ort-wasm-simd-threaded.jsep.wasm'),
  );
  cpSync(path.join(REPO_ROOT, MODEL), path.join(dir, 'public/silero.onnx'));
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name, private: true, type: 'module' }));
  writeFileSync(
    path.join(dir, 'index.html'),
    '<!doctype html><html><body><script type="module" src="/main.js"></script></body></html>',
  );
  writeFileSync(path.join(dir, 'main.js'), MAIN_JS);
  if (viteConfig) writeFileSync(path.join(dir, 'vite.config.js'), `export default ${JSON.stringify(viteConfig)};\n`);
  return dir;
}

/** Runs `vite args…` in dir until it serves on port; returns a stop function. */
async function serve(dir, args, port) {
  const child = spawn(
    process.execPath,
    [
      path.join(dir, 'node_modules/vite/bin/vite.js'),
      ...args,
      '--port',
      String(port),
      '--strictPort',
      '--host',
      '127.0.0.1',
    ],
    { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let log = '';
  child.stdout.on('data', (d) => {
    log += d;
  });
  child.stderr.on('data', (d) => {
    log += d;
  });
  const deadline = Date.now() + 60000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`vite ${args.join(' ')} exited: ${log}`);
    try {
      const r = await fetch(`http://127.0.0.1:${port}/`);
      if (r.ok) break;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) {
      child.kill();
      throw new Error(`vite ${args.join(' ')} did not serve: ${log}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return () =>
    new Promise((resolve) => {
      child.once('exit', resolve);
      child.kill();
    });
}

/** Serves the app ('dev', or 'build': vite build then vite preview) while fn(port) runs. */
async function withApp(dir, mode, fn) {
  if (mode === 'build')
    execFileSync(process.execPath, [path.join(dir, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'error'], {
      cwd: dir,
      stdio: 'pipe',
    });
  const port = await freePort();
  const stop = await serve(dir, mode === 'build' ? ['preview'] : [], port);
  try {
    return await fn(port);
  } finally {
    await stop();
  }
}

/** One visit to the app in a context (a browser profile): window.result and the page's console warnings. */
async function visit(context, port, search = '') {
  const page = await context.newPage();
  const warnings = [];
  page.on('console', (m) => {
    if (m.type() === 'warning' || m.type() === 'error') warnings.push(m.text());
  });
  try {
    await page.goto(`http://127.0.0.1:${port}/${search}`);
    await page.waitForFunction(() => window.result !== undefined, null, { timeout: 120000 });
    return { ...(await page.evaluate(() => window.result)), warnings };
  } finally {
    await page.close();
  }
}

async function openApp(port) {
  const context = await browser.newContext();
  try {
    return await visit(context, port);
  } finally {
    await context.close();
  }
}

/** Two visits in one profile, so IndexedDB persists between them, as a returning user's. */
async function visitTwice(port) {
  const context = await browser.newContext();
  try {
    return [await visit(context, port), await visit(context, port)];
  } finally {
    await context.close();
  }
}

/** |a-b| <= 1e-4 + 1e-3|a|, the forms' round-trip tolerance (fusions reorder float sums). */
function assertClose(ours, theirs, what) {
  assert.equal(ours.length, theirs.length, what);
  ours.forEach((a, i) =>
    assert.ok(Math.abs(a - theirs[i]) <= 1e-4 + 1e-3 * Math.abs(a), `${what}: output ${i}: ${a} vs ${theirs[i]}`),
  );
}

/**
 * First visit: from the network, the original serving while its optimized
 * form is captured, then verified and stored in the background. Second
 * visit: from IndexedDB, in that form, at 'disabled'. Both equal plain
 * onnxruntime-web; forms never turned off.
 */
function assertFormsCached([first, second]) {
  assert.equal(first.ok, true, `first visit: ${first.code}: ${first.message}`);
  assert.equal(first.tier, 'network');
  assert.deepEqual(first.ours, first.theirs, 'the original equals plain onnxruntime-web');
  assert.equal(
    first.form.chosen,
    'capturing',
    `first visit: forms are on: ${JSON.stringify(first.form)} ${first.warnings.join(' | ')}`,
  );
  assert.ok(['onnx', 'ort'].includes(first.stored), `a form was verified and stored: ${JSON.stringify(first.failed)}`);
  assert.equal(second.ok, true, `second visit: ${second.code}: ${second.message}`);
  assert.equal(second.tier, 'indexeddb', 'the second visit loads from IndexedDB');
  assert.deepEqual(
    { form: second.form.form, level: second.form.level, chosen: second.form.chosen },
    { form: first.stored, level: 'disabled', chosen: 'verified' },
  );
  assertClose(second.ours, second.theirs, 'the optimized form against plain onnxruntime-web');
  for (const v of [first, second])
    assert.deepEqual(
      v.warnings.filter((w) => /ortkeep/.test(w)),
      [],
      'no ortkeep warning',
    );
}

describe('the packed tarball in fresh Vite apps (Chromium)', () => {
  before(() => {
    mkdirSync(APPS, { recursive: true });
    const out = execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', APPS], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
    });
    tarball = path.join(APPS, JSON.parse(out)[0].filename);
    assert.ok(existsSync(tarball));
  });
  before(async () => {
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
  });

  for (const vite of Object.keys(VITES)) {
    test(`${vite}: vite build + vite preview, no configuration: forms on, equal to onnxruntime-web, the second visit from IndexedDB in its optimized form`, async () => {
      await withApp(makeApp(`${vite}-build`), 'build', async (port) => assertFormsCached(await visitTwice(port)));
    });
  }

  // ortkeep's build derived its capturing loaders from 1.30.0; an app on another onnxruntime-web gets its
  // loader derived in the page from the copy Vite emits of the app's own (js/package-files.js)
  for (const [ortPackage, version] of [
    ['ort122', '1.22.0'],
    ['ort127', '1.27.0'],
    ['ort131', '1.31.0-dev.20260914-8d85527a0'],
  ]) {
    test(`vite8 build, the app on onnxruntime-web ${version}: forms on, equal to onnxruntime-web, the second visit from IndexedDB in its optimized form`, async () => {
      await withApp(makeApp(`vite8-${ortPackage}`, null, ortPackage), 'build', async (port) =>
        assertFormsCached(await visitTwice(port)),
      );
    });
  }

  test('vite8: dev server, no configuration: forms on, equal to onnxruntime-web, the second visit from IndexedDB in its optimized form', async () => {
    await withApp(makeApp('vite8-dev'), 'dev', async (port) => assertFormsCached(await visitTwice(port)));
  });

  for (const vite of ['vite7', 'vite6', 'vite5']) {
    test(`${vite}: dev server, no configuration: pre-bundling moves import.meta.url, ortkeep finds its wasm and capturing loaders at its install path; forms on, the second visit from IndexedDB in its optimized form`, async () => {
      await withApp(makeApp(`${vite}-dev`), 'dev', async (port) => assertFormsCached(await visitTwice(port)));
    });
  }

  test("vite5: dev server with optimizeDeps.exclude ['ortkeep'] (the README's advice) works too", async () => {
    await withApp(makeApp('vite5-dev-excluded', { optimizeDeps: { exclude: ['ortkeep'] } }), 'dev', async (port) =>
      assertFormsCached(await visitTwice(port)),
    );
  });

  test("vite8 build with onnxruntime-web/wasm (forms.bundle 'wasm'): its .wasm cannot be found, so forms turn off with one warning naming the setting; with that setting added, the second visit is in the optimized form", async () => {
    const dir = makeApp('vite8-wasm-bundle');
    writeFileSync(
      path.join(dir, 'main.js'),
      MAIN_JS.replace(
        "import * as ort from 'onnxruntime-web';",
        "import * as ort from 'onnxruntime-web/wasm';\nimport url from 'onnxruntime-web/ort-wasm-simd-threaded.wasm?url';",
      )
        // what the warning says to add, only on ?configured
        .replace(
          "ort.env.wasm.wasmPaths = { wasm: '/ort/ort-wasm-simd-threaded.jsep.wasm' };",
          "if (location.search === '?configured') ort.env.wasm.wasmPaths = { wasm: url };",
        )
        .replace('{ ort }', "{ ort, forms: { bundle: 'wasm' } }"),
    );
    await withApp(dir, 'build', async (port) => {
      const context = await browser.newContext();
      try {
        const off = await visit(context, port);
        assert.equal(off.ok, true, `${off.code}: ${off.message}`);
        assert.deepEqual(off.ours, off.theirs);
        assert.equal(off.form.chosen, 'off');
        assert.equal(off.form.why, 'no-wasm-url');
        const said = off.warnings.filter((w) => /artifact forms are off/.test(w));
        assert.equal(said.length, 1, off.warnings.join('\n'));
        assert.match(
          said[0],
          /ort\.env\.wasm\.wasmPaths = \{ wasm: url \} \(in Vite: import url from 'onnxruntime-web\/ort-wasm-simd-threaded\.wasm\?url'\)/,
        );
      } finally {
        await context.close();
      }
      const configured = async (context) => visit(context, port, '?configured');
      const context2 = await browser.newContext();
      try {
        assertFormsCached([await configured(context2), await configured(context2)]);
      } finally {
        await context2.close();
      }
    });
  });

  test("the README's first example, verbatim, in a Vite 8 app (dev and build): runs, loads from the network, then from IndexedDB in its optimized form", async () => {
    const readme = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
    const example = readme.slice(readme.indexOf('## Use')).match(/```js\n([\s\S]*?)```/)[1];
    for (const mode of ['dev', 'build']) {
      const dir = makeApp(`vite8-readme-${mode}`);
      mkdirSync(path.join(dir, 'public/models'), { recursive: true });
      cpSync(path.join(REPO_ROOT, MODEL), path.join(dir, 'public/models/silero_vad_v5.onnx'));
      // the block as written; one line after it reports to the test
      writeFileSync(
        path.join(dir, 'main.js'),
        `${example}\nconst background = await session.formsReady;\nwindow.result = { ok: true, output: Array.from(out.output.data), tier: session.info.cache.tier, form: session.info.form, stored: background.stored, failed: background.failed };\n`,
      );
      writeFileSync(
        path.join(dir, 'index.html'),
        `<!doctype html><html><body><script>
addEventListener('unhandledrejection', (e) => { window.result = { ok: false, message: String(e.reason?.message ?? e.reason), code: e.reason?.code }; });
addEventListener('error', (e) => { window.result = { ok: false, message: e.message }; });
</script><script type="module" src="/main.js"></script></body></html>`,
      );
      await withApp(dir, mode, async (port) => {
        const context = await browser.newContext();
        const page = await context.newPage();
        const visit = async () => {
          await page.goto(`http://127.0.0.1:${port}/`);
          await page.waitForFunction(() => window.result !== undefined, null, { timeout: 90000 });
          return page.evaluate(() => window.result);
        };
        const first = await visit();
        assert.equal(first.ok, true, `${mode}: ${first.code}: ${first.message}`);
        assert.equal(first.tier, 'network');
        assert.equal(first.output.length, 1);
        assert.equal(first.form.chosen, 'capturing', `${mode}: forms on: ${JSON.stringify(first.form)}`);
        assert.ok(
          ['onnx', 'ort'].includes(first.stored),
          `${mode}: a form was verified and stored: ${JSON.stringify(first.failed)}`,
        );
        const second = await visit();
        assert.equal(second.ok, true, `${mode}: ${second.message}`);
        assert.equal(second.tier, 'indexeddb', 'the next visit loads from IndexedDB');
        assert.deepEqual(
          { form: second.form.form, chosen: second.form.chosen },
          { form: first.stored, chosen: 'verified' },
          'the next visit in its optimized form',
        );
        assertClose(second.output, first.output, `${mode}: the optimized form against the original`);
        await context.close();
      });
    }
  });

  test('a core wasm URL that answers HTML (an SPA fallback) gives CORE_LOAD with the fix in its message', async () => {
    const dir = makeApp('vite8-badcore');
    writeFileSync(
      path.join(dir, 'main.js'),
      `import { load, setCoreWasmUrl } from 'ortkeep';
import * as ort from 'onnxruntime-web';
setCoreWasmUrl('/missing/ortkeep-core.wasm');
load('/silero.onnx', { ort }).then(() => { window.result = { ok: true }; }, (e) => { window.result = { ok: false, name: e.name, code: e.code, message: e.message }; });
`,
    );
    const r = await withApp(dir, 'dev', openApp);
    assert.equal(r.ok, false);
    assert.equal(r.name, 'OrtkeepError');
    assert.equal(r.code, 'CORE_LOAD');
    assert.match(r.message, /an HTML page: a dev server's SPA fallback for a missing file/);
    assert.match(r.message, /setCoreWasmUrl\(url\)/);
  });
});
