// A model whose weights are in an external data file (tests/fixtures/
// make_models.py: external.onnx + external.bin, every initializer external):
// load(url) finds the file next to the model with no option and runs equal
// to onnxruntime-web given the file explicitly; the caller's own
// externalData option is used as given; a location that leaves the model's
// folder, and bytes without a URL, are typed EXTERNAL_DATA errors.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { REPO_ROOT } from '../../scripts/static-server.mjs';
import { useBrowser } from './browser-env.mjs';

const FIXTURES = path.join(REPO_ROOT, 'build/fixtures');
let evil;
// as a CDN may serve them: the model and its data gzipped as they stream, no
// Content-Length, a weak ETag; the rest chunked
const env = useBrowser({
  files: (pathname) =>
    pathname.startsWith('/build/fixtures/') ? { encoding: 'gzip', weakEtag: true } : { chunked: true },
});

describe('external data files', () => {
  let page;
  before(async () => {
    if (!existsSync(path.join(FIXTURES, 'external.onnx')))
      execFileSync('/usr/bin/python3', [path.join(REPO_ROOT, 'tests/fixtures/make_models.py'), FIXTURES]);
    // the same model naming "../xtrnl.bin": same length, so the protobuf stays valid
    const bytes = readFileSync(path.join(FIXTURES, 'external.onnx'));
    evil = Buffer.from(bytes);
    for (let at = evil.indexOf('external.bin'); at >= 0; at = evil.indexOf('external.bin'))
      evil.write('../xtrnl.bin', at);
    assert.notEqual(evil.indexOf('../xtrnl.bin'), -1);
    env.handler = (req, res) => {
      if (req.url !== '/evil/external.onnx') return false;
      res.writeHead(200, { 'content-type': 'application/octet-stream' }); // chunked, no length
      res.write(evil.subarray(0, 100));
      res.end(evil.subarray(100));
      return true;
    };
    page = await env.newPage('/tests/browser/pages/pool.html');
  });

  const run = (options) =>
    page.evaluate(
      async ({ options }) => {
        const { ort, ortkeep } = window;
        const url = '/build/fixtures/external.onnx';
        const x = new ort.Tensor(
          'float32',
          Float32Array.from({ length: 16 }, (_, i) => i / 7 - 1),
          [1, 16],
        );
        try {
          const s = await ortkeep.load(url, { ort, memory: false, cache: 'no-store', ...options });
          const ours = await s.run({ x });
          await s.dispose();
          const model = new Uint8Array(await (await fetch(url)).arrayBuffer());
          const response = await fetch('/build/fixtures/external.bin');
          const served = {
            encoding: response.headers.get('content-encoding'),
            length: response.headers.get('content-length'),
          };
          const data = new Uint8Array(await response.arrayBuffer());
          const plain = await ort.InferenceSession.create(model, { externalData: [{ path: 'external.bin', data }] });
          const theirs = await plain.run({ x });
          await plain.release();
          return { ok: true, ours: Array.from(ours.y.data), theirs: Array.from(theirs.y.data), served };
        } catch (e) {
          return { ok: false, name: e.name, code: e.code, message: e.message };
        }
      },
      { options },
    );

  test('load(url) with no option: the data file is found next to the model; outputs equal onnxruntime-web given the file', async () => {
    const r = await run({});
    assert.equal(r.ok, true, `${r.code}: ${r.message}`);
    assert.deepEqual(r.ours, r.theirs);
    assert.deepEqual(
      r.served,
      { encoding: 'gzip', length: null },
      'the data file came gzipped, with no Content-Length',
    );
  });

  test("the caller's externalData option is used as given: zero weights give zero outputs where the file's weights do not", async () => {
    const size = readFileSync(path.join(FIXTURES, 'external.bin')).length;
    const r = await page.evaluate(
      async ({ size }) => {
        const { ort, ortkeep } = window;
        const x = new ort.Tensor('float32', new Float32Array(16).fill(1), [1, 16]);
        const given = await ortkeep.load('/build/fixtures/external.onnx', {
          ort,
          memory: false,
          cache: 'no-store',
          externalData: [{ path: 'external.bin', data: new Uint8Array(size) }],
        });
        const zeros = Array.from((await given.run({ x })).y.data);
        await given.dispose();
        const found = await ortkeep.load('/build/fixtures/external.onnx', { ort, memory: false, cache: 'no-store' });
        const weights = Array.from((await found.run({ x })).y.data);
        await found.dispose();
        return { zeros, weights };
      },
      { size },
    );
    assert.deepEqual(r.zeros, Array(16).fill(0));
    assert.ok(
      r.weights.some((v) => v !== 0),
      'the discovered file has non-zero weights',
    );
  });

  test('a data location that leaves the model folder ("../xtrnl.bin") is EXTERNAL_DATA, and nothing is stored', async () => {
    const r = await page.evaluate(async () => {
      const { ort, ortkeep } = window;
      const url = new URL('/evil/external.onnx', location.href).href;
      let error;
      try {
        await ortkeep.load(url, { ort, memory: false });
      } catch (e) {
        error = { name: e.name, code: e.code, message: e.message };
      }
      const stored = (await ortkeep.cache.list()).some((e) => e.key.includes('/evil/'));
      return { error, stored };
    });
    assert.equal(r.error?.name, 'OrtkeepError');
    assert.equal(r.error.code, 'EXTERNAL_DATA', r.error.message);
    assert.match(r.error.message, /"\.\.\/xtrnl\.bin"/);
    assert.equal(r.stored, false);
  });

  test('bytes of such a model, with no externalData option, are EXTERNAL_DATA saying what to pass', async () => {
    const r = await page.evaluate(async () => {
      const { ort, ortkeep } = window;
      const bytes = new Uint8Array(await (await fetch('/build/fixtures/external.onnx')).arrayBuffer());
      try {
        await ortkeep.load(bytes, { ort });
        return { ok: true };
      } catch (e) {
        return { name: e.name, code: e.code, message: e.message };
      }
    });
    assert.equal(r.code, 'EXTERNAL_DATA');
    assert.match(r.message, /external\.bin/);
    assert.match(r.message, /option externalData: \[\{ path, data \}\]/);
  });
});
