// `ortkeep inspect`: its JSON against independent ground truth computed with
// Python's onnx package, on every real model and on synthetic models built
// to exercise subgraphs, outer-scope references, external data and metadata;
// and its one-line errors on bad files.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../../scripts/static-server.mjs';
import { assembleChunkedModel, CHUNKED_MODELS, prng, REAL_MODELS } from '../models.mjs';

const exec = promisify(execFile);
const CLI = path.join(REPO_ROOT, 'js/cli.js');
const FIXTURES = path.join(REPO_ROOT, 'build/fixtures');
const PYTHON = '/usr/bin/python3'; // Debian's, which has python3-onnx

const cli = (...args) =>
  exec('node', [CLI, ...args], { cwd: REPO_ROOT, maxBuffer: 64 << 20 }).then(
    (r) => ({ code: 0, ...r }),
    (e) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );

async function groundTruth(files) {
  const { stdout } = await exec(PYTHON, [path.join(REPO_ROOT, 'tests/fixtures/ground_truth.py'), ...files], {
    maxBuffer: 64 << 20,
  });
  return new Map(
    stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
      .map((o) => [o.file, o.report]),
  );
}

const COMPARED_KEYS = [
  'irVersion',
  'opsetImports',
  'producerName',
  'graphs',
  'totals',
  'controlFlow',
  'externalData',
  'metadata',
  'sharedInitializers',
];

async function assertMatchesGroundTruth(file, expected) {
  const { code, stdout, stderr } = await cli('inspect', file, '--json');
  assert.equal(code, 0, stderr);
  const report = JSON.parse(stdout);
  const sha = createHash('sha256')
    .update(await readFile(file))
    .digest('hex');
  assert.equal(report.sha256, sha, 'sha256 matches node:crypto');
  for (const key of COMPARED_KEYS) assert.deepEqual(report[key], expected[key], `${path.basename(file)}: ${key}`);
  return report;
}

describe('ortkeep inspect on real models from npm', () => {
  let truth;
  const files = REAL_MODELS.map((m) => path.join(REPO_ROOT, m.path));
  before(async () => {
    for (const m of CHUNKED_MODELS) files.push(await assembleChunkedModel(m));
    truth = await groundTruth(files);
  });
  for (const m of [...REAL_MODELS, ...CHUNKED_MODELS]) {
    test(`${m.name} matches python onnx`, async () => {
      const file = path.join(REPO_ROOT, m.path);
      const report = await assertMatchesGroundTruth(file, truth.get(file));
      assert.ok(report.totals.nodes > 0);
    });
  }
  test('silero_vad_legacy: If bodies hold initializers', async () => {
    const file = path.join(REPO_ROOT, REAL_MODELS.find((m) => m.name === 'silero_vad_legacy').path);
    const report = JSON.parse((await cli('inspect', file, '--json')).stdout);
    assert.ok(report.controlFlow.If >= 1);
    assert.ok(report.totals.subgraphInitializers > 0);
    assert.ok(report.graphs.length > 1 && report.graphs[1].path.startsWith('main/'));
  });
});

describe('ortkeep inspect on synthetic models', () => {
  let files;
  let truth;
  before(async () => {
    await mkdir(FIXTURES, { recursive: true });
    await exec(PYTHON, [path.join(REPO_ROOT, 'tests/fixtures/make_models.py'), FIXTURES]);
    files = (await readdir(FIXTURES)).filter((f) => f.endsWith('.onnx')).map((f) => path.join(FIXTURES, f));
    assert.ok(files.length >= 5, `make_models.py made ${files.length} models`);
    truth = await groundTruth(files);
  });
  test('every synthetic model matches python onnx', async () => {
    for (const file of files) await assertMatchesGroundTruth(file, truth.get(file));
  });
  test('the set covers If-inside-Loop, outer-scope sharing, external data, metadata', async () => {
    const reports = await Promise.all(files.map(async (f) => JSON.parse((await cli('inspect', f, '--json')).stdout)));
    assert.ok(
      reports.some(
        (r) => r.controlFlow.Loop > 0 && r.controlFlow.If > 0 && r.graphs.some((g) => g.path.split('/').length >= 3),
      ),
      'nested If in Loop',
    );
    assert.ok(
      reports.some((r) => r.sharedInitializers.length > 0),
      'a shared initializer',
    );
    assert.ok(
      reports.some((r) => r.externalData.length > 0),
      'external data',
    );
    assert.ok(
      reports.some((r) => Object.keys(r.metadata).length > 0),
      'metadata',
    );
    assert.ok(
      reports.some((r) => r.controlFlow.Scan > 0),
      'a Scan',
    );
  });
});

