/* Streaming SHA-256 (FIPS 180-4). Used for model content hashes and
 * SRI-style integrity ("sha256-..."). No I/O, no allocation.
 *
 * The state is a plain public struct so JS can allocate it inside wasm
 * memory (ok_sha256_state_size() bytes, 8-byte aligned) and stream chunks
 * through it as they arrive from fetch/IndexedDB.
 *
 * Feed chunks of at most a few MB: V8 tiers a wasm function up only between
 * calls (no OSR), so one 100 MB call runs in the baseline tier at ~17 MB/s,
 * while 1 MB chunks reach ~170 MB/s (native gcc -O2: ~200 MB/s). */
#ifndef ORTKEEP_SHA256_H
#define ORTKEEP_SHA256_H

#include <stddef.h>
#include <stdint.h>

/* The type is `struct ok_sha256` (alias ok_sha256_ctx): a typedef named
 * ok_sha256 would collide with the one-shot function ok_sha256(), since C
 * puts typedefs and functions in one namespace; struct tags are separate. */
typedef struct ok_sha256 {
    uint32_t h[8];     /* chaining value */
    uint64_t total;    /* message bytes fed so far (spec caps at 2^64 bits) */
    uint32_t buffered; /* bytes held in buf, always < 64 between calls */
    uint32_t pad_;     /* keeps buf 8-byte aligned; no meaning */
    uint8_t buf[64];   /* partial block */
} ok_sha256_ctx;

size_t ok_sha256_state_size(void);
void ok_sha256_init(struct ok_sha256 *s);
void ok_sha256_update(struct ok_sha256 *s, const uint8_t *p, size_t n);
/* Writes the digest and re-initializes s, so a state is never reused by
 * accident with stale padding in it. */
void ok_sha256_final(struct ok_sha256 *s, uint8_t out[32]);
void ok_sha256(const uint8_t *p, size_t n, uint8_t out[32]);

/* Lowercase hex of n bytes into out, which holds 2n+1 chars (NUL-terminated). */
void ok_hex(const uint8_t *p, size_t n, char *out);

#endif
