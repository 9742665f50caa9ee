// session.info.memory on a model built like the report filed against
// onnxruntime (tests/fixtures/make_shared_weight.py: If branches sharing a
// 4 MiB W, one through a Transpose) and on its control (the same W used once):
// onnxruntime-web's wasm memory is read through the derived loader, one
// fresh process per case (wasm memory never shrinks). The shared model at
// 'all' grows past 5x its initializer bytes and names W (memory-growth); at
// 'disabled', and the control at any level, it does not.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT } from '../../scripts/static-server.mjs';

const SCRIPT = path.join(REPO_ROOT, 'scripts/measure-shared-weight.mjs');
const FIXTURE = path.join(REPO_ROOT, 'tests/fixtures/make_shared_weight.py');
const one = (level, control) => JSON.parse(execFileSync(process.execPath, [SCRIPT, '--one', level, ...(control ? ['--control'] : [])], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));

test('shared initializers duplicated by the optimizer: session.info.memory measures it and names them; the control does not warn', () => {
  execFileSync('/usr/bin/python3', [FIXTURE, path.join(REPO_ROOT, 'build/shared-weight.onnx'), '1024']);
  execFileSync('/usr/bin/python3', [FIXTURE, path.join(REPO_ROOT, 'build/shared-weight-control.onnx'), '1024', '--control']);
  const shared = one('all', false);
  assert.equal(shared.initializerBytes, 4 << 20);
  assert.deepEqual(shared.sharedInitializers.map((s) => s.name), ['W']);
  assert.ok(shared.wasmAfter > shared.wasmBefore);
  assert.ok(shared.growth > 5 * shared.initializerBytes, `grew ${shared.growth}`);
  assert.deepEqual(shared.events, ['memory-growth']);
  const disabled = one('disabled', false);
  assert.ok(disabled.growth < shared.growth, `${disabled.growth} vs ${shared.growth}`);
  assert.deepEqual(disabled.events, []);
  const control = one('all', true);
  assert.deepEqual(control.sharedInitializers, []);
  assert.deepEqual(control.events, []);
  assert.ok(control.growth > 0 && control.growth < 5 * control.initializerBytes);
});
