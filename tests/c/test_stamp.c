/* The normalization stamp: encode/parse round trips, the verdicts (valid,
 * stale after a rewrite, foreign version/EP/level, malformed, none), and a
 * stamped model stays a model the reader accepts with the stamp among its
 * metadata_props. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "stamp_fixture.h"
#include "onnx_reader.h"
#include "sha256.h"
#include "stamp.h"

/* A minimal ModelProto: ir_version 8, opset 13, a graph named "g" with one
 * float input and output (Identity), producer "t". */
static size_t tiny_model(uint8_t *b) {
    static const uint8_t m[] = {
        0x08, 0x08,      /* ir_version = 8 */
        0x12, 0x01, 't', /* producer_name */
        0x3a, 0x23,      /* graph, 35 bytes */
        0x0a, 0x10, 0x0a, 0x01, 'x', 0x12, 0x01, 'y',  0x22, 0x08, 'I',
        'd',  'e',  'n',  't',  'i', 't',  'y',  0x12, 0x01, 'g', /* graph.name */
        0x5a, 0x05, 0x0a, 0x01, 'x', 0x12, 0x00,                  /* input x (type left out) */
        0x62, 0x05, 0x0a, 0x01, 'y', 0x12, 0x00,                  /* output y */
        0x42, 0x02, 0x10, 0x0d,                                   /* opset_import version 13 */
    };
    memcpy(b, m, sizeof m);
    return sizeof m;
}

static size_t varint(uint8_t *p, size_t v) {
    size_t n = 0;
    for (; v >= 0x80; v >>= 7) p[n++] = (uint8_t)(v | 0x80);
    p[n++] = (uint8_t)v;
    return n;
}

static ok_stamp stamp_for(const uint8_t *artifact, size_t n) {
    return fixture_stamp((const uint8_t *)"original", 8, artifact, n);
}

/* The tiny model with its stamp appended: *n the artifact's bytes, returns
 * the stamped total; *s the stamp. */
static size_t stamped_tiny(uint8_t model[1024], size_t *n, ok_stamp *s) {
    size_t tail = 0;
    *n = tiny_model(model);
    *s = stamp_for(model, *n);
    CHECK_EQ_INT(ok_stamp_encode(s, model + *n, 1024 - *n, &tail), OK_OK);
    CHECK(tail <= OK_STAMP_MAX_TAIL);
    return *n + tail;
}

static void test_round_trip_and_verdicts(void) {
    uint8_t model[1024];
    size_t n;
    ok_stamp s, got;
    size_t total = stamped_tiny(model, &n, &s);

    /* the reader takes the stamped model; the stamp is its last metadata entry */
    ok_model *m = NULL;
    ok_error err;
    CHECK_EQ_INT(ok_onnx_read(model, total, &m, &err), OK_OK);
    if (m) {
        CHECK_EQ_INT(m->n_metadata, 1);
        if (m->n_metadata == 1) {
            CHECK_EQ_INT(m->metadata[0].key.len, strlen(OK_STAMP_KEY));
            CHECK(memcmp(model + m->metadata[0].key.off, OK_STAMP_KEY, strlen(OK_STAMP_KEY)) == 0);
        }
        ok_model_free(m);
    }

    CHECK_EQ_INT(ok_stamp_check(model, total, "1.30.0", "wasm", "extended", &got), OK_STAMP_VALID);
    CHECK(memcmp(&got, &s, sizeof s) == 0);
    CHECK_EQ_INT(ok_stamp_check(model, total, "1.31.0", "wasm", "extended", NULL), OK_STAMP_FOREIGN);
    CHECK_EQ_INT(ok_stamp_check(model, total, "1.30.0", "webgpu", "extended", NULL), OK_STAMP_FOREIGN);
    CHECK_EQ_INT(ok_stamp_check(model, total, "1.30.0", "wasm", "basic", NULL), OK_STAMP_FOREIGN);
    CHECK_EQ_INT(ok_stamp_check(model, n, "1.30.0", "wasm", "extended", NULL), OK_STAMP_NONE);

    /* a tool rewrote a byte of the artifact: the digest says so */
    model[4] = 'u';
    CHECK_EQ_INT(ok_stamp_check(model, total, "1.30.0", "wasm", "extended", NULL), OK_STAMP_STALE);
    model[4] = 't';

    /* a field after the stamp (a tool appended metadata): not ours any more */
    uint8_t more[] = {0x08, 0x09};
    memcpy(model + total, more, sizeof more);
    CHECK_EQ_INT(ok_stamp_check(model, total + sizeof more, "1.30.0", "wasm", "extended", NULL),
                 OK_STAMP_NONE);

    /* a cut stamp is not a stamp; not a model at all is not a stamp */
    CHECK_EQ_INT(ok_stamp_check(model, total - 3, "1.30.0", "wasm", "extended", NULL), OK_STAMP_NONE);
    CHECK_EQ_INT(ok_stamp_check((const uint8_t *)"\xff\xff\xff", 3, "1.30.0", "wasm", "extended", NULL),
                 OK_STAMP_NONE);
}

