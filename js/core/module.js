// Loads the C core (Emscripten ES module + .wasm) once per realm and wraps its
// exported ABI (wasm/ortkeep_abi.c) in plain JS. Everything here moves bytes
// in and out of wasm memory; decisions stay in C.
import createOrtkeepCore from '../../dist/ortkeep-core.mjs';
import { HOST_POLICY, STAMP } from '../core-constants.js';
import { coreError, OrtkeepError } from '../errors.js';
import { isNode, readFileUrl } from '../platform/node.js';
import { coreWasmUrl, installedUrl, isWasm } from '../package-files.js';
import { sharedScratch } from './scratch.js';
import { bytesOfHex, hexOf } from '../util/sha256.js';

/** Largest piece copied into wasm memory per call (cache/host_policy.h). */
export const INSPECT_PIECE = HOST_POLICY.PIECE_BYTES;

const u64 = (n) => BigInt.asUintN(64, BigInt(Math.max(0, Math.floor(n))));

let coreUrlOverride = null;
let corePromise = null;

/**
 * Where to fetch ortkeep-core.wasm from, for apps that host it elsewhere
 * (like onnxruntime-web's env.wasm.wasmPaths). Call before the first load().
 * @param {string|URL} url
 */
export function setCoreWasmUrl(url) {
  coreUrlOverride = new URL(String(url), globalThis.location?.href);
  corePromise = null;
}

async function readCoreBytes(url) {
  if (isNode && url.protocol === 'file:') return readFileUrl(url);
  const response = await fetch(url);
  if (!response.ok) {
    throw new OrtkeepError(
      'CORE_LOAD',
      `ortkeep: could not fetch ${url} (HTTP ${response.status}); serve ortkeep-core.wasm next to the bundle or call setCoreWasmUrl()`,
    );
  }
  return new Uint8Array(await response.arrayBuffer());
}

/** @returns {Promise<Core>} the shared core instance */
export function getCore() {
  corePromise ??= (async () => {
    let url = coreUrlOverride;
    if (!url) {
      try {
        url = coreWasmUrl();
      } catch (e) {
        throw new OrtkeepError(
          'CORE_LOAD',
          'ortkeep: cannot tell where ortkeep-core.wasm is served from here; call setCoreWasmUrl(url) before load()',
          { cause: e },
        );
      }
    }
    let wasmBinary = await fetchCore(url);
    // a dev server that moved this module (package-files.js) still serves the file at the install path
    const installed = !coreUrlOverride && !isWasm(wasmBinary) && installedUrl(url);
    if (installed) {
      const retry = await fetchCore(installed).catch(() => null);
      if (retry && isWasm(retry)) {
        wasmBinary = retry;
        url = installed;
      }
    }
    if (!isWasm(wasmBinary)) {
      const html = /^\s*</.test(new TextDecoder().decode(wasmBinary.subarray(0, 64)));
      throw new OrtkeepError(
        'CORE_LOAD',
        `ortkeep: ${url} is not ortkeep-core.wasm (${html ? "an HTML page: a dev server's SPA fallback for a missing file" : `it starts with ${[...wasmBinary.subarray(0, 4)].map((b) => b.toString(16).padStart(2, '0')).join(' ')}`}). ` +
          "With Vite 5-7 add optimizeDeps: { exclude: ['ortkeep'] } to vite.config; or host node_modules/ortkeep/dist/ortkeep-core.wasm yourself and call setCoreWasmUrl(url) before load().",
      );
    }
    let module;
    try {
      module = await createOrtkeepCore({ wasmBinary, print: () => {}, printErr: () => {} });
    } catch (e) {
      const csp = /Content Security Policy|unsafe-eval|Refused to compile/i.test(String(e?.message));
      throw new OrtkeepError(
        'CORE_LOAD',
        `ortkeep: the core could not be instantiated: ${e?.message ?? e}${csp ? ". The page's Content-Security-Policy must allow 'wasm-unsafe-eval' in script-src (onnxruntime-web needs it too)" : ''}`,
        { cause: e },
      );
    }
    return new Core(module);
  })();
  corePromise.catch(() => {
    corePromise = null;
  });
  return corePromise;
}

