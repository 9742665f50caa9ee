// ARCHITECTURE.md against the C headers it describes: every action of the
// load machine (OK_CACHE_ACTION_LIST), every function of its contract
// (cache/ok_load.h: events, questions, life cycle) and every op of the tensor
// pool's action lists (OK_POOL_OP_LIST) is named there, so an action or event
// added to a header without a word in the design fails here, not in review;
// and each folder README (js/, cache/, wasm/) names every source file in it.
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT } from '../../scripts/static-server.mjs';

const read = (file) => readFile(path.join(REPO_ROOT, file), 'utf8');
const doc = await read('ARCHITECTURE.md');

/** The names in an X-macro list `#define NAME(X) X(A, 1) X(B, 2) ...` of a header. */
function xNames(header, list) {
  const m = new RegExp(`#define ${list}\\(X\\)((?:[^\\n]*\\\\\\n)*[^\\n]*)`).exec(header);
  assert.ok(m, `${list} found`);
  return [...m[1].matchAll(/\bX\(\s*([A-Z0-9_]+)\s*,/g)].map((x) => x[1]);
}

/** Named in the doc in backticks, whole or as the `_suffix` shorthand it uses after a full name. */
const named = (name, prefix) =>
  doc.includes(`\`${name}\``) || (prefix && doc.includes(`\`${name.slice(prefix.length)}\``));

test('every load machine action, load function and pool op in the headers is named in ARCHITECTURE.md', async () => {
  const cache = await read('cache/ok_cache.h');
  const load = await read('cache/ok_load.h');
  const pool = await read('wasm/pool/tensor_pool.h');
  const actions = xNames(cache, 'OK_CACHE_ACTION_LIST');
  const functions = [...new Set([...load.matchAll(/\b(ok_load_[a-z0-9_]+)\s*\(/g)].map((m) => m[1]))];
  const ops = xNames(pool, 'OK_POOL_OP_LIST');
  // the lists are read, not empty: a header change that breaks the reading fails too
  assert.ok(actions.length >= 26 && actions.includes('CAPTURE_FORM'), String(actions));
  assert.ok(functions.length >= 30 && functions.includes('ok_load_body_idle'), String(functions));
  assert.ok(ops.length >= 9 && ops.includes('EXTERNAL'), String(ops));
  const missing = [
    ...actions.filter((a) => !named(a)).map((a) => `action ${a}`),
    ...functions.filter((f) => !named(f, 'ok_load')).map((f) => `function ${f}`),
    ...ops.filter((o) => !named(o)).map((o) => `pool op ${o}`),
  ];
  assert.deepEqual(missing, [], 'ARCHITECTURE.md names them (The event → action contract)');
});

/** Every name a README writes in backticks, `a.{c,h}` expanded to `a.c` and `a.h`. */
function readmeNames(text) {
  const names = new Set();
  for (const [, token] of text.matchAll(/`([^`\s]+)`/g)) {
    const brace = /^(.*)\{([^}]+)\}(.*)$/.exec(token);
    for (const name of brace ? brace[2].split(',').map((x) => brace[1] + x + brace[3]) : [token]) {
      names.add(name);
      names.add(path.basename(name));
    }
  }
  return names;
}

/** The source files under a folder, relative to it. */
async function sources(folder, pattern) {
  const entries = await readdir(path.join(REPO_ROOT, folder), { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && pattern.test(e.name))
    .map((e) => path.relative(path.join(REPO_ROOT, folder), path.join(e.parentPath ?? e.path, e.name)));
}

for (const [folder, pattern] of [
  ['js', /\.(js|d\.ts)$/],
  ['cache', /\.[ch]$/],
  ['wasm', /\.[ch]$|^exports\.txt$/],
]) {
  test(`${folder}/README.md names every file of ${folder}/`, async () => {
    const names = readmeNames(await read(`${folder}/README.md`));
    const files = await sources(folder, pattern);
    assert.ok(files.length > 10, `${folder}/ read (${files.length} files)`);
    assert.deepEqual(
      files.filter((f) => !names.has(f) && !names.has(path.basename(f))).sort(),
      [],
      `files ${folder}/README.md does not name`,
    );
  });
}
