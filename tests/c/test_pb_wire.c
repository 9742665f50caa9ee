/* Unit tests for the protobuf wire primitives (wasm/pb_wire.c). */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "pb_wire.h"

static const ok_pb_msg T = {"graph", (const char *const[]){NULL, "node"}, 2};

static int varint(const uint8_t *b, size_t n, uint64_t *v, size_t *pos) {
    ok_error e;
    *pos = 0;
    return ok_pb_varint(b, n, pos, v, &e);
}

static void test_varint(void) {
    uint64_t v;
    size_t pos;
    static const uint8_t one[] = {0x01}, b300[] = {0xac, 0x02};
    static const uint8_t max[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
    static const uint8_t over[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02};
    static const uint8_t eleven[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00};
    static const uint8_t trunc[] = {0x80, 0x80};
    /* Non-minimal but in range: 10 bytes with zero high parts is valid. */
    static const uint8_t padded[] = {0x81, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00};
    CHECK_EQ_INT(varint(one, 1, &v, &pos), OK_OK);
    CHECK_EQ_INT(v, 1);
    CHECK_EQ_INT(pos, 1);
    CHECK_EQ_INT(varint(b300, 2, &v, &pos), OK_OK);
    CHECK_EQ_INT(v, 300);
    CHECK_EQ_INT(varint(max, 10, &v, &pos), OK_OK);
    CHECK(v == UINT64_MAX);
    CHECK_EQ_INT(pos, 10);
    CHECK_EQ_INT(varint(padded, 10, &v, &pos), OK_OK);
    CHECK_EQ_INT(v, 1);
    CHECK_EQ_INT(varint(over, 10, &v, &pos), OK_ERR_BAD_VARINT);
    CHECK_EQ_INT(varint(eleven, 11, &v, &pos), OK_ERR_BAD_VARINT);
    CHECK_EQ_INT(varint(trunc, 2, &v, &pos), OK_ERR_TRUNCATED);
    CHECK_EQ_INT(varint(b300, 1, &v, &pos), OK_ERR_TRUNCATED); /* end bounds */
    CHECK_EQ_INT(varint(one, 0, &v, &pos), OK_ERR_TRUNCATED);
}

static void test_fields(void) {
    /* field 1 LEN "ab"; field 2 varint 150; field 3 fixed32; field 4 fixed64 */
    static const uint8_t b[] = {0x0a, 0x02, 'a', 'b', 0x10, 0x96, 0x01, 0x1d, 1, 0, 0,
                                0,    0x21, 2,   0,   0,    0,    0,    0,    0, 0};
    ok_pb_reader r = ok_pb_sub(b, 0, sizeof b, &T);
    ok_pb_field f;
    ok_error e;
    CHECK_EQ_INT(ok_pb_next(&r, &f, &e), OK_OK);
    CHECK_EQ_INT(f.number, 1);
    CHECK_EQ_INT(f.wire, OK_PB_LEN);
    CHECK_EQ_INT(f.off, 2);
    CHECK_EQ_INT(f.len, 2);
    CHECK_EQ_INT(ok_pb_expect(&r, &f, OK_PB_LEN, &e), OK_OK);
    CHECK_EQ_INT(ok_pb_expect(&r, &f, OK_PB_VARINT, &e), OK_ERR_BAD_WIRE_TYPE);
    CHECK_EQ_INT(ok_pb_next(&r, &f, &e), OK_OK);
    CHECK_EQ_INT(f.number, 2);
    CHECK_EQ_INT(f.value, 150);
    CHECK_EQ_INT(ok_pb_next(&r, &f, &e), OK_OK);
    CHECK_EQ_INT(f.wire, OK_PB_FIXED32);
    CHECK_EQ_INT(f.value, 1);
    CHECK_EQ_INT(ok_pb_next(&r, &f, &e), OK_OK);
    CHECK_EQ_INT(f.wire, OK_PB_FIXED64);
    CHECK_EQ_INT(f.value, 2);
    CHECK_EQ_INT(r.pos, sizeof b);

    /* A sub-reader's end bounds the payload, not the buffer's. */
    r = ok_pb_sub(b, 0, 3, &T);
    CHECK_EQ_INT(ok_pb_next(&r, &f, &e), OK_ERR_TRUNCATED);
    r = ok_pb_sub(b, 7, 10, &T);
    CHECK_EQ_INT(ok_pb_next(&r, &f, &e), OK_ERR_TRUNCATED); /* fixed32 cut */
    r = ok_pb_sub(b, 12, 17, &T);
    CHECK_EQ_INT(ok_pb_next(&r, &f, &e), OK_ERR_TRUNCATED); /* fixed64 cut */
}

static void test_errors(void) {
    /* graph.node (field 1, LEN) of length 5000 in a 4-byte message. */
    static const uint8_t past[] = {0x0a, 0x88, 0x27, 0x00};
    static const uint8_t group[] = {0x0b}, wt6[] = {0x0e}, zero[] = {0x02, 0x00};
    static const uint8_t badtag[] = {0x80, 0x80, 0x80, 0x80, 0x20}; /* field 2^30 */
    ok_pb_reader r = ok_pb_sub(past, 0, sizeof past, &T);
    ok_pb_field f;
    ok_error e;
    CHECK_EQ_INT(ok_pb_next(&r, &f, &e), OK_ERR_TRUNCATED);
    CHECK_EQ_INT(e.code, OK_ERR_TRUNCATED);
    CHECK_EQ_INT(e.offset, 1);
    CHECK_EQ_STR(e.message, "truncated at byte 1: graph.node length 5000 runs past end 4");
    r = ok_pb_sub(group, 0, 1, &T);
    CHECK_EQ_INT(ok_pb_next(&r, &f, &e), OK_ERR_BAD_WIRE_TYPE);
    CHECK(strstr(e.message, "wire type 3") != NULL);
    r = ok_pb_sub(wt6, 0, 1, &T);
    CHECK_EQ_INT(ok_pb_next(&r, &f, &e), OK_ERR_BAD_WIRE_TYPE);
    r = ok_pb_sub(zero, 0, 2, &T);
    CHECK_EQ_INT(ok_pb_next(&r, &f, &e), OK_ERR_BAD_WIRE_TYPE); /* field 0 */
    r = ok_pb_sub(badtag, 0, sizeof badtag, &T);
    CHECK_EQ_INT(ok_pb_next(&r, &f, &e), OK_ERR_BAD_WIRE_TYPE); /* > 29 bits */
    /* NULL err is allowed. */
    r = ok_pb_sub(past, 0, sizeof past, &T);
    CHECK_EQ_INT(ok_pb_next(&r, &f, NULL), OK_ERR_TRUNCATED);
}

static void test_field_name(void) {
    char n[64];
    ok_pb_field_name(&T, 1, n, sizeof n);
    CHECK_EQ_STR(n, "graph.node");
    ok_pb_field_name(&T, 7, n, sizeof n);
    CHECK_EQ_STR(n, "graph.field 7");
    ok_pb_field_name(NULL, 2, n, sizeof n);
    CHECK_EQ_STR(n, "message.field 2");
}

int main(void) {
    test_varint();
    test_fields();
    test_errors();
    test_field_name();
    return CHECK_DONE();
}
