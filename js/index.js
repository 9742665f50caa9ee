// ortkeep's public API: load a model (any source), run it, dispose it; the
// model cache's management API; the C reader on its own.
import { getCore, setCoreWasmUrl } from './core/module.js';
import { OrtkeepError } from './errors.js';
import { Session } from './session.js';
import { cache } from './cache/admin.js';
import { load } from './load.js';

export { OrtkeepError, Session, cache, load, setCoreWasmUrl };

/**
 * Reads an ONNX model with ortkeep's C reader without creating a session.
 * @param {Uint8Array|ArrayBuffer} bytes
 */
export async function inspect(bytes) {
  const core = await getCore();
  return core.inspect(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes));
}
