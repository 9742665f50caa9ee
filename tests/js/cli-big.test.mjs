// `ortkeep inspect` on a model past 4 GB: a sparse file (a small graph whose
// initializer's raw_data declares 4.06 GiB of zeros, written by hand as
// protobuf, then metadata after the hole) reads with flat memory, its sizes
// and offsets past 2^32 exact in the report and in the error of a cut file.
// The CLI hashes every byte in wasm (~300 MB/s here), so each run is ~15 s.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, open, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { REPO_ROOT } from '../../scripts/static-server.mjs';
import { REAL_MODELS } from '../models.mjs';

const CLI = path.join(REPO_ROOT, 'js/cli.js');
const DIR = path.join(REPO_ROOT, 'build/fixtures-big');
const BIG = 2 ** 32 + 64 * 2 ** 20; // raw_data bytes: past 4 GiB

// ---- protobuf, by hand ----
const varint = (v) => {
  const out = [];
  let x = BigInt(v);
  do {
    let b = Number(x & 0x7fn);
    x >>= 7n;
    if (x) b |= 0x80;
    out.push(b);
  } while (x);
  return out;
};
const tag = (field, wire) => varint((field << 3) | wire);
const bytesField = (field, payload) => [...tag(field, 2), ...varint(payload.length), ...payload];
const str = (field, s) => bytesField(field, [...new TextEncoder().encode(s)]);
const intField = (field, v) => [...tag(field, 0), ...varint(v)];

/**
 * ModelProto {ir_version 8, opset_import {"" 17}, graph {node Identity
 * w -> y, name "big", initializer w: uint8[BIG] raw_data, output y}} then
 * `tail`. Returns the bytes before the raw_data payload and the tail's
 * offset in the file (after the payload).
 */
function bigModel() {
  const node = bytesField(1, [...str(1, 'w'), ...str(2, 'y'), ...str(4, 'Identity')]);
  const rawHead = [...tag(9, 2), ...varint(BIG)];
  const initFields = [...intField(1, BIG), ...intField(2, 2), ...str(8, 'w'), ...rawHead];
  const initLen = initFields.length + BIG;
  const output = bytesField(12, [...str(1, 'y'), ...bytesField(2, bytesField(1, intField(1, 2)))]);
  const graphBefore = [...node, ...str(2, 'big'), ...tag(5, 2), ...varint(initLen), ...initFields];
  const graphLen = graphBefore.length + BIG + output.length;
  const head = Uint8Array.from([
    ...intField(1, 8),
    ...bytesField(8, intField(2, 17)),
    ...tag(7, 2),
    ...varint(graphLen),
    ...graphBefore,
  ]);
  return { head, output: Uint8Array.from(output), tailAt: head.length + BIG + output.length };
}

/**
 * Writes head, a hole, then `tail` at tailAt: the file is sparse. Both tests
 * write the same file, the second only cutting and rewriting its tail: the
 * kernel fills a new file's hole with zero pages on its first read, ~14 s of
 * the ~40 s each run took here, and the hole's pages stay cached.
 */
async function writeSparse(file, model, tail) {
  // r+ keeps the file (positional writes are ignored in append mode on Linux)
  const fh = await open(file, 'r+').catch(() => open(file, 'w'));
  try {
    await fh.truncate(model.tailAt);
    await fh.write(model.head, 0, model.head.length, 0);
    await fh.write(model.output, 0, model.output.length, model.tailAt - model.output.length);
    await fh.write(tail, 0, tail.length, model.tailAt);
  } finally {
    await fh.close();
  }
}

/** SHA-256 of the sparse file without reading it: head, zeros, the rest. */
function sparseSha(model, tail) {
  const h = createHash('sha256').update(model.head);
  const zeros = new Uint8Array(64 << 20);
  for (let left = BIG; left > 0; left -= zeros.length) h.update(left >= zeros.length ? zeros : zeros.subarray(0, left));
  return h.update(model.output).update(tail).digest('hex');
}

/** Runs the CLI; its peak RSS (VmHWM) is read from /proc while it runs. */
function cliWithPeak(...args) {
  return new Promise((resolve) => {
    const child = spawn('node', [CLI, ...args], { cwd: REPO_ROOT });
    let stdout = '';
    let stderr = '';
    let peakKiB = 0;
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const poll = setInterval(async () => {
      try {
        const m = /VmHWM:\s+(\d+) kB/.exec(await readFile(`/proc/${child.pid}/status`, 'utf8'));
        if (m) peakKiB = Math.max(peakKiB, +m[1]);
      } catch {
        /* exited */
      }
    }, 20);
    child.on('close', (code) => {
      clearInterval(poll);
      resolve({ code, stdout, stderr, peakMiB: peakKiB / 1024 });
    });
  });
}

const model = bigModel();
const meta = Uint8Array.from(bytesField(14, [...str(1, 'k'), ...str(2, 'v')]));
const cut = Uint8Array.from([...tag(14, 2), 100, 0x0a]); // metadata_props of 100 bytes, 1 there
let baselineMiB;

before(async () => {
  await mkdir(DIR, { recursive: true });
  const small = await cliWithPeak('inspect', path.join(REPO_ROOT, REAL_MODELS[0].path), '--json');
  assert.equal(small.code, 0, small.stderr);
  baselineMiB = small.peakMiB;
  assert.ok(baselineMiB > 10, `the poll saw the CLI's RSS (${baselineMiB} MiB)`);
});
after(() => rm(DIR, { recursive: true, force: true }));

test('inspect of a 4.06 GiB sparse model: exact 64-bit sizes, metadata after the hole, flat RSS', async () => {
  const file = path.join(DIR, 'big.onnx');
  await writeSparse(file, model, meta);
  const r = await cliWithPeak('inspect', file, '--json');
  assert.equal(r.code, 0, r.stderr);
  const report = JSON.parse(r.stdout);
  assert.equal(report.totals.initializerBytes, BIG);
  assert.equal(report.graphs[0].initializerBytes, BIG);
  assert.equal(report.totals.nodes, 1);
  assert.deepEqual(report.outputs, [{ name: 'y', elemType: 2, dims: null }]);
  assert.deepEqual(report.metadata, { k: 'v' }, 'bytes past 4 GiB were read');
  assert.equal(report.sha256, sparseSha(model, meta));
  assert.ok(
    r.peakMiB < baselineMiB + 200,
    `peak RSS ${r.peakMiB.toFixed(0)} MiB vs ${baselineMiB.toFixed(0)} MiB for a small model`,
  );
  console.log(
    `4.06 GiB sparse inspect: peak RSS ${r.peakMiB.toFixed(0)} MiB (small model: ${baselineMiB.toFixed(0)} MiB)`,
  );
});

test('a field cut past 4 GiB is TRUNCATED at its exact 64-bit offset', async () => {
  const file = path.join(DIR, 'big.onnx');
  await writeSparse(file, model, cut);
  const r = await cliWithPeak('inspect', file);
  assert.equal(r.code, 1);
  const at = model.tailAt + 1; // the cut field's length varint
  assert.ok(at > 2 ** 32);
  assert.match(
    r.stderr,
    new RegExp(
      `^ortkeep: .*big\\.onnx: truncated at byte ${at}: model\\.metadata_props length 100 runs past end ${model.tailAt + cut.length}\\n$`,
    ),
  );
  assert.ok(r.peakMiB < baselineMiB + 200, `peak RSS ${r.peakMiB.toFixed(0)} MiB`);
});
