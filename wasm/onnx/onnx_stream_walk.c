/* The streaming ONNX reader's walk over the protobuf wire format (see
 * onnx_stream.c): tags, varints and lengths resumable at any byte, skips and
 * captures by counting, frames closed at their end. */
#include <stdlib.h>
#include <string.h>

#include "onnx_stream_internal.h"

/* ---- the feed loop ------------------------------------------------------ */

static int fname_err(ok_onnx_stream *s, int code, uint64_t off, const char *what, uint64_t a, uint64_t end) {
    char fname[96];
    ok_pb_field_name(msg_of(container(s)), s->fnum, fname, sizeof fname);
    if (what[0] == 'l')
        return ok_osr_serr(s, code, off, "truncated at byte %llu: %s length %llu runs past end %llu",
                           (unsigned long long)off, fname, (unsigned long long)a, (unsigned long long)end);
    return ok_osr_serr(s, code, off, "truncated at byte %llu: %s fixed%u runs past end %llu",
                       (unsigned long long)off, fname, (unsigned)a, (unsigned long long)end);
}

/* A complete tag in s->v. */
static int on_tag(ok_onnx_stream *s) {
    uint64_t tag = s->v;
    char fname[96];
    s->ftag = s->vstart;
    if ((tag >> 3) == 0 || (tag >> 3) > 0x1fffffffu)
        return ok_osr_serr(s, OK_ERR_BAD_WIRE_TYPE, s->ftag, "bad tag at byte %llu in %s: field number %llu",
                           (unsigned long long)s->ftag, msg_of(container(s))->name,
                           (unsigned long long)(tag >> 3));
    s->fnum = (uint32_t)(tag >> 3);
    s->fwire = (uint32_t)(tag & 7);
    switch (s->fwire) {
    case OK_PB_VARINT: s->st = ST_VAL; return OK_OK;
    case OK_PB_LEN: s->st = ST_LEN; return OK_OK;
    case OK_PB_FIXED64:
    case OK_PB_FIXED32: {
        unsigned need = s->fwire == OK_PB_FIXED64 ? 8 : 4;
        if (s->depth > 0 && s->fr[s->depth].end - s->pos < need)
            return fname_err(s, OK_ERR_TRUNCATED, s->pos, "fixed", need * 8, s->fr[s->depth].end);
        s->fixed_at = s->pos;
        s->remain = need;
        s->skip_fixed = 1;
        s->st = ST_SKIP;
        return OK_OK;
    }
    default:
        ok_pb_field_name(msg_of(container(s)), s->fnum, fname, sizeof fname);
        return ok_osr_serr(s, OK_ERR_BAD_WIRE_TYPE, s->ftag, "bad wire type %u at byte %llu: %s",
                           (unsigned)s->fwire, (unsigned long long)s->ftag, fname);
    }
}

/* A complete length in s->v (its varint began at s->vstart). */
static int on_length(ok_onnx_stream *s) {
    uint64_t len = s->v;
    int rc;
    if (s->depth > 0 && len > s->fr[s->depth].end - s->pos)
        return fname_err(s, OK_ERR_TRUNCATED, s->vstart, "length", len, s->fr[s->depth].end);
    s->remain = len;
    if (s->depth == 0) { /* a top-level field: a frame, so a cut is named */
        frame *f = &s->fr[1];
        f->kind = K_LEAF;
        f->number = s->fnum;
        f->start = s->pos;
        f->end = len > UINT64_MAX - s->pos ? UINT64_MAX : s->pos + len;
        f->lenpos = s->vstart;
        f->len = len;
        f->e[0].code = f->e[1].code = f->e[2].code = 0;
        s->depth = 1;
        s->leaf_fresh = 1;
    }
    /* ok_osr_on_len opens at most one message: make room first, so frame pointers
     * taken there stay valid. The rules bound the nesting (onnx_stream.h);
     * never trust that alone. */
    if (s->depth + 1 >= OK_ONNX_STREAM_MAX_FRAMES)
        return ok_osr_sfatal(s, OK_ERR_TOO_DEEP, s->pos, "too deep at byte %llu: more than %d open messages",
                             (unsigned long long)s->pos, OK_ONNX_STREAM_MAX_FRAMES);
    if (s->depth + 2 > s->fr_cap) {
        uint32_t ncap = s->fr_cap * 2 > OK_ONNX_STREAM_MAX_FRAMES ? OK_ONNX_STREAM_MAX_FRAMES : s->fr_cap * 2;
        if ((rc = ok_osr_s_realloc(s, (void **)&s->fr, (size_t)s->fr_cap * sizeof(frame),
                                   (size_t)ncap * sizeof(frame))))
            return ok_osr_heap_fail(s, rc);
        s->fr_cap = ncap;
    }
    s->st = ST_TAG;
    rc = ok_osr_on_len(s);
    s->leaf_fresh = 0;
    if (rc) return rc;
    if (s->st == ST_CAP) {
        if (s->remain == 0) {
            s->st = ST_TAG;
            return ok_osr_on_string(s);
        }
    } else if (s->remain) {
        s->skip_fixed = 0;
        s->st = ST_SKIP;
    }
    return OK_OK;
}

