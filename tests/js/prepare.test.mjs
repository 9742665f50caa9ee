// `ortkeep prepare` end to end on real models: onnxruntime-node writes the
// forms, each is verified in onnxruntime-web at 'disabled' against the
// original, the .onnx carries an intact stamp the C reader and `ortkeep
// inspect` see, the manifest says what is on disk; layout/all, bad paths,
// unrunnable probes, an already stamped model and a broken form are refused
// or not kept, each with one line and a non-zero exit.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { promisify } from 'node:util';
import * as ortNode from 'onnxruntime-node';
import * as ort from 'onnxruntime-web';
import { getCore } from '../../js/core/module.js';
import { prepare } from '../../js/forms/prepare.js';
import { REPO_ROOT } from '../../scripts/static-server.mjs';
import { FEEDS, maxAbsDiff } from '../browser/pages/feeds.js';
import { REAL_MODELS } from '../models.mjs';
import { PROBE_OPTIONS } from '../probe-options.mjs';

ort.env.wasm.numThreads = 1;
ort.env.logLevel = 'error';
const exec = promisify(execFile);
const CLI = path.join(REPO_ROOT, 'js/cli.js');
const core = await getCore();
const sha = (b) => createHash('sha256').update(b).digest('hex');
const modelPath = (name) => path.join(REPO_ROOT, REAL_MODELS.find((m) => m.name === name).path);
const scratch = await mkdtemp(path.join(tmpdir(), 'ortkeep-prepare-'));
after(() => rm(scratch, { recursive: true, force: true }));
let dirs = 0;
const newDir = () => path.join(scratch, `out${dirs++}`);
const cli = (...args) =>
  exec('node', [CLI, ...args], { cwd: REPO_ROOT, maxBuffer: 64 << 20 }).then(
    (r) => ({ code: 0, ...r }),
    (e) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );
const listing = (dir) => readdir(dir).catch(() => []);

/** probeFeeds() options (tests/probe-options.mjs) as prepare's flags. */
const probeArgs = (name) => {
  const { freeDimensionOverrides = {}, inputDims = {} } = PROBE_OPTIONS[name] ?? {};
  return [
    ...Object.entries(freeDimensionOverrides).flatMap(([k, v]) => ['--free-dim', `${k}=${v}`]),
    ...Object.entries(inputDims).flatMap(([k, v]) => ['--input-dims', `${k}=${v.join('x')}`]),
  ];
};
const CLS_DIMS = PROBE_OPTIONS.ppocr_v2_cls.freeDimensionOverrides;

for (const name of ['silero_vad_v5', 'silero_vad_legacy', 'ppocr_v2_cls']) {
  test(`${name}: prepare writes a stamped .onnx and an .ort, both verified, and a manifest that says so`, async () => {
    const out = newDir();
    const source = await readFile(modelPath(name));
    const sourceReport = core.inspect(source);
    if (name === 'silero_vad_legacy')
      assert.ok(sourceReport.totals.subgraphInitializers > 0, 'legacy holds initializers in its If bodies');
    const r = await cli('prepare', modelPath(name), '--out', out, ...probeArgs(name), '--json');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, '');
    const base = path.basename(modelPath(name), '.onnx');
    const manifest = JSON.parse(await readFile(path.join(out, `${base}.ortkeep.json`), 'utf8'));
    assert.deepEqual(JSON.parse(r.stdout), manifest);
    assert.deepEqual(
      (await listing(out)).sort(),
      [`${base}.extended.wasm.onnx`, `${base}.extended.wasm.ort`, `${base}.ortkeep.json`].sort(),
      'no temporary file left',
    );
    assert.deepEqual(manifest.source, {
      ...manifest.source,
      file: `${base}.onnx`,
      bytes: source.byteLength,
      sha256: sha(source),
    });
    assert.ok(manifest.source.createMs > 0);
    assert.deepEqual(
      manifest.forms.map((f) => f.format),
      ['onnx', 'ort'],
    );
    for (const form of manifest.forms) {
      const bytes = await readFile(path.join(out, form.file));
      assert.equal(form.bytes, bytes.byteLength);
      assert.equal(form.sha256, sha(bytes));
      assert.deepEqual([form.level, form.ep, form.onnxruntime], ['extended', 'wasm', ortNode.env.versions.node]);
      assert.equal(form.onnxruntime, ort.env.versions.web);
      assert.deepEqual(form.verified, {
        equal: true,
        maxAbsDiff: form.verified.maxAbsDiff,
        output: null,
        reason: null,
        probes: 3,
      });
      assert.ok(form.verified.maxAbsDiff <= 1e-4);
      assert.ok(form.createMs > 0);
      // independently of probe.js: reload at 'disabled', the hand-made inputs the other tests use
      const reference = await ort.InferenceSession.create(source);
      const reloaded = await ort.InferenceSession.create(bytes, { graphOptimizationLevel: 'disabled' });
      for (const seed of [1, 2]) {
        const d = maxAbsDiff(await reloaded.run(FEEDS[name](ort, seed)), await reference.run(FEEDS[name](ort, seed)));
        assert.ok(d <= 1e-4, `${form.file} seed ${seed}: differs by ${d}`);
      }
      await Promise.all([reference.release(), reloaded.release()]);
      if (form.format === 'ort') {
        assert.equal(form.stamp, null);
        assert.equal(core.inspectOrt(bytes).format, 'ort');
        continue;
      }
      // the .onnx: the C reader reads it, the stamp is its last metadata entry, intact, over the bytes before it
      const report = core.inspect(bytes);
      assert.deepEqual(report.stamp, {
        integrity: 'intact',
        producer: 'ortkeep prepare',
        ort: form.onnxruntime,
        ep: 'wasm',
        level: 'extended',
        source: sha(source),
        artifact: form.stamp.artifact,
      });
      const { integrity, ...seen } = report.stamp;
      assert.deepEqual(form.stamp, seen, 'the manifest records the stamp the reader sees');
      const tail = core.stampTail(form.stamp);
      assert.deepEqual(bytes.subarray(bytes.byteLength - tail.byteLength), Buffer.from(tail));
      assert.equal(form.stamp.artifact, sha(bytes.subarray(0, bytes.byteLength - tail.byteLength)));
      assert.equal(Object.keys(report.metadata).at(-1), 'ortkeep.stamp');
      assert.deepEqual(
        report.inputs.map((i) => i.name),
        sourceReport.inputs.map((i) => i.name),
      );
      const shown = await cli('inspect', path.join(out, form.file));
      assert.equal(shown.code, 0, shown.stderr);
      assert.match(
        shown.stdout,
        new RegExp(
          `stamp +ortkeep prepare: onnxruntime ${form.onnxruntime.replace(/\./g, '\\.')}, wasm, level extended, from ${sha(source).slice(0, 16)}…; intact`,
        ),
      );
    }
  });
}

