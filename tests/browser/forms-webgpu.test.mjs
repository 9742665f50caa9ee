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
    if (pathname !== '/adv/batch.onnx' && pathname !== '/adv/batch-again.onnx') return false;
    serveBytes(req, res, bytes, { etag: '"batch-v1"' });
    return true;
  };
});

/** The cache test page with the model's input and a deadline for what must settle. */
async function helperPage() {
  const page = await env.newPage('/tests/browser/pages/cache.html');
  page.setDefaultTimeout(300000);
  await page.evaluate(() => {
    const ort = window.ortDirect;
    window.helpers = {
      input: (seed) =>
        new ort.Tensor(
          'float32',
          Float32Array.from({ length: 64 }, (_, i) => seed + i / 64),
          [1, 64],
        ),
      deadline: (ms, what) =>
        new Promise((_, reject) => {
          setTimeout(() => reject(new Error(`${what} did not settle in ${ms} ms`)), ms);
        }),
    };
  });
  return page;
}

test('WebGPU, first visit with forms: run() right after load() settles equal to plain onnxruntime-web while the form is verified; no unhandled error, no tier failed', async () => {
  const page = await helperPage();
  const r = await page.evaluate(async (url) => {
    const unhandled = [];
    window.addEventListener('unhandledrejection', (e) => unhandled.push(String(e.reason?.stack ?? e.reason)));
    window.addEventListener('error', (e) => unhandled.push(String(e.error?.stack ?? e.message)));
    const { ortkeep, ortDirect: ort } = window;
    const { input, deadline } = window.helpers;
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

test("the caller's own plain onnxruntime-web session, run back to back on WebGPU while ortkeep verifies a form in the background: every run right, never 'Session already started'", async () => {
  const page = await helperPage();
  const r = await page.evaluate(async (url) => {
    const { ortkeep, ortDirect: ort } = window;
    const { input, deadline } = window.helpers;
    const s = await ortkeep.load(url, { ort, forms: true, memory: false, executionProviders: ['webgpu', 'wasm'] });
    // the caller's own sessions, one on the page's GPU device, made while
    // ortkeep's background work goes on
    const bytes = await (await fetch(url, { cache: 'no-store' })).arrayBuffer();
    const reference = await ort.InferenceSession.create(bytes);
    const want = Array.from((await reference.run({ x: input(0.5) })).y.data);
    const plain = await ort.InferenceSession.create(bytes, { executionProviders: ['webgpu'] });
    let pending = true;
    const background = s.formsReady.then(
      (b) => b,
      (e) => ({ error: String(e) }),
    );
    background.then(() => {
      pending = false;
    });
    const errors = [];
    let runs = 0;
    let runsWhilePending = 0;
    let diff = 0;
    // one run at a time, as onnxruntime-web asks of its callers, for as long
    // as the background work goes on
    while (pending && runs < 2000) {
      try {
        const y = (await Promise.race([plain.run({ x: input(0.5) }), deadline(30000, 'a plain run')])).y.data;
        for (let j = 0; j < y.length; j++) diff = Math.max(diff, Math.abs(y[j] - want[j]));
        if (pending) runsWhilePending++;
      } catch (e) {
        errors.push(String(e?.message ?? e));
        break; // onnxruntime-web's run state is broken from here on
      }
      runs++;
    }
    const done = await Promise.race([background, deadline(120000, 'formsReady')]).catch((e) => ({ error: String(e) }));
    if (errors.length) return { errors, runs, done };
    const after = Array.from((await s.run({ x: input(0.5) })).y.data);
    let diffOurs = 0;
    after.forEach((v, j) => {
      diffOurs = Math.max(diffOurs, Math.abs(v - want[j]));
    });
    await s.dispose();
    await plain.release();
    await reference.release();
    return { errors, runs, runsWhilePending, diff, diffOurs, done, form: s.info.form };
  }, '/adv/batch-again.onnx');
  assert.deepEqual(r.errors, []);
  assert.equal(r.form.chosen, 'capturing', JSON.stringify(r.form));
  assert.ok(r.runsWhilePending > 0, 'the plain runs overlapped the background work');
  assert.ok(r.diff < 1e-3, `the plain WebGPU session's outputs differ by ${r.diff}`);
  assert.ok(r.diffOurs < 1e-3, `ortkeep's outputs differ by ${r.diffOurs}`);
  assert.equal(r.done.error, undefined, r.done.error);
  for (const f of r.done.failed) assert.notEqual(f.reason, 'session', JSON.stringify(r.done));
  console.log(
    `[forms-webgpu] ${r.runsWhilePending} plain runs beside the background: ${JSON.stringify(r.done.stored)}`,
  );
  await page.close();
});
