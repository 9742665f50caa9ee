// OrtkeepError: every failure ortkeep reports has a stable string `code`, a
// message that says what to do, and, where it applies, the byte `offset` in
// the model. Codes from the C core keep the names of wasm/ok_error.h.

/** C status numbers (wasm/ok_error.h) to error codes. */
export const CORE_CODES = Object.freeze({
  1: 'NOMEM',
  2: 'INVALID_ARG',
  3: 'EMPTY',
  4: 'TRUNCATED',
  5: 'BAD_WIRE_TYPE',
  6: 'BAD_VARINT',
  7: 'TOO_DEEP',
  8: 'NOT_ONNX',
  9: 'LIMIT',
  10: 'NOT_FOUND',
  11: 'STATE',
  12: 'CORRUPT',
  13: 'INTEGRITY',
  14: 'QUOTA',
  15: 'SHAPE',
  16: 'IN_USE',
});

/** Codes a model file itself can cause: the model is bad, not the caller. */
export const MODEL_FORMAT_CODES = new Set(['EMPTY', 'TRUNCATED', 'BAD_WIRE_TYPE', 'BAD_VARINT', 'TOO_DEEP', 'NOT_ONNX', 'LIMIT']);

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

/** Error from a C status number, message and offset. */
export function coreError(status, message, offset) {
  const code = CORE_CODES[status] ?? `CORE_${status}`;
  return new OrtkeepError(code, message || code, offset ? { offset } : {});
}
