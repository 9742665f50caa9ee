/* A growable string buffer for writing JSON. Errors are sticky (zstd style):
 * after a failed allocation or the size cap every write is a no-op and
 * `failed` says why, so callers check once at the end. */
#ifndef ORTKEEP_JSON_BUF_H
#define ORTKEEP_JSON_BUF_H

#include <stddef.h>
#include <stdint.h>

typedef struct ok_jbuf {
    char *p;
    size_t len, cap;
    size_t max; /* cap on len; beyond it failed = OK_ERR_LIMIT */
    int failed; /* 0, OK_ERR_NOMEM or OK_ERR_LIMIT */
} ok_jbuf;

void ok_jbuf_init(ok_jbuf *b, size_t max);
void ok_jbuf_free(ok_jbuf *b);
void ok_jbuf_put(ok_jbuf *b, const char *s, size_t n);
void ok_jbuf_puts(ok_jbuf *b, const char *s);
void ok_jbuf_u64(ok_jbuf *b, uint64_t v);
void ok_jbuf_i64(ok_jbuf *b, int64_t v);
/* A quoted JSON string of bytes s[0,n): escapes quotes, backslash and
 * control characters; valid UTF-8 passes through; each byte of an invalid
 * UTF-8 sequence becomes U+FFFD, so the output is always valid JSON. */
void ok_jbuf_str(ok_jbuf *b, const uint8_t *s, size_t n);

#endif
