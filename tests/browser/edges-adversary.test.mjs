// Edges an adversary found, each against plain onnxruntime-web's result: the
// last handle of a shared session released while a second load() of the same
// URL is joining it; a model in a SharedArrayBuffer (a cross-origin-isolated
// page); external data bytes rewritten in the caller's buffer between two
// loads while the first session lives; transformers.js's config and
// tokenizer of one release kept past cache.clear() (and cache.delete(url))
// and handed to the next release's model.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { before, test } from 'node:test';
import { REPO_ROOT } from '../../scripts/static-server.mjs';
import { modelPath, useCacheBrowser } from './cache-env.mjs';

const FIXTURES = path.join(REPO_ROOT, 'build/fixtures');
const HF_MODELS = path.join(REPO_ROOT, 'build/hf-models');
const RELEASES = path.join(REPO_ROOT, 'build/hf-releases');
const SILERO = modelPath('silero_vad_v5');
const MEL = modelPath('oww_melspectrogram');
const env = useCacheBrowser();

/** A page of this origin, ready; `isolated`: served with COOP/COEP (crossOriginIsolated). */
async function open(pagePath, { isolated = false } = {}) {
  env.handler = isolated
    ? (_req, res) => {
        res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
        res.setHeader('Cross-Origin-Embedder-Policy', 'require-corp');
        return false; // served as ever, with the headers
      }
    : env.handler;
  const page = await env.context.newPage();
  page.on('pageerror', (e) => console.error('[page error]', e.message));
  await page.goto(env.origin + pagePath);
  await page.waitForFunction(() => window.ready === true, null, { timeout: 60000 });
  return page;
}

before(() => {
  if (!existsSync(path.join(FIXTURES, 'external.onnx')))
    execFileSync('/usr/bin/python3', [path.join(REPO_ROOT, 'tests/fixtures/make_models.py'), FIXTURES]);
  if (!existsSync(path.join(HF_MODELS, 'tiny-bert/onnx/model.onnx')))
    execFileSync('/usr/bin/python3', [path.join(REPO_ROOT, 'tests/fixtures/make_hf_models.py'), HF_MODELS]);
  // two releases of one repo: v2 numbers the words in reverse (its tokenizer and its
  // embedding rows alike) and shifts the dense bias, so v2's model read with v1's
  // tokenizer (or config) gives other embeddings than either release whole
  execFileSync('/usr/bin/python3', [
    '-c',
    `
import json, os, shutil, sys
import onnx
from onnx import numpy_helper
src, out = sys.argv[1], sys.argv[2]
for rel in ("v1", "v2"):
    shutil.rmtree(os.path.join(out, rel), ignore_errors=True)
    shutil.copytree(src, os.path.join(out, rel))
v2 = os.path.join(out, "v2")
tok = json.load(open(os.path.join(v2, "tokenizer.json")))
vocab = tok["model"]["vocab"]
words = sorted(vocab, key=vocab.get)
order = words[:5] + words[5:][::-1]
tok["model"]["vocab"] = {t: i for i, t in enumerate(order)}
json.dump(tok, open(os.path.join(v2, "tokenizer.json"), "w"), indent=1)
model = onnx.load(os.path.join(v2, "onnx", "model.onnx"))
for init in model.graph.initializer:
    a = numpy_helper.to_array(init)
    if init.name == "word_embeddings":
        init.CopyFrom(numpy_helper.from_array(a[[vocab[t] for t in order]].copy(), init.name))
    elif init.name == "dense_b":
        init.CopyFrom(numpy_helper.from_array((a + 0.3).astype(a.dtype), init.name))
onnx.save_model(model, os.path.join(v2, "onnx", "model.onnx"))
`,
    path.join(HF_MODELS, 'tiny-bert'),
    RELEASES,
  ]);
});

