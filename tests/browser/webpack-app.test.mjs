// The packed tarball in a fresh webpack 5 app with webpack's default
// configuration (`webpack --mode production`, no webpack.config.js), in
// Chromium: it builds, a real model (silero v5) loads through ortkeep with
// forms on, its outputs equal plain onnxruntime-web's in the same page, and
// the second visit (same profile) is from IndexedDB in its verified form.
// webpack emits ortkeep's core .wasm and capturing loaders from their
// `new URL('…', import.meta.url)` literals; onnxruntime-web is set up as its
// docs say for bundlers (its .wasm served from /ort/).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { launchBrowser } from '../../scripts/chromium.mjs';
import { REPO_ROOT, startServer } from '../../scripts/static-server.mjs';
import { REAL_MODELS } from '../models.mjs';

const APP = path.join(REPO_ROOT, 'build/scratch-webpack-app');
const MODEL = REAL_MODELS.find((m) => m.name === 'silero_vad_v5').path;
const WEBPACK_CLI = path.join(REPO_ROOT, 'node_modules/webpack-cli/bin/cli.js');

const INDEX_JS = `import * as ort from 'onnxruntime-web';
import { load } from 'ortkeep';

ort.env.wasm.wasmPaths = { wasm: '/ort/ort-wasm-simd-threaded.jsep.wasm' };
ort.env.wasm.numThreads = 1;
const feeds = () => ({
  input: new ort.Tensor('float32', Float32Array.from({ length: 512 }, (_, i) => Math.sin(i / 9)), [1, 512]),
  state: new ort.Tensor('float32', new Float32Array(256), [2, 1, 128]),
  sr: new ort.Tensor('int64', BigInt64Array.from([16000n]), []),
});
async function main() {
  const warnings = [];
  try {
    const session = await load('/silero.onnx', { ort, onWarning: (w) => warnings.push(w.message) });
    const ours = await session.run(feeds());
    const background = await session.formsReady;
    const plain = await ort.InferenceSession.create('/silero.onnx');
    const theirs = await plain.run(feeds());
    window.result = {
      ok: true, ours: Array.from(ours.output.data), theirs: Array.from(theirs.output.data), warnings,
      tier: session.info.cache.tier, form: session.info.form, stored: background.stored, failed: background.failed,
    };
  } catch (e) {
    window.result = { ok: false, code: e?.code, message: String(e?.message ?? e), warnings };
  }
}
main();
`;

let server;
let browser;
let buildLog;

/** |a-b| <= 1e-4 + 1e-3|a|, the forms' round-trip tolerance (fusions reorder float sums). */
function assertClose(ours, theirs, what) {
  assert.equal(ours.length, theirs.length, what);
  ours.forEach((a, i) =>
    assert.ok(Math.abs(a - theirs[i]) <= 1e-4 + 1e-3 * Math.abs(a), `${what}: output ${i}: ${a} vs ${theirs[i]}`),
  );
}

describe('the packed tarball in a webpack 5 app, default configuration (Chromium)', () => {
  before(async () => {
    rmSync(APP, { recursive: true, force: true });
    mkdirSync(path.join(APP, 'node_modules/ortkeep'), { recursive: true });
    mkdirSync(path.join(APP, 'src'), { recursive: true });
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
    execFileSync('cp', [
      '-al',
      path.join(REPO_ROOT, 'node_modules/onnxruntime-web'),
      path.join(APP, 'node_modules/onnxruntime-web'),
    ]);
    writeFileSync(path.join(APP, 'package.json'), JSON.stringify({ name: 'webpack-app', private: true }));
    writeFileSync(path.join(APP, 'src/index.js'), INDEX_JS);
    // webpack's default config: ./src/index.js → ./dist/main.js
    buildLog = execFileSync(process.execPath, [WEBPACK_CLI, '--mode', 'production'], {
      cwd: APP,
      encoding: 'utf8',
      stdio: 'pipe',
    });
    mkdirSync(path.join(APP, 'dist/ort'), { recursive: true });
    cpSync(
      path.join(REPO_ROOT, 'node_modules/onnxruntime-web/dist/ort-wasm-simd-threaded.jsep.wasm'),
      path.join(APP, 'dist/ort/ort-wasm-simd-threaded.jsep.wasm'),
    );
    cpSync(path.join(REPO_ROOT, MODEL), path.join(APP, 'dist/silero.onnx'));
    writeFileSync(
      path.join(APP, 'dist/index.html'),
      '<!doctype html><html><body><script src="main.js"></script></body></html>',
    );
    server = await startServer({ root: path.join(APP, 'dist') });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  test("webpack --mode production builds it with no error, and no warning but its size hints (onnxruntime-web's 27 MB .wasm alone earns those)", () => {
    assert.match(buildLog, /webpack [\d.]+ compiled (successfully|with \d+ warnings?)/, buildLog);
    assert.doesNotMatch(buildLog, /ERROR/, buildLog);
    const warnings = [...buildLog.matchAll(/^WARNING in (.*?)(:|$)/gm)].map((m) => m[1]);
    for (const w of warnings)
      assert.match(w, /^(asset size limit|entrypoint size limit|webpack performance recommendations)$/, buildLog);
    // the core's wasm and the capturing loaders are emitted from their new URL() literals
    assert.match(buildLog, /\[from: node_modules\/ortkeep\/dist\/ortkeep-core\.wasm\]/);
    assert.match(buildLog, /\[from: node_modules\/ortkeep\/dist\/ort-capture\/ort-wasm-simd-threaded\.jsep\.mjs\]/);
    assert.ok(existsSync(path.join(APP, 'dist/main.js')));
  });

  test('silero: forms on, equal to plain onnxruntime-web; the second visit from IndexedDB in its verified form', async () => {
    const context = await browser.newContext();
    const visit = async () => {
      const page = await context.newPage();
      try {
        await page.goto(`${server.origin}/index.html`);
        await page.waitForFunction(() => window.result !== undefined, null, { timeout: 120000 });
        return await page.evaluate(() => window.result);
      } finally {
        await page.close();
      }
    };
    try {
      const first = await visit();
      assert.equal(first.ok, true, `first visit: ${first.code}: ${first.message}`);
      assert.equal(first.tier, 'network');
      assert.deepEqual(first.ours, first.theirs);
      assert.equal(
        first.form.chosen,
        'capturing',
        `forms on: ${JSON.stringify(first.form)} ${first.warnings.join(' | ')}`,
      );
      assert.ok(
        ['onnx', 'ort'].includes(first.stored),
        `a form was verified and stored: ${JSON.stringify(first.failed)}`,
      );
      const second = await visit();
      assert.equal(second.ok, true, `second visit: ${second.code}: ${second.message}`);
      assert.equal(second.tier, 'indexeddb');
      assert.deepEqual(
        { form: second.form.form, level: second.form.level, chosen: second.form.chosen },
        { form: first.stored, level: 'disabled', chosen: 'verified' },
      );
      assertClose(second.ours, second.theirs, 'the verified form against plain onnxruntime-web');
      for (const v of [first, second]) assert.deepEqual(v.warnings, []);
    } finally {
      await context.close();
    }
  });
});
