#!/usr/bin/env node
// The ortkeep command line. `ortkeep inspect MODEL [--json]` runs the wasm
// build of the C reader in Node. Errors are one line and a non-zero exit,
// never a stack trace.
import { open } from 'node:fs/promises';
import process from 'node:process';
import { getCore } from './core/module.js';
import { OrtkeepError } from './errors.js';
import { formatPrepared, formatSummary } from './cli-format.js';

const USAGE = `usage: ortkeep inspect MODEL [--json]
       ortkeep prepare MODEL --out DIR [--level extended] [--ep wasm] [--allow-downgrade]
                       [--free-dim NAME=N]... [--input-dims INPUT=AxB]... [--probes N] [--json]

  inspect   read an ONNX model with ortkeep's reader: graphs, subgraphs,
            initializers, external data, shared initializers, metadata
  --json    print the full report as JSON

  prepare   write the model optimized by onnxruntime-node, as a stamped .onnx
            and as .ort, verify each in onnxruntime-web at level 'disabled'
            against the original on probe inputs, and write MODEL.ortkeep.json
  --level   basic or extended (default); layout and all are refused: their
            com.microsoft.nchwc ops do not load in onnxruntime-web
  --allow-downgrade   take layout/all as extended instead of refusing
  --ep      the execution provider the forms are for: wasm (default, only)
  --free-dim NAME=N   a symbolic dim's size in the probe inputs (default 1)
  --input-dims INPUT=AxB   one probe input's whole shape (e.g. input=1x256)
  --probes N          probe input sets (default 3)
  --json    print the manifest as JSON`;

async function main(argv) {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === '-h') {
    process.stdout.write(`${USAGE}\n`);
    return command ? 0 : 2;
  }
  if (command === 'prepare') return prepareCommand(rest);
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

/** `ortkeep prepare`: options parsed here, the work in js/forms/prepare.js
 * (imported only now: it loads onnxruntime-node and onnxruntime-web). */
async function prepareCommand(args) {
  const opts = { freeDimensionOverrides: {}, inputDims: {} };
  const files = [];
  let json = false;
  const value = (i, flag) => {
    if (i >= args.length || args[i].startsWith('--')) throw new UsageError(`${flag} needs a value`);
    return args[i];
  };
  const pair = (text, flag, parse) => {
    const at = text.lastIndexOf('=');
    if (at <= 0) throw new UsageError(`${flag} takes NAME=VALUE, not '${text}'`);
    return [text.slice(0, at), parse(text.slice(at + 1))];
  };
  const count = (text, flag) => {
    if (!/^\d+$/.test(text)) throw new UsageError(`${flag}: '${text}' is not a non-negative integer`);
    return Number(text);
  };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--json') json = true;
    else if (a === '--allow-downgrade') opts.allowDowngrade = true;
    else if (a === '--out') opts.out = value(++i, a);
    else if (a === '--level') opts.level = value(++i, a);
    else if (a === '--ep') opts.ep = value(++i, a);
    else if (a === '--probes') opts.probes = count(value(++i, a), a);
    else if (a === '--free-dim') {
      const [k, v] = pair(value(++i, a), a, (t) => count(t, a));
      opts.freeDimensionOverrides[k] = v;
    } else if (a === '--input-dims') {
      const [k, v] = pair(value(++i, a), a, (t) => t.split('x').map((d) => count(d, a)));
      opts.inputDims[k] = v;
    } else if (a.startsWith('--')) throw new UsageError(`unknown option '${a}'`);
    else files.push(a);
  }
  if (files.length !== 1) throw new UsageError('prepare takes exactly one MODEL');
  if (!opts.out) throw new UsageError('prepare needs --out DIR');
  const { prepare } = await import('./forms/prepare.js');
  opts.warn = (line) => process.stderr.write(`ortkeep: warning: ${line}\n`);
  let result;
  try {
    result = await prepare(files[0], opts);
  } catch (e) {
    if (e instanceof OrtkeepError) throw new CliError(e.message.replace(/^ortkeep prepare: /, ''));
    throw e;
  }
  const { manifest, manifestPath, failed } = result;
  if (json) process.stdout.write(`${JSON.stringify(manifest, null, 2)}\n`);
  else process.stdout.write(formatPrepared(manifest, manifestPath));
  for (const f of failed) {
    process.stderr.write(
      `ortkeep: ${files[0]}: the .${f.format} form failed verification (${f.verified.reason}${f.verified.output ? ` in ${f.verified.output}` : ''}${f.verified.detail ? `: ${f.verified.detail}` : ''}); it was not kept\n`,
    );
  }
  return failed.length ? 1 : 0;
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
    for (let pos = 0; ; ) {
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
  (code) => {
    process.exitCode = code;
  },
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
