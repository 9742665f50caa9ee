// The package as bundlers and Node see it: a browser bundle holds no Node
// built-in (package.json "browser" swaps js/platform/node.js), and what the
// exports map names exists.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { build } from 'esbuild';
import { REPO_ROOT } from '../../scripts/static-server.mjs';

const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'));

test('a browser bundle of the package has no Node built-ins; a Node bundle keeps them', async () => {
  const bundle = async (platform) => {
    const r = await build({
      entryPoints: [path.join(REPO_ROOT, 'js/index.js')],
      bundle: true,
      format: 'esm',
      platform,
      external: ['onnxruntime-web'],
      write: false,
      logLevel: 'silent',
      metafile: true,
    });
    return { text: r.outputFiles[0].text, inputs: Object.keys(r.metafile.inputs) };
  };
  const browser = await bundle('browser');
  assert.doesNotMatch(browser.text, /["']node:[a-z/]+["']/);
  assert.ok(
    browser.inputs.some((f) => f.endsWith('js/platform/browser.js')),
    browser.inputs.join(' '),
  );
  const node = await bundle('node');
  assert.match(node.text, /["']node:fs\/promises["']/);
});

test('exports: the core wasm is importable as ortkeep/core.wasm; the files list ships it and the LICENSE', () => {
  assert.equal(pkg.exports['./core.wasm'], './dist/ortkeep-core.wasm');
  assert.ok(existsSync(path.join(REPO_ROOT, pkg.exports['./core.wasm'])));
  for (const f of ['dist/ortkeep-core.wasm', 'dist/ortkeep.mjs', 'LICENSE']) assert.ok(pkg.files.includes(f), f);
  assert.ok(existsSync(path.join(REPO_ROOT, 'LICENSE')));
  assert.equal(pkg.browser['./js/platform/node.js'], './js/platform/browser.js');
});
