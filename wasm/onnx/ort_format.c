/* See ort_format.h. FlatBuffers, little-endian: a table starts with an
 * int32 offset back to its vtable (u16 vtable size, u16 table size, then one
 * u16 offset per field, 0 = absent); a reference field holds a u32 offset
 * forward from itself; a string is a u32 length, the bytes and a NUL.
 * Schema: onnxruntime/core/flatbuffers/schema/ort.fbs (InferenceSession
 * field 0 ort_version, 1 model; Model field 0 ir_version, 2 producer_name,
 * 7 graph). */
#include "ort_format.h"

#include <stdio.h>
#include <string.h>

typedef struct reader {
    const uint8_t *buf;
    size_t len;
    ok_error *err;
} reader;

static ok_status fail(reader *r, ok_status code, size_t offset, const char *what) {
    if (r->err) {
        r->err->code = code;
        r->err->offset = offset;
        snprintf(r->err->message, sizeof r->err->message, "%s", what);
    }
    return code;
}

static uint32_t u32_at(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint16_t u16_at(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }

/* Whether [at, at + n) lies inside the buffer, without overflow. */
static int fits(const reader *r, size_t at, size_t n) { return at <= r->len && n <= r->len - at; }

/* The position of field `index` of the table at `table`, or 0 when absent.
 * Sets *status on a malformed table. */
static size_t field(reader *r, size_t table, unsigned index, size_t size, ok_status *status) {
    if (!fits(r, table, 4)) {
        *status = fail(r, OK_ERR_TRUNCATED, table, "ORT format: a table runs past the end");
        return 0;
    }
    int32_t back = (int32_t)u32_at(r->buf + table);
    int64_t vt = (int64_t)table - back;
    if (vt < 0 || !fits(r, (size_t)vt, 4)) {
        *status = fail(r, OK_ERR_TRUNCATED, table, "ORT format: a vtable lies outside the file");
        return 0;
    }
    uint16_t vsize = u16_at(r->buf + vt), tsize = u16_at(r->buf + vt + 2);
    if (vsize < 4 || (vsize & 1) || !fits(r, (size_t)vt, vsize) || !fits(r, table, tsize)) {
        *status =
            fail(r, OK_ERR_TRUNCATED, (size_t)vt, "ORT format: a vtable or table size runs past the end");
        return 0;
    }
    if (4 + 2 * (size_t)index + 2 > vsize) return 0;
    uint16_t off = u16_at(r->buf + vt + 4 + 2 * index);
    if (!off) return 0;
    if ((size_t)off + size > tsize) {
        *status = fail(r, OK_ERR_TRUNCATED, table, "ORT format: a field lies outside its table");
        return 0;
    }
    return table + off;
}

/* Follows the reference at `at` (a u32 forward offset); 0 with *status set when it leaves the file. */
static size_t deref(reader *r, size_t at, ok_status *status) {
    size_t to = at + u32_at(r->buf + at);
    if (to <= at || !fits(r, to, 4)) {
        *status = fail(r, OK_ERR_TRUNCATED, at, "ORT format: a reference points outside the file");
        return 0;
    }
    return to;
}

/* Copies the string referenced at `at` into out (truncated, NUL-terminated). */
static ok_status string_at(reader *r, size_t at, char *out, size_t cap) {
    ok_status status = OK_OK;
    size_t s = deref(r, at, &status);
    if (status) return status;
    uint32_t n = u32_at(r->buf + s);
    /* n < len first: n + 1 must not wrap where size_t is 32 bits (wasm32) */
    if (n >= r->len || !fits(r, s + 4, (size_t)n + 1))
        return fail(r, OK_ERR_TRUNCATED, s, "ORT format: a string runs past the end");
    size_t k = n < cap - 1 ? n : cap - 1;
    memcpy(out, r->buf + s + 4, k);
    out[k] = '\0';
    return OK_OK;
}

ok_status ok_ort_read(const uint8_t *buf, size_t len, ok_ort_info *info, ok_error *err) {
    reader r = {buf, len, err};
    ok_status status = OK_OK;
    if (!info || (!buf && len)) return fail(&r, OK_ERR_INVALID_ARG, 0, "ok_ort_read: NULL argument");
    memset(info, 0, sizeof *info);
    if (!len) return fail(&r, OK_ERR_EMPTY, 0, "ORT format: no bytes");
    if (len < 8) return fail(&r, OK_ERR_TRUNCATED, 0, "ORT format: shorter than a FlatBuffer header");
    if (memcmp(buf + 4, "ORTM", 4) != 0)
        return fail(&r, OK_ERR_NOT_ONNX, 4, "not an ORT-format model (no ORTM identifier at byte 4)");
    size_t root = u32_at(buf);
    if (root < 8 || !fits(&r, root, 4))
        return fail(&r, OK_ERR_TRUNCATED, 0, "ORT format: the root table lies outside the file");

    size_t f = field(&r, root, 0, 4, &status);
    if (status) return status;
    if (f && (status = string_at(&r, f, info->ort_version, sizeof info->ort_version))) return status;

    f = field(&r, root, 1, 4, &status);
    if (status) return status;
    if (!f) return fail(&r, OK_ERR_NOT_ONNX, root, "ORT format: the session holds no model");
    size_t model = deref(&r, f, &status);
    if (status) return status;

    f = field(&r, model, 0, 8, &status);
    if (status) return status;
    if (f) info->ir_version = (int64_t)((uint64_t)u32_at(buf + f) | (uint64_t)u32_at(buf + f + 4) << 32);
    f = field(&r, model, 2, 4, &status);
    if (status) return status;
    if (f && (status = string_at(&r, f, info->producer_name, sizeof info->producer_name))) return status;
    f = field(&r, model, 7, 4, &status);
    if (status) return status;
    if (!f) return fail(&r, OK_ERR_NOT_ONNX, model, "ORT format: the model has no graph");
    size_t graph = deref(&r, f, &status);
    if (status) return status;
    /* the graph's own vtable must be sound too (field 0 of any table will do) */
    field(&r, graph, 0, 0, &status);
    if (status) return status;
    info->has_graph = 1;
    return OK_OK;
}
