// Capturing onnxruntime-web's optimized model in Node, with the real
// onnxruntime-web 1.30 and real models: the loader derivation is exact, the
// captured .onnx and .ort pass the C readers, and a session created from each captured
// form at 'disabled' answers like the original. What each form saves in
// creation is `npm run bench -- forms`'s to measure: a test times nothing.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import * as ort from 'onnxruntime-web';
import { captureOptimized, installCaptureLoader } from '../../js/forms/capture.js';
import { selfTest } from '../../js/forms/self-test.js';
import { LOADER_FILES } from '../../scripts/derive-capture-loader.mjs';
import { deriveLoaderText, loaderEdits, loaderNames, LoaderPatchError } from '../../js/forms/loader-patch.js';
import { REPO_ROOT } from '../../scripts/static-server.mjs';
import { FEEDS, maxAbsDiff } from '../browser/pages/feeds.js';
import { assembleChunkedModel, CHUNKED_MODELS, REAL_MODELS } from '../models.mjs';

ort.env.wasm.numThreads = 1;
// Before any session in this process: onnxruntime-web picks its loader once.
await installCaptureLoader(ort);
const modelBytes = (name) => readFile(path.join(REPO_ROOT, REAL_MODELS.find((m) => m.name === name).path));
const manifest = JSON.parse(await readFile(path.join(REPO_ROOT, 'dist/ort-capture/manifest.json'), 'utf8'));
/** Captured forms at 'disabled' against the original at its default level: the
 * optimizer reorders float sums (fusions), so equal means within 1e-4 absolute. */
const TOLERANCE = 1e-4;
const SEEDS = [1, 2, 3];

test('the derivation is for the installed onnxruntime-web, and every derived loader is there', async () => {
  const installed = JSON.parse(
    await readFile(path.join(REPO_ROOT, 'node_modules/onnxruntime-web/package.json'), 'utf8'),
  ).version;
  assert.equal(manifest.onnxruntimeWeb, installed);
  assert.equal(ort.env.versions.web, installed);
  assert.deepEqual(Object.keys(manifest.loaders).sort(), Object.keys(LOADER_FILES).sort());
  for (const file of Object.keys(manifest.loaders)) {
    const text = await readFile(path.join(REPO_ROOT, 'dist/ort-capture', file), 'utf8');
    assert.match(text, /ortkeepSink/, file);
    // the .wasm each loader names is the original, unchanged
    await readFile(path.join(REPO_ROOT, 'node_modules/onnxruntime-web/dist', manifest.loaders[file].wasm));
  }
});