test('the last handle released while a second load() of the same URL joins it: the joiner runs, equal to onnxruntime-web', async () => {
  await env.reset();
  const page = await open('/tests/browser/pages/pool.html');
  const r = await page.evaluate(async (url) => {
    const { ortkeep, ort, feeds } = window;
    const feed = () => feeds.FEEDS.oww_melspectrogram(ort, 1);
    const plain = await ort.InferenceSession.create(new Uint8Array(await (await fetch(url)).arrayBuffer()));
    const reference = await plain.run(feed());
    await plain.release();
    const outcomes = [];
    // the release lands `ticks` microtasks after the second load() starts: somewhere
    // in that sweep it lands while the joiner awaits the shared session
    for (let ticks = 0; ticks < 24; ticks++) {
      const first = await ortkeep.load(url, { ort, forms: false });
      let joined = false;
      const joining = ortkeep.load(url, { ort, forms: false }).then((s) => {
        joined = true;
        return s;
      });
      for (let i = 0; i < ticks; i++) await null;
      const joinedBefore = joined;
      await first.dispose();
      const second = await joining;
      try {
        const diff = feeds.maxAbsDiff(await second.run(feed()), reference);
        outcomes.push({ ticks, ok: true, diff, tier: second.info.cache?.tier ?? null, joinedBefore });
      } catch (e) {
        outcomes.push({ ticks, ok: false, code: e.code, message: e.message });
      }
      await second.dispose();
    }
    return outcomes;
  }, MEL);
  await page.close();
  const failed = r.filter((o) => !o.ok);
  assert.deepEqual(failed, [], `the joiner's run() failed: ${JSON.stringify(failed[0])}`);
  assert.ok(
    r.every((o) => o.diff === 0),
    JSON.stringify(r),
  );
  // the race was run: some joiner shared the session and had no handle yet when the first was released
  assert.ok(
    r.some((o) => o.tier === 'memory' && !o.joinedBefore),
    JSON.stringify(r),
  );
});

test('a model in a SharedArrayBuffer (cross-origin-isolated page): create(sab), create(view), load(view), load(sab), forms on and off, run equal to onnxruntime-web', async () => {
  await env.reset();
  const page = await open('/tests/browser/pages/dropin.html', { isolated: true });
  const r = await page.evaluate(async (url) => {
    const { ort, real, ortkeep } = window;
    const feeds = await import('/tests/browser/pages/feeds.js');
    const feed = () => feeds.FEEDS.silero_vad_v5(real, 1);
    const bytes = new Uint8Array(await (await fetch(url)).arrayBuffer());
    const sab = new SharedArrayBuffer(bytes.byteLength);
    new Uint8Array(sab).set(bytes);
    const plain = await real.InferenceSession.create(sab);
    const reference = await plain.run(feed());
    await plain.release();
    const ways = {
      'create(sab)': () => ort.InferenceSession.create(sab),
      'create(new Uint8Array(sab))': () => ort.InferenceSession.create(new Uint8Array(sab)),
      'create(sab, {forms: false})': () => ort.InferenceSession.create(sab, { forms: false }),
      'load(view)': () => ortkeep.load(new Uint8Array(sab), { ort: real }),
      'load(view, {forms: false})': () => ortkeep.load(new Uint8Array(sab), { ort: real, forms: false }),
      'load(sab, {forms: false, memory: false})': () => ortkeep.load(sab, { ort: real, forms: false, memory: false }),
    };
    const out = { isolated: globalThis.crossOriginIsolated };
    for (const [way, make] of Object.entries(ways)) {
      try {
        const s = await make();
        out[way] = feeds.maxAbsDiff(await s.run(feed()), reference);
        await (s.release ?? s.dispose).call(s);
      } catch (e) {
        out[way] = `${e.name} ${e.code ?? ''}: ${e.message}`;
      }
    }
    return out;
  }, SILERO);
  await page.close();
  env.handler = null;
  assert.deepEqual(r, {
    isolated: true,
    'create(sab)': 0,
    'create(new Uint8Array(sab))': 0,
    'create(sab, {forms: false})': 0,
    'load(view)': 0,
    'load(view, {forms: false})': 0,
    'load(sab, {forms: false, memory: false})': 0,
  });
});

