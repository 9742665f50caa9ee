/* Growable JSON string buffer; see json_buf.h. */
#include "json_buf.h"

#include <stdlib.h>
#include <string.h>

#include "ok_error.h"

void ok_jbuf_init(ok_jbuf *b, size_t max) {
    b->p = NULL;
    b->len = b->cap = 0;
    b->max = max;
    b->failed = 0;
}

void ok_jbuf_free(ok_jbuf *b) {
    free(b->p);
    ok_jbuf_init(b, b->max);
}

void ok_jbuf_put(ok_jbuf *b, const char *s, size_t n) {
    if (b->failed) return;
    if (n > b->max - b->len) { /* len <= max always holds */
        b->failed = OK_ERR_LIMIT;
        return;
    }
    if (b->len + n + 1 > b->cap) { /* +1 keeps room for the final NUL */
        size_t ncap = b->cap ? b->cap : 256;
        char *np;
        while (ncap < b->len + n + 1) {
            if (ncap > SIZE_MAX / 2) {
                b->failed = OK_ERR_NOMEM;
                return;
            }
            ncap *= 2;
        }
        np = realloc(b->p, ncap);
        if (!np) {
            b->failed = OK_ERR_NOMEM;
            return;
        }
        b->p = np;
        b->cap = ncap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

void ok_jbuf_puts(ok_jbuf *b, const char *s) { ok_jbuf_put(b, s, strlen(s)); }

void ok_jbuf_u64(ok_jbuf *b, uint64_t v) {
    char tmp[24];
    size_t i = sizeof tmp;
    do {
        tmp[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    ok_jbuf_put(b, tmp + i, sizeof tmp - i);
}

void ok_jbuf_i64(ok_jbuf *b, int64_t v) {
    if (v < 0) {
        ok_jbuf_put(b, "-", 1);
        ok_jbuf_u64(b, (uint64_t)0 - (uint64_t)v); /* safe for INT64_MIN */
    } else {
        ok_jbuf_u64(b, (uint64_t)v);
    }
}

/* Length of the valid UTF-8 sequence at s[0, n), or 0 if invalid (overlong,
 * surrogate, above U+10FFFF, or cut short). */
static size_t utf8_len(const uint8_t *s, size_t n) {
    uint8_t c = s[0];
    size_t need;
    uint32_t cp;
    if (c < 0x80) return 1;
    if (c >= 0xc2 && c <= 0xdf) need = 2, cp = c & 0x1f;
    else if (c >= 0xe0 && c <= 0xef) need = 3, cp = c & 0x0f;
    else if (c >= 0xf0 && c <= 0xf4) need = 4, cp = c & 0x07;
    else return 0;
    if (n < need) return 0;
    for (size_t i = 1; i < need; i++) {
        if ((s[i] & 0xc0) != 0x80) return 0;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    if ((need == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
        (need == 4 && (cp < 0x10000 || cp > 0x10ffff)))
        return 0;
    return need;
}

void ok_jbuf_str(ok_jbuf *b, const uint8_t *s, size_t n) {
    static const char hex[] = "0123456789abcdef";
    size_t i = 0, run = 0; /* s[run, i) is pending plain text */
    ok_jbuf_put(b, "\"", 1);
    while (i < n) {
        uint8_t c = s[i];
        size_t k;
        char esc[6];
        const char *rep = NULL;
        size_t rlen = 2;
        if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80) {
            i++;
            continue;
        }
        if (c >= 0x80 && (k = utf8_len(s + i, n - i)) != 0) {
            i += k;
            continue;
        }
        ok_jbuf_put(b, (const char *)s + run, i - run);
        switch (c) {
        case '"': rep = "\\\""; break;
        case '\\': rep = "\\\\"; break;
        case '\n': rep = "\\n"; break;
        case '\r': rep = "\\r"; break;
        case '\t': rep = "\\t"; break;
        case '\b': rep = "\\b"; break;
        case '\f': rep = "\\f"; break;
        default:
            if (c < 0x20) {
                esc[0] = '\\', esc[1] = 'u', esc[2] = '0', esc[3] = '0';
                esc[4] = hex[c >> 4], esc[5] = hex[c & 15];
                rep = esc;
                rlen = 6;
            } else {
                rep = "\xef\xbf\xbd"; /* U+FFFD for an invalid byte */
                rlen = 3;
            }
        }
        ok_jbuf_put(b, rep, rlen);
        i++;
        run = i;
    }
    ok_jbuf_put(b, (const char *)s + run, i - run);
    ok_jbuf_put(b, "\"", 1);
}