describe('ortkeep inspect on bad input', () => {
  const bad = path.join(REPO_ROOT, 'build/fixtures-bad');
  const oneLine = (stderr) => {
    const lines = stderr.trimEnd().split('\n');
    assert.equal(lines.length, 1, `one line, got:\n${stderr}`);
    assert.match(lines[0], /^ortkeep: /);
    assert.doesNotMatch(stderr, /\bat .*\.js:\d+/, 'no stack trace');
    return lines[0];
  };
  before(() => mkdir(bad, { recursive: true }));

  test('a truncated real model names the byte offset', async () => {
    const bytes = await readFile(path.join(REPO_ROOT, REAL_MODELS[1].path));
    const file = path.join(bad, 'truncated.onnx');
    await writeFile(file, bytes.subarray(0, 1234));
    const r = await cli('inspect', file, '--json');
    assert.equal(r.code, 1);
    assert.match(oneLine(r.stderr), /^ortkeep: .*truncated\.onnx: truncated at byte \d+/);
    assert.equal(r.stdout, '');
  });
  test('truncation anywhere in a model is an error, never a crash', async () => {
    const bytes = await readFile(path.join(REPO_ROOT, REAL_MODELS[4].path));
    const file = path.join(bad, 'cut.onnx');
    for (const cut of [1, 7, 100, 4096, bytes.length >> 1, bytes.length - 1]) {
      await writeFile(file, bytes.subarray(0, cut));
      const r = await cli('inspect', file);
      assert.equal(r.code, 1, `cut at ${cut}`);
      oneLine(r.stderr);
    }
  });
  test('random garbage', async () => {
    const next = prng(7);
    const file = path.join(bad, 'garbage.onnx');
    await writeFile(
      file,
      Uint8Array.from({ length: 5000 }, () => Math.floor(next() * 256)),
    );
    const r = await cli('inspect', file);
    assert.equal(r.code, 1);
    oneLine(r.stderr);
  });
  test('a text file is not an ONNX model', async () => {
    const file = path.join(bad, 'readme.onnx');
    await writeFile(file, 'hello, this is not a model\n');
    const r = await cli('inspect', file);
    assert.equal(r.code, 1);
    oneLine(r.stderr);
  });
  test('an empty file', async () => {
    const file = path.join(bad, 'empty.onnx');
    await writeFile(file, '');
    const r = await cli('inspect', file);
    assert.equal(r.code, 1);
    assert.match(oneLine(r.stderr), /empty/);
  });
  test('a missing file and a bad command', async () => {
    const r = await cli('inspect', path.join(bad, 'nope.onnx'));
    assert.equal(r.code, 1);
    assert.match(oneLine(r.stderr), /no such file/);
    const u = await cli('frobnicate');
    assert.equal(u.code, 2);
    assert.match(u.stderr, /unknown command/);
  });
});

describe('ortkeep inspect summary', () => {
  test('prints sha256, graph and weight counts', async () => {
    const file = path.join(REPO_ROOT, REAL_MODELS[1].path);
    const r = await cli('inspect', file);
    assert.equal(r.code, 0, r.stderr);
    const sha = createHash('sha256')
      .update(await readFile(file))
      .digest('hex');
    assert.match(r.stdout, new RegExp(`sha256 +${sha}`));
    assert.match(r.stdout, /graphs +\d+ \(\d+ subgraphs\)/);
    assert.match(r.stdout, /initializers/);
  });
});

test('a stamped model: inspect shows the normalization stamp, intact; a byte of the artifact changed: stale', async () => {
  await mkdir(path.join(REPO_ROOT, 'build/cli-tests'), { recursive: true });
  const model = await readFile(path.join(FIXTURES, 'typed.onnx'));
  const sha = (b) => createHash('sha256').update(b).digest('hex');
  // the tail written by hand (protobuf: ModelProto.metadata_props = 14, key 1, value 2), not by the core's encoder
  const stampOf = (artifact) => {
    const value = Buffer.from(
      `v=1;producer=ortkeep 0.1.0;ort=1.30.0;ep=wasm;level=extended;source=${sha(model)};artifact=${sha(artifact)}`,
    );
    const key = Buffer.from('ortkeep.stamp');
    const varint = (n) => {
      const out = [];
      for (; n >= 0x80; n >>>= 7) out.push((n & 0x7f) | 0x80);
      out.push(n);
      return Buffer.from(out);
    };
    const entry = Buffer.concat([
      Buffer.from([0x0a]),
      varint(key.length),
      key,
      Buffer.from([0x12]),
      varint(value.length),
      value,
    ]);
    return Buffer.concat([Buffer.from([0x72]), varint(entry.length), entry]);
  };
  const stamped = Buffer.concat([model, stampOf(model)]);
  const file = path.join(REPO_ROOT, 'build/cli-tests/stamped.onnx');
  await writeFile(file, stamped);
  const json = JSON.parse((await cli('inspect', file, '--json')).stdout);
  assert.deepEqual(json.stamp, {
    integrity: 'intact',
    producer: 'ortkeep 0.1.0',
    ort: '1.30.0',
    ep: 'wasm',
    level: 'extended',
    source: sha(model),
    artifact: sha(model),
  });
  assert.equal(json.metadata['ortkeep.stamp'].startsWith('v=1;'), true);
  const text = (await cli('inspect', file)).stdout;
  assert.match(
    text,
    /stamp {8}ortkeep 0\.1\.0: onnxruntime 1\.30\.0, wasm, level extended, from [0-9a-f]{16}…; intact/,
  );
  // a tool rewrote the artifact (a string byte: the model still reads)
  const rewritten = Buffer.from(stamped);
  const at = rewritten.indexOf('ortkeep-fixtures');
  assert.ok(at > 0);
  rewritten[at] = 'O'.charCodeAt(0);
  await writeFile(file, rewritten);
  assert.equal(JSON.parse((await cli('inspect', file, '--json')).stdout).stamp.integrity, 'stale');
  // no stamp: null
  assert.equal(JSON.parse((await cli('inspect', path.join(FIXTURES, 'typed.onnx'), '--json')).stdout).stamp, null);
});