async function fetchCore(url) {
  try {
    return await readCoreBytes(url);
  } catch (e) {
    if (e instanceof OrtkeepError) throw e;
    throw new OrtkeepError('CORE_LOAD', `ortkeep: could not load the core from ${url}: ${e.message}`, { cause: e });
  }
}

/** The wrapped ABI. One instance per realm; not thread-safe across workers. */
export class Core {
  constructor(m) {
    this.m = m;
    this.scratch = sharedScratch(m); // each feed copies and calls at once
  }

  /** Bytes of wasm memory the core holds now (it grows, never shrinks). */
  memoryBytes() {
    return this.m.HEAPU8.buffer.byteLength;
  }

  /** Copies bytes into wasm memory; caller frees with this.free(ptr). */
  copyIn(bytes) {
    const ptr = this.m._malloc(Math.max(1, bytes.byteLength));
    if (!ptr) throw new OrtkeepError('NOMEM', `ortkeep: out of wasm memory copying ${bytes.byteLength} bytes`);
    this.m.HEAPU8.set(bytes, ptr);
    return ptr;
  }

  free(ptr) {
    if (ptr) this.m._free(ptr);
  }

  /** The C rule for an external data location (wasm/external_data.c): does it stay in the model's folder? */
  externalInFolder(location) {
    const bytes = new TextEncoder().encode(location);
    return this.m._ok_external_in_folder(this.scratch.put(bytes), bytes.byteLength) === 1;
  }

  /** A NUL-terminated copy of `s` in wasm memory; caller frees with this.free(ptr). */
  copyString(s) {
    return this.copyIn(new TextEncoder().encode(`${s}\0`));
  }

  // ---- the host's small decisions (cache/host_policy.h): facts in, answer out ----

  /** Whether a file of `bytes` (or, size unknown, one chunk) is written as Blob records,
   * while the page holds `held` bytes of Blob records not yet collected. */
  recordsAsBlob(held, bytes) {
    return this.m._ok_store_records_as_blob(u64(held), u64(bytes)) === 1;
  }

  /** Whether a download of `total` bytes (0: unknown) feeds the store worker (ok_store_beside). */
  storeBeside(total) {
    return this.m._ok_store_beside(u64(total)) === 1;
  }

  /** Whether a warm load's Blob records of `bytes` are read in the read worker, given READ_FACT bits (ok_read_beside). */
  readBeside(bytes, facts) {
    return this.m._ok_read_beside(u64(bytes), facts >>> 0) === 1;
  }

  /** Whether a complete chunk may be stored during the download (ok_store_chunk_mid_download); ms facts, remaining Infinity when unknown. */
  chunkMidDownload(waitedMs, remainingMs, storeMs) {
    const ms = (x) => (Number.isFinite(x) ? Math.min(0xfffffffe, Math.max(0, Math.round(x))) : 0xffffffff);
    return this.m._ok_store_chunk_mid_download(ms(waitedMs), ms(remainingMs), ms(storeMs)) !== 0;
  }

  /** Chunks of `chunkSize` bytes one IndexedDB read transaction takes. */
  readBatch(chunkSize) {
    return this.m._ok_store_read_batch(chunkSize) >>> 0;
  }

  /** A delete failed with `ioFail` (IOFAIL.*) after `reopens` reopens: reopen and run it again? */
  deleteReopens(ioFail, reopens) {
    return this.m._ok_store_delete_reopen(ioFail, reopens) === 1;
  }

  /** Whether an execution provider of this name needs more than onnxruntime-web's plain build (ok_runtime_ep_needs_more). */
  epNeedsMore(name) {
    return this.#askString('_ok_runtime_ep_needs_more', name);
  }

  /** Whether `s` is a cache key (as the core makes them), not a URL. */
  isCacheKey(s) {
    return this.#askString('_ok_store_is_cache_key', s);
  }

