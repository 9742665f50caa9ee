/* Streaming inspection; see inspect_stream.h for the contract. */
#include "inspect_stream.h"

#include <stdlib.h>
#include <string.h>

#include "inspect_json.h"
#include "json_buf.h"
#include "onnx_stream.h"
#include "pb_wire.h"
#include "sha256.h"
#include "stamp.h"

struct ok_inspect_stream {
    ok_onnx_stream *reader; /* NULL once ended */
    int hash;               /* 1: hash the fed bytes here */
    struct ok_sha256 sha;
    char hex[65]; /* the caller's hash, or the one computed */
    int failed;   /* sticky: the first error */
    uint64_t fail_off;
    ok_error fail;
    int ended;
    uint64_t fed;
    ok_stamp_tracker stamp; /* when hashing: the stamp and the hash before it */
    int judge;              /* the running context below is set */
    char ort[OK_STAMP_MAX_FIELD + 1], ep[OK_STAMP_MAX_FIELD + 1], level[OK_STAMP_MAX_FIELD + 1];
};

int ok_inspect_stream_judge_for(ok_inspect_stream *s, const char *ort, const char *ep, const char *level) {
    if (!s || !ort || !ep || !level || strlen(ort) > OK_STAMP_MAX_FIELD || strlen(ep) > OK_STAMP_MAX_FIELD ||
        strlen(level) > OK_STAMP_MAX_FIELD)
        return OK_ERR_INVALID_ARG;
    if (s->fed || s->ended) return OK_ERR_STATE;
    strcpy(s->ort, ort);
    strcpy(s->ep, ep);
    strcpy(s->level, level);
    s->judge = 1;
    return OK_OK;
}

/* Keeps the first error so every later call reports it. */
static int fail(ok_inspect_stream *s, const ok_error *e, uint64_t off) {
    if (!s->failed) {
        s->failed = e->code ? (int)e->code : OK_ERR_STATE;
        s->fail_off = off;
        s->fail = *e;
    }
    return s->failed;
}

static int ok(ok_error *err) {
    if (err) {
        err->code = OK_OK;
        err->offset = 0;
        err->message[0] = '\0';
    }
    return OK_OK;
}

static int report(const ok_inspect_stream *s, ok_error *err) {
    if (err) *err = s->fail;
    return s->failed;
}

int ok_inspect_stream_new(const char *sha256_hex, ok_inspect_stream **out, ok_error *err) {
    ok_inspect_stream *s;
    if (!out) return ok_pb_fail(err, OK_ERR_INVALID_ARG, 0, "invalid argument to ok_inspect_stream_new");
    *out = NULL;
    if (sha256_hex && strlen(sha256_hex) != 64)
        return ok_pb_fail(err, OK_ERR_INVALID_ARG, 0, "sha256_hex must be 64 hex digits");
    s = calloc(1, sizeof *s);
    if (!s) return ok_pb_fail(err, OK_ERR_NOMEM, 0, "out of memory");
    s->reader = ok_onnx_stream_new(NULL);
    if (!s->reader) {
        free(s);
        return ok_pb_fail(err, OK_ERR_NOMEM, 0, "out of memory");
    }
    s->hash = sha256_hex == NULL;
    if (s->hash) {
        ok_sha256_init(&s->sha);
        ok_stamp_tracker_init(&s->stamp);
    } else memcpy(s->hex, sha256_hex, 65);
    *out = s;
    return ok(err);
}

int ok_inspect_stream_feed(ok_inspect_stream *s, const uint8_t *p, size_t n, ok_error *err) {
    ok_error e;
    if (!s || (!p && n))
        return ok_pb_fail(err, OK_ERR_INVALID_ARG, 0, "invalid argument to ok_inspect_stream_feed");
    if (s->failed) return report(s, err);
    if (s->ended) return ok_pb_fail(err, OK_ERR_STATE, 0, "state: feed after ok_inspect_stream_end");
    if (ok_onnx_stream_feed(s->reader, p, n, &e) != OK_OK)
        return fail(s, &e, ok_onnx_stream_error_offset(s->reader)), report(s, err);
    /* Hashed after the reader took them: a failed model is never hashed,
     * as with the one-shot path. */
    if (s->hash) {
        ok_stamp_tracker_feed(&s->stamp, p, n, &s->sha); /* the hash before this piece */
        ok_sha256_update(&s->sha, p, n);
    }
    s->fed += n;
    return ok(err);
}

/* The report gains "stamp": null, or what the normalization stamp (stamp.h)
 * says and whether the bytes before it still hash to its artifact digest. */
