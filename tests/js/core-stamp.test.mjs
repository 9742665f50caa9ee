// The stamp encoder through the exported ABI (ok_abi_stamp_encode →
// core.stampTail): a real model with the tail appended reads with the C
// reader, the stamp its last metadata entry, intact; one byte changed before
// it makes it stale; bad fields are refused with typed errors.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { getCore } from '../../js/core/module.js';
import { STAMP } from '../../js/core-constants.js';
import { REPO_ROOT } from '../../scripts/static-server.mjs';
import { REAL_MODELS } from '../models.mjs';

const core = await getCore();
const sha = (b) => createHash('sha256').update(b).digest('hex');

test('core.stampTail: a real model stamped reads intact; a changed byte before the stamp reads stale', async () => {
  const model = await readFile(path.join(REPO_ROOT, REAL_MODELS.find((m) => m.name === 'ppocr_v2_cls').path));
  const fields = {
    producer: 'ortkeep prepare',
    ort: '1.30.0',
    ep: 'wasm',
    level: 'extended',
    source: sha('the original'),
    artifact: sha(model),
  };
  const tail = core.stampTail(fields);
  assert.ok(tail.byteLength > 0 && tail.byteLength <= STAMP.MAX_TAIL);
  const stamped = Buffer.concat([model, tail]);
  const report = core.inspect(stamped);
  assert.deepEqual(report.stamp, { integrity: 'intact', ...fields });
  assert.equal(Object.keys(report.metadata).at(-1), 'ortkeep.stamp');
  assert.equal(report.graphs.length > 0, true);
  const rewritten = Buffer.from(stamped);
  rewritten[100] ^= 1; // inside a weight: still a model, the digest no longer matches
  assert.equal(core.inspect(rewritten).stamp.integrity, 'stale');
});

test('core.stampTail refuses what the C encoder refuses, typed', () => {
  const ok = { producer: 'p', ort: '1.30.0', ep: 'wasm', level: 'basic', source: sha('a'), artifact: sha('b') };
  assert.ok(core.stampTail(ok).byteLength > 0);
  const refused = (change, code) =>
    assert.throws(
      () => core.stampTail({ ...ok, ...change }),
      (e) => e.code === code && /stamp/.test(e.message),
    );
  refused({ producer: 'a;b' }, 'INVALID_ARG');
  refused({ level: '' }, 'INVALID_ARG');
  refused({ ep: undefined }, 'INVALID_ARG');
  refused({ ort: 'x'.repeat(STAMP.MAX_FIELD + 1) }, 'LIMIT');
  refused({ source: 'abc' }, 'INVALID_ARG');
  refused({ artifact: sha('b').toUpperCase() }, 'INVALID_ARG');
  assert.ok(core.stampTail({ ...ok, ort: 'x'.repeat(STAMP.MAX_FIELD) }).byteLength > 0);
});