  /** A core predicate over one string (copied in, freed after): its answer as a boolean. */
  #askString(fn, s) {
    const p = this.copyString(s);
    try {
      return this.m[fn](p) === 1;
    } finally {
      this.free(p);
    }
  }

  /** Whether data files handed as bytes, `bytes` in all, are named with their model (ok_form_names_given_data). */
  namesGivenData(bytes) {
    return this.m._ok_form_names_given_data(u64(bytes)) === 1;
  }

  /**
   * The id a form of bytes is keyed by when their data files are handed as
   * bytes too (ok_form_given_source_id): the model's SHA-256 and each file's
   * location and SHA-256, in one SHA-256 (hex). No files: the model's own.
   * @param {string} modelSha256 hex @param {{path: string, sha256: string}[]} files
   */
  givenSourceId(modelSha256, files) {
    const m = this.m;
    const enc = new TextEncoder();
    const names = files.map((f) => enc.encode(`${f.path}\0`));
    const locs = new Uint8Array(names.reduce((n, b) => n + b.byteLength, 0));
    let at = 0;
    for (const b of names) {
      locs.set(b, at);
      at += b.byteLength;
    }
    const shas = new Uint8Array(32 * files.length);
    files.forEach((f, i) => shas.set(bytesOfHex(f.sha256), 32 * i));
    const ptrs = [bytesOfHex(modelSha256), locs, shas, new Uint8Array(32)].map((b) => this.copyIn(b));
    try {
      if (m._ok_abi_given_source_id(ptrs[0], files.length, ptrs[1], ptrs[2], ptrs[3]) !== 1) throw this.lastError();
      return hexOf(m.HEAPU8.subarray(ptrs[3], ptrs[3] + 32));
    } finally {
      ptrs.forEach((p) => this.free(p));
    }
  }

  /** The memory tier's key: loads with equal keys share one live session.
   * @param {string} sourceKey @param {string|null} integrity
   * @param {string|null} epsJson @param {string|null} optionsJson null: the defaults */
  sessionShareKey(sourceKey, integrity, epsJson, optionsJson) {
    const m = this.m;
    const ptrs = [sourceKey, integrity, epsJson, optionsJson].map((s) =>
      s === null || s === undefined ? 0 : this.copyString(s),
    );
    try {
      const p = m._ok_abi_session_share_key(...ptrs);
      if (!p) throw this.lastError();
      try {
        return m.UTF8ToString(p);
      } finally {
        m._free(p);
      }
    } finally {
      ptrs.forEach((p) => this.free(p));
    }
  }

  /** Whether a session that grew the runtime's memory by `growth` bytes is warned about. */
  growthWarns(growth, initializerBytes, sharedInitializers) {
    return this.m._ok_session_growth_warns(u64(growth), u64(initializerBytes), sharedInitializers) === 1;
  }

  lastError() {
    const m = this.m;
    return coreError(
      m._ok_abi_last_error_code(),
      m.UTF8ToString(m._ok_abi_last_error_message()),
      Number(m._ok_abi_last_error_offset()),
    );
  }

  /**
   * Starts an inspection of a model fed in pieces (wasm/inspect_stream.h):
   * the model never sits whole in wasm memory, whatever its size. Feed every
   * byte in order, then end(); a feed or end that throws has already freed
   * the stream, and abort() frees one given up on.
   * @param {string} [sha256Hex] the content hash when already known (a load
   *   hashed the bytes as they arrived): copied into the report as given;
   *   else the core hashes the fed bytes
   * @returns {InspectStream}
   */
  inspectStream(sha256Hex, judgeFor) {
    return new InspectStream(this, sha256Hex, judgeFor);
  }

  /**
   * Reads an ONNX model with the C reader: its report (the JSON text), with
   * the SHA-256 of the bytes. Throws an OrtkeepError with the byte offset on
   * a malformed model.
   * @param {Uint8Array} bytes
   * @param {string} [sha256Hex] see inspectStream()
   * @returns {string}
   */
  inspectJson(bytes, sha256Hex, judgeFor) {
    const s = this.inspectStream(sha256Hex, judgeFor);
    s.feed(bytes);
    return s.endJson();
  }

  /**
   * inspectJson(), parsed. judgeFor {ort, ep, level}: the running context,
   * for which the report's stamp gets the core's verdict (valid, foreign,
   * stale, malformed; wasm/inspect_stream.h).
   */
  inspect(bytes, sha256Hex, judgeFor) {
    return JSON.parse(this.inspectJson(bytes, sha256Hex, judgeFor));
  }

  /**
   * Reads an ORT-format model (an .ort form) with the C reader
   * (wasm/ort_format.c): {format: 'ort', formatVersion, irVersion, producerName, graph}.
   * Throws a typed error (NOT_ONNX, TRUNCATED, ...) for anything else.
   */
  inspectOrt(bytes) {
    const m = this.m;
    const ptr = this.copyIn(bytes);
    try {
      const jsonPtr = m._ok_abi_inspect_ort(ptr, bytes.byteLength);
      if (!jsonPtr) throw this.lastError();
      try {
        return JSON.parse(m.UTF8ToString(jsonPtr));
      } finally {
        m._free(jsonPtr);
      }
    } finally {
      m._free(ptr);
    }
  }

  /**
   * The normalization stamp's tail for an artifact (wasm/stamp.h): the
   * protobuf bytes of one metadata_props entry `ortkeep.stamp` to append to
   * the artifact, which then carries it as its last field.
   * @param {{producer: string, ort: string, ep: string, level: string, source: string, artifact: string}} stamp
   *   source/artifact: SHA-256 hex (lowercase) of the original model and of the artifact's bytes before the stamp
   * @returns {Uint8Array}
   */
  stampTail({ producer, ort, ep, level, source, artifact }) {
    const m = this.m;
    const enc = new TextEncoder();
    const strings = [producer, ort, ep, level, source, artifact].map((v) => enc.encode(`${v ?? ''}\0`));
    const cap = STAMP.MAX_TAIL;
    const ptrs = [];
    try {
      for (const b of strings) ptrs.push(this.copyIn(b));
      const out = this.copyIn(new Uint8Array(cap));
      ptrs.push(out);
      const n = m._ok_abi_stamp_encode(...ptrs.slice(0, 6), out, cap);
      if (!n) throw this.lastError();
      return m.HEAPU8.slice(out, out + n);
    } finally {
      ptrs.forEach((p) => this.free(p));
    }
  }
}