test('a pattern found 0 or 2 times fails the derivation loudly; the script exits non-zero on it', async () => {
  const file = 'ort-wasm-simd-threaded.mjs';
  const text = await readFile(path.join(REPO_ROOT, 'node_modules/onnxruntime-web/dist', file), 'utf8');
  const names = loaderNames(text, file);
  assert.ok(deriveLoaderText(text, { version: '1.30.0', file }).includes('ortkeepSink'));
  for (const [what, find] of loaderEdits('1.30.0', file, names)) {
    for (const doctored of [text.replace(find, ''), text + find]) {
      assert.throws(
        () => deriveLoaderText(doctored, { version: '1.30.0', file }),
        (e) => e instanceof LoaderPatchError && e.what === what,
        what,
      );
    }
  }
  assert.throws(
    () => deriveLoaderText(deriveLoaderText(text, { version: '1.30.0', file }), { version: '1.30.0', file }),
    /already a derived loader/,
  );
  // a copy rebased elsewhere: an import.meta.url that is not a plain URL value (written, or read
  // further than .startsWith) is refused, not turned into a string literal that changes its meaning
  const baseUrl = `https://cdn.example/ort/dist/${file}`;
  assert.ok(!deriveLoaderText(text, { version: '1.30.0', file, baseUrl }).includes('import.meta.url'));
  for (const use of ['import.meta.url=location.href;', 'var u=import.meta.url.length;', 'var u=import.meta.url+"";'])
    assert.throws(
      () => deriveLoaderText(use + text, { version: '1.30.0', file, baseUrl }),
      (e) =>
        e instanceof LoaderPatchError && e.what === 'import.meta.url' && /1 of 5 import\.meta\.url/.test(e.message),
      use,
    );
  // the script itself, on a doctored copy of the package: non-zero, a clear message, nothing written
  const scratch = await mkdtemp(path.join(tmpdir(), 'ortkeep-derive-'));
  const pkgDir = path.join(scratch, 'onnxruntime-web');
  await mkdir(path.join(pkgDir, 'dist'), { recursive: true });
  for (const f of Object.keys(LOADER_FILES))
    await cp(path.join(REPO_ROOT, 'node_modules/onnxruntime-web/dist', f), path.join(pkgDir, 'dist', f));
  const derive = (version, doctor) => {
    writeFileSync(path.join(pkgDir, 'package.json'), JSON.stringify({ version }));
    if (doctor)
      writeFileSync(path.join(pkgDir, 'dist', file), text.replace(loaderEdits('1.30.0', file, names)[2][1], ''));
    return spawnSync(process.execPath, [path.join(REPO_ROOT, 'scripts/derive-capture-loader.mjs')], {
      encoding: 'utf8',
      env: { ...process.env, ORTKEEP_DERIVE_FROM: pkgDir, ORTKEEP_DERIVE_TO: path.join(scratch, 'out') },
    });
  };
  let r = derive('1.30.0', false);
  assert.equal(r.status, 0, r.stderr);
  assert.ok(existsSync(path.join(scratch, 'out/manifest.json')));
  // names are read off the text: any version whose loaders have the stubs' shape derives
  r = derive('1.29.0', false);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(JSON.parse(await readFile(path.join(scratch, 'out/manifest.json'), 'utf8')).onnxruntimeWeb, '1.29.0');
  r = derive('1.30.0', true);
  assert.equal(r.status, 1);
  assert.match(r.stderr, /FAILED: ort-wasm-simd-threaded\.mjs: the fd_write stub occurs 0 times/);
  assert.equal(
    JSON.parse(await readFile(path.join(scratch, 'out/manifest.json'), 'utf8')).onnxruntimeWeb,
    '1.29.0',
    'a failed derivation leaves the last good one',
  );
  await rm(scratch, { recursive: true, force: true });
});

test("every installed onnxruntime-web (1.22.0, 1.27.0, 1.30.0, 1.31.0-dev) derives each of its loaders; 1.30.0's names are the ones read by hand before", async () => {
  const versions = {};
  for (const pkg of ['ort122', 'ort127', 'onnxruntime-web', 'ort131']) {
    const dir = path.join(REPO_ROOT, 'node_modules', pkg);
    const { version } = JSON.parse(await readFile(path.join(dir, 'package.json'), 'utf8'));
    versions[version] = {};
    for (const file of Object.keys(LOADER_FILES)) {
      if (!existsSync(path.join(dir, 'dist', file))) continue;
      const text = await readFile(path.join(dir, 'dist', file), 'utf8');
      const out = deriveLoaderText(text, { version, file, baseUrl: `https://cdn.example/ort/dist/${file}` });
      assert.equal(out.split('ortkeepSink.write(').length, 2, `${version} ${file}`);
      assert.ok(!out.includes('import.meta.url'), 'a copy imported from elsewhere still names the original place');
      versions[version][file] = loaderNames(text, file);
    }
  }
  assert.deepEqual(Object.keys(versions), ['1.22.0', '1.27.0', '1.30.0', '1.31.0-dev.20260914-8d85527a0']);
  assert.deepEqual(Object.keys(versions['1.22.0']), ['ort-wasm-simd-threaded.mjs', 'ort-wasm-simd-threaded.jsep.mjs']);
  for (const v of ['1.27.0', '1.30.0', '1.31.0-dev.20260914-8d85527a0'])
    assert.equal(Object.keys(versions[v]).length, 4, v);
  // the table written by hand for 1.30.0 (close, write, HEAPU32, HEAPU8, fd_write's parameters)
  const byHand = {
    'ort-wasm-simd-threaded.mjs': ['Rb', 'Vb', '(v(),D)', '(v(),A)', 'a,b,d,c'],
    'ort-wasm-simd-threaded.jsep.mjs': ['Bc', 'Fc', '(u(),D)', '(u(),B)', 'a,b,d,c'],
    'ort-wasm-simd-threaded.asyncify.mjs': ['Qc', 'Uc', '(u(),C)', '(u(),x)', 'a,b,c,d'],
    'ort-wasm-simd-threaded.jspi.mjs': ['Gc', 'Kc', '(t(),B)', '(t(),z)', 'a,b,c,d'],
  };
  for (const [file, n] of Object.entries(versions['1.30.0']))
    assert.deepEqual([n.close, n.write, n.u32, n.u8, n.args.join()], byHand[file], file);
});