/* Stamps whose value does not parse: MALFORMED (the key is ours). */
static void test_malformed(void) {
    static const char *const bad[] = {
        "",
        "v=2;producer=a;ort=1;ep=wasm;level=basic;source=%s;artifact=%s",
        "v=1;producer=a;ort=1;ep=wasm;level=basic;source=%s",
        "v=1;producer=a;producer=b;ort=1;ep=wasm;level=basic;source=%s;artifact=%s",
        "v=1;producer=;ort=1;ep=wasm;level=basic;source=%s;artifact=%s",
        "v=1;producer=a;ort=1;ep=wasm;level=basic;source=%s;artifact=%s;",
        "v=1;producer=a;ort=1;ep=wasm;level=basic;source=%s;artifact=%s;x=1",
        "v=1;producer=a;ort=1;ep=wasm;level=basic;source=%s;artifact=XX",
    };
    char hex[65];
    memset(hex, 'a', 64);
    hex[64] = 0;
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char value[512];
        snprintf(value, sizeof value, bad[i], hex, hex);
        ok_stamp s;
        CHECK_EQ_INT(ok_stamp_parse(value, strlen(value), &s), OK_ERR_NOT_ONNX);
        /* as the last field of a model */
        uint8_t model[1024];
        size_t n = tiny_model(model), vn = strlen(value), kn = strlen(OK_STAMP_KEY);
        model[n++] = 0x72;
        n += varint(model + n, 2 + kn + 1 + (vn >= 128) + 1 + vn);
        model[n++] = 0x0a;
        model[n++] = (uint8_t)kn;
        memcpy(model + n, OK_STAMP_KEY, kn);
        n += kn;
        model[n++] = 0x12;
        n += varint(model + n, vn);
        memcpy(model + n, value, vn);
        n += vn;
        CHECK_EQ_INT(ok_stamp_check(model, n, "1", "wasm", "basic", NULL), OK_STAMP_MALFORMED);
    }
    /* a NUL inside a field (found by fuzz_stamp): refused, not cut short */
    {
        char nul[512];
        int k = snprintf(nul, sizeof nul, "v=1;producer=a;ort=1;ep=wa#sm;level=basic;source=%s;artifact=%s",
                         hex, hex);
        *strchr(nul, '#') = 0;
        ok_stamp s;
        CHECK_EQ_INT(ok_stamp_parse(nul, (size_t)k, &s), OK_ERR_NOT_ONNX);
    }
    char good[512];
    snprintf(good, sizeof good, "v=1;producer=a b;ort=1;ep=wasm;level=basic;source=%s;artifact=%s", hex, hex);
    ok_stamp s;
    CHECK_EQ_INT(ok_stamp_parse(good, strlen(good), &s), OK_OK);
    CHECK(strcmp(s.producer, "a b") == 0);
}

