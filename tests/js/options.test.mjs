// One option shape (js/options.js): onnxruntime-web's SessionOptions flat,
// key for key as the installed onnxruntime-common declares them, beside
// ortkeep's own keys; the old `sessionOptions` nesting with a deprecation
// warning; an unknown option a typed INVALID_ARG naming the nearest known
// name; run()'s and create()'s onnxruntime-web overloads.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { test } from 'node:test';
import {
  ORT_RUN_OPTIONS,
  ORT_SESSION_OPTIONS,
  createArguments,
  nearestName,
  normalizeOptions,
  runArguments,
} from '../../js/options.js';

const require = createRequire(import.meta.url);
const commonDir = path.dirname(require.resolve('onnxruntime-common'));

/** The member names of `interface NAME … {` in a .d.ts, at its first nesting level. */
function interfaceKeys(file, name) {
  const text = readFileSync(path.join(commonDir, file), 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/\/\/.*$/gm, '');
  const start = text.search(new RegExp(`interface ${name}\\b[^{]*\\{`));
  assert.ok(start >= 0, `interface ${name} in ${file}`);
  let depth = 0;
  let body = '';
  for (let i = text.indexOf('{', start); i < text.length; i++) {
    if (text[i] === '{') depth++;
    if (text[i] === '}') depth--;
    if (depth === 0) break;
    if (depth === 1 && i > text.indexOf('{', start)) body += text[i];
  }
  return [...body.matchAll(/^\s*(?:readonly\s+)?([A-Za-z_$][\w$]*)\??\s*:/gm)].map((m) => m[1]);
}

test("the flat keys are onnxruntime-common's SessionOptions (and the OnnxModelOptions it extends), key for key", () => {
  const declared = [
    ...interfaceKeys('inference-session.d.ts', 'SessionOptions'),
    ...interfaceKeys('onnx-model.d.ts', 'OnnxModelOptions'),
  ];
  assert.ok(declared.includes('graphOptimizationLevel') && declared.includes('externalData'), declared.join(','));
  assert.deepEqual([...ORT_SESSION_OPTIONS].sort(), [...new Set(declared)].sort());
  assert.deepEqual([...ORT_RUN_OPTIONS].sort(), interfaceKeys('inference-session.d.ts', 'RunOptions').sort());
});

test("flat onnxruntime-web options go where the load path reads them; ortkeep's keys stay", () => {
  const signal = new AbortController().signal;
  const data = new Uint8Array(8);
  const out = normalizeOptions({
    executionProviders: ['wasm'],
    graphOptimizationLevel: 'basic',
    freeDimensionOverrides: { batch: 1 },
    externalData: [{ path: 'w.bin', data }],
    logSeverityLevel: 3,
    cache: 'no-store',
    memory: false,
    signal,
  });
  assert.deepEqual(out.executionProviders, ['wasm']);
  assert.deepEqual(out.sessionOptions, {
    graphOptimizationLevel: 'basic',
    freeDimensionOverrides: { batch: 1 },
    externalData: [{ path: 'w.bin', data }],
    logSeverityLevel: 3,
  });
  assert.equal(out.sessionOptions.externalData[0].data, data, 'bytes are passed as they are, not copied');
  assert.equal(out.cache, 'no-store');
  assert.equal(out.memory, false);
  assert.equal(out.signal, signal);
  assert.equal(normalizeOptions(out), out, 'normalizing twice is a no-op');
  assert.deepEqual(Object.keys(normalizeOptions(undefined)), []);
  assert.equal(normalizeOptions({ memory: false }).sessionOptions, undefined, 'no onnxruntime key, no sessionOptions');
});

test('the old nesting still works, warns once, and a flat key wins over a nested one', () => {
  const warnings = [];
  const warn = (m) => warnings.push(m);
  const out = normalizeOptions(
    {
      sessionOptions: { graphOptimizationLevel: 'disabled', logSeverityLevel: 2, executionProviders: ['webgpu'] },
      logSeverityLevel: 3,
    },
    { warn },
  );
  assert.deepEqual(out.sessionOptions, { graphOptimizationLevel: 'disabled', logSeverityLevel: 3 });
  assert.deepEqual(out.executionProviders, ['webgpu']);
  normalizeOptions({ sessionOptions: {} }, { warn });
  assert.equal(warnings.length, 1);
  assert.match(warnings[0], /deprecated/);
  assert.match(warnings[0], /flat/);
});

