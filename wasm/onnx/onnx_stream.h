/* Streaming, sans-I/O ONNX reader: the same report as ok_onnx_read()
 * (onnx_reader.h, same rules), from bytes fed in pieces of any size as they
 * arrive, in the style of zstd's ZSTD_decompressStream. It never holds the
 * model: weight payloads (raw_data, float_data and every other field the
 * report does not need) are skipped by counting bytes; what the report needs
 * (names, dims, graph-valued attributes, metadata, external_data keys and
 * values, opset imports, producer fields) is copied into an arena the
 * resulting model owns.
 *
 *     ok_onnx_stream *s = ok_onnx_stream_new(NULL);      // default limits
 *     while (more) if (ok_onnx_stream_feed(s, p, n, &err)) break;
 *     rc = ok_onnx_stream_end(s, &model, &err);          // model or error
 *     ok_onnx_stream_free(s);  ...  ok_model_free(model);
 *
 * Errors: the same code, byte offset and message as ok_onnx_read() on the
 * same bytes (fuzz_onnx_stream checks it), with 64-bit offsets
 * (ok_onnx_stream_error_offset; ok_error.offset is a size_t). So a model cut
 * short is OK_ERR_TRUNCATED at the length of the outermost field it cuts,
 * reported by ok_onnx_stream_end(). To give the one-shot reader's error where
 * a model holds several, an error is held in the scope the one-shot reader
 * checks as a unit (a top-level field, whose length it checks before its
 * contents; a graph's own fields, checked before its subgraphs; an
 * attribute's fields, before its last `g`, before its `graphs`), the rest of
 * that scope is skipped, and the scope's order decides when it ends. Errors
 * in ModelProto.graph become final only at the end (a later graph field
 * replaces it, and the other top-level fields are checked first), so feed()
 * may accept bytes that end() then refuses. The exceptions are this reader's
 * own limits (OK_ERR_LIMIT, below) and the model-wide sums the one-shot
 * reader checks in graph pre-order (graph path bytes, initializer bytes),
 * which this reader checks at the end in the same order but after every
 * wire error. Errors are sticky: once feed or end fails, every later call
 * returns that error.
 *
 * Heap bound: everything the stream allocates, the model it returns
 * included, is counted against limits.max_heap (default 64 MiB); going past
 * it is OK_ERR_LIMIT. What it holds grows with the model's structure (names,
 * nodes, dims, graphs) and never with its weight bytes: the stack of open
 * messages holds at most OK_ONNX_STREAM_MAX_FRAMES frames of < 1 KiB
 * (grown on demand from 16), one buffered string is at most
 * limits.max_string bytes (OK_ERR_LIMIT past it). Measured peak for isnet
 * (44 MB): ~0.8 MiB 64-bit native, ~0.6 MiB in wasm32.
 */
#ifndef ORTKEEP_ONNX_STREAM_H
#define ORTKEEP_ONNX_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "ok_error.h"
#include "onnx_reader.h"

/* Open messages at once: ModelProto, then per graph level node, attribute
 * and graph (OK_ONNX_MAX_GRAPH_DEPTH levels), then the deepest message
 * inside a graph (value_info.type.tensor_type.shape.dim). */
#define OK_ONNX_STREAM_MAX_FRAMES (3 * OK_ONNX_MAX_GRAPH_DEPTH + 8)

typedef struct ok_onnx_limits {
    uint64_t max_heap;   /* bytes of heap, model included (default 64 MiB) */
    uint64_t max_string; /* bytes of one buffered string (default 16 MiB) */
} ok_onnx_limits;

typedef struct ok_onnx_stream ok_onnx_stream;

void ok_onnx_limits_default(ok_onnx_limits *l);

/* NULL limits = defaults. NULL when out of memory. */
ok_onnx_stream *ok_onnx_stream_new(const ok_onnx_limits *limits);

/* Feeds p[0, n) (n may be 0). OK_OK, or the (sticky) error. */
int ok_onnx_stream_feed(ok_onnx_stream *s, const uint8_t *p, size_t n, ok_error *err);

/* No more bytes: on success *out is the model (free with ok_model_free; its
 * strings live in m->owned_buf, m->buf == m->owned_buf) and OK_OK; on
 * failure *out is NULL. Call once; a second call is OK_ERR_STATE. */
int ok_onnx_stream_end(ok_onnx_stream *s, ok_model **out, ok_error *err);

void ok_onnx_stream_free(ok_onnx_stream *s);

/* Bytes fed so far. */
uint64_t ok_onnx_stream_consumed(const ok_onnx_stream *s);
/* The byte offset of the error, 64-bit (0 when none). */
uint64_t ok_onnx_stream_error_offset(const ok_onnx_stream *s);
/* Bytes of heap the stream has allocated and not freed (the model it
 * returned counts until the stream is freed), and the most ever (*peak). */
uint64_t ok_onnx_stream_heap(const ok_onnx_stream *s, uint64_t *peak);

#endif