test('a build derived for another onnxruntime-web: the loader is derived in the process from the one it runs, and captures', () => {
  // A fresh process: in this one the capturing loader is already live.
  const script = `
    import * as ort from 'onnxruntime-web';
    import { readFileSync } from 'node:fs';
    import { captureLoader } from './js/forms/capture-loader.js';
    import { captureOptimized } from './js/forms/capture.js';
    ort.env.wasm.numThreads = 1;
    const manifest = JSON.parse(readFileSync('dist/ort-capture/manifest.json', 'utf8'));
    const loader = await captureLoader(ort, { manifest: { ...manifest, onnxruntimeWeb: '1.29.0' } });
    const bytes = readFileSync(${JSON.stringify(REAL_MODELS.find((m) => m.name === 'ppocr_v2_cls').path)});
    const c = await captureOptimized(ort, bytes);
    console.log(loader.derived, loader.version, c.loader, c.found.irVersion > 0);`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    timeout: 60000,
  });
  assert.equal(r.stdout.trim(), `page ${ort.env.versions.web} ort-wasm-simd-threaded.mjs true`, r.stderr);
});

test('captureOptimized refuses options it cannot honour', async () => {
  const bytes = await modelBytes('silero_vad_v5');
  await assert.rejects(captureOptimized(ort, bytes, { format: 'pb' }), (e) => e.code === 'INVALID_ARG');
  await assert.rejects(
    captureOptimized(ort, bytes, {
      sessionOptions: { extra: { session: { optimized_model_external_initializers_file_name: 'w.bin' } } },
    }),
    (e) => e.code === 'INVALID_ARG' && /inline/.test(e.message),
  );
});

test('the self-test (the C readers) refuses bytes that are not a model of their format', async () => {
  const onnx = await modelBytes('ppocr_v2_cls');
  assert.ok((await selfTest(onnx, 'onnx')).irVersion > 0);
  await assert.rejects(
    selfTest(onnx.subarray(0, onnx.byteLength - 1000), 'onnx'),
    (e) => e.code === 'FORM_SELF_TEST' && e.cause?.code === 'TRUNCATED',
  );
  await assert.rejects(
    selfTest(onnx, 'ort'),
    (e) => e.code === 'FORM_SELF_TEST' && e.cause?.code === 'NOT_ONNX' && /ORTM/.test(e.message),
  );
  const form = await captureOptimized(ort, onnx, { format: 'ort' });
  await form.session.release();
  assert.equal((await selfTest(form.bytes, 'ort')).format, 'ort');
  await assert.rejects(
    selfTest(form.bytes.subarray(0, 4000), 'ort'),
    (e) => e.code === 'FORM_SELF_TEST' && e.cause?.code === 'TRUNCATED',
  );
  await assert.rejects(selfTest(form.bytes, 'onnx'), (e) => e.code === 'FORM_SELF_TEST');
});

test('onnxruntime-web initialized with its own loader first: forms off (ort-initialized), typed; other sessions still work', () => {
  // A fresh process: in this one the capturing loader is already live.
  const script = `
    import * as ort from 'onnxruntime-web';
    import { readFileSync } from 'node:fs';
    import { captureOptimized } from './js/forms/capture.js';
    ort.env.wasm.numThreads = 1;
    const bytes = readFileSync(${JSON.stringify(REAL_MODELS.find((m) => m.name === 'ppocr_v2_cls').path)});
    const first = await ort.InferenceSession.create(bytes);
    try { await captureOptimized(ort, bytes); console.log('captured'); }
    catch (e) { console.log(e.code, e.details?.reason); }
    // forms off, everything else works: a new session runs like the first
    const again = await ort.InferenceSession.create(bytes);
    const feeds = () => ({ x: new ort.Tensor('float32', new Float32Array(3 * 48 * 192).fill(0.5), [1, 3, 48, 192]) });
    const [a, b] = [await first.run(feeds()), await again.run(feeds())];
    console.log(String(a[first.outputNames[0]].data) === String(b[again.outputNames[0]].data) ? 'then sessions work' : 'then sessions differ');`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    timeout: 60000,
  });
  assert.equal(r.stdout.trim(), 'FORMS_OFF ort-initialized\nthen sessions work', r.stderr);
});