static void test_encode_refusals(void) {
    uint8_t out[OK_STAMP_MAX_TAIL];
    size_t n;
    ok_stamp s = stamp_for((const uint8_t *)"x", 1);
    strcpy(s.ep, "web;gpu");
    CHECK_EQ_INT(ok_stamp_encode(&s, out, sizeof out, &n), OK_ERR_INVALID_ARG);
    strcpy(s.ep, "a=b");
    CHECK_EQ_INT(ok_stamp_encode(&s, out, sizeof out, &n), OK_ERR_INVALID_ARG);
    s.ep[0] = 0;
    CHECK_EQ_INT(ok_stamp_encode(&s, out, sizeof out, &n), OK_ERR_INVALID_ARG);
    memset(s.ep, 'e', OK_STAMP_MAX_FIELD);
    s.ep[OK_STAMP_MAX_FIELD] = 0;
    CHECK_EQ_INT(ok_stamp_encode(&s, out, sizeof out, &n), OK_OK); /* the longest field fits */
    CHECK(n <= OK_STAMP_MAX_TAIL);
    CHECK_EQ_INT(ok_stamp_encode(&s, out, 10, &n), OK_ERR_LIMIT);
    memset(s.producer, 'p', OK_STAMP_MAX_FIELD);
    memset(s.ort, 'o', OK_STAMP_MAX_FIELD);
    memset(s.level, 'l', OK_STAMP_MAX_FIELD);
    CHECK_EQ_INT(ok_stamp_encode(&s, out, sizeof out, &n), OK_OK); /* every field at its longest */
    CHECK(n <= OK_STAMP_MAX_TAIL);
}

/* The tracker, as a hashing pass feeds it, at every piece size. */
static int tracked(const uint8_t *m, size_t n, size_t piece, ok_stamp *out) {
    ok_stamp_tracker t;
    struct ok_sha256 sha;
    ok_stamp_tracker_init(&t);
    ok_sha256_init(&sha);
    for (size_t at = 0; at < n; at += piece) {
        size_t k = n - at < piece ? n - at : piece;
        ok_stamp_tracker_feed(&t, m + at, k, &sha);
        ok_sha256_update(&sha, m + at, k);
    }
    return ok_stamp_tracker_end(&t, out);
}

static void test_tracker(void) {
    uint8_t model[1024];
    size_t n;
    ok_stamp s, got;
    size_t total = stamped_tiny(model, &n, &s);
    for (size_t piece = 1; piece <= total; piece++) {
        memset(&got, 0, sizeof got);
        CHECK_EQ_INT(tracked(model, total, piece, &got), OK_STAMP_VALID);
        CHECK(memcmp(&got, &s, sizeof s) == 0);
        CHECK_EQ_INT(tracked(model, n, piece, NULL), OK_STAMP_NONE);
        CHECK_EQ_INT(tracked(model, total - 1, piece, NULL), OK_STAMP_NONE); /* cut */
    }
    model[4] ^= 1; /* a byte of the artifact changed: stale */
    CHECK_EQ_INT(tracked(model, total, 7, NULL), OK_STAMP_STALE);
    CHECK_EQ_INT(ok_stamp_check(model, total, "1.30.0", "wasm", "extended", NULL), OK_STAMP_STALE);
    model[4] ^= 1;
    /* a second metadata entry after the stamp: not the last field any more */
    uint8_t more[] = {0x72, 0x06, 0x0a, 0x01, 'k', 0x12, 0x01, 'v'};
    memcpy(model + total, more, sizeof more);
    CHECK_EQ_INT(tracked(model, total + sizeof more, 5, NULL), OK_STAMP_NONE);
    /* garbage at the top level: no stamp, no crash */
    uint8_t junk[] = {0x07, 0xff, 0xff};
    CHECK_EQ_INT(tracked(junk, sizeof junk, 1, NULL), OK_STAMP_NONE);
}

/* ok_stamp_from_strings (what the exported ABI calls): the same stamp as
 * the struct filled by hand; bad fields and digests refused. */
