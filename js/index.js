// ortkeep's public API: load a model (any source), run it, dispose it.
import { getCore, setCoreWasmUrl } from './core.js';
import { OrtkeepError } from './errors.js';
import { createSession, resolveOrt } from './ort-adapter.js';
import { Session, poolSessionOptions } from './session.js';
import { readSource } from './sources.js';

export { OrtkeepError, Session, setCoreWasmUrl };

const now = () => (globalThis.performance ?? Date).now();

/**
 * Loads an ONNX model and creates an onnxruntime-web session for it.
 * @param {string|URL|Uint8Array|ArrayBuffer|Blob} source
 * @param {import('./index.d.ts').LoadOptions} [options]
 * @returns {Promise<Session>}
 */
export async function load(source, options = {}) {
  const t0 = now();
  const ort = await resolveOrt(options);
  const core = await getCore();
  const tReady = now();
  const { bytes, url } = await readSource(source, options);
  const tBytes = now();
  options.onProgress?.({ loaded: bytes.byteLength, total: bytes.byteLength, phase: 'verify' });
  const model = core.inspect(bytes);
  if (options.integrity) checkIntegrity(options.integrity, model.sha256, url);
  const tRead = now();
  options.onProgress?.({ loaded: bytes.byteLength, total: bytes.byteLength, phase: 'create-session' });
  const sessionOptions = poolSessionOptions(options, { executionProviders: options.executionProviders ?? ['wasm'], ...options.sessionOptions });
  const ortSession = await createSession(ort, bytes, sessionOptions);
  const tSession = now();
  return new Session(ort, ortSession, {
    model,
    source: { url, bytes: bytes.byteLength, sha256: model.sha256 },
    timings: { runtimeMs: tReady - t0, bytesMs: tBytes - tReady, readMs: tRead - tBytes, createMs: tSession - tRead, totalMs: tSession - t0 },
  }, { core, pool: options.pool, executionProviders: sessionOptions.executionProviders });
}

/**
 * Reads a model with ortkeep's C reader without creating a session.
 * @param {Uint8Array|ArrayBuffer} bytes
 */
export async function inspect(bytes) {
  const core = await getCore();
  return core.inspect(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes));
}

function checkIntegrity(integrity, sha256Hex, url) {
  const m = /^sha256-([A-Za-z0-9+/]+={0,2})$/.exec(String(integrity).trim());
  if (!m) throw new OrtkeepError('INVALID_ARG', `ortkeep: integrity must look like 'sha256-<base64>', got '${integrity}'`);
  const expected = base64ToHex(m[1]);
  if (expected !== sha256Hex) {
    throw new OrtkeepError('INTEGRITY', `ortkeep: ${url ?? 'model'} does not match its integrity (expected sha256 ${expected}, got ${sha256Hex}); refusing to use it`);
  }
}

function base64ToHex(b64) {
  const bin = atob(b64);
  let hex = '';
  for (let i = 0; i < bin.length; i++) hex += bin.charCodeAt(i).toString(16).padStart(2, '0');
  return hex;
}
