// js/index.d.ts against the code: a consumer file compiles under tsc --strict
// with the resolutions bundlers and Node use, and the declared value exports
// are exactly what js/index.js exports.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../../scripts/static-server.mjs';

const run = promisify(execFile);
const tsc = path.join(REPO_ROOT, 'node_modules/.bin/tsc');

for (const [module, resolution] of [
  ['esnext', 'bundler'],
  ['node16', 'node16'],
]) {
  test(`tests/types/consumer.ts compiles with --strict, moduleResolution ${resolution}`, async () => {
    const args = [
      '--noEmit',
      '--strict',
      '--skipLibCheck',
      '--target',
      'es2022',
      '--lib',
      'es2022,dom',
      '--module',
      module,
      '--moduleResolution',
      resolution,
      'tests/types/consumer.ts',
    ];
    const r = await run(tsc, args, { cwd: REPO_ROOT }).catch((e) => e);
    assert.equal(r.code ?? 0, 0, `${r.stdout ?? ''}${r.stderr ?? ''}`);
  });
}

test('the value exports declared in index.d.ts are the ones js/index.js has', async () => {
  const dts = readFileSync(path.join(REPO_ROOT, 'js/index.d.ts'), 'utf8');
  const declared = [...dts.matchAll(/^export declare (?:const|function|class) (\w+)/gm)].map((m) => m[1]).sort();
  const actual = Object.keys(await import('../../js/index.js')).sort();
  assert.deepEqual(declared, actual);
});
