// `npm test`: every suite, in order of cost — C core native with sanitizers,
// under WASI and under Emscripten (ctest), a bounded libFuzzer run, the Node
// tests (CLI, core), the Playwright tests in Chromium and the style check
// (biome, clang-format: one test per file). Each suite's output
// streams through (a test file's as that file ends); the summary gives each
// suite's time and the ten slowest test files, and the last line sums them
// up as "total: N passed, N failed".
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { REPO_ROOT } from './static-server.mjs';

const env = { ...process.env, NODE_PATH: '/usr/share/nodejs' };
delete env.EM_CACHE;

// --fuzz-seconds=N: each fuzzer's run past its corpus replay (npm test: 4 s; `npm run fuzz`: the long run)
const fuzzSeconds = process.argv.find((a) => a.startsWith('--fuzz-seconds='))?.split('=')[1];
if (fuzzSeconds) env.FUZZ_SECONDS = fuzzSeconds;
const only = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const TEST_TIMEOUT_MS = 600_000;
// A whole test file's limit (each test's is TEST_TIMEOUT_MS): external-cache's
// whole file ran past 600 s on a busy machine (its crash loop alone is ~2 min),
// so a file gets 20 minutes
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
      '{ [ -f build/native-fuzz/CMakeCache.txt ] || cmake --preset native-fuzz >/dev/null; } && cmake --build --preset native-fuzz -j2 --target fuzzers -- --no-print-directory >/dev/null && ctest --preset native-fuzz -R ^fuzz_',
    ],
    parse: parseCtest,
  },
  // A test that hangs (a page whose GPU device was lost, a run that never
  // settles) fails at TEST_TIMEOUT_MS instead of holding the whole run until
  // CI's limit; the slowest test here takes ~3 min.
  // One process per test file (so each file's time is known), `jobs` files at a time.
  { name: 'js-node', dir: 'tests/js', jobs: 1, parse: parseNodeTest },
  {
    name: 'browser',
    dir: 'tests/browser',
    // Two files at a time once the other lane is over: alone, the browser
    // files left 15% of the two cores idle (2116 of 2483 core-seconds busy:
    // onnxruntime-web runs on one thread, pages wait on servers and restarts),
    // WebGPU ones more (SwiftShader's work is one core's). Two at a time beside the other lane took longer
    // (browser 1433 s against 1261 s), so the second starts when that lane ends.
    jobs: Number(process.env.ORTKEEP_BROWSER_JOBS ?? 2),
    // on WebGPU (SwiftShader), never two at once: SwiftShader's work is one
    // core's (files whose text says `webgpu: true` are counted too)
    gpu: ['demo'],
    // the longest files first (fresh clones' times, 120-250 s each), so the
    // two files at a time end together rather than one long file alone
    first: ['vite-apps', 'transformers', 'runtime-choice', 'forms-tiers', 'forms-capture'],
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

function run(suite, { quiet = false, killAfterMs = 0 } = {}) {
  return new Promise((resolve) => {
    const child = spawn(suite.cmd[0], suite.cmd.slice(1), { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    // a whole file past its limit fails instead of holding the run until CI's
    const timer = killAfterMs
      ? setTimeout(() => {
          out += `\nnot ok - killed after ${killAfterMs / 1000} s\n`;
          child.kill('SIGKILL');
        }, killAfterMs)
      : null;
    const tee = (stream) => (chunk) => {
      out += chunk;
      if (!quiet) stream.write(chunk);
    };
    child.stdout.on('data', tee(process.stdout));
    child.stderr.on('data', tee(process.stderr));
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

/**
 * A suite's test files, each run as `node --test FILE`, `jobs` at a time;
 * each file's output printed as it ends.
 */
async function runFiles(suite, fileTimes) {
  const all = readdirSync(path.join(REPO_ROOT, suite.dir))
    .filter((f) => f.endsWith('.test.mjs'))
    .sort()
    .map((f) => `${suite.dir}/${f}`);
  const gpu = new Set((suite.gpu ?? []).map((f) => `${suite.dir}/${f}.test.mjs`));
  for (const f of all) if (/webgpu: true/.test(readFileSync(path.join(REPO_ROOT, f), 'utf8'))) gpu.add(f);
  const counts = { passed: 0, failed: 0 };
  let code = 0;
  const runOne = async (file) => {
    const t0 = Date.now();
    const cmd = ['node', '--test', `--test-timeout=${TEST_TIMEOUT_MS}`, '--test-reporter=tap', file];
    const r = await run({ cmd }, { quiet: true, killAfterMs: FILE_TIMEOUT_MS });
    const seconds = (Date.now() - t0) / 1000;
    fileTimes.push({ file, seconds });
    const c = suite.parse(r.out) ?? { passed: 0, failed: 1 };
    if (r.code !== 0 && c.failed === 0) c.failed = 1;
    counts.passed += c.passed;
    counts.failed += c.failed;
    if (r.code !== 0) code = r.code ?? 1;
    process.stdout.write(`\n--- ${file}: ${c.passed} passed, ${c.failed} failed, ${seconds.toFixed(1)} s\n${r.out}`);
  };
  // each worker takes the first file it may run: not a WebGPU one while
  // another runs. The WebGPU files come before the rest, so they follow one
  // another while the other worker takes the rest: left to the end, they ran
  // one at a time with the other worker idle (pool-real, then pool-webgpu,
  // at the end of a fresh clone's run)
  const first = (suite.first ?? []).map((f) => `${suite.dir}/${f}.test.mjs`).filter((f) => all.includes(f));
  const rest = all.filter((f) => !first.includes(f));
  const queue = [...first, ...rest.filter((f) => gpu.has(f)), ...rest.filter((f) => !gpu.has(f))];
  let gpuBusy = false;
  let changed = () => {};
  const worker = async () => {
    while (queue.length) {
      const i = queue.findIndex((f) => !(gpuBusy && gpu.has(f)));
      if (i < 0) {
        await new Promise((resolve) => {
          changed = resolve;
        });
        continue;
      }
      const [file] = queue.splice(i, 1);
      const onGpu = gpu.has(file);
      if (onGpu) gpuBusy = true;
      await runOne(file);
      if (onGpu) gpuBusy = false;
      changed();
    }
  };
  await Promise.all(Array.from({ length: suite.jobs }, (_, i) => (i === 0 ? worker() : suite.othersDone.then(worker))));
  return { code, counts };
}

let passed = 0;
let failed = 0;
const summary = [];
const fileTimes = [];

/** Runs one suite; `buffered`: its output printed whole when it ends (a lane beside another). */
async function runSuite(suite, buffered) {
  const what = suite.dir
    ? `node --test, each of ${suite.dir}/*.test.mjs, ${suite.jobs > 1 ? `${suite.jobs} at a time once the other lane is over` : 'one at a time'}`
    : suite.cmd.join(' ');
  const head = `\n=== ${suite.name}: ${what}\n`;
  if (!buffered || suite.dir) process.stdout.write(head);
  const t0 = Date.now();
  let code;
  let counts;
  let out = '';
  if (suite.dir) ({ code, counts } = await runFiles(suite, fileTimes));
  else {
    const r = await run(suite, { quiet: buffered });
    code = r.code;
    out = r.out;
    counts = suite.parse(r.out) ?? { passed: 0, failed: 1 };
  }
  if (buffered && !suite.dir) process.stdout.write(`${head}${out}`);
  // A suite that exits non-zero fails even if its counts look clean.
  if (code !== 0 && counts.failed === 0) counts.failed = 1;
  passed += counts.passed;
  failed += counts.failed;
  summary.push({
    order: suites.indexOf(suite),
    line: `${suite.name.padEnd(14)} ${String(counts.passed).padStart(4)} passed ${String(counts.failed).padStart(3)} failed  ${((Date.now() - t0) / 1000).toFixed(1)} s`,
  });
}

// Two lanes at once: the browser suite, and everything else one suite after
// another beside it, where a browser file leaves ~10-25% of the two cores
// idle (pages waiting on timers, servers, restarts). Measured on fresh
// clones: 1365-1430 s in three runs, against 1411 s one suite at a time at
// the commit before: within this machine's noise, never clearly better.
// ORTKEEP_TEST_LANES=1: one suite at a time, each streaming its output.
const oneLane = process.env.ORTKEEP_TEST_LANES === '1';
const t0 = Date.now();
const lanes = oneLane
  ? [suites]
  : [suites.filter((s) => s.name === 'browser'), suites.filter((s) => s.name !== 'browser')].filter((l) => l.length);
// the browser suite's second file starts once the other lane is over
let othersOver;
const othersDone = new Promise((resolve) => {
  othersOver = resolve;
});
for (const s of suites) s.othersDone = othersDone;
if (lanes.length === 1) othersOver(); // nothing runs beside the browser suite
await Promise.all(
  lanes.map(async (lane, i) => {
    for (const suite of lane) await runSuite(suite, lanes.length > 1 && i > 0);
    if (i > 0) othersOver();
  }),
);
const wall = ((Date.now() - t0) / 1000).toFixed(1);
const slowest = fileTimes
  .sort((a, b) => b.seconds - a.seconds)
  .slice(0, 10)
  .map((f) => `${f.seconds.toFixed(1).padStart(7)} s  ${f.file}`);
process.stdout.write(
  `\n=== summary (${lanes.length > 1 ? 'the browser suite beside the others' : 'one suite at a time'}: ${wall} s in all)\n${summary
    .sort((a, b) => a.order - b.order)
    .map((x) => x.line)
    .join('\n')}\n`,
);
if (slowest.length) process.stdout.write(`\n=== the ten slowest test files\n${slowest.join('\n')}\n\n`);
process.stdout.write(`total: ${passed} passed, ${failed} failed\n`);
process.exitCode = failed ? 1 : 0;
