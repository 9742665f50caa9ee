/* Subresource Integrity metadata, as the SRI spec reads it: whitespace-
 * separated "alg-<base64>[?options]" tokens; of the known algorithms
 * (sha256, sha384, sha512) only the strongest present counts, and the
 * bytes pass when they match any of its digests. */
#include <string.h>

#include "cache_internal.h"

uint32_t ok_hash_bytes(uint32_t alg) {
    switch (alg) {
#define OK_HASH_BYTES_(name, value, bytes) \
    case value: return bytes;
        OK_HASH_ALG_LIST(OK_HASH_BYTES_)
#undef OK_HASH_BYTES_
    default: return 0;
    }
}

static int b64val(unsigned char ch) {
    if (ch >= 'A' && ch <= 'Z') return ch - 'A';
    if (ch >= 'a' && ch <= 'z') return ch - 'a' + 26;
    if (ch >= '0' && ch <= '9') return ch - '0' + 52;
    if (ch == '+' || ch == '-') return 62; /* base64url accepted too */
    if (ch == '/' || ch == '_') return 63;
    return -1;
}

/* Decode exactly `want` bytes from base64 (padding optional). */
static int b64_decode(const char *s, size_t n, uint8_t *out, size_t want) {
    uint32_t acc = 0;
    int bits = 0;
    size_t i, o = 0;
    while (n && s[n - 1] == '=') n--;
    if (n != (want * 8 + 5) / 6) return -1;
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
    return (o == want && acc == 0) ? 0 : -1; /* trailing bits must be zero */
}

static uint32_t alg_of(const char *tok, size_t n, size_t *prefix) {
    static const struct {
        const char *name;
        uint32_t alg;
    } algs[] = {{"sha256-", OK_HASH_SHA256}, {"sha384-", OK_HASH_SHA384}, {"sha512-", OK_HASH_SHA512}};
    size_t i;
    for (i = 0; i < sizeof algs / sizeof algs[0]; i++) {
        size_t l = strlen(algs[i].name);
        if (n >= l && memcmp(tok, algs[i].name, l) == 0) {
            *prefix = l;
            return algs[i].alg;
        }
    }
    return OK_HASH_NONE;
}

static int is_space(char ch) { return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f'; }

ok_status ok_integrity_parse(const char *sri, ok_integrity *out) {
    const char *p;
    int any = 0, pass;
    if (!out) return OK_ERR_INVALID_ARG;
    memset(out, 0, sizeof *out);
    if (!sri) return OK_OK;
    /* pass 0 finds the strongest algorithm, pass 1 decodes its tokens */
    for (pass = 0; pass < 2; pass++) {
        p = sri;
        while (*p) {
            const char *tok, *end;
            size_t pre = 0;
            uint32_t alg, nb;
            while (is_space(*p)) p++;
            if (!*p) break;
            tok = p;
            while (*p && !is_space(*p)) p++;
            any = 1;
            end = tok;
            while (end < p && *end != '?') end++; /* options are ignored */
            alg = alg_of(tok, (size_t)(end - tok), &pre);
            if (alg == OK_HASH_NONE) continue; /* unknown algorithm */
            nb = ok_hash_bytes(alg);
            if (pass == 0) {
                uint8_t scratch[OK_HASH_MAX_BYTES];
                if (b64_decode(tok + pre, (size_t)(end - tok) - pre, scratch, nb) != 0)
                    return OK_ERR_INVALID_ARG;
                if (alg > out->alg) out->alg = alg;
                continue;
            }
            if (alg != out->alg) continue;
            if (out->count >= OK_CACHE_MAX_INTEGRITY) {
                memset(out, 0, sizeof *out);
                return OK_ERR_LIMIT;
            }
            b64_decode(tok + pre, (size_t)(end - tok) - pre, out->digest[out->count++], nb);
        }
        if (pass == 0 && any && out->alg == OK_HASH_NONE) return OK_ERR_INVALID_ARG;
    }
    return OK_OK;
}