int ok_osr_feed(ok_onnx_stream *s, const uint8_t *p, size_t n) {
    size_t i = 0;
    int rc;
    for (;;) {
        if (s->st == ST_TAG && !s->vn) {
            while (s->depth > 0 && s->pos == s->fr[s->depth].end) {
                rc = ok_osr_close_frame(s);
                if (rc > 0) return rc;
            }
        }
        /* A varint (tag, value, length or packed dim) under way at the end
         * of its message runs past it: known without the next byte. */
        if ((s->vn || s->st == ST_VAL || s->st == ST_LEN) && s->depth > 0 && s->pos >= s->fr[s->depth].end) {
            uint64_t at = s->vn ? s->vstart : s->pos;
            s->vn = 0;
            rc = ok_osr_serr(s, OK_ERR_TRUNCATED, at, "truncated at byte %llu: varint runs past end %llu",
                             (unsigned long long)at, (unsigned long long)s->fr[s->depth].end);
            if (rc > 0) return rc;
            continue;
        }
        if (i == n) return OK_OK;
        rc = OK_OK;
        switch (s->st) {
        case ST_SKIP: {
            uint64_t take = s->remain < n - i ? s->remain : n - i;
            i += (size_t)take;
            s->pos += take;
            s->remain -= take;
            if (!s->remain) {
                s->st = ST_TAG;
                if (s->skip_fixed) {
                    s->skip_fixed = 0;
                    rc = ok_osr_on_scalar(s);
                }
            }
            break;
        }
        case ST_CAP: {
            uint64_t take = s->remain < n - i ? s->remain : n - i;
            memcpy(s->arena + s->alen, p + i, (size_t)take);
            s->alen += (size_t)take;
            i += (size_t)take;
            s->pos += take;
            s->remain -= take;
            if (!s->remain) {
                s->st = ST_TAG;
                rc = ok_osr_on_string(s);
            }
            break;
        }
        default: { /* a varint: tag, value, length, or a packed dim */
            uint8_t b;
            if (!s->vn) {
                s->vn = 1;
                s->vstart = s->pos;
                s->v = 0;
                s->vshift = 0;
            }
            b = p[i++];
            s->pos++;
            if (s->vshift == 63 && (b & 0x7e)) {
                s->vn = 0;
                rc = ok_osr_serr(s, OK_ERR_BAD_VARINT, s->vstart,
                                 "bad varint at byte %llu: overflows 64 bits", (unsigned long long)s->vstart);
                break;
            }
            s->v |= (uint64_t)(b & 0x7f) << s->vshift;
            if (b & 0x80) {
                s->vshift += 7;
                if (s->vshift > 63) {
                    s->vn = 0;
                    rc = ok_osr_serr(s, OK_ERR_BAD_VARINT, s->vstart,
                                     "bad varint at byte %llu: longer than 10 bytes",
                                     (unsigned long long)s->vstart);
                }
                break;
            }
            s->vn = 0;
            if (s->st == ST_VAL) {
                s->st = ST_TAG;
                rc = ok_osr_on_scalar(s);
            } else if (s->st == ST_LEN) {
                rc = on_length(s);
            } else if (s->fr[s->depth].kind == K_PACKED) {
                rc = ok_osr_push_dim(s, s->v);
            } else {
                rc = on_tag(s);
            }
            break;
        }
        }
        if (rc > 0) return rc;
    }
}
