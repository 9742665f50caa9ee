// `ortkeep prepare`: artifact forms ahead of time (issue 9, item 2). Node only
// (node: modules, onnxruntime-node); the CLI imports it when asked to, and
// nothing on the browser path does.
//
// onnxruntime-node writes the optimized model twice, inline `.onnx` and
// `.ort`; the `.onnx` gets ortkeep's normalization stamp appended (by the C
// encoder: core.stampTail). Each form is then verified the way a browser
// would use it: onnxruntime-web (in this Node) creates a session from it at
// graphOptimizationLevel 'disabled', and its outputs on probe inputs
// (js/forms/probe.js) must match the original's at onnxruntime-web's default
// level. A form that fails is not kept. Files land under temporary names and
// are renamed into place; the manifest, MODEL.ortkeep.json, is written last.
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { getCore } from '../core/module.js';
import { OrtkeepError } from '../errors.js';
import { compareOutputs, probeFeeds, QUIET_RUN, runProbes } from './probe.js';

/** Levels whose artifacts onnxruntime-web can load. 'layout' and 'all' add
 * com.microsoft.nchwc ops (x64 CPU kernels) that onnxruntime-web rejects. */
export const WEB_LEVELS = ['basic', 'extended'];
const NCHWC_LEVELS = ['layout', 'all'];
/** ortkeep's EP names → the onnxruntime-node EP that optimizes for it: the
 * wasm EP is onnxruntime's CPU EP built for WebAssembly. */
const NODE_EP = { wasm: 'cpu' };
export const PRODUCER = 'ortkeep prepare';
const FORMATS = [
  { format: 'onnx', ext: 'onnx', save: 'ONNX' },
  { format: 'ort', ext: 'ort', save: 'ORT' },
];
/** Creates timed per form, interleaved with the original's (median). */
const CREATE_ROUNDS = 3;

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * Writes DIR/NAME.LEVEL.EP.onnx (stamped), DIR/NAME.LEVEL.EP.ort and
 * DIR/NAME.ortkeep.json, where NAME is MODEL's file name without `.onnx`.
 * @param {string} modelPath an ONNX model file (weights inline)
 * @param {{out: string, level?: string, ep?: string, allowDowngrade?: boolean,
 *          probes?: number, seed?: number, freeDimensionOverrides?: Record<string, number>,
 *          inputDims?: Record<string, number[]>, rtol?: number, atol?: number,
 *          ortNode?: object, ortWeb?: object, warn?: (line: string) => void}} options
 *   ortNode/ortWeb: the onnxruntime modules (imported here when not given)
 * @returns {Promise<{manifest: object, manifestPath: string, failed: object[]}>}
 *   failed: the forms that did not verify (not written; listed in the manifest)
 */