static void test_from_strings(void) {
    uint8_t model[1024], a[OK_STAMP_MAX_TAIL], b[OK_STAMP_MAX_TAIL];
    size_t n, na = 0, nb = 0;
    ok_stamp s, t;
    char src[65], art[65], up[65], long_field[80];
    stamped_tiny(model, &n, &s);
    ok_hex(s.source, 32, src);
    ok_hex(s.artifact, 32, art);
    CHECK_EQ_INT(ok_stamp_from_strings(&t, s.producer, s.ort, s.ep, s.level, src, art), OK_OK);
    CHECK(memcmp(&s, &t, sizeof s) == 0);
    CHECK_EQ_INT(ok_stamp_encode(&s, a, sizeof a, &na), OK_OK);
    CHECK_EQ_INT(ok_stamp_encode(&t, b, sizeof b, &nb), OK_OK);
    CHECK(na == nb && memcmp(a, b, na) == 0);
    CHECK_EQ_INT(ok_stamp_from_strings(&t, "ortkeep prepare", "1.30.0", "wasm", "basic", src, art), OK_OK);
    CHECK(strcmp(t.producer, "ortkeep prepare") == 0 && strcmp(t.level, "basic") == 0);

    CHECK_EQ_INT(ok_stamp_from_strings(&t, "", "1.30.0", "wasm", "basic", src, art), OK_ERR_INVALID_ARG);
    CHECK_EQ_INT(ok_stamp_from_strings(&t, "a;b", "1.30.0", "wasm", "basic", src, art), OK_ERR_INVALID_ARG);
    CHECK_EQ_INT(ok_stamp_from_strings(&t, "p", "1.30=0", "wasm", "basic", src, art), OK_ERR_INVALID_ARG);
    CHECK_EQ_INT(ok_stamp_from_strings(&t, "p", "1.30.0", "we\nb", "basic", src, art), OK_ERR_INVALID_ARG);
    CHECK_EQ_INT(ok_stamp_from_strings(&t, "p", "1.30.0", "wasm", NULL, src, art), OK_ERR_INVALID_ARG);
    CHECK_EQ_INT(ok_stamp_from_strings(NULL, "p", "1.30.0", "wasm", "basic", src, art), OK_ERR_INVALID_ARG);
    memset(long_field, 'x', sizeof long_field - 1);
    long_field[sizeof long_field - 1] = 0;
    CHECK_EQ_INT(ok_stamp_from_strings(&t, long_field, "1.30.0", "wasm", "basic", src, art), OK_ERR_LIMIT);
    long_field[OK_STAMP_MAX_FIELD] = 0; /* exactly the limit: taken */
    CHECK_EQ_INT(ok_stamp_from_strings(&t, long_field, "1.30.0", "wasm", "basic", src, art), OK_OK);
    /* digests: 64 lowercase hex digits, no more, no fewer, nothing else */
    CHECK_EQ_INT(ok_stamp_from_strings(&t, "p", "1.30.0", "wasm", "basic", src, "abc"), OK_ERR_INVALID_ARG);
    CHECK_EQ_INT(ok_stamp_from_strings(&t, "p", "1.30.0", "wasm", "basic", NULL, art), OK_ERR_INVALID_ARG);
    memcpy(up, src, sizeof up);
    up[0] = 'G';
    CHECK_EQ_INT(ok_stamp_from_strings(&t, "p", "1.30.0", "wasm", "basic", up, art), OK_ERR_INVALID_ARG);
    char longer[70];
    snprintf(longer, sizeof longer, "%s00", src);
    CHECK_EQ_INT(ok_stamp_from_strings(&t, "p", "1.30.0", "wasm", "basic", longer, art), OK_ERR_INVALID_ARG);
}

int main(void) {
    test_round_trip_and_verdicts();
    test_malformed();
    test_encode_refusals();
    test_tracker();
    test_from_strings();
    return CHECK_DONE();
}
