// Forms on WebGPU (Chromium with --enable-unsafe-webgpu: SwiftShader), a
// first visit with executionProviders ['webgpu', 'wasm']: ortkeep's
// background work (storing and verifying the captured form) creates and runs
// sessions while the caller runs its own. onnxruntime-web breaks when a
// session is created or run during another's WebGPU run, so the background
// takes turns with the caller's runs (js/forms/turns.js): a run() right
// after load() settles with plain onnxruntime-web's outputs, nothing
// surfaces unhandled, and no tier is tombstoned by a failure.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { before, test } from 'node:test';
import { REPO_ROOT } from '../../scripts/static-server.mjs';
import { useBrowser } from './browser-env.mjs';

const DIR = path.join(REPO_ROOT, 'build/fixtures/adversary');
const env = useBrowser({ webgpu: true });

before(() => {
  if (!existsSync(path.join(DIR, 'batch.onnx'))) {
    execFileSync('/usr/bin/python3', [path.join(REPO_ROOT, 'tests/fixtures/make_adversary_models.py'), DIR]);
  }
  const bytes = readFileSync(path.join(DIR, 'batch.onnx'));
  env.handler = (req, res, { pathname, serveBytes }) => {
    if (pathname !== '/adv/batch.onnx') return false;
    serveBytes(req, res, bytes, { etag: '"batch-v1"' });
    return true;
  };
});

test('WebGPU, first visit with forms: run() right after load() settles equal to plain onnxruntime-web while the form is verified; no unhandled error, no tier failed', async () => {
  const page = await env.newPage('/tests/browser/pages/cache.html');
  page.setDefaultTimeout(300000);
  const r = await page.evaluate(async (url) => {
    const unhandled = [];
    window.addEventListener('unhandledrejection', (e) => unhandled.push(String(e.reason?.stack ?? e.reason)));
    window.addEventListener('error', (e) => unhandled.push(String(e.error?.stack ?? e.message)));
    const { ortkeep, ortDirect: ort } = window;
    const input = (seed) =>
      new ort.Tensor(
        'float32',
        Float32Array.from({ length: 64 }, (_, i) => seed + i / 64),
        [1, 64],
      );
    const deadline = (ms, what) =>
      new Promise((_, reject) => {
        setTimeout(() => reject(new Error(`${what} did not settle in ${ms} ms`)), ms);
      });
    const s = await ortkeep.load(url, { ort, forms: true, memory: false, executionProviders: ['webgpu', 'wasm'] });
    const form = s.info.form;
    const ours = [];
    let runError = null;
    try {
      // at once, and again while the background work goes on
      for (const seed of [0.5, -0.25, 1]) {
        const out = await Promise.race([s.run({ x: input(seed) }), deadline(90000, 'run()')]);
        ours.push(Array.from(out.y.data));
      }
    } catch (e) {
      runError = String(e?.stack ?? e);
    }
    const background = await Promise.race([s.formsReady, deadline(240000, 'formsReady')]).catch((e) => ({
      error: String(e),
    }));
    await s.dispose();
    const reference = await ort.InferenceSession.create(await (await fetch(url, { cache: 'no-store' })).arrayBuffer());
    const theirs = [];
    for (const seed of [0.5, -0.25, 1]) theirs.push(Array.from((await reference.run({ x: input(seed) })).y.data));
    await reference.release();
    const list = (await ortkeep.cache.list()).map((e) => ({ form: e.form, status: e.status, reason: e.reason }));
    return { form, ours, theirs, runError, background, unhandled, list };
  }, '/adv/batch.onnx');
  assert.equal(r.runError, null);
  assert.deepEqual(r.unhandled, []);
  assert.equal(r.form.chosen, 'capturing', JSON.stringify(r.form));
  let diff = 0;
  r.ours.forEach((o, i) =>
    o.forEach((v, j) => {
      diff = Math.max(diff, Math.abs(v - r.theirs[i][j]));
    }),
  );
  assert.ok(diff < 1e-3, `WebGPU outputs differ from plain onnxruntime-web (wasm) by ${diff}`);
  assert.equal(r.background.error, undefined, r.background.error);
  for (const f of r.background.failed) {
    assert.notEqual(f.reason, 'session', `a tier failed for good: ${JSON.stringify(r.background)}`);
  }
  for (const e of r.list) assert.notEqual(e.reason, 'session', JSON.stringify(r.list));
  const { stored, failed } = r.background;
  console.log(
    `[forms-webgpu] background: ${JSON.stringify(stored)} failed ${JSON.stringify(failed)}; max diff ${diff}`,
  );
  await page.close();
});
