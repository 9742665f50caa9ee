// Rewrites js/core-constants.js from the C headers: builds the native
// generator (wasm/abi/gen_js_constants.c) and writes what it prints.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './static-server.mjs';

const run = (cmd, args) => execFileSync(cmd, args, { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
try {
  run('cmake', ['--preset', 'native-asan']);
} catch {
  /* configured already */
}
run('cmake', ['--build', '--preset', 'native-asan', '--target', 'gen_js_constants']);
const out = run(path.join(REPO_ROOT, 'build/native-asan/gen_js_constants'), []);
writeFileSync(path.join(REPO_ROOT, 'js/core-constants.js'), out);
console.log(`wrote js/core-constants.js (${out.length} bytes)`);
