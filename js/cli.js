#!/usr/bin/env node
// The ortkeep command line. `ortkeep inspect MODEL [--json]` runs the wasm
// build of the C reader in Node. Errors are one line and a non-zero exit,
// never a stack trace.
import { readFile } from 'node:fs/promises';
import process from 'node:process';
import { getCore } from './core.js';
import { OrtkeepError } from './errors.js';
import { formatSummary } from './cli-format.js';

const USAGE = `usage: ortkeep inspect MODEL [--json]

  inspect   read an ONNX model with ortkeep's reader: graphs, subgraphs,
            initializers, external data, shared initializers, metadata
  --json    print the full report as JSON`;

async function main(argv) {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === '-h') {
    process.stdout.write(`${USAGE}\n`);
    return command ? 0 : 2;
  }
  if (command !== 'inspect') throw new UsageError(`unknown command '${command}'`);
  const json = rest.includes('--json');
  const files = rest.filter((a) => a !== '--json');
  const unknown = files.find((a) => a.startsWith('--'));
  if (unknown) throw new UsageError(`unknown option '${unknown}'`);
  if (files.length !== 1) throw new UsageError('inspect takes exactly one MODEL');
  const [file] = files;
  let bytes;
  try {
    bytes = await readFile(file);
  } catch (e) {
    throw new CliError(`${file}: ${e.code === 'ENOENT' ? 'no such file' : e.message}`);
  }
  const core = await getCore();
  let report;
  try {
    report = core.inspect(bytes);
  } catch (e) {
    if (e instanceof OrtkeepError) throw new CliError(`${file}: ${e.message}`);
    throw e;
  }
  process.stdout.write(json ? `${JSON.stringify(report, null, 2)}\n` : formatSummary(file, report));
  return 0;
}

class UsageError extends Error {}
class CliError extends Error {}

main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (e) => {
    if (e instanceof UsageError) {
      process.stderr.write(`ortkeep: ${e.message}\n${USAGE}\n`);
      process.exitCode = 2;
    } else {
      process.stderr.write(`ortkeep: ${e instanceof CliError ? e.message : `internal error: ${e?.message ?? e}`}\n`);
      process.exitCode = 1;
    }
  },
);
