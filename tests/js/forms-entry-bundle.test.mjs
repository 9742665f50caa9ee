// The capturing loader put in place of onnxruntime-web's must be the flavour
// the entry imports (js/forms/entry-bundle.js): read off every installed
// onnxruntime-web (1.22.0, 1.27.0, 1.30.0, 1.31.0-dev), whose entry files
// name the loader they import.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { LOADER_FOR_BUNDLE } from '../../js/forms/ort-files.js';
import { bundleForEntry, entryOfScript } from '../../js/forms/entry-bundle.js';
import { REPO_ROOT } from '../../scripts/static-server.mjs';

const INSTALLED = [
  'node_modules/ort122',
  'node_modules/ort127',
  'node_modules/onnxruntime-web',
  'node_modules/ort131',
].map((d) => path.join(REPO_ROOT, d));
const ENTRY_FILE = {
  default: 'ort.min.mjs',
  all: 'ort.all.min.mjs',
  webgpu: 'ort.webgpu.min.mjs',
  wasm: 'ort.wasm.min.mjs',
  jspi: 'ort.jspi.min.mjs',
};

test('each entry of every installed onnxruntime-web imports the loader ortkeep captures with for it', () => {
  let checked = 0;
  for (const dir of INSTALLED) {
    const { version } = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
    for (const [entry, file] of Object.entries(ENTRY_FILE)) {
      const at = path.join(dir, 'dist', file);
      if (!existsSync(at)) continue;
      const named = [...new Set(readFileSync(at, 'utf8').match(/ort-wasm-simd-threaded[.a-z]*\.mjs/g) ?? [])];
      assert.equal(named.length, 1, `${version} ${file}: ${named}`);
      assert.equal(LOADER_FOR_BUNDLE[bundleForEntry(entry, version)], named[0], `${version} ${entry}`);
      checked++;
    }
  }
  assert.ok(checked >= 16, `checked ${checked}`);
});

test("a script tag's file names its entry", () => {
  assert.equal(entryOfScript('https://cdn.example/ort@1.30.0/dist/ort.webgpu.min.js'), 'webgpu');
  assert.equal(entryOfScript('/ort.min.js?v=1'), 'default');
  assert.equal(entryOfScript('/x/ort.wasm.bundle.min.mjs'), 'wasm');
  assert.equal(entryOfScript(undefined), 'default');
});