test("layout and all are refused with one line and nothing written; --allow-downgrade writes 'extended' and says so", async () => {
  for (const level of ['layout', 'all']) {
    const out = newDir();
    const r = await cli('prepare', modelPath('ppocr_v2_cls'), '--out', out, '--level', level);
    assert.equal(r.code, 1);
    assert.equal(
      r.stderr,
      `ortkeep: level '${level}' writes com.microsoft.nchwc ops (x64 CPU only) that onnxruntime-web rejects; use --level extended, or --allow-downgrade to get 'extended' instead\n`,
    );
    assert.deepEqual(await listing(out), []);
  }
  const out = newDir();
  const r = await cli(
    'prepare',
    modelPath('ppocr_v2_cls'),
    '--out',
    out,
    '--level',
    'all',
    '--allow-downgrade',
    '--json',
  );
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /^ortkeep: warning: level 'all' downgraded to 'extended'/);
  const manifest = JSON.parse(r.stdout);
  for (const f of manifest.forms)
    assert.deepEqual([f.level, f.requestedLevel, f.verified.equal], ['extended', 'all', true]);
  assert.ok((await listing(out)).includes('ch_ppocr_mobile_v2.0_cls_infer.extended.wasm.onnx'));
});

test('bad MODEL paths, non-models, bad options: one line, non-zero exit, nothing written', async () => {
  const out = newDir();
  const oneLine = async (args, code, re) => {
    const r = await cli('prepare', ...args);
    assert.equal(r.code, code, r.stderr);
    assert.match(r.stderr.split('\n')[0], re);
    if (code === 1) assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  };
  await oneLine(['no/such/model.onnx', '--out', out], 1, /^ortkeep: no\/such\/model\.onnx: no such file$/);
  await oneLine([path.join(REPO_ROOT, 'tests'), '--out', out], 1, /is a directory, not a model$/);
  const notModel = path.join(scratch, 'page.onnx');
  await writeFile(notModel, '<!doctype html><html><body>not found</body></html>');
  await oneLine([notModel, '--out', out], 1, /^ortkeep: .*page\.onnx: .*/);
  await oneLine(
    [modelPath('ppocr_v2_cls'), '--out', out, '--ep', 'webgpu'],
    1,
    /execution provider 'webgpu' is not supported; only 'wasm'/,
  );
  await oneLine([modelPath('ppocr_v2_cls'), '--out', out, '--level', 'fast'], 1, /unknown level 'fast'/);
  await oneLine([modelPath('ppocr_v2_cls')], 2, /^ortkeep: prepare needs --out DIR$/);
  await oneLine([modelPath('ppocr_v2_cls'), '--out', out, '--free-dim', 'n'], 2, /--free-dim takes NAME=VALUE/);
  await oneLine(
    [modelPath('ppocr_v2_cls'), '--out', out, '--input-dims', 'x=1xq'],
    2,
    /--input-dims: 'q' is not a non-negative integer/,
  );
  await oneLine([modelPath('ppocr_v2_cls'), '--out', out, '--frobnicate'], 2, /unknown option '--frobnicate'/);
  assert.deepEqual(await listing(out), []);
});

