/* The one-shot ONNX reader: reads a whole ModelProto held in memory, without
 * copying weight bytes, into the ok_model the core's streaming reader
 * (onnx_stream.h) reports, by the same rules (onnx_model.h). Test-only: the
 * tests, fuzzers and the fake page's VALIDATE use it as the streaming
 * reader's oracle; the core, the wasm module and the WASI library leave it
 * out. */
#ifndef ORTKEEP_ONNX_READER_H
#define ORTKEEP_ONNX_READER_H

#include <stddef.h>
#include <stdint.h>

#include "ok_error.h"
#include "onnx_model.h"

/* Reads buf[0, len). On success *out is a new model (free with
 * ok_model_free) whose spans index buf, which must outlive it, and OK_OK is
 * returned; on failure *out is NULL and err (if not NULL) says what and
 * where. Errors: OK_ERR_EMPTY, OK_ERR_TRUNCATED, OK_ERR_BAD_WIRE_TYPE,
 * OK_ERR_BAD_VARINT, OK_ERR_TOO_DEEP, OK_ERR_NOT_ONNX, OK_ERR_LIMIT,
 * OK_ERR_CORRUPT, OK_ERR_NOMEM, OK_ERR_INVALID_ARG. */
int ok_onnx_read(const uint8_t *buf, size_t len, ok_model **out, ok_error *err);

#endif
