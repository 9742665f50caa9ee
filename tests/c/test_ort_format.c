/* The ORT-format reader (wasm/ort_format.c) on hand-built FlatBuffers: a
 * minimal valid file, then every way an offset can lie. The real files
 * (.ort forms captured from onnxruntime-web) are read in
 * tests/js/forms-capture.test.mjs and tests/browser/forms-capture.test.mjs. */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "ort_format.h"

static uint8_t f[256];
static size_t n;

static void put32(size_t at, uint32_t v) {
    f[at] = (uint8_t)v;
    f[at + 1] = (uint8_t)(v >> 8);
    f[at + 2] = (uint8_t)(v >> 16);
    f[at + 3] = (uint8_t)(v >> 24);
}
static void put16(size_t at, uint16_t v) {
    f[at] = (uint8_t)v;
    f[at + 1] = (uint8_t)(v >> 8);
}

/* Layout (offsets):
 *   0  root uoffset → 24        4 "ORTM"
 *   8  session vtable: size 8, table 12, field0 @4, field1 @8
 *  16  model vtable: size 20, table 20, field0 @4 (ir_version), field2 @12, field7 @16
 *  ... session table @40: soffset → 8, ort_version ref, model ref
 *  model table @64: soffset → 16, int64 ir_version, producer ref, graph ref
 *  graph table @88: soffset → 96 (vtable size 4, table 4)
 *  strings @104 "1.30.0", @116 "onnxruntime" (ends at 132) */
static void build(void) {
    memset(f, 0, sizeof f);
    n = 132; /* the last byte is the NUL of "onnxruntime" */
    put32(0, 40);
    memcpy(f + 4, "ORTM", 4);
    put16(8, 8);
    put16(10, 12);
    put16(12, 4);
    put16(14, 8);
    put16(16, 20);
    put16(18, 24);
    put16(20, 4);
    put16(22, 0);
    put16(24, 12);
    put16(26, 0);
    put16(28, 0);
    put16(30, 0);
    put16(32, 0);
    put16(34, 16);
    put32(40, (uint32_t)(40 - 8));
    put32(44, 104 - 44);
    put32(48, 64 - 48);
    put32(64, (uint32_t)(64 - 16));
    put32(68, 8);
    put32(72, 0);
    put32(76, 116 - 76);
    put32(80, 88 - 80);
    put32(88, (uint32_t)(88 - 96));
    put16(96, 4);
    put16(98, 4);
    put32(104, 6);
    memcpy(f + 108, "1.30.0", 7);
    put32(116, 11);
    memcpy(f + 120, "onnxruntime", 12);
}

static ok_status read_it(ok_error *err) {
    ok_ort_info info;
    return ok_ort_read(f, n, &info, err);
}

int main(void) {
    ok_ort_info info;
    ok_error err;
    build();
    CHECK_EQ_INT(ok_ort_read(f, n, &info, &err), OK_OK);
    CHECK(strcmp(info.ort_version, "1.30.0") == 0);
    CHECK_EQ_INT(info.ir_version, 8);
    CHECK(strcmp(info.producer_name, "onnxruntime") == 0);
    CHECK_EQ_INT(info.has_graph, 1);

    /* not ORT: no identifier; empty; too short */
    build();
    f[7] = 'X';
    CHECK_EQ_INT(read_it(&err), OK_ERR_NOT_ONNX);
    CHECK_EQ_INT(err.offset, 4);
    CHECK_EQ_INT(ok_ort_read(f, 0, &info, &err), OK_ERR_EMPTY);
    build();
    CHECK_EQ_INT(ok_ort_read(f, 6, &info, &err), OK_ERR_TRUNCATED);
    /* every truncation of the valid file is refused, never read past */
    for (size_t cut = 8; cut < 132; cut++) {
        build();
        CHECK(ok_ort_read(f, cut, &info, &err) != OK_OK);
    }
    /* lying offsets: root, vtable, a field past its table, a reference, a string length */
    build();
    put32(0, 1000);
    CHECK_EQ_INT(read_it(&err), OK_ERR_TRUNCATED);
    build();
    put32(40, 0x80000000u);
    CHECK_EQ_INT(read_it(&err), OK_ERR_TRUNCATED);
    build();
    put16(12, 200);
    CHECK_EQ_INT(read_it(&err), OK_ERR_TRUNCATED);
    build();
    put32(48, 0xFFFFFFF0u);
    CHECK_EQ_INT(read_it(&err), OK_ERR_TRUNCATED);
    build();
    put32(104, 0xFFFFFFFFu);
    CHECK_EQ_INT(read_it(&err), OK_ERR_TRUNCATED);
    build();
    put16(8, 7);
    CHECK_EQ_INT(read_it(&err), OK_ERR_TRUNCATED);
    /* a session without a model, a model without a graph */
    build();
    put16(14, 0);
    CHECK_EQ_INT(read_it(&err), OK_ERR_NOT_ONNX);
    build();
    put16(34, 0);
    CHECK_EQ_INT(read_it(&err), OK_ERR_NOT_ONNX);
    /* a session without ort_version still reads */
    build();
    put16(12, 0);
    CHECK_EQ_INT(ok_ort_read(f, n, &info, &err), OK_OK);
    CHECK(info.ort_version[0] == '\0');
    CHECK_EQ_INT(ok_ort_read(NULL, 4, &info, &err), OK_ERR_INVALID_ARG);
    return CHECK_DONE();
}