test('probe inputs the original cannot run (silero at length 1) stop prepare with the way out named; nothing written', async () => {
  const out = newDir();
  const r = await cli('prepare', modelPath('silero_vad_v5'), '--out', out);
  assert.equal(r.code, 1);
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  assert.match(
    r.stderr,
    /silero_vad_v5\.onnx: the original model does not run on the probe inputs \(Pad reflect requires axis length >= 2.*\); give real sizes with --free-dim NAME=N or --input-dims INPUT=AxB/,
  );
  assert.deepEqual(await listing(out), []);
});

test('a model prepare already stamped is refused as a source', async () => {
  const out = newDir();
  assert.equal((await cli('prepare', modelPath('ppocr_v2_cls'), '--out', out)).code, 0);
  const r = await cli(
    'prepare',
    path.join(out, 'ch_ppocr_mobile_v2.0_cls_infer.extended.wasm.onnx'),
    '--out',
    newDir(),
  );
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    /is already an artifact \(stamped by ortkeep prepare, onnxruntime 1\.30\.0, wasm, level extended\); prepare its source model instead\n$/,
  );
});

test('a form that does not answer like the original is not kept: the manifest lists it failed, the other form stays', async () => {
  // onnxruntime-node as usual, except that the .ort it writes gets 4 KiB of weights zeroed
  const breaking = {
    env: ortNode.env,
    InferenceSession: {
      async create(model, options) {
        const session = await ortNode.InferenceSession.create(model, options);
        if (options.extra?.session?.save_model_format === 'ORT') {
          const bytes = await readFile(options.optimizedModelFilePath);
          bytes.fill(0, bytes.byteLength >> 1, (bytes.byteLength >> 1) + 4096);
          await writeFile(options.optimizedModelFilePath, bytes);
        }
        return session;
      },
    },
  };
  const out = newDir();
  const { manifest, failed } = await prepare(modelPath('ppocr_v2_cls'), {
    out,
    ortNode: breaking,
    ortWeb: ort,
    freeDimensionOverrides: CLS_DIMS,
  });
  assert.equal(failed.length, 1);
  const [onnx, broken] = manifest.forms;
  assert.equal(onnx.verified.equal, true);
  assert.deepEqual(
    [broken.format, broken.file, broken.verified.equal, broken.verified.reason],
    ['ort', null, false, 'values'],
  );
  assert.ok(broken.verified.maxAbsDiff > 1e-4, `${broken.verified.maxAbsDiff}`);
  assert.deepEqual((await listing(out)).sort(), [
    'ch_ppocr_mobile_v2.0_cls_infer.extended.wasm.onnx',
    'ch_ppocr_mobile_v2.0_cls_infer.ortkeep.json',
  ]);
  assert.deepEqual(
    JSON.parse(await readFile(path.join(out, 'ch_ppocr_mobile_v2.0_cls_infer.ortkeep.json'), 'utf8')),
    manifest,
  );
});

test("load(url, {manifest}) serves the verified .onnx prepare wrote, at 'disabled', with the original's outputs; a manifest for another runtime falls back to the original with an event", async () => {
  const { load } = await import('../../js/index.js');
  const out = newDir();
  const { manifestPath } = await prepare(modelPath('ppocr_v2_cls'), {
    out,
    level: 'extended',
    ep: 'wasm',
    freeDimensionOverrides: CLS_DIMS,
  });
  const original = new URL(`file://${modelPath('ppocr_v2_cls')}`).href;
  const manifest = new URL(`file://${manifestPath}`).href;
  const s = await load(original, { ort, manifest });
  assert.equal(s.info.form.chosen, 'prepared');
  assert.equal(s.info.form.form, 'onnx');
  assert.equal(s.info.form.level, 'disabled');
  assert.match(s.info.form.url, /ppocr.*\.extended\.wasm\.onnx$/);
  const reference = await ort.InferenceSession.create(await readFile(modelPath('ppocr_v2_cls')));
  for (const seed of [1, 2]) {
    const d = maxAbsDiff(
      await s.run(FEEDS.ppocr_v2_cls(ort, seed)),
      await reference.run(FEEDS.ppocr_v2_cls(ort, seed)),
    );
    assert.ok(d <= 1e-4, `prepared form differs by ${d}`);
  }
  await s.dispose();
  // the same manifest, claimed for another onnxruntime-web: unusable here
  const doc = JSON.parse(await readFile(manifestPath, 'utf8'));
  for (const f of doc.forms) f.onnxruntime = '1.29.0';
  const events = [];
  const other = await load(original, { ort, manifest: { ...doc, base: manifest }, onEvent: (e) => events.push(e) });
  assert.equal(events.length, 1);
  assert.equal(events[0].type, 'manifest-unusable');
  assert.match(events[0].why, /1\.29\.0/);
  assert.notEqual(other.info.form.chosen, 'prepared');
  const d = maxAbsDiff(await other.run(FEEDS.ppocr_v2_cls(ort, 1)), await reference.run(FEEDS.ppocr_v2_cls(ort, 1)));
  assert.equal(d, 0);
  await other.dispose();
  await reference.release();
});
