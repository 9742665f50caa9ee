/* Protobuf wire-format primitives: varints, tags, length-delimited spans and
 * skipping. Zero-copy and bounds-checked: a reader is a window [pos, end) over
 * the caller's buffer, every offset is absolute in that buffer (so errors can
 * name the byte), and nothing is ever read at or past `end`.
 *
 * Typical loop:
 *     ok_pb_reader r = ok_pb_sub(buf, start, end, &MSG_DESC);
 *     ok_pb_field f;
 *     while (r.pos < r.end) {
 *         if ((rc = ok_pb_next(&r, &f, err)) != OK_OK) return rc;
 *         switch (f.number) { ... default: break; }   // unknown: already skipped
 *     }
 */
#ifndef ORTKEEP_PB_WIRE_H
#define ORTKEEP_PB_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "ok_error.h"

enum { OK_PB_VARINT = 0, OK_PB_FIXED64 = 1, OK_PB_LEN = 2, OK_PB_FIXED32 = 5 };

/* Names used only to write error messages ("graph.node"): fields[n] names
 * field n (NULL or n >= nfields reads as "field n"). */
typedef struct ok_pb_msg {
    const char *name;
    const char *const *fields;
    uint32_t nfields;
} ok_pb_msg;

typedef struct ok_pb_reader {
    const uint8_t *buf; /* the whole input; offsets below are absolute */
    size_t pos;         /* next byte to read */
    size_t end;         /* one past the last byte of this message */
    const ok_pb_msg *msg;
} ok_pb_reader;

/* One decoded field. The payload was consumed: for LEN fields [off, off+len)
 * is the payload span (already checked to lie inside the message). */
typedef struct ok_pb_field {
    uint32_t number;
    uint32_t wire;
    uint64_t value; /* VARINT value, or the FIXED32/FIXED64 bits */
    size_t off;     /* payload start (LEN) or value start (others) */
    size_t len;     /* LEN payload length; 0 for other wire types */
    size_t tag_off; /* where the tag started, for error messages */
} ok_pb_field;

ok_pb_reader ok_pb_sub(const uint8_t *buf, size_t start, size_t end, const ok_pb_msg *msg);

/* Reads a varint at *pos (< end), advancing *pos. Errors: OK_ERR_TRUNCATED
 * (runs past end), OK_ERR_BAD_VARINT (more than 10 bytes or > 64 bits). */
int ok_pb_varint(const uint8_t *buf, size_t end, size_t *pos, uint64_t *out, ok_error *err);

/* Reads the next tag and its payload. Wire types 3, 4 (groups, which ONNX
 * never uses), 6, 7 and field number 0 are OK_ERR_BAD_WIRE_TYPE. */
int ok_pb_next(ok_pb_reader *r, ok_pb_field *f, ok_error *err);

/* Fails with OK_ERR_BAD_WIRE_TYPE unless f->wire == wire (a known field sent
 * with the wrong type would otherwise be misread). */
int ok_pb_expect(const ok_pb_reader *r, const ok_pb_field *f, uint32_t wire, ok_error *err);

/* Fills err (when not NULL) with code, offset and a printf-style message,
 * and returns code. Shared so every part of the reader words errors alike. */
int ok_pb_fail(ok_error *err, int code, size_t offset, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* Name of field `number` of r's message for messages, e.g. "graph.node". */
void ok_pb_field_name(const ok_pb_msg *msg, uint32_t number, char *out, size_t cap);

#endif
