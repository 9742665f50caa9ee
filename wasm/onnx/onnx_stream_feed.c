/* The streaming ONNX reader's feed() and end() (see onnx_stream.h and
 * onnx_stream.c): the API calls that run the parts. Its own file so that the
 * calls go one way: these call the walk and the finish, which call
 * onnx_stream.c's state, heap and errors, and nothing below calls back up. */
#include "onnx_stream.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "onnx_stream_internal.h"

static int report(const ok_onnx_stream *s, ok_error *err) {
    if (err) {
        err->code = (ok_status)s->failed;
        err->offset = s->fail_off > (uint64_t)SIZE_MAX ? SIZE_MAX : (size_t)s->fail_off;
        memcpy(err->message, s->fail_msg, sizeof err->message);
        err->message[sizeof err->message - 1] = '\0';
    }
    return s->failed;
}

static void clear(ok_error *err) {
    if (err) {
        err->code = OK_OK;
        err->offset = 0;
        err->message[0] = '\0';
    }
}

int ok_onnx_stream_feed(ok_onnx_stream *s, const uint8_t *p, size_t n, ok_error *err) {
    clear(err);
    if (!s || (!p && n))
        return ok_pb_fail(err, OK_ERR_INVALID_ARG, 0, "invalid argument to ok_onnx_stream_feed");
    if (s->failed) return report(s, err);
    if (s->ended) return ok_pb_fail(err, OK_ERR_STATE, 0, "state: feed after ok_onnx_stream_end");
    if (ok_osr_feed(s, p, n) > 0) return report(s, err);
    return OK_OK;
}

int ok_onnx_stream_end(ok_onnx_stream *s, ok_model **out, ok_error *err) {
    clear(err);
    if (out) *out = NULL;
    if (!s || !out) return ok_pb_fail(err, OK_ERR_INVALID_ARG, 0, "invalid argument to ok_onnx_stream_end");
    if (s->failed) return report(s, err);
    if (s->ended) return ok_pb_fail(err, OK_ERR_STATE, 0, "state: ok_onnx_stream_end called twice");
    s->ended = 1;
    if (s->pos == 0) {
        ok_osr_sfatal(s, OK_ERR_EMPTY, 0, "empty: the model has no bytes");
        return report(s, err);
    }
    /* A cut: the outermost open field, or the top-level varint or fixed
     * value being read, runs past the end. */
    if (s->depth > 0) {
        const frame *f = &s->fr[1];
        char fname[96];
        ok_pb_field_name(&ok_onnx_msg_model, f->number, fname, sizeof fname);
        ok_osr_sfatal(
            s, OK_ERR_TRUNCATED, f->lenpos, "truncated at byte %llu: %s length %llu runs past end %llu",
            (unsigned long long)f->lenpos, fname, (unsigned long long)f->len, (unsigned long long)s->pos);
        return report(s, err);
    }
    if (s->vn) {
        ok_osr_sfatal(s, OK_ERR_TRUNCATED, s->vstart, "truncated at byte %llu: varint runs past end %llu",
                      (unsigned long long)s->vstart, (unsigned long long)s->pos);
        return report(s, err);
    }
    if (s->st == ST_SKIP && s->skip_fixed) {
        char fname[96];
        ok_pb_field_name(&ok_onnx_msg_model, s->fnum, fname, sizeof fname);
        ok_osr_sfatal(s, OK_ERR_TRUNCATED, s->fixed_at,
                      "truncated at byte %llu: %s fixed%u runs past end %llu",
                      (unsigned long long)s->fixed_at, fname, s->fwire == OK_PB_FIXED64 ? 64u : 32u,
                      (unsigned long long)s->pos);
        return report(s, err);
    }
    if (s->st == ST_VAL || s->st == ST_LEN) { /* a tag with no value yet */
        ok_osr_sfatal(s, OK_ERR_TRUNCATED, s->pos, "truncated at byte %llu: varint runs past end %llu",
                      (unsigned long long)s->pos, (unsigned long long)s->pos);
        return report(s, err);
    }
    if (!s->has_graph) {
        ok_osr_sfatal(s, OK_ERR_NOT_ONNX, 0,
                      "not onnx: %llu bytes parse as protobuf but hold no ModelProto.graph",
                      (unsigned long long)s->pos);
        return report(s, err);
    }
    if (s->gerr.code) {
        s->failed = s->gerr.code;
        s->fail_off = s->gerr.off;
        memcpy(s->fail_msg, s->gerr.msg, sizeof s->fail_msg);
        return report(s, err);
    }
    if (ok_osr_finish(s, out)) return report(s, err);
    return OK_OK;
}
