// The drop-in through a bundler alias, in a Vite 8 app built from the packed
// tarball: `onnxruntime-web` aliased to `ortkeep/onnxruntime-web` (the lines
// docs/ways-in.md gives) and nothing else changed. A library that imports
// onnxruntime-web and creates its session from bytes, @ricky0123/vad-web's
// NonRealTimeVAD on a generated clip, gets ortkeep's sessions and finds the
// same speech segments as in the same app without the alias; the entry does
// not import itself through the alias (the build would loop or fail).
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { launchBrowser } from '../../scripts/chromium.mjs';
import { REPO_ROOT } from '../../scripts/static-server.mjs';

const APPS = path.join(REPO_ROOT, 'build/scratch-dropin-vite'); // its own: vite-apps may run beside it
const VAD = 'node_modules/@ricky0123/vad-web';

/** The alias, as docs/ways-in.md writes it for Vite. */
const VITE_CONFIG = `export default {
  resolve: { alias: [{ find: /^onnxruntime-web(\\/wasm|\\/webgpu|\\/all|\\/jspi|\\/webgl)?$/, replacement: 'ortkeep/onnxruntime-web$1' }] },
};
`;

const MAIN_JS = `import * as ort from 'onnxruntime-web';
import { NonRealTimeVAD } from '@ricky0123/vad-web/dist/non-real-time-vad.js';

// onnxruntime-web's .mjs/.wasm served from /ort/, for this module's copy and
// for the one vad-web requires (CommonJS: without the alias, another build)
const setUp = (o) => { o.env.wasm.wasmPaths = '/ort/'; o.env.wasm.numThreads = 1; };
setUp(ort);

// 6 s at 16 kHz: silence, a voiced 1.5 s burst (a 140 Hz buzz with formant-like
// harmonics, amplitude-modulated at a syllable rate), silence, another burst
function clip() {
  const rate = 16000;
  const audio = new Float32Array(rate * 6);
  for (const [from, to] of [[1, 2.5], [3.8, 5.2]]) {
    for (let i = Math.floor(from * rate); i < to * rate; i++) {
      const t = i / rate;
      let v = 0;
      for (let h = 1; h <= 25; h++) v += Math.sin(2 * Math.PI * 140 * h * t) * (h === 5 || h === 11 ? 1 : 0.3) / h;
      audio[i] = 0.3 * v * (0.6 + 0.4 * Math.sin(2 * Math.PI * 4 * t));
    }
  }
  return { audio, rate };
}

async function main() {
  try {
    const vad = await NonRealTimeVAD.new({
      modelURL: '/silero_vad_legacy.onnx', ortConfig: setUp,
      positiveSpeechThreshold: 0.2, negativeSpeechThreshold: 0.1, minSpeechMs: 100,
    });
    const { audio, rate } = clip();
    const segments = [];
    for await (const { start, end } of vad.run(audio, rate)) segments.push([Math.round(start), Math.round(end)]);
    const probe = await ort.InferenceSession.create(await (await fetch('/silero_vad_legacy.onnx')).arrayBuffer());
    window.result = { ok: true, segments, ortkeep: typeof probe.pool?.stats === 'function', inputs: probe.inputNames };
  } catch (e) {
    window.result = { ok: false, name: e?.name, code: e?.code, message: String(e?.stack ?? e) };
  }
}
main();
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

function makeApp(name, aliased) {
  const dir = path.join(APPS, name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(path.join(dir, 'node_modules/ortkeep'), { recursive: true });
  mkdirSync(path.join(dir, 'node_modules/@ricky0123'), { recursive: true });
  mkdirSync(path.join(dir, 'public/ort'), { recursive: true });
  execFileSync('tar', ['-xzf', tarball, '-C', path.join(dir, 'node_modules/ortkeep'), '--strip-components=1']);
  execFileSync('cp', [
    '-al',
    path.join(REPO_ROOT, 'node_modules/onnxruntime-web'),
    path.join(dir, 'node_modules/onnxruntime-web'),
  ]);
  execFileSync('cp', ['-al', path.join(REPO_ROOT, VAD), path.join(dir, VAD)]);
  symlinkSync(path.join(REPO_ROOT, 'node_modules/vite'), path.join(dir, 'node_modules/vite'));
  for (const f of ['ort-wasm-simd-threaded.jsep.wasm', 'ort-wasm-simd-threaded.jsep.mjs']) {
    cpSync(path.join(REPO_ROOT, 'node_modules/onnxruntime-web/dist', f), path.join(dir, 'public/ort', f));
  }
  cpSync(path.join(REPO_ROOT, VAD, 'dist/silero_vad_legacy.onnx'), path.join(dir, 'public/silero_vad_legacy.onnx'));
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name, private: true, type: 'module' }));
  writeFileSync(
    path.join(dir, 'index.html'),
    '<!doctype html><html><body><script type="module" src="/main.js"></script></body></html>',
  );
  writeFileSync(path.join(dir, 'main.js'), MAIN_JS);
  if (aliased) writeFileSync(path.join(dir, 'vite.config.js'), VITE_CONFIG);
  return dir;
}

async function buildAndVisit(dir) {
  execFileSync(process.execPath, [path.join(dir, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'error'], {
    cwd: dir,
    stdio: 'pipe',
  });
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      path.join(dir, 'node_modules/vite/bin/vite.js'),
      'preview',
      '--port',
      String(port),
      '--strictPort',
      '--host',
      '127.0.0.1',
    ],
    { cwd: dir, stdio: 'ignore' },
  );
  try {
    for (let i = 0; ; i++) {
      try {
        if ((await fetch(`http://127.0.0.1:${port}/`)).ok) break;
      } catch {
        /* not up yet */
      }
      if (i > 300) throw new Error('vite preview did not serve');
      await new Promise((r) => setTimeout(r, 200));
    }
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`http://127.0.0.1:${port}/`);
    await page.waitForFunction(() => window.result !== undefined, null, { timeout: 120000 });
    const result = await page.evaluate(() => window.result);
    await context.close();
    return result;
  } finally {
    await new Promise((resolve) => {
      child.once('exit', resolve);
      child.kill();
    });
  }
}

describe('the drop-in through a Vite alias (packed tarball, vite 8 build)', () => {
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

  test("vad-web NonRealTimeVAD, onnxruntime-web aliased to ortkeep/onnxruntime-web: ortkeep's sessions, the same segments as without", async () => {
    const plain = await buildAndVisit(makeApp('dropin-vad-plain', false));
    assert.equal(plain.ok, true, plain.message);
    assert.equal(plain.ortkeep, false);
    assert.ok(plain.segments.length > 0, 'the clip has speech for silero');
    const aliased = await buildAndVisit(makeApp('dropin-vad-alias', true));
    assert.equal(aliased.ok, true, `${aliased.code}: ${aliased.message}`);
    assert.equal(aliased.ortkeep, true, "the alias made the library's onnxruntime-web ortkeep's");
    assert.deepEqual(aliased.segments, plain.segments);
  });
});
