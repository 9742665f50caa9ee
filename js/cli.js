#!/usr/bin/env node
// The ortkeep command line. `ortkeep inspect MODEL [--json]` runs the wasm
// build of the C reader in Node. Errors are one line and a non-zero exit,
// never a stack trace.
import { open } from 'node:fs/promises';
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
  const report = await inspectFile(await getCore(), file);
  process.stdout.write(json ? `${JSON.stringify(report, null, 2)}\n` : formatSummary(file, report));
  return 0;
}

/** One read buffer, reused: memory stays flat for a file of any size. */
const READ_PIECE = 4 << 20;

/**
 * Streams a file through the core's reader (wasm/inspect_stream.h): the
 * model is never whole in memory, so files past 4 GB read in a few MiB.
 * A malformed model stops the reading at its first final error.
 */
async function inspectFile(core, file) {
  const fail = (e) => new CliError(`${file}: ${e.code === 'ENOENT' ? 'no such file' : e.message}`);
  let fh;
  try {
    fh = await open(file, 'r');
  } catch (e) {
    throw fail(e);
  }
  const stream = core.inspectStream();
  try {
    const buf = new Uint8Array(READ_PIECE);
    for (let pos = 0; ;) {
      let n;
      try {
        ({ bytesRead: n } = await fh.read(buf, 0, buf.length, pos));
      } catch (e) {
        throw fail(e);
      }
      if (!n) break;
      stream.feed(buf.subarray(0, n));
      pos += n;
    }
    return stream.end();
  } catch (e) {
    stream.abort();
    if (e instanceof OrtkeepError) throw new CliError(`${file}: ${e.message}`);
    throw e;
  } finally {
    await fh.close();
  }
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
