// session.info.memory on a model built like the report filed against
// onnxruntime (tests/fixtures/make_shared_weight.py: If branches sharing a
// 16 MiB W, one through a Transpose) and on its control (the same W used once):
// onnxruntime-web's wasm memory is read through the derived loader, one
// fresh process per case (wasm memory never shrinks; it grows in steps, so
// a 4 MiB W can hide inside one). The shared model grows more at 'all' than
// at 'disabled' and than the control (the optimizer's copies of W) and names
// W (memory-growth); the control has nothing shared and does not warn.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT } from '../../scripts/static-server.mjs';

const SCRIPT = path.join(REPO_ROOT, 'scripts/measure-shared-weight.mjs');
const FIXTURE = path.join(REPO_ROOT, 'tests/fixtures/make_shared_weight.py');
const one = (level, control) =>
  JSON.parse(
    execFileSync(process.execPath, [SCRIPT, '--one', level, ...(control ? ['--control'] : [])], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }),
  );

test("shared initializers duplicated by the optimizer: session.info.memory measures more growth at 'all' than at 'disabled' and names them; the control does not warn", () => {
  execFileSync('/usr/bin/python3', [FIXTURE, path.join(REPO_ROOT, 'build/shared-weight.onnx'), '2048']);
  execFileSync('/usr/bin/python3', [
    FIXTURE,
    path.join(REPO_ROOT, 'build/shared-weight-control.onnx'),
    '2048',
    '--control',
  ]);
  const shared = one('all', false);
  assert.equal(shared.initializerBytes, 16 << 20);
  assert.deepEqual(
    shared.sharedInitializers.map((s) => s.name),
    ['W'],
  );
  assert.ok(shared.wasmAfter > shared.wasmBefore);
  assert.ok(shared.growth > 1.5 * shared.initializerBytes, `grew ${shared.growth}`);
  assert.deepEqual(shared.events, ['memory-growth']);
  const disabled = one('disabled', false);
  assert.ok(
    disabled.growth < shared.growth,
    `the optimizer's copies: ${disabled.growth} at disabled vs ${shared.growth} at all`,
  );
  const control = one('all', true);
  assert.deepEqual(control.sharedInitializers, []);
  assert.deepEqual(control.events, []);
  assert.ok(control.growth > 0 && control.growth < shared.growth, `${control.growth} vs ${shared.growth}`);
});
