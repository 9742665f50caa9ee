// A creation refused for the caller's options, not for the stored bytes
// (docs/cache.md): a warm load whose verified form is served, with an option
// onnxruntime-web refuses as plain onnxruntime-web refuses it too
// (logSeverityLevel 9, logVerbosityLevel 7, graphOptimizationLevel 'bogus'),
// is a typed SESSION_CREATE that leaves the model and its form as they were;
// the same load with good options is then served from the form, with no
// request and nothing captured again. (The log levels are no part of a
// form's key; the core weighs the fact that the same options fail on a
// model of ortkeep's own: OK_SESSION_OPTIONS, tests/c/test_load_forms.c.)
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PROFILES } from '../../scripts/static-server.mjs';
import { modelPath, useCacheBrowser } from './cache-env.mjs';

// the model as vite preview serves it: gzipped as it streams, no Content-Length, weak ETag
const env = useCacheBrowser({ files: PROFILES.vitePreview });
const SILERO = modelPath('silero_vad_v5');
const PROBE = { inputDims: { input: [1, 256] } };

/** In the page: one load with forms; the form it was served in, or its typed error; the cache's entries after. */
async function loadWith(url, probe, sessionOptions) {
  const { ortkeep, ortDirect: ort } = window;
  let result;
  try {
    const s = await ortkeep.load(url, { forms: { probe }, ...sessionOptions });
    result = { ok: true, form: s.info.form, tier: s.info.cache.tier };
    await s.formsReady;
    await s.dispose();
  } catch (e) {
    result = { ok: false, code: e.code, message: e.message };
  }
  // plain onnxruntime-web with the same options refuses them too (or not)
  let plain = 'created';
  try {
    await (await ort.InferenceSession.create(url, sessionOptions)).release();
  } catch (e) {
    plain = `refused: ${e.message}`;
  }
  const list = (await ortkeep.cache.list()).map((e) => `${e.form}:${e.status ?? 'stored'}`).sort();
  return { ...result, plain, list };
}

const run = (page, options) =>
  page.evaluate(`(${loadWith})(${JSON.stringify(SILERO)}, ${JSON.stringify(PROBE)}, ${JSON.stringify(options)})`);

test("a warm load refused for the caller's options keeps the stored model and its verified form; the next good load is served from the form", async () => {
  await env.reset();
  const page = await env.newPage();
  const first = await run(page, {});
  assert.equal(first.ok, true, first.message);
  const stored = first.list;
  assert.ok(
    stored.some((e) => /^(ort|onnx):verified$/.test(e)),
    `a verified form: ${stored}`,
  );
  const warm = await run(page, {});
  assert.equal(warm.form.chosen, 'verified', JSON.stringify(warm.form));
  for (const bad of [{ logSeverityLevel: 9 }, { logVerbosityLevel: 7 }, { graphOptimizationLevel: 'bogus' }]) {
    const name = JSON.stringify(bad);
    env.server.resetCounts();
    const refused = await run(page, bad);
    assert.equal(refused.ok, false, `${name}: created (${JSON.stringify(refused.form)})`);
    assert.match(refused.plain, /^refused/, `${name}: plain onnxruntime-web refuses it too`);
    assert.ok(['SESSION_CREATE', 'INVALID_ARG'].includes(refused.code), `${name}: ${refused.code} ${refused.message}`);
    assert.deepEqual(refused.list, stored, `${name}: nothing stored changed`);
    const again = await run(page, {});
    assert.equal(again.ok, true, again.message);
    assert.equal(again.tier, 'indexeddb', name);
    assert.equal(again.form.chosen, 'verified', `${name}: served from the form after the refusal`);
    assert.equal(again.form.capturing ?? null, null, `${name}: nothing captured again`);
    assert.deepEqual(again.list, stored, name);
    // at most plain onnxruntime-web's own two fetches (it may refuse the bad options before its fetch)
    assert.ok(env.server.count(SILERO) <= 2, `${name}: ortkeep sent no request (${env.server.count(SILERO)} in all)`);
  }
  await page.close();
});
