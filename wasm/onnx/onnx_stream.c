/* Streaming ONNX reader; see onnx_stream.h for the contract.
 *
 * Shape: a push parser over the protobuf wire format. The position is a
 * 64-bit byte offset; the state is a varint being read (tag, value or length,
 * resumable at any byte), or a count of bytes to skip or to copy into the
 * arena, plus a fixed stack of open messages (frames), each with its known
 * end. A top-level field is a frame too, so that a model cut inside it is
 * reported at its length, as ok_onnx_read() does.
 *
 * While reading, everything is recorded in byte order against "stream
 * graphs" (one per graph message seen, in the order they start). The
 * one-shot reader's order (graphs in pre-order, each graph's initializers
 * and values contiguous, only the last ModelProto.graph and the last
 * AttributeProto.g counting) is rebuilt once at the end, when the whole tree
 * is known: paths need node names and attribute names that may follow the
 * graphs on the wire.
 *
 * Errors inside a message are held in the scope the one-shot reader checks
 * as a unit (ok_osr_serr), the rest of that scope is skipped by counting, and
 * ok_osr_close_frame passes them outward in the one-shot reader's order: a
 * top-level field's error is final when the field is complete, the last
 * ModelProto.graph's at the end.
 *
 * The parts, one concern each (onnx_stream_internal.h joins them), each
 * calling only parts listed below it:
 *   onnx_stream_feed.c    the API's feed() and end(): they run the walk, then
 *                         check for a cut and run the finish
 *   onnx_stream_walk.c    the protobuf walk: tags, varints, lengths, skips
 *   onnx_stream_fields.c  what each field of each message means
 *   onnx_stream_frames.c  open messages: descend, capture, close
 *   onnx_stream_finish.c  the end: the model in the one-shot reader's order
 *   onnx_stream.c         the stream itself: new and free, the counted heap,
 *                         the errors, the figures (consumed, heap) */
#include "onnx_stream.h"

#include <stdarg.h>
#include <stdio.h> /* vsnprintf only: formatting, no I/O */
#include <stdlib.h>

#include "onnx_stream_internal.h"

/* ---- heap, counted ------------------------------------------------------ */

int ok_osr_s_realloc(ok_onnx_stream *s, void **p, size_t old, size_t n) {
    void *q;
    if (n > old && s->heap + (n - old) > s->lim.max_heap) return OK_ERR_LIMIT;
    q = realloc(*p, n ? n : 1);
    if (!q) return OK_ERR_NOMEM;
    *p = q;
    s->heap = s->heap + n - old;
    if (s->heap > s->peak) s->peak = s->heap;
    return OK_OK;
}

/* ---- errors ------------------------------------------------------------- */

static void vformat(char *out, const char *fmt, va_list ap) { vsnprintf(out, 192, fmt, ap); }

/* A final error: sticky. */
int ok_osr_sfatal(ok_onnx_stream *s, int code, uint64_t off, const char *fmt, ...) {
    va_list ap;
    if (s->failed) return s->failed;
    va_start(ap, fmt);
    vformat(s->fail_msg, fmt, ap);
    va_end(ap);
    s->failed = code;
    s->fail_off = off;
    return code;
}

int ok_osr_heap_fail(ok_onnx_stream *s, int rc) {
    if (rc == OK_ERR_LIMIT)
        return ok_osr_sfatal(s, rc, s->pos, "limit at byte %llu: reading needs more than %llu bytes of heap",
                             (unsigned long long)s->pos, (unsigned long long)s->lim.max_heap);
    return ok_osr_sfatal(s, OK_ERR_NOMEM, s->pos, "out of memory");
}

int ok_osr_serr(ok_onnx_stream *s, int code, uint64_t off, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    if (s->depth == 0) {
        if (!s->failed) {
            vformat(s->fail_msg, fmt, ap);
            s->failed = code;
            s->fail_off = off;
        }
        va_end(ap);
        return s->failed;
    }
    {
        uint32_t k = s->depth;
        while (k > 1 && s->fr[k].kind != K_GRAPH && s->fr[k].kind != K_ATTR) k--;
        vformat(s->fr[k].e[0].msg, fmt, ap);
        s->fr[k].e[0].code = code;
        s->fr[k].e[0].off = off;
        s->depth = k;
    }
    va_end(ap);
    s->vn = 0;
    s->remain = s->fr[s->depth].end - s->pos;
    s->skip_fixed = 0;
    s->st = s->remain ? ST_SKIP : ST_TAG;
    s->cap_kind = 0;
    return PENDED;
}
/* ---- API: new, free, the figures (feed, end: onnx_stream_feed.c) -------- */

void ok_onnx_limits_default(ok_onnx_limits *l) {
    l->max_heap = (uint64_t)64 << 20;
    l->max_string = (uint64_t)16 << 20;
}

ok_onnx_stream *ok_onnx_stream_new(const ok_onnx_limits *limits) {
    ok_onnx_stream *s = calloc(1, sizeof *s);
    size_t fb = 16 * sizeof(frame);
    if (!s) return NULL;
    if (limits) s->lim = *limits;
    else ok_onnx_limits_default(&s->lim);
    s->fr = calloc(16, sizeof(frame));
    s->fr_cap = 16;
    if (!s->fr) {
        free(s);
        return NULL;
    }
    s->heap = s->peak = sizeof *s + fb;
    s->fr[0].kind = K_MODEL;
    s->fr[0].end = UINT64_MAX;
    s->main_sid = OK_ONNX_NONE;
    return s;
}

void ok_onnx_stream_free(ok_onnx_stream *s) {
    if (!s) return;
    free(s->fr);
    free(s->arena);
    free(s->opsets);
    free(s->meta);
    free(s->g);
    free(s->in);
    free(s->dims);
    free(s->vals);
    free(s->vdims);
    free(s->defs);
    free(s->refs);
    free(s);
}

uint64_t ok_onnx_stream_consumed(const ok_onnx_stream *s) { return s ? s->pos : 0; }

uint64_t ok_onnx_stream_error_offset(const ok_onnx_stream *s) { return s && s->failed ? s->fail_off : 0; }

uint64_t ok_onnx_stream_heap(const ok_onnx_stream *s, uint64_t *peak) {
    if (peak) *peak = s ? s->peak : 0;
    return s ? s->heap : 0;
}