test("external data bytes rewritten in the caller's buffer while the first session lives: the same load() again runs the new weights, equal to onnxruntime-web", async () => {
  await env.reset();
  const page = await open('/tests/browser/pages/pool.html');
  const r = await page.evaluate(async () => {
    const { ortkeep, ort } = window;
    const url = '/build/fixtures/external.onnx';
    const model = new Uint8Array(await (await fetch(url)).arrayBuffer());
    const weights = new Uint8Array(await (await fetch('/build/fixtures/external.bin')).arrayBuffer());
    const sri = `sha256-${btoa(String.fromCharCode(...new Uint8Array(await crypto.subtle.digest('SHA-256', model))))}`;
    const x = () =>
      new ort.Tensor(
        'float32',
        Float32Array.from({ length: 16 }, (_, i) => i / 7 - 1),
        [1, 16],
      );
    const plain = async (data) => {
      const s = await ort.InferenceSession.create(model, { externalData: [{ path: 'external.bin', data }] });
      const y = Array.from((await s.run({ x: x() })).y.data);
      await s.release();
      return y;
    };
    const oldPlain = await plain(weights.slice());
    const newPlain = await plain(new Uint8Array(weights.length));
    const out = {};
    for (const [name, source, options] of [
      ['url, forms off', url, { forms: false }],
      ['bytes, forms off', model, { forms: false }],
      ['url, integrity', url, { integrity: sri }],
      ['bytes, integrity', model, { integrity: sri }],
    ]) {
      const buf = weights.slice();
      const given = () => ({ ort, ...options, externalData: [{ path: 'external.bin', data: buf }] });
      const first = await ortkeep.load(source, given());
      const before = Array.from((await first.run({ x: x() })).y.data);
      buf.set(new Uint8Array(buf.length)); // the new weights: all zero
      const second = await ortkeep.load(source, given());
      const after = Array.from((await second.run({ x: x() })).y.data);
      const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
      out[name] = {
        before: same(before, oldPlain),
        after: same(after, newPlain) || (same(after, oldPlain) ? "the old weights' outputs" : `${after}`),
      };
      await first.dispose();
      await second.dispose();
    }
    return { out, differ: JSON.stringify(oldPlain) !== JSON.stringify(newPlain) };
  });
  await page.close();
  assert.equal(r.differ, true, 'the new weights give other outputs');
  const right = { before: true, after: true };
  assert.deepEqual(r.out, {
    'url, forms off': right,
    'bytes, forms off': right,
    'url, integrity': right,
    'bytes, integrity': right,
  });
});

test('transformers.js: cache.clear(), then the server moves to the next release: that release runs whole (config, tokenizer and model), equal to transformers.js alone; cache.delete(model url) likewise', async () => {
  await env.reset();
  let release = 'v1';
  const repo = '/build/hf-models/tiny-bert-rel/';
  const serveRelease = (req, res, { pathname, serveFile }) => {
    if (!pathname.startsWith(repo)) return false;
    return serveFile(req, res, `/build/hf-releases/${release}/${pathname.slice(repo.length)}`).then(() => true);
  };
  const embed = async (withOrtkeep) => {
    env.handler = serveRelease;
    const page = await open(`/tests/browser/pages/transformers.html?${withOrtkeep ? 'ortkeep=1' : ''}`);
    const r = await page.evaluate(async (withOrtkeep) => {
      const { pipeline, env: tenv } = window.transformers;
      // transformers.js alone keeps files in its own Cache API store: each release is fetched afresh
      if (!withOrtkeep) tenv.useBrowserCache = false;
      try {
        const extractor = await pipeline('feature-extraction', 'tiny-bert-rel', { dtype: 'fp32', device: 'wasm' });
        const output = await extractor(['hello world', 'ortkeep keeps models in the browser cache'], {
          pooling: 'mean',
          normalize: true,
        });
        const session = extractor.model.sessions.model;
        const result = { ok: true, data: Array.from(output.data), ortkeep: typeof session.pool?.stats === 'function' };
        await extractor.dispose();
        if (withOrtkeep) await (await import('/js/index.js')).cache.settled();
        return result;
      } catch (e) {
        return { ok: false, message: `${e?.name} ${e?.code}: ${e?.message ?? e}` };
      }
    }, withOrtkeep);
    await page.close();
    assert.equal(r.ok, true, r.message);
    assert.equal(r.ortkeep, withOrtkeep);
    return r.data;
  };
  const admin = async (fn) => {
    const page = await open('/tests/browser/pages/cache.html');
    await page.evaluate(fn, `${env.origin}${repo}onnx/model.onnx`);
    await page.close();
  };
  const maxDiff = (a, b) => Math.max(...a.map((v, i) => Math.abs(v - b[i])));
  const v1Alone = await embed(false);
  release = 'v2';
  const v2Alone = await embed(false);
  assert.ok(maxDiff(v1Alone, v2Alone) > 0.01, 'the releases differ');

  release = 'v1';
  assert.deepEqual(await embed(true), v1Alone, 'visit 1: v1');
  await admin(() => window.ortkeep.cache.clear());
  release = 'v2';
  const afterClear = await embed(true);
  assert.ok(maxDiff(afterClear, v2Alone) === 0, `after cache.clear(): v2 off by ${maxDiff(afterClear, v2Alone)}`);
  await admin((url) => window.ortkeep.cache.delete(url));
  release = 'v1';
  const afterDelete = await embed(true);
  assert.ok(
    maxDiff(afterDelete, v1Alone) === 0,
    `after cache.delete(model url): v1 off by ${maxDiff(afterDelete, v1Alone)}`,
  );
});