static int add_stamp(ok_inspect_stream *s, char **json, size_t *json_len) {
    static const char *const INTEGRITY[] = {"", "intact", "stale", "", "malformed"};
    ok_stamp st;
    int v = ok_stamp_tracker_end(&s->stamp, &st);
    size_t len = strlen(*json);
    ok_jbuf b;
    ok_jbuf_init(&b, len + 2048);
    ok_jbuf_put(&b, *json, len - 1); /* without its closing brace */
    ok_jbuf_puts(&b, ",\"stamp\":");
    if (v == OK_STAMP_NONE) {
        ok_jbuf_puts(&b, "null");
    } else {
        ok_jbuf_puts(&b, "{\"integrity\":\"");
        ok_jbuf_puts(&b, INTEGRITY[v]);
        ok_jbuf_puts(&b, "\"");
        if (s->judge) {
            /* intact (the tracker compared the hashes): judge it for the
             * running context; stale and malformed stay what they are */
            static const char *const VERDICT[] = {"", "valid", "stale", "foreign", "malformed"};
            int j = v == OK_STAMP_VALID ? ok_stamp_judge(&st, st.artifact, s->ort, s->ep, s->level) : v;
            ok_jbuf_puts(&b, ",\"verdict\":\"");
            ok_jbuf_puts(&b, VERDICT[j]);
            ok_jbuf_puts(&b, "\"");
        }
        if (v != OK_STAMP_MALFORMED) {
            const char *keys[] = {"producer", "ort", "ep", "level"};
            const char *vals[] = {st.producer, st.ort, st.ep, st.level};
            char hex[65];
            for (int i = 0; i < 4; i++) {
                ok_jbuf_puts(&b, ",\"");
                ok_jbuf_puts(&b, keys[i]);
                ok_jbuf_puts(&b, "\":");
                ok_jbuf_str(&b, (const uint8_t *)vals[i], strlen(vals[i]));
            }
            ok_hex(st.source, 32, hex);
            ok_jbuf_puts(&b, ",\"source\":\"");
            ok_jbuf_puts(&b, hex);
            ok_hex(st.artifact, 32, hex);
            ok_jbuf_puts(&b, "\",\"artifact\":\"");
            ok_jbuf_puts(&b, hex);
            ok_jbuf_puts(&b, "\"");
        }
        ok_jbuf_puts(&b, "}");
    }
    ok_jbuf_puts(&b, "}");
    if (b.failed) {
        ok_jbuf_free(&b);
        return OK_ERR_NOMEM;
    }
    free(*json);
    *json = b.p;
    if (json_len) *json_len = b.len;
    return OK_OK;
}

int ok_inspect_stream_end(ok_inspect_stream *s, char **json, size_t *json_len, ok_error *err) {
    ok_model *m = NULL;
    ok_error e;
    int rc;
    if (json) *json = NULL;
    if (json_len) *json_len = 0;
    if (!s || !json)
        return ok_pb_fail(err, OK_ERR_INVALID_ARG, 0, "invalid argument to ok_inspect_stream_end");
    if (s->failed) return report(s, err);
    if (s->ended) return ok_pb_fail(err, OK_ERR_STATE, 0, "state: ok_inspect_stream_end called twice");
    s->ended = 1;
    rc = ok_onnx_stream_end(s->reader, &m, &e);
    if (rc != OK_OK) {
        fail(s, &e, ok_onnx_stream_error_offset(s->reader));
    } else {
        if (s->hash) {
            uint8_t digest[32];
            ok_sha256_final(&s->sha, digest);
            ok_hex(digest, sizeof digest, s->hex);
        }
        /* The reader's stack and records go before the report is built, so
         * the two are never held at once; the model owns what it needs. */
        ok_onnx_stream_free(s->reader);
        s->reader = NULL;
        if (ok_inspect_json(m, s->hex, json, json_len, &e) != OK_OK) fail(s, &e, 0);
        else if (s->hash && add_stamp(s, json, json_len) != OK_OK)
            fail(s, &(ok_error){.code = OK_ERR_NOMEM, .message = "out of memory"}, 0);
        ok_model_free(m);
    }
    ok_onnx_stream_free(s->reader);
    s->reader = NULL;
    if (s->failed) return report(s, err);
    return ok(err);
}

uint64_t ok_inspect_stream_error_offset(const ok_inspect_stream *s) {
    return s && s->failed ? s->fail_off : 0;
}

uint64_t ok_inspect_stream_consumed(const ok_inspect_stream *s) { return s ? s->fed : 0; }

void ok_inspect_stream_free(ok_inspect_stream *s) {
    if (!s) return;
    ok_onnx_stream_free(s->reader);
    free(s);
}
