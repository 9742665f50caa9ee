/* Unit tests for the JSON buffer (wasm/json_buf.c) and the inspection report
 * (wasm/inspect_json.c). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "inspect_json.h"
#include "json_buf.h"
#include "onnx_reader.h"

static char out[512];

static const char *esc(const char *s, size_t n) {
    ok_jbuf b;
    ok_jbuf_init(&b, 1 << 20);
    ok_jbuf_str(&b, (const uint8_t *)s, n);
    CHECK_EQ_INT(b.failed, 0);
    snprintf(out, sizeof out, "%s", b.p ? b.p : "");
    ok_jbuf_free(&b);
    return out;
}

static void test_escape(void) {
    ok_jbuf b;
    CHECK_EQ_STR(esc("plain", 5), "\"plain\"");
    CHECK_EQ_STR(esc("", 0), "\"\"");
    CHECK_EQ_STR(esc("a\"b\\c", 5), "\"a\\\"b\\\\c\"");
    CHECK_EQ_STR(esc("\n\r\t\b\f\x01\x1f", 7), "\"\\n\\r\\t\\b\\f\\u0001\\u001f\"");
    CHECK_EQ_STR(esc("a\0b", 3), "\"a\\u0000b\"");
    CHECK_EQ_STR(esc("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 9),
                 "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\""); /* é € 😀 */
    CHECK_EQ_STR(esc("\xff", 1), "\"\xef\xbf\xbd\"");
    CHECK_EQ_STR(esc("\xc0\x80", 2), "\"\xef\xbf\xbd\xef\xbf\xbd\"");                 /* overlong */
    CHECK_EQ_STR(esc("\xed\xa0\x80", 3), "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\""); /* surrogate */
    CHECK_EQ_STR(esc("a\xe2\x82", 3), "\"a\xef\xbf\xbd\xef\xbf\xbd\"");               /* cut */
    CHECK_EQ_STR(esc("\xf4\x90\x80\x80", 4),
                 "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\""); /* > U+10FFFF */

    ok_jbuf_init(&b, 1 << 20);
    ok_jbuf_u64(&b, UINT64_MAX);
    ok_jbuf_puts(&b, " ");
    ok_jbuf_i64(&b, INT64_MIN);
    ok_jbuf_puts(&b, " ");
    ok_jbuf_i64(&b, 0);
    CHECK_EQ_STR(b.p, "18446744073709551615 -9223372036854775808 0");
    ok_jbuf_free(&b);

    ok_jbuf_init(&b, 4); /* the cap is sticky */
    ok_jbuf_puts(&b, "abc");
    ok_jbuf_puts(&b, "de");
    ok_jbuf_puts(&b, "f");
    CHECK_EQ_INT(b.failed, OK_ERR_LIMIT);
    CHECK_EQ_INT(b.len, 3);
    ok_jbuf_free(&b);
}

/* ---- a tiny protobuf writer ---- */
typedef struct pw {
    uint8_t b[2048];
    size_t n;
} pw;
static void pw_varint(pw *w, uint64_t v) {
    do {
        uint8_t c = (uint8_t)(v & 0x7f);
        v >>= 7;
        w->b[w->n++] = (uint8_t)(c | (v ? 0x80 : 0));
    } while (v);
}
static void pw_int(pw *w, uint32_t f, uint64_t v) {
    pw_varint(w, (uint64_t)f << 3);
    pw_varint(w, v);
}
static void pw_bytes(pw *w, uint32_t f, const void *p, size_t n) {
    pw_varint(w, ((uint64_t)f << 3) | 2);
    pw_varint(w, n);
    memcpy(w->b + w->n, p, n);
    w->n += n;
}
static void pw_str(pw *w, uint32_t f, const char *s) { pw_bytes(w, f, s, strlen(s)); }
static void pw_msg(pw *w, uint32_t f, pw *sub) {
    pw_bytes(w, f, sub->b, sub->n);
    sub->n = 0;
}
static void pw_kv(pw *w, uint32_t f, const char *k, const char *v) {
    pw e = {{0}, 0};
    pw_str(&e, 1, k);
    pw_str(&e, 2, v);
    pw_msg(w, f, &e);
}
static void pw_opset(pw *w, const char *d, int v) {
    pw o = {{0}, 0};
    pw_str(&o, 1, d);
    pw_int(&o, 2, (uint64_t)v);
    pw_msg(w, 8, &o);
}

