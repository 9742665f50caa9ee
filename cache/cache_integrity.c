/* Subresource Integrity strings: "sha256-<base64> sha384-<base64>?opts".
 * Only sha256 is computed by the core; other algorithms are skipped. */
#include <string.h>

#include "cache_internal.h"

static int b64val(unsigned char ch) {
    if (ch >= 'A' && ch <= 'Z') return ch - 'A';
    if (ch >= 'a' && ch <= 'z') return ch - 'a' + 26;
    if (ch >= '0' && ch <= '9') return ch - '0' + 52;
    if (ch == '+' || ch == '-') return 62; /* base64url accepted too */
    if (ch == '/' || ch == '_') return 63;
    return -1;
}

/* Decode exactly 32 bytes from base64 (with or without '=' padding). */
static int b64_sha256(const char *s, size_t n, uint8_t out[32]) {
    uint32_t acc = 0;
    int bits = 0;
    size_t i, o = 0;
    while (n && s[n - 1] == '=') n--;
    if (n != 43) return -1; /* ceil(32 * 8 / 6) */
    for (i = 0; i < n; i++) {
        int v = b64val((unsigned char)s[i]);
        if (v < 0) return -1;
        acc = (acc << 6) | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[o++] = (uint8_t)(acc >> bits);
            acc &= (1u << bits) - 1;
        }
    }
    return (o == 32 && acc == 0) ? 0 : -1; /* trailing bits must be zero */
}

ok_status ok_cache_parse_integrity(const char *sri, uint8_t out[][32],
                                   uint32_t max, uint32_t *count) {
    const char *p = sri;
    uint32_t n = 0;
    int any = 0;
    if (!count) return OK_ERR_INVALID_ARG;
    *count = 0;
    if (!sri) return OK_OK;
    while (*p) {
        const char *tok, *end, *q;
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
        if (!*p) break;
        tok = p;
        while (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r') p++;
        any = 1;
        end = tok;
        while (end < p && *end != '?') end++; /* options are ignored */
        if (end - tok < 7 || memcmp(tok, "sha256-", 7) != 0) continue;
        q = tok + 7;
        if (n >= max) return OK_ERR_LIMIT;
        if (b64_sha256(q, (size_t)(end - q), out[n]) != 0)
            return OK_ERR_INVALID_ARG;
        n++;
    }
    if (any && n == 0) return OK_ERR_INVALID_ARG;
    *count = n;
    return OK_OK;
}
