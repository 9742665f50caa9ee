// `npm test`: every suite, in order of cost — C core native with sanitizers,
// under WASI and under Emscripten (ctest), a bounded libFuzzer run, the Node
// tests (CLI, core), the Playwright tests in Chromium and the style check
// (biome, clang-format: one test per file). Each suite's output
// streams through; the last line sums them up as "total: N passed, N failed".
import { spawn } from 'node:child_process';
import process from 'node:process';
import { REPO_ROOT } from './static-server.mjs';

const env = { ...process.env, NODE_PATH: '/usr/share/nodejs' };
delete env.EM_CACHE;

const only = process.argv.slice(2);
const TEST_TIMEOUT_MS = 600_000;
// node --test gives a browser test file, run in its own process, the same
// limit as a test: external-cache's whole file ran past 600 s on a busy
// machine (its crash loop alone is ~2 min), so a file gets 20 minutes
const FILE_TIMEOUT_MS = 1_200_000;
const suites = [
  { name: 'c-native-asan', cmd: ['ctest', '--preset', 'native-asan'], parse: parseCtest },
  { name: 'c-wasm-wasi', cmd: ['ctest', '--preset', 'wasm-wasi'], parse: parseCtest },
  { name: 'c-wasm-em', cmd: ['ctest', '--preset', 'wasm-em'], parse: parseCtest },
  {
    name: 'c-fuzz',
    cmd: [
      'bash',
      '-c',
      '{ [ -f build/native-fuzz/CMakeCache.txt ] || cmake --preset native-fuzz >/dev/null; } && cmake --build --preset native-fuzz -j2 -- --no-print-directory >/dev/null && ctest --preset native-fuzz',
    ],
    parse: parseCtest,
  },
  // A test that hangs (a page whose GPU device was lost, a run that never
  // settles) fails at TEST_TIMEOUT_MS instead of holding the whole run until
  // CI's limit; the slowest test here takes ~3 min.
  {
    name: 'js-node',
    cmd: ['node', '--test', `--test-timeout=${TEST_TIMEOUT_MS}`, '--test-reporter=tap', 'tests/js/'],
    parse: parseNodeTest,
  },
  {
    name: 'browser',
    cmd: [
      'node',
      '--test',
      '--test-concurrency=1',
      `--test-timeout=${FILE_TIMEOUT_MS}`,
      '--test-reporter=tap',
      'tests/browser/',
    ],
    parse: parseNodeTest,
  },
  { name: 'lint', cmd: ['node', 'scripts/lint.mjs'], parse: parseNodeTest },
].filter((s) => !only.length || only.includes(s.name));

function parseCtest(out) {
  const m = /tests passed, (\d+) tests failed out of (\d+)/.exec(out);
  if (!m) return null;
  return { failed: +m[1], passed: +m[2] - +m[1] };
}

function parseNodeTest(out) {
  const pass = /^# pass (\d+)$/m.exec(out);
  const fail = /^# fail (\d+)$/m.exec(out);
  if (!pass || !fail) return null;
  return { passed: +pass[1], failed: +fail[1] };
}

function run(suite) {
  return new Promise((resolve) => {
    const child = spawn(suite.cmd[0], suite.cmd.slice(1), { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const tee = (stream) => (chunk) => {
      out += chunk;
      stream.write(chunk);
    };
    child.stdout.on('data', tee(process.stdout));
    child.stderr.on('data', tee(process.stderr));
    child.on('close', (code) => resolve({ code, out }));
  });
}

let passed = 0;
let failed = 0;
const summary = [];
for (const suite of suites) {
  process.stdout.write(`\n=== ${suite.name}: ${suite.cmd.join(' ')}\n`);
  const t0 = Date.now();
  const { code, out } = await run(suite);
  const counts = suite.parse(out) ?? { passed: 0, failed: 1 };
  // A suite that exits non-zero fails even if its counts look clean.
  if (code !== 0 && counts.failed === 0) counts.failed = 1;
  passed += counts.passed;
  failed += counts.failed;
  summary.push(
    `${suite.name.padEnd(14)} ${String(counts.passed).padStart(4)} passed ${String(counts.failed).padStart(3)} failed  ${((Date.now() - t0) / 1000).toFixed(1)} s`,
  );
}
process.stdout.write(`\n=== summary\n${summary.join('\n')}\n`);
process.stdout.write(`total: ${passed} passed, ${failed} failed\n`);
process.exitCode = failed ? 1 : 0;
