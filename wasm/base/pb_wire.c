/* Protobuf wire-format primitives; see pb_wire.h. */
#include "pb_wire.h"

#include <stdarg.h>
#include <stdio.h> /* vsnprintf only: formatting, no I/O */
#include <string.h>

ok_pb_reader ok_pb_sub(const uint8_t *buf, size_t start, size_t end, const ok_pb_msg *msg) {
    ok_pb_reader r;
    r.buf = buf;
    r.pos = start;
    r.end = end;
    r.msg = msg;
    return r;
}

int ok_pb_fail(ok_error *err, int code, size_t offset, const char *fmt, ...) {
    if (err) {
        va_list ap;
        err->code = (ok_status)code;
        err->offset = offset;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
    }
    return code;
}

void ok_pb_field_name(const ok_pb_msg *msg, uint32_t number, char *out, size_t cap) {
    const char *m = msg && msg->name ? msg->name : "message";
    if (msg && msg->fields && number < msg->nfields && msg->fields[number])
        snprintf(out, cap, "%s.%s", m, msg->fields[number]);
    else snprintf(out, cap, "%s.field %lu", m, (unsigned long)number);
}

int ok_pb_varint(const uint8_t *buf, size_t end, size_t *pos, uint64_t *out, ok_error *err) {
    size_t p = *pos, start = *pos;
    uint64_t v = 0;
    unsigned shift = 0;
    for (;;) {
        uint8_t b;
        if (p >= end)
            return ok_pb_fail(err, OK_ERR_TRUNCATED, start, "truncated at byte %zu: varint runs past end %zu",
                              start, end);
        b = buf[p++];
        /* The 10th byte may only carry bit 63; anything more overflows. */
        if (shift == 63 && (b & 0x7e))
            return ok_pb_fail(err, OK_ERR_BAD_VARINT, start, "bad varint at byte %zu: overflows 64 bits",
                              start);
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) break;
        shift += 7;
        if (shift > 63)
            return ok_pb_fail(err, OK_ERR_BAD_VARINT, start, "bad varint at byte %zu: longer than 10 bytes",
                              start);
    }
    *pos = p;
    *out = v;
    return OK_OK;
}

int ok_pb_next(ok_pb_reader *r, ok_pb_field *f, ok_error *err) {
    uint64_t tag;
    size_t need;
    char fname[96];
    int rc;

    f->tag_off = r->pos;
    rc = ok_pb_varint(r->buf, r->end, &r->pos, &tag, err);
    if (rc) return rc;
    /* Field numbers are 29 bits; 0 is reserved. */
    if ((tag >> 3) == 0 || (tag >> 3) > 0x1fffffffu)
        return ok_pb_fail(err, OK_ERR_BAD_WIRE_TYPE, f->tag_off,
                          "bad tag at byte %zu in %s: field number %llu", f->tag_off,
                          r->msg ? r->msg->name : "message", (unsigned long long)(tag >> 3));
    f->number = (uint32_t)(tag >> 3);
    f->wire = (uint32_t)(tag & 7);
    f->value = 0;
    f->len = 0;
    f->off = r->pos;
    switch (f->wire) {
    case OK_PB_VARINT: return ok_pb_varint(r->buf, r->end, &r->pos, &f->value, err);
    case OK_PB_FIXED64:
    case OK_PB_FIXED32:
        need = f->wire == OK_PB_FIXED64 ? 8 : 4;
        if (r->end - r->pos < need) {
            ok_pb_field_name(r->msg, f->number, fname, sizeof fname);
            return ok_pb_fail(err, OK_ERR_TRUNCATED, r->pos,
                              "truncated at byte %zu: %s fixed%u runs past end %zu", r->pos, fname,
                              (unsigned)need * 8, r->end);
        }
        for (size_t i = 0; i < need; i++) f->value |= (uint64_t)r->buf[r->pos + i] << (8 * i);
        r->pos += need;
        return OK_OK;
    case OK_PB_LEN: {
        uint64_t len;
        size_t lenpos = r->pos;
        rc = ok_pb_varint(r->buf, r->end, &r->pos, &len, err);
        if (rc) return rc;
        /* Compare in 64 bits: on wasm32 size_t cannot hold every length. */
        if (len > (uint64_t)(r->end - r->pos)) {
            ok_pb_field_name(r->msg, f->number, fname, sizeof fname);
            return ok_pb_fail(err, OK_ERR_TRUNCATED, lenpos,
                              "truncated at byte %zu: %s length %llu runs past end %zu", lenpos, fname,
                              (unsigned long long)len, r->end);
        }
        f->off = r->pos;
        f->len = (size_t)len;
        r->pos += (size_t)len;
        return OK_OK;
    }
    default:
        ok_pb_field_name(r->msg, f->number, fname, sizeof fname);
        return ok_pb_fail(err, OK_ERR_BAD_WIRE_TYPE, f->tag_off, "bad wire type %u at byte %zu: %s",
                          (unsigned)f->wire, f->tag_off, fname);
    }
}

int ok_pb_expect(const ok_pb_reader *r, const ok_pb_field *f, uint32_t wire, ok_error *err) {
    char fname[96];
    if (f->wire == wire) return OK_OK;
    ok_pb_field_name(r->msg, f->number, fname, sizeof fname);
    return ok_pb_fail(err, OK_ERR_BAD_WIRE_TYPE, f->tag_off, "bad wire type %u at byte %zu: %s expects %u",
                      (unsigned)f->wire, f->tag_off, fname, (unsigned)wire);
}