for (const name of ['silero_vad_v5', 'ppocr_v2_cls', 'ppocr_v4_det']) {
  test(`${name}: .onnx and .ort captured at 'extended' reload at 'disabled' with the original's outputs`, async () => {
    const original = await modelBytes(name);
    const reference = await ort.InferenceSession.create(original);
    const forms = {};
    for (const format of ['onnx', 'ort']) {
      const captured = await captureOptimized(ort, original, {
        format,
        level: 'extended',
        executionProviders: ['wasm'],
      });
      assert.equal(captured.loader, 'ort-wasm-simd-threaded.mjs');
      // the C readers' view of the artifact (ONNX reader / ORT-format reader)
      assert.ok(captured.found.irVersion > 0, JSON.stringify(captured.found).slice(0, 200));
      if (format === 'onnx') assert.equal(captured.found.sha256.length, 64);
      else assert.deepEqual([captured.found.format, captured.found.graph], ['ort', true]);
      const reloaded = await ort.InferenceSession.create(captured.bytes, {
        graphOptimizationLevel: 'disabled',
        executionProviders: ['wasm'],
      });
      assert.deepEqual([...reloaded.inputNames], [...reference.inputNames]);
      assert.deepEqual([...reloaded.outputNames], [...reference.outputNames]);
      for (const seed of SEEDS) {
        // the capturing session itself and the reloaded form, each against the original
        const want = await reference.run(FEEDS[name](ort, seed));
        const diffReloaded = maxAbsDiff(await reloaded.run(FEEDS[name](ort, seed)), want);
        const diffCapturing = maxAbsDiff(await captured.session.run(FEEDS[name](ort, seed)), want);
        assert.ok(
          diffReloaded <= TOLERANCE,
          `${name} ${format} seed ${seed}: reloaded form differs by ${diffReloaded}`,
        );
        assert.ok(
          diffCapturing <= TOLERANCE,
          `${name} ${format} seed ${seed}: capturing session differs by ${diffCapturing}`,
        );
      }
      await reloaded.release();
      await captured.session.release();
      forms[format] = captured;
    }
    await reference.release();
    console.log(
      `[forms node] ${name}: bytes ${original.byteLength} → .onnx ${forms.onnx.bytes.byteLength}, .ort ${forms.ort.bytes.byteLength}; capturing create ${Math.round(forms.onnx.createMs)} / ${Math.round(forms.ort.createMs)} ms`,
    );
  });
}

test("isnet_quint8 (44 MB): both forms captured at 'extended' pass the C readers, each reloads at 'disabled'", async () => {
  // Outputs are not compared here: one run of isnet takes ~9 s on this machine.
  const original = new Uint8Array(
    await readFile(await assembleChunkedModel(CHUNKED_MODELS.find((m) => m.name === 'isnet_quint8'))),
  );
  const forms = {};
  for (const format of ['onnx', 'ort']) {
    const captured = await captureOptimized(ort, original, { format, executionProviders: ['wasm'] });
    assert.ok(captured.found.irVersion > 0);
    const reloaded = await ort.InferenceSession.create(captured.bytes, { graphOptimizationLevel: 'disabled' });
    assert.deepEqual([...reloaded.outputNames], [...captured.session.outputNames]);
    await Promise.all([reloaded.release(), captured.session.release()]);
    forms[format] = captured.bytes;
  }
  console.log(
    `[forms node] isnet_quint8: bytes ${original.byteLength} → .onnx ${forms.onnx.byteLength}, .ort ${forms.ort.byteLength}`,
  );
});
