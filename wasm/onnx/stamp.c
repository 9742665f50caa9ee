/* The normalization stamp (see stamp.h). */
#include "stamp.h"

#include <string.h>

#include "pb_wire.h"
#include "sha256.h"

#define MODEL_METADATA_PROPS 14 /* ModelProto.metadata_props */

static const ok_pb_msg MODEL_MSG = {"model", NULL, 0};
static const ok_pb_msg ENTRY_MSG = {"metadata_props", NULL, 0};

static size_t put_varint(uint8_t *p, uint64_t v) {
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

static size_t varint_len(uint64_t v) {
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

/* A field value a stamp may hold: 1..OK_STAMP_MAX_FIELD printable bytes
 * (so no NUL either), none of them a separator. */
static ok_status check_field(const char *s, size_t n) {
    if (n == 0) return OK_ERR_INVALID_ARG;
    if (n > OK_STAMP_MAX_FIELD) return OK_ERR_LIMIT;
    for (size_t i = 0; i < n; i++)
        if (s[i] == ';' || s[i] == '=' || (unsigned char)s[i] < 0x20 || s[i] == 0x7f)
            return OK_ERR_INVALID_ARG;
    return OK_OK;
}

/* value = "v=1;producer=…;ort=…;ep=…;level=…;source=<hex>;artifact=<hex>" */
static size_t write_value(const ok_stamp *s, char *v) {
    char src[65], art[65];
    ok_hex(s->source, 32, src);
    ok_hex(s->artifact, 32, art);
    const char *parts[] = {"v=1;producer=", s->producer, ";ort=",    s->ort, ";ep=",       s->ep,
                           ";level=",       s->level,    ";source=", src,    ";artifact=", art};
    size_t n = 0;
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++) {
        size_t k = strlen(parts[i]);
        memcpy(v + n, parts[i], k);
        n += k;
    }
    return n;
}

ok_status ok_stamp_encode(const ok_stamp *s, uint8_t *out, size_t cap, size_t *len) {
    if (!s || !len || (!out && cap)) return OK_ERR_INVALID_ARG;
    const char *fields[] = {s->producer, s->ort, s->ep, s->level};
    for (size_t i = 0; i < 4; i++) {
        /* the struct's arrays are NUL-terminated by contract; check it */
        if (!memchr(fields[i], 0, OK_STAMP_MAX_FIELD + 1)) return OK_ERR_LIMIT;
        ok_status rc = check_field(fields[i], strlen(fields[i]));
        if (rc) return rc;
    }
    char value[4 * OK_STAMP_MAX_FIELD + 256];
    size_t vn = write_value(s, value);
    size_t kn = sizeof OK_STAMP_KEY - 1;
    size_t entry = 1 + varint_len(kn) + kn + 1 + varint_len(vn) + vn;
    size_t total = 1 + varint_len(entry) + entry;
    if (total > cap) return OK_ERR_LIMIT;
    size_t n = 0;
    out[n++] = (MODEL_METADATA_PROPS << 3) | OK_PB_LEN;
    n += put_varint(out + n, entry);
    out[n++] = (1 << 3) | OK_PB_LEN; /* StringStringEntryProto.key */
    n += put_varint(out + n, kn);
    memcpy(out + n, OK_STAMP_KEY, kn);
    n += kn;
    out[n++] = (2 << 3) | OK_PB_LEN; /* .value */
    n += put_varint(out + n, vn);
    memcpy(out + n, value, vn);
    n += vn;
    *len = n;
    return OK_OK;
}

static int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

static int parse_hex32(const char *p, size_t n, uint8_t out[32]) {
    if (n != 64) return 0;
    for (size_t i = 0; i < 32; i++) {
        int hi = hexval(p[2 * i]), lo = hexval(p[2 * i + 1]);
        if (hi < 0 || lo < 0) return 0;
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    return 1;
}

static int copy_field(const char *p, size_t n, char *dst) {
    if (check_field(p, n) != OK_OK) return 0; /* checks all n bytes: a NUL inside is refused */
    memcpy(dst, p, n);
    dst[n] = 0;
    return 1;
}

/* strlen, stopping at max (strnlen is POSIX, not C11). */
static size_t bounded_len(const char *s, size_t max) {
    size_t n = 0;
    while (n < max && s[n]) n++;
    return n;
}

ok_status ok_stamp_from_strings(ok_stamp *out, const char *producer, const char *ort, const char *ep,
                                const char *level, const char *source_hex, const char *artifact_hex) {
    const char *fields[] = {producer, ort, ep, level};
    char *dst[] = {out ? out->producer : NULL, out ? out->ort : NULL, out ? out->ep : NULL,
                   out ? out->level : NULL};
    if (!out || !source_hex || !artifact_hex) return OK_ERR_INVALID_ARG;
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < 4; i++) {
        if (!fields[i]) return OK_ERR_INVALID_ARG;
        /* bounded: a field past the limit is refused without reading it all */
        size_t n = bounded_len(fields[i], OK_STAMP_MAX_FIELD + 1);
        ok_status rc = check_field(fields[i], n);
        if (rc) return rc;
        memcpy(dst[i], fields[i], n);
        dst[i][n] = 0;
    }
    if (!parse_hex32(source_hex, bounded_len(source_hex, 65), out->source) ||
        !parse_hex32(artifact_hex, bounded_len(artifact_hex, 65), out->artifact))
        return OK_ERR_INVALID_ARG;
    return OK_OK;
}

ok_status ok_stamp_parse(const char *value, size_t n, ok_stamp *out) {
    if (!value || !out) return OK_ERR_INVALID_ARG;
    memset(out, 0, sizeof *out);
    enum { V, PRODUCER, ORT, EP, LEVEL, SOURCE, ARTIFACT, NKEYS };
    static const char *const keys[NKEYS] = {"v", "producer", "ort", "ep", "level", "source", "artifact"};
    unsigned seen = 0;
    size_t at = 0;
    while (at < n) {
        size_t end = at;
        while (end < n && value[end] != ';') end++;
        const char *eq = memchr(value + at, '=', end - at);
        if (!eq) return OK_ERR_NOT_ONNX;
        size_t kn = (size_t)(eq - (value + at));
        const char *v = eq + 1;
        size_t vn = end - (size_t)(v - value);
        int k = -1;
        for (int i = 0; i < NKEYS && k < 0; i++)
            if (strlen(keys[i]) == kn && memcmp(keys[i], value + at, kn) == 0) k = i;
        if (k < 0 || (seen & (1u << k))) return OK_ERR_NOT_ONNX;
        seen |= 1u << k;
        int ok = 0;
        switch (k) {
        case V: ok = vn == 1 && v[0] == '1'; break;
        case PRODUCER: ok = copy_field(v, vn, out->producer); break;
        case ORT: ok = copy_field(v, vn, out->ort); break;
        case EP: ok = copy_field(v, vn, out->ep); break;
        case LEVEL: ok = copy_field(v, vn, out->level); break;
        case SOURCE: ok = parse_hex32(v, vn, out->source); break;
        case ARTIFACT: ok = parse_hex32(v, vn, out->artifact); break;
        default: break;
        }
        if (!ok) return OK_ERR_NOT_ONNX;
        at = end + (end < n);                           /* past the ';' */
        if (end < n && at == n) return OK_ERR_NOT_ONNX; /* a trailing ';' */
    }
    return seen == (1u << NKEYS) - 1 ? OK_OK : OK_ERR_NOT_ONNX;
}

int ok_stamp_find(const uint8_t *model, size_t n, size_t *start, const char **value, size_t *vlen) {
    if (!model || !start || !value || !vlen) return 0;
    ok_pb_reader r = ok_pb_sub(model, 0, n, &MODEL_MSG);
    ok_pb_field f, last = {0};
    ok_error err;
    int any = 0;
    while (r.pos < r.end) {
        if (ok_pb_next(&r, &f, &err) != OK_OK) return 0;
        last = f;
        any = 1;
    }
    if (!any || last.number != MODEL_METADATA_PROPS || last.wire != OK_PB_LEN) return 0;
    ok_pb_reader e = ok_pb_sub(model, last.off, last.off + last.len, &ENTRY_MSG);
    const uint8_t *key = NULL, *val = NULL;
    size_t kn = 0, vn = 0;
    while (e.pos < e.end) {
        if (ok_pb_next(&e, &f, &err) != OK_OK) return 0;
        if (f.wire != OK_PB_LEN) continue;
        if (f.number == 1) key = model + f.off, kn = f.len;
        if (f.number == 2) val = model + f.off, vn = f.len;
    }
    if (!key || kn != sizeof OK_STAMP_KEY - 1 || memcmp(key, OK_STAMP_KEY, kn) != 0) return 0;
    *start = last.tag_off;
    *value = val ? (const char *)val : "";
    *vlen = vn;
    return 1;
}

int ok_stamp_judge(const ok_stamp *s, const uint8_t prefix_sha256[32], const char *ort, const char *ep,
                   const char *level) {
    if (memcmp(s->artifact, prefix_sha256, 32) != 0) return OK_STAMP_STALE;
    if (!ort || !ep || !level || strcmp(s->ort, ort) != 0 || strcmp(s->ep, ep) != 0 ||
        strcmp(s->level, level) != 0)
        return OK_STAMP_FOREIGN;
    return OK_STAMP_VALID;
}

int ok_stamp_check(const uint8_t *model, size_t n, const char *ort, const char *ep, const char *level,
                   ok_stamp *out) {
    size_t start, vn;
    const char *v;
    ok_stamp s;
    if (!ok_stamp_find(model, n, &start, &v, &vn)) return OK_STAMP_NONE;
    if (ok_stamp_parse(v, vn, &s) != OK_OK) return OK_STAMP_MALFORMED;
    if (out) *out = s;
    uint8_t digest[32];
    ok_sha256(model, start, digest);
    return ok_stamp_judge(&s, digest, ort, ep, level);
}

/* ---- the streaming tracker ---- */

enum { T_TAG = 0, T_LEN, T_VARINT, T_SKIP };

void ok_stamp_tracker_init(ok_stamp_tracker *t) {
    memset(t, 0, sizeof *t);
    t->state = T_TAG;
}

/* A field ended: it becomes the last one. */
static void field_done(ok_stamp_tracker *t) {
    t->last_is_cand = t->keep;
    if (t->keep) {
        t->last_sha = t->cand_sha;
        memcpy(t->last, t->cand, t->cand_len);
        t->last_len = t->cand_len;
    }
    t->keep = 0;
    t->state = T_TAG;
}

void ok_stamp_tracker_feed(ok_stamp_tracker *t, const uint8_t *p, size_t n,
                           const struct ok_sha256 *sha_before) {
    size_t i = 0;
    t->pos += n;
    while (i < n && !t->broken) {
        if (t->state == T_SKIP) {
            size_t take = (size_t)((uint64_t)(n - i) < t->remaining ? (uint64_t)(n - i) : t->remaining);
            if (t->keep) {
                memcpy(t->cand + t->cand_len, p + i, take);
                t->cand_len += take;
            }
            i += take;
            t->remaining -= take;
            if (!t->remaining) field_done(t);
            continue;
        }
        uint8_t b = p[i];
        if (t->state == T_TAG && t->shift == 0) {
            /* a one-byte metadata_props tag: the hash of what precedes it */
            t->snap = b == ((MODEL_METADATA_PROPS << 3) | OK_PB_LEN);
            if (t->snap) {
                t->cand_sha = *sha_before;
                ok_sha256_update(&t->cand_sha, p, i);
            }
        }
        i++;
        if (t->shift >= 64 || (t->shift == 63 && (b & 0x7e))) {
            t->broken = 1;
            break;
        }
        t->acc |= (uint64_t)(b & 0x7f) << t->shift;
        t->shift += 7;
        if (b & 0x80) continue;
        uint64_t v = t->acc;
        t->acc = 0;
        t->shift = 0;
        switch (t->state) {
        case T_TAG:
            t->field = (uint32_t)(v >> 3);
            t->wire = (uint32_t)(v & 7);
            t->keep = 0;
            if (t->field == 0 || v >> 32) t->broken = 1;
            else if (t->wire == OK_PB_VARINT) t->state = T_VARINT;
            else if (t->wire == OK_PB_FIXED64 || t->wire == OK_PB_FIXED32) {
                t->remaining = t->wire == OK_PB_FIXED64 ? 8 : 4;
                t->state = T_SKIP;
            } else if (t->wire == OK_PB_LEN) t->state = T_LEN;
            else t->broken = 1;
            break;
        case T_VARINT: field_done(t); break;
        case T_LEN:
            t->remaining = v;
            /* a candidate: field 14 with a one-byte tag (the snapshot above) and room to keep */
            t->keep = t->snap && t->field == MODEL_METADATA_PROPS && v <= OK_STAMP_MAX_TAIL;
            t->cand_len = 0;
            if (v) t->state = T_SKIP;
            else field_done(t);
            break;
        default: t->broken = 1;
        }
    }
}

int ok_stamp_tracker_end(const ok_stamp_tracker *t, ok_stamp *out) {
    if (t->broken || t->state != T_TAG || t->shift || !t->last_is_cand) return OK_STAMP_NONE;
    ok_pb_reader e = ok_pb_sub(t->last, 0, t->last_len, &ENTRY_MSG);
    ok_pb_field f;
    ok_error err;
    const uint8_t *key = NULL, *val = NULL;
    size_t kn = 0, vn = 0;
    while (e.pos < e.end) {
        if (ok_pb_next(&e, &f, &err) != OK_OK) return OK_STAMP_NONE;
        if (f.wire != OK_PB_LEN) continue;
        if (f.number == 1) key = t->last + f.off, kn = f.len;
        if (f.number == 2) val = t->last + f.off, vn = f.len;
    }
    if (!key || kn != sizeof OK_STAMP_KEY - 1 || memcmp(key, OK_STAMP_KEY, kn) != 0) return OK_STAMP_NONE;
    ok_stamp s;
    if (ok_stamp_parse(val ? (const char *)val : "", vn, &s) != OK_OK) return OK_STAMP_MALFORMED;
    struct ok_sha256 sha = t->last_sha;
    uint8_t digest[32];
    ok_sha256_final(&sha, digest);
    if (out) *out = s;
    return memcmp(digest, s.artifact, 32) == 0 ? OK_STAMP_VALID : OK_STAMP_STALE;
}