export async function prepare(modelPath, options) {
  const {
    out,
    ep = 'wasm',
    allowDowngrade = false,
    probes = 3,
    seed = 1,
    freeDimensionOverrides = {},
    inputDims = {},
    rtol = 1e-3,
    atol = 1e-4,
    warn = () => {},
  } = options ?? {};
  let level = options?.level ?? 'extended';
  const requestedLevel = level;
  if (!out) throw new OrtkeepError('INVALID_ARG', 'ortkeep prepare: say where the forms go with --out DIR');
  if (NCHWC_LEVELS.includes(level)) {
    if (!allowDowngrade) {
      throw new OrtkeepError(
        'LEVEL_UNSUPPORTED',
        `ortkeep prepare: level '${level}' writes com.microsoft.nchwc ops (x64 CPU only) that onnxruntime-web rejects; use --level extended, or --allow-downgrade to get 'extended' instead`,
      );
    }
    warn(`level '${level}' downgraded to 'extended': its com.microsoft.nchwc ops do not load in onnxruntime-web`);
    level = 'extended';
  }
  if (!WEB_LEVELS.includes(level)) {
    throw new OrtkeepError(
      'INVALID_ARG',
      `ortkeep prepare: unknown level '${level}'; use one of ${[...WEB_LEVELS, ...NCHWC_LEVELS].join(', ')}`,
    );
  }
  if (!NODE_EP[ep]) {
    throw new OrtkeepError(
      'INVALID_ARG',
      `ortkeep prepare: execution provider '${ep}' is not supported; only 'wasm' is (onnxruntime-node optimizes for it with its CPU EP, which the wasm EP is built from)`,
    );
  }
  if (!Number.isInteger(probes) || probes < 1)
    throw new OrtkeepError('INVALID_ARG', `ortkeep prepare: --probes must be a positive integer, not ${probes}`);

  let original;
  try {
    original = new Uint8Array(await readFile(modelPath));
  } catch (e) {
    throw new OrtkeepError(
      'INVALID_SOURCE',
      `${modelPath}: ${e.code === 'ENOENT' ? 'no such file' : e.code === 'EISDIR' ? 'is a directory, not a model' : e.message}`,
      { cause: e },
    );
  }
  const core = await getCore();
  let report;
  try {
    report = core.inspect(original);
  } catch (e) {
    if (e instanceof OrtkeepError)
      throw new OrtkeepError(e.code, `${modelPath}: ${e.message}`, { cause: e, offset: e.offset });
    throw e;
  }
  if (report.externalData.length) {
    throw new OrtkeepError(
      'EXTERNAL_DATA',
      `${modelPath}: its weights are in external data files (${[...new Set(report.externalData.map((x) => x.location))].join(', ')}); ortkeep prepare handles models with inline weights only so far`,
    );
  }
  if (report.stamp?.integrity === 'intact') {
    throw new OrtkeepError(
      'INVALID_SOURCE',
      `${modelPath}: is already an artifact (stamped by ${report.stamp.producer}, onnxruntime ${report.stamp.ort}, ${report.stamp.ep}, level ${report.stamp.level}); prepare its source model instead`,
    );
  }

  const ortNode = options?.ortNode ?? (await importRuntime('onnxruntime-node'));
  const ortWeb = options?.ortWeb ?? (await importRuntime('onnxruntime-web'));
  const nodeVersion = ortNode.env?.versions?.node;
  const webVersion = ortWeb.env?.versions?.web;
  if (!nodeVersion || nodeVersion !== webVersion) {
    throw new OrtkeepError(
      'VERSION_MISMATCH',
      `ortkeep prepare: onnxruntime-node ${nodeVersion ?? '(unknown)'} would write forms for onnxruntime-web ${webVersion ?? '(unknown)'}; install onnxruntime-node@${webVersion} so the artifact matches the runtime that loads it`,
    );
  }
  if (!options?.ortWeb) {
    ortWeb.env.wasm.numThreads = 1; // ours: one thread (threads do not help on small models)
    ortWeb.env.logLevel = 'error';
  }

  const name = path.basename(modelPath).replace(/\.onnx$/i, '');
  await mkdir(out, { recursive: true });
  const probeOptions = { count: probes, seed, freeDimensionOverrides, inputDims };
  const feeds = probeFeeds(report, probeOptions);
  const toTensors = (set) =>
    Object.fromEntries(Object.entries(set).map(([k, t]) => [k, new ortWeb.Tensor(t.type, t.data, t.dims)]));
  // fatal only: a failure comes back as an error and is reported once, in one line
  const webOptions = (extra) => ({ executionProviders: ['wasm'], logSeverityLevel: 4, ...extra });

  // The original, as a page would run it without ortkeep's forms: default level.
  const reference = await ortWeb.InferenceSession.create(original, webOptions({}));
  let expected;
  try {
    expected = await runProbes((f) => reference.run(toTensors(f), QUIET_RUN), feeds);
  } catch (e) {
    throw new OrtkeepError(
      'PROBE_FAILED',
      `${modelPath}: the original model does not run on the probe inputs (${oneLine(e)}); give real sizes with --free-dim NAME=N or --input-dims INPUT=AxB`,
      { cause: e },
    );
  } finally {
    await reference.release();
  }

  const forms = [];
  const failed = [];
  const pending = [];
  try {
    for (const { format, ext, save } of FORMATS) {
      const file = `${name}.${level}.${ep}.${ext}`;
      const target = path.join(out, file);
      if (path.resolve(target) === path.resolve(modelPath))
        throw new OrtkeepError(
          'INVALID_ARG',
          `ortkeep prepare: ${target} would overwrite the model itself; choose another --out`,
        );
      const tmp = `${target}.tmp-${process.pid}`;
      pending.push(tmp);
      const writer = await ortNode.InferenceSession.create(modelPath, {
        executionProviders: [NODE_EP[ep]],
        graphOptimizationLevel: level,
        optimizedModelFilePath: tmp,
        intraOpNumThreads: 1,
        interOpNumThreads: 1,
        logSeverityLevel: 3,
        extra: { session: { save_model_format: save } },
      });
      await writer.release();
      let bytes = new Uint8Array(await readFile(tmp));
      let stamp = null;
      if (format === 'onnx') {
        stamp = { producer: PRODUCER, ort: nodeVersion, ep, level, source: report.sha256, artifact: sha256(bytes) };
        const tail = core.stampTail(stamp);
        const stamped = new Uint8Array(bytes.byteLength + tail.byteLength);
        stamped.set(bytes);
        stamped.set(tail, bytes.byteLength);
        bytes = stamped;
        await writeFile(tmp, bytes);
      }
      const form = {
        format,
        file,
        bytes: bytes.byteLength,
        sha256: sha256(bytes),
        level,
        ep,
        onnxruntime: nodeVersion,
        stamp,
      };
      if (requestedLevel !== level) form.requestedLevel = requestedLevel;
      const check = await verify(
        ortWeb,
        core,
        bytes,
        format,
        stamp,
        feeds,
        expected,
        { rtol, atol },
        toTensors,
        webOptions,
      );
      form.verified = { ...check.verified, probes };
      form.createMs = check.createMs;
      if (form.verified.equal) {
        await rename(tmp, target);
        forms.push(form);
      } else {
        await rm(tmp, { force: true });
        form.file = null;
        failed.push(form);
        forms.push(form);
      }
      pending.pop();
    }
  } finally {
    for (const tmp of pending) await rm(tmp, { force: true });
  }

  const timing = await createTimes(
    ortWeb,
    original,
    forms.filter((f) => f.file).map((f) => [f, path.join(out, f.file)]),
    webOptions,
  );
  const manifest = {
    ortkeep: 1,
    producer: PRODUCER,
    source: {
      file: path.basename(modelPath),
      bytes: original.byteLength,
      sha256: report.sha256,
      createMs: timing.original,
      level: 'default',
    },
    probes: { count: probes, seed, freeDimensionOverrides, inputDims, rtol, atol, onnxruntimeWeb: webVersion },
    forms,
  };
  const manifestPath = path.join(out, `${name}.ortkeep.json`);
  await writeFile(`${manifestPath}.tmp-${process.pid}`, `${JSON.stringify(manifest, null, 2)}\n`);
  await rename(`${manifestPath}.tmp-${process.pid}`, manifestPath);
  return { manifest, manifestPath, failed };
}

