// The test pages' ortkeep (pages/ortkeep-pages-entry.js) as one ES module in
// build/, made before a browser test file starts when any js/ file or the
// core's glue is newer. A fresh browser context fetches js/ module by module
// (~84 requests, ~310 ms per fresh page on this machine; 342 such page
// loads in a run, ~8% of the browser suite); the suites that load ortkeep
// unbundled on purpose (esm.html, the drop-in, transformers.js, the forms
// pages) keep doing so.
// build/ sits beside dist/ as js/ does, so the bundle's import.meta.url
// resolves '../dist/…' (the core's .wasm, the capturing loaders) as js/ does.
import { mkdirSync, readdirSync, renameSync, statSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { REPO_ROOT } from '../../scripts/static-server.mjs';

export const PAGE_BUNDLE = '/build/ortkeep-pages.mjs';
const OUT = path.join(REPO_ROOT, PAGE_BUNDLE);
const ENTRY = path.join(REPO_ROOT, 'tests/browser/pages/ortkeep-pages-entry.js');

function newestIn(dir) {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    newest = Math.max(newest, e.isDirectory() ? newestIn(p) : statSync(p).mtimeMs);
  }
  return newest;
}

/** Builds the bundle when missing or older than its sources (esbuild: ~0.2 s). */
export async function ensurePageBundle() {
  const sources = Math.max(
    newestIn(path.join(REPO_ROOT, 'js')),
    statSync(ENTRY).mtimeMs,
    statSync(path.join(REPO_ROOT, 'dist/ortkeep-core.mjs')).mtimeMs,
  );
  let built = 0;
  try {
    built = statSync(OUT).mtimeMs;
  } catch {
    /* not built yet */
  }
  if (built > sources) return;
  mkdirSync(path.dirname(OUT), { recursive: true });
  // written beside, then renamed: a file run beside this one never reads half a bundle
  const tmp = `${OUT}.${process.pid}.tmp`;
  await build({
    entryPoints: [ENTRY],
    bundle: true,
    format: 'esm',
    target: 'es2022',
    external: ['onnxruntime-web', 'node:*'],
    logLevel: 'error',
    outfile: tmp,
  });
  renameSync(tmp, OUT);
}