test('an unknown option is INVALID_ARG naming it and the nearest known name', () => {
  const cases = [
    [{ graphOptimisationLevel: 'all' }, 'graphOptimisationLevel', 'graphOptimizationLevel'],
    [{ executionProvider: ['wasm'] }, 'executionProvider', 'executionProviders'],
    [{ freeDimensionOverride: {} }, 'freeDimensionOverride', 'freeDimensionOverrides'],
    [{ onprogress: () => {} }, 'onprogress', 'onProgress'],
    [{ externaldata: [] }, 'externaldata', 'externalData'],
    [{ sessionOptions: { chunkSize: 4096 } }, 'chunkSize', null], // ortkeep's own key does not belong under sessionOptions
    [{ sessionOptions: { optimizationLevel: 'all' } }, 'optimizationLevel', 'graphOptimizationLevel'],
    [{ wasmPaths: '/x/' }, 'wasmPaths', null],
  ];
  for (const [options, option, nearest] of cases) {
    assert.throws(
      () => normalizeOptions(options, { warn: () => {} }),
      (e) => {
        assert.equal(e.name, 'OrtkeepError');
        assert.equal(e.code, 'INVALID_ARG');
        assert.equal(e.details.option, option);
        assert.equal(e.details.nearest, nearest, `${option}: ${e.message}`);
        assert.ok(e.message.includes(`'${option}'`), e.message);
        if (nearest) assert.ok(e.message.includes(`did you mean '${nearest}'`), e.message);
        return true;
      },
    );
  }
  assert.throws(() => normalizeOptions(['wasm']), { code: 'INVALID_ARG' });
  assert.throws(() => normalizeOptions({ sessionOptions: 'all' }), { code: 'INVALID_ARG' });
  assert.equal(nearestName('zzzzzz', ORT_SESSION_OPTIONS), null);
});

test("run()'s onnxruntime-web overloads: fetch names, a fetch map, RunOptions; unknown keys refused", () => {
  const outs = ['logits', 'present.0'];
  assert.deepEqual(runArguments(undefined, undefined, outs), {});
  assert.deepEqual(runArguments(['logits'], { tag: 't' }, outs), { fetches: ['logits'], runOptions: { tag: 't' } });
  assert.deepEqual(runArguments({ logits: null }, { logSeverityLevel: 3 }, outs), {
    fetches: ['logits'],
    runOptions: { logSeverityLevel: 3 },
  });
  assert.deepEqual(runArguments({ fetches: ['logits'], keep: ['present.0'], tag: 'x' }, undefined, outs), {
    fetches: ['logits'],
    keep: ['present.0'],
    runOptions: { tag: 'x' },
  });
  assert.deepEqual(runArguments({ logSeverityLevel: 4 }, undefined, outs), { runOptions: { logSeverityLevel: 4 } });
  assert.throws(
    () => runArguments({ kepp: ['logits'] }, undefined, outs),
    (e) => e.code === 'INVALID_ARG' && e.details.nearest === 'keep',
  );
  assert.throws(
    () => runArguments({ logits: null, present0: null }, undefined, outs),
    (e) => e.code === 'INVALID_ARG' && e.details.nearest === 'present.0',
  );
  assert.throws(
    () => runArguments({ logits: new Float32Array(1) }, undefined, outs),
    (e) => e.code === 'INVALID_ARG' && /preallocated/.test(e.message),
  );
  assert.throws(
    () => runArguments(['logits'], { tags: 'x' }, outs),
    (e) => e.code === 'INVALID_ARG' && e.details.nearest === 'tag',
  );
  assert.throws(() => runArguments('logits', undefined, outs), { code: 'INVALID_ARG' });
});

test("create()'s overloads, as onnxruntime-common reads them", () => {
  const buffer = new ArrayBuffer(16);
  const opts = { graphOptimizationLevel: 'all' };
  const view = (r) => [r.source.buffer, r.source.byteOffset, r.source.byteLength, r.options];
  assert.deepEqual(createArguments('model.onnx', opts), { source: 'model.onnx', options: opts });
  assert.deepEqual(view(createArguments(buffer, opts)), [buffer, 0, 16, opts]);
  assert.deepEqual(view(createArguments(buffer, 4)), [buffer, 4, 12, undefined]);
  assert.deepEqual(view(createArguments(buffer, 4, 8, opts)), [buffer, 4, 8, opts]);
  assert.deepEqual(view(createArguments(buffer, 4, opts)), [buffer, 4, 12, opts]);
  const bytes = new Uint8Array(buffer, 2, 6);
  assert.equal(createArguments(bytes, opts).source, bytes);
  for (const args of [
    [buffer, 16],
    [buffer, -1],
    [buffer, 4, 13],
    [buffer, 0, 0],
    [buffer, 'x'],
    [buffer, 0, 4, 'x'],
    [42],
    [null],
  ]) {
    assert.throws(
      () => createArguments(...args),
      { name: 'OrtkeepError', code: 'INVALID_ARG' },
      JSON.stringify(args.slice(1)),
    );
  }
});