/** One form in onnxruntime-web at 'disabled': the C reader's view, then its outputs against the original's. */
async function verify(ortWeb, core, bytes, format, stamp, feeds, expected, tolerance, toTensors, webOptions) {
  const fail = (reason, detail) => ({
    verified: { equal: false, maxAbsDiff: null, output: null, reason, detail },
    createMs: null,
  });
  try {
    if (format === 'onnx') {
      const seen = core.inspect(bytes);
      const ok =
        seen.stamp?.integrity === 'intact' &&
        seen.stamp.artifact === stamp.artifact &&
        seen.stamp.source === stamp.source;
      if (!ok) return fail('stamp', `the C reader sees the stamp as ${JSON.stringify(seen.stamp)}`);
    } else {
      core.inspectOrt(bytes);
    }
  } catch (e) {
    return fail('reader', oneLine(e));
  }
  let session;
  const t0 = performance.now();
  try {
    session = await ortWeb.InferenceSession.create(bytes, webOptions({ graphOptimizationLevel: 'disabled' }));
  } catch (e) {
    return fail('create', oneLine(e));
  }
  const createMs = performance.now() - t0;
  try {
    const actual = await runProbes((f) => session.run(toTensors(f), QUIET_RUN), feeds);
    const r = compareOutputs(expected, actual, tolerance);
    return { verified: { equal: r.equal, maxAbsDiff: r.maxAbsDiff, output: r.output, reason: r.reason }, createMs };
  } catch (e) {
    return fail('run', oneLine(e));
  } finally {
    await session.release();
  }
}

/**
 * Create times in onnxruntime-web, median of CREATE_ROUNDS interleaved rounds:
 * the original at the default level, each kept form at 'disabled' (what a
 * load of that form costs). Sets form.createMs; returns the original's.
 */
async function createTimes(ortWeb, original, kept, webOptions) {
  const times = { original: [] };
  const bytes = [];
  for (const [, file] of kept) bytes.push(new Uint8Array(await readFile(file)));
  for (let round = 0; round < CREATE_ROUNDS; round++) {
    times.original.push(await timeCreate(ortWeb, original, webOptions({})));
    for (let i = 0; i < kept.length; i++) {
      (times[i] ??= []).push(await timeCreate(ortWeb, bytes[i], webOptions({ graphOptimizationLevel: 'disabled' })));
    }
  }
  kept.forEach(([form], i) => {
    form.createMs = round1(median(times[i]));
  });
  return { original: round1(median(times.original)) };
}

async function timeCreate(ortWeb, bytes, options) {
  const t0 = performance.now();
  const s = await ortWeb.InferenceSession.create(bytes, options);
  const ms = performance.now() - t0;
  await s.release();
  return ms;
}

const round1 = (x) => Math.round(x * 10) / 10;
/** An error as one short line: onnxruntime nests the cause as its last "Status Message:". */
function oneLine(e) {
  const text = String(e?.message ?? e).split('\n')[0];
  const inner = text.split('Status Message: ').at(-1).trim();
  return inner.length > 240 ? `${inner.slice(0, 240)}…` : inner;
}

async function importRuntime(name) {
  try {
    return await import(name);
  } catch (e) {
    throw new OrtkeepError(
      'ORT_MISSING',
      `ortkeep prepare needs ${name} (${name === 'onnxruntime-node' ? 'an optional dependency of ortkeep; on Linux set ONNXRUNTIME_NODE_INSTALL=skip if its CUDA download fails' : 'the peer dependency'}): npm install ${name}`,
      { cause: e },
    );
  }
}
