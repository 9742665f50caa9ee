// The README's first command as a newcomer runs it: `npm run demo`'s entry
// (demo/serve.mjs), headless with CI set, on a fresh profile of its own. It
// fails unless the demo exits 0 with every section of the page filled (the
// four loads, the cache, the pool on and off, the chart): a change that broke
// the demo once landed with every other test green.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { REPO_ROOT } from '../../scripts/static-server.mjs';

test('npm run demo: exits 0 headless with every section filled, on WebGPU after a wasm start', async () => {
  const child = spawn(process.execPath, ['demo/serve.mjs'], {
    cwd: REPO_ROOT,
    env: { ...process.env, CI: '1', PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c) => {
    out += c;
  });
  child.stderr.on('data', (c) => {
    out += c;
  });
  const code = await new Promise((resolve) => child.on('close', resolve));
  assert.equal(code, 0, out);
  assert.match(out, /^ortkeep, warm .* from indexeddb/m, out);
  assert.equal((out.match(/^pool {5}/gm) ?? []).length, 2, out);
  assert.match(out, /^pool .* webgpu /m, 'the pool ran on WebGPU (SwiftShader) after the page started on wasm');
  assert.match(out, /^speech probability per frame:\n {9}\d/m, out);
});