static const char expected[] =
    "{\"sha256\":\"abc123\",\"irVersion\":8,\"producerName\":\"p\\\"q\","
    "\"producerVersion\":\"\",\"domain\":\"\",\"modelVersion\":0,"
    "\"opsetImports\":{\"\":13,\"com.microsoft\":1},"
    "\"graphs\":[{\"path\":\"main\",\"nodes\":2,\"initializers\":2,\"initializerBytes\":16,\"sparseInitializers\":0},"
    "{\"path\":\"main/Loop#1.body\",\"nodes\":1,\"initializers\":1,\"initializerBytes\":2,\"sparseInitializers\":0}],"
    "\"totals\":{\"graphs\":2,\"nodes\":3,\"initializers\":3,\"initializerBytes\":18,"
    "\"subgraphInitializers\":1,\"subgraphInitializerBytes\":2},"
    "\"controlFlow\":{\"If\":0,\"Loop\":1,\"Scan\":0},"
    "\"externalData\":[{\"initializer\":\"E\",\"location\":\"d.bin\",\"inFolder\":true,\"offset\":0,\"length\":12}],"
    "\"metadata\":{\"a\":\"3\",\"b\":\"2\"},"
    "\"sharedInitializers\":[{\"name\":\"W\",\"bytes\":4,\"graphs\":[\"main\",\"main/Loop#1.body\"]}],"
    "\"inputs\":[{\"name\":\"x\",\"elemType\":1,\"dims\":[\"N\",2,null]}],"
    "\"outputs\":[{\"name\":\"y\",\"elemType\":1,\"dims\":null}]}";

static void test_report(void) {
    pw m = {{0}, 0}, g = {{0}, 0}, n = {{0}, 0}, a = {{0}, 0}, body = {{0}, 0};
    pw t = {{0}, 0}, v = {{0}, 0}, ty = {{0}, 0}, tt = {{0}, 0}, sh = {{0}, 0}, d = {{0}, 0};
    ok_model *r = NULL;
    ok_error e;
    char *js = NULL;
    size_t jl = 0;

    /* body: Relu(W) plus a 2-byte float16 initializer */
    pw_str(&n, 1, "W");
    pw_str(&n, 2, "o");
    pw_str(&n, 4, "Relu");
    pw_msg(&body, 1, &n);
    pw_int(&t, 1, 1);
    pw_int(&t, 2, 10);
    pw_str(&t, 8, "h");
    pw_msg(&body, 5, &t);

    pw_str(&n, 1, "x");
    pw_str(&n, 1, "W");
    pw_str(&n, 2, "y0");
    pw_str(&n, 4, "Add");
    pw_msg(&g, 1, &n);
    pw_str(&a, 1, "body");
    pw_msg(&a, 6, &body);
    pw_str(&n, 1, "y0");
    pw_str(&n, 2, "y");
    pw_str(&n, 4, "Loop");
    pw_msg(&n, 5, &a);
    pw_msg(&g, 1, &n);
    pw_int(&t, 1, 1);
    pw_int(&t, 2, 1);
    pw_str(&t, 8, "W");
    pw_msg(&g, 5, &t);
    pw_int(&t, 1, 3);
    pw_int(&t, 2, 1);
    pw_str(&t, 8, "E");
    pw_kv(&t, 13, "location", "d.bin");
    pw_kv(&t, 13, "length", "12");
    pw_int(&t, 14, 1);
    pw_msg(&g, 5, &t);
    /* input x: float [N, 2, ?]; output y: float, no shape */
    pw_str(&d, 2, "N");
    pw_msg(&sh, 1, &d);
    pw_int(&d, 1, 2);
    pw_msg(&sh, 1, &d);
    pw_msg(&sh, 1, &d);
    pw_int(&tt, 1, 1);
    pw_msg(&tt, 2, &sh);
    pw_msg(&ty, 1, &tt);
    pw_str(&v, 1, "x");
    pw_msg(&v, 2, &ty);
    pw_msg(&g, 11, &v);
    pw_int(&tt, 1, 1);
    pw_msg(&ty, 1, &tt);
    pw_str(&v, 1, "y");
    pw_msg(&v, 2, &ty);
    pw_msg(&g, 12, &v);

    pw_int(&m, 1, 8);
    pw_str(&m, 2, "p\"q");
    pw_opset(&m, "", 11);
    pw_opset(&m, "com.microsoft", 1);
    pw_opset(&m, "ai.onnx", 13); /* same domain as "": last version wins */
    pw_msg(&m, 7, &g);
    pw_kv(&m, 14, "a", "1");
    pw_kv(&m, 14, "b", "2");
    pw_kv(&m, 14, "a", "3");

    CHECK_EQ_INT(ok_onnx_read(m.b, m.n, &r, &e), OK_OK);
    if (!r) return;
    CHECK_EQ_INT(ok_inspect_json(r, "abc123", &js, &jl, &e), OK_OK);
    CHECK_EQ_STR(js, expected);
    CHECK_EQ_INT(jl, strlen(expected));
    free(js);
    CHECK_EQ_INT(ok_inspect_json(r, NULL, &js, NULL, &e), OK_OK);
    CHECK(js && strncmp(js, "{\"sha256\":null,", 15) == 0);
    free(js);
    CHECK_EQ_INT(ok_inspect_json(NULL, NULL, &js, &jl, &e), OK_ERR_INVALID_ARG);
    CHECK_EQ_INT(ok_inspect_json(r, NULL, NULL, &jl, &e), OK_ERR_INVALID_ARG);
    ok_model_free(r);
}

int main(void) {
    test_escape();
    test_report();
    return CHECK_DONE();
}
