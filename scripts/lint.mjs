// The house style, checked (default) or applied (--write): biome formats and
// lints the JS, TypeScript, JSON and CSS (biome.json), clang-format the C
// (.clang-format). A check counts each file as one test (TAP-style summary
// lines, read by scripts/run-tests.mjs) and names each file that would change
// or has a lint finding. The C files are git's (tracked, or new and not
// ignored), so a fresh clone and a tree with new files check the same way.
import { execFileSync, spawnSync } from 'node:child_process';
import path from 'node:path';
import process from 'node:process';
import { REPO_ROOT } from './static-server.mjs';

const CLANG_FORMAT = 'clang-format-14'; // pinned: another version formats differently
const BIOME = path.join(REPO_ROOT, 'node_modules/.bin/biome');
const write = process.argv.includes('--write');

const gitFiles = ['ls-files', '-z', '--cached', '--others', '--exclude-standard', '*.c', '*.h'];
const cFiles = execFileSync('git', gitFiles, { cwd: REPO_ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);

function tool(cmd, args) {
  const r = spawnSync(cmd, args, { cwd: REPO_ROOT, encoding: 'utf8', maxBuffer: 256 << 20 });
  if (r.error) {
    process.stderr.write(`lint: ${cmd} did not run (${r.error.code}); scripts/bootstrap.sh installs it\n`);
    process.exit(1);
  }
  return r;
}

if (write) {
  const biome = tool(BIOME, ['check', '--write', '.']);
  process.stdout.write(biome.stdout + biome.stderr);
  const cf = tool(CLANG_FORMAT, ['-i', ...cFiles]);
  process.stdout.write(`${cf.stderr}clang-format: ${cFiles.length} C files formatted\n`);
  process.exitCode = biome.status || cf.status;
} else {
  const failing = new Map(); // file -> its first finding
  const note = (file, what) => failing.has(file) || failing.set(file, what);

  // biome: every finding (format or lint) with its file, and how many files it checked
  const biome = tool(BIOME, ['check', '--error-on-warnings', '--reporter=json', '--max-diagnostics=none', '.']);
  let report = null;
  try {
    report = JSON.parse(biome.stdout);
  } catch {
    note('(biome)', `no report: ${biome.stderr.trim().split('\n').slice(-2).join(' ')}`);
  }
  for (const d of report?.diagnostics ?? []) {
    const line = d.location?.start?.line;
    note(d.location?.path ?? '(biome)', `${d.category}${line ? `, line ${line}` : ''}`);
  }
  const biomeChecked = report ? report.summary.changed + report.summary.unchanged : 0;
  if (biome.status !== 0 && failing.size === 0) note('(biome)', `exit ${biome.status}`);

  // clang-format: "file:line:col: error: code should be clang-formatted"
  const cf = tool(CLANG_FORMAT, ['--dry-run', '-Werror', ...cFiles]);
  for (const m of cf.stderr.matchAll(/^(.+?):(\d+):\d+: error: /gm)) note(m[1], `clang-format, line ${m[2]}`);
  if (cf.status !== 0 && ![...failing.values()].some((v) => v.startsWith('clang-format'))) {
    note('(clang-format)', cf.stderr.trim().split('\n').slice(-1)[0]);
  }

  for (const [file, what] of failing) process.stdout.write(`not ok ${file}: ${what}\n`);
  const total = biomeChecked + cFiles.length;
  if (failing.size) process.stdout.write('fix: npm run format (applies biome and clang-format)\n');
  process.stdout.write(`# biome ${biomeChecked} files, clang-format ${cFiles.length} files\n`);
  process.stdout.write(`# pass ${Math.max(0, total - failing.size)}\n# fail ${failing.size}\n`);
  process.exitCode = failing.size ? 1 : 0;
}
