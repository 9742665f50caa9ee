/* Inspection of a model fed in pieces: the streaming reader (onnx_stream.h)
 * and, unless the caller already knows it, the SHA-256 of the same bytes, in
 * one pass; the end renders the JSON report (inspect_json.h). The report
 * equals what ok_onnx_read() + ok_inspect_json() give on the whole model
 * with its SHA-256, but the model never sits whole in memory: what JS uses
 * to inspect a file or a download of any size with a small wasm heap.
 *
 *     ok_inspect_stream *s;
 *     ok_inspect_stream_new(NULL, &s, &err);            // NULL: hash here
 *     while (more) if (ok_inspect_stream_feed(s, p, n, &err)) break;
 *     rc = ok_inspect_stream_end(s, &json, &len, &err);  // json or error
 *     ok_inspect_stream_free(s);  ...  free(json);
 *
 * Errors are the reader's (sticky; 64-bit offset from
 * ok_inspect_stream_error_offset) plus OK_ERR_INVALID_ARG for a sha256_hex
 * that is not 64 characters and OK_ERR_STATE for a call after end.
 * When it hashes, the report also says "stamp": null or the normalization
 * stamp (stamp.h) with "integrity": "intact" | "stale" | "malformed".
 * Heap: the reader's bound (onnx_stream.h) plus the report. */
#ifndef ORTKEEP_INSPECT_STREAM_H
#define ORTKEEP_INSPECT_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "ok_error.h"

typedef struct ok_inspect_stream ok_inspect_stream;

/* sha256_hex: the content hash when the caller already checked it (a cache
 * load hashes bytes as they arrive), copied into the report as given; NULL
 * hashes the fed bytes here. OK_OK and *out, or an error and *out NULL. */
int ok_inspect_stream_new(const char *sha256_hex, ok_inspect_stream **out, ok_error *err);

/* Feeds p[0, n). OK_OK, or the (sticky) error. */
int ok_inspect_stream_feed(ok_inspect_stream *s, const uint8_t *p, size_t n, ok_error *err);

/* No more bytes: *json is the report, malloc'd and NUL-terminated (free with
 * free()), *json_len its length (json_len may be NULL). The reader's state
 * is released here, before the report is rendered. Call once. */
int ok_inspect_stream_end(ok_inspect_stream *s, char **json, size_t *json_len, ok_error *err);

/* The running onnxruntime version, execution providers and level: the
 * report's stamp then also says "verdict" (stamp.h's judge): "valid"
 * (intact and for these), "foreign" (intact, for others), "stale" or
 * "malformed". Before the first feed. OK_ERR_INVALID_ARG for a NULL or a
 * value longer than OK_STAMP_MAX_FIELD bytes; OK_ERR_STATE once fed. */
int ok_inspect_stream_judge_for(ok_inspect_stream *s, const char *ort, const char *ep, const char *level);

/* Where the error applies, 64-bit (0 when none or not a byte position). */
uint64_t ok_inspect_stream_error_offset(const ok_inspect_stream *s);

/* Bytes fed so far. */
uint64_t ok_inspect_stream_consumed(const ok_inspect_stream *s);

void ok_inspect_stream_free(ok_inspect_stream *s);

#endif