/** One streamed inspection (Core.inspectStream). */
export class InspectStream {
  constructor(core, sha256Hex, judgeFor) {
    this.core = core;
    const m = core.m;
    let hexPtr = 0;
    if (sha256Hex) hexPtr = core.copyIn(new TextEncoder().encode(`${sha256Hex}\0`));
    try {
      this.s = m._ok_abi_inspect_stream_new(hexPtr);
    } finally {
      core.free(hexPtr);
    }
    if (!this.s) throw core.lastError();
    if (judgeFor) {
      const ptrs = [judgeFor.ort, judgeFor.ep, judgeFor.level].map((v) =>
        core.copyIn(new TextEncoder().encode(`${v}\0`)),
      );
      try {
        const st = m._ok_abi_inspect_stream_judge_for(this.s, ...ptrs);
        if (st !== 0) {
          this.abort();
          throw new OrtkeepError(
            'INVALID_ARG',
            'ortkeep: the stamp context (ort, ep, level) must be strings of at most 64 bytes',
          );
        }
      } finally {
        for (const p of ptrs) core.free(p);
      }
    }
  }

  /** Feeds the next bytes (any length; copied in pieces of INSPECT_PIECE). */
  feed(bytes) {
    const { m, scratch } = this.core;
    if (!this.s) throw new OrtkeepError('STATE', 'ortkeep: inspect stream already ended');
    for (let at = 0; at < bytes.byteLength; at += INSPECT_PIECE) {
      const piece = bytes.subarray(at, Math.min(bytes.byteLength, at + INSPECT_PIECE));
      if (m._ok_abi_inspect_stream_feed(this.s, scratch.put(piece), piece.byteLength) !== 0) {
        const e = this.core.lastError();
        this.abort();
        throw e;
      }
    }
  }

  /** No more bytes: the report as JSON text. */
  endJson() {
    const m = this.core.m;
    if (!this.s) throw new OrtkeepError('STATE', 'ortkeep: inspect stream already ended');
    const jsonPtr = m._ok_abi_inspect_stream_end(this.s);
    const e = jsonPtr ? null : this.core.lastError();
    this.abort();
    if (e) throw e;
    try {
      return m.UTF8ToString(jsonPtr);
    } finally {
      m._free(jsonPtr);
    }
  }

  /** No more bytes: the report. */
  end() {
    return JSON.parse(this.endJson());
  }

  /** Frees the stream (after an error of the caller's own, say). */
  abort() {
    if (this.s) this.core.m._ok_inspect_stream_free(this.s);
    this.s = 0;
  }
}
