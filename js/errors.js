// OrtkeepError: every failure ortkeep reports has a stable string `code`, a
// message that says what to do, and, where it applies, the byte `offset` in
// the model. Codes from the C core keep the names of wasm/ok_error.h.
import { STATUS_NAME } from './core-constants.js';

/** C status numbers (wasm/ok_error.h) to error codes, generated from the C list. */
export const CORE_CODES = STATUS_NAME;

/** Codes a model file itself can cause: the model is bad, not the caller. */
export const MODEL_FORMAT_CODES = new Set([
  'EMPTY',
  'TRUNCATED',
  'BAD_WIRE_TYPE',
  'BAD_VARINT',
  'TOO_DEEP',
  'NOT_ONNX',
  'LIMIT',
]);

export class OrtkeepError extends Error {
  /**
   * @param {string} code stable machine-readable code, e.g. 'TRUNCATED'
   * @param {string} message one line that says what happened and what to do
   * @param {{offset?: number, cause?: unknown, details?: object}} [extra]
   */
  constructor(code, message, extra = {}) {
    super(message, extra.cause === undefined ? undefined : { cause: extra.cause });
    this.name = 'OrtkeepError';
    this.code = code;
    if (extra.offset !== undefined) this.offset = extra.offset;
    if (extra.details !== undefined) this.details = extra.details;
  }
}

/** Error from a C status number, message and offset (kept for model-format
 * errors even when it is 0: "at byte 0" is what an HTML page gets). */
export function coreError(status, message, offset) {
  const code = CORE_CODES[status] ?? `CORE_${status}`;
  const withOffset = MODEL_FORMAT_CODES.has(code) || offset > 0;
  return new OrtkeepError(code, message || code, withOffset ? { offset: offset ?? 0 } : {});
}
