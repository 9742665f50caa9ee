/* Streaming SHA-512 and SHA-384 (FIPS 180-4). With sha256.h this covers
 * every Subresource Integrity algorithm ("sha256-", "sha384-", "sha512-").
 * No I/O, no allocation.
 *
 * SHA-384 is SHA-512 with other initial values, truncated to 48 bytes, so
 * one state type and one update serve both: the init function picks the
 * variant and final writes that variant's digest.
 *
 * The state is a plain public struct so JS can allocate it inside wasm
 * memory (ok_sha512_state_size() bytes, 8-byte aligned) and stream chunks
 * through it as they arrive. As with SHA-256, feed chunks of at most a few
 * MB: V8 tiers a wasm function up only between calls. */
#ifndef ORTKEEP_SHA512_H
#define ORTKEEP_SHA512_H

#include <stddef.h>
#include <stdint.h>

#define OK_SHA512_DIGEST_SIZE 64
#define OK_SHA384_DIGEST_SIZE 48

/* The type is `struct ok_sha512` (alias ok_sha512_ctx): a typedef named
 * ok_sha512 would collide with the one-shot function, as in sha256.h. */
typedef struct ok_sha512 {
    uint64_t h[8];       /* chaining value */
    uint64_t total;      /* message bytes fed so far (the bit length is total * 8,
                           * written as the spec's 128-bit field) */
    uint32_t buffered;   /* bytes held in buf, always < 128 between calls */
    uint32_t digest_len; /* 64 (SHA-512) or 48 (SHA-384), set by init */
    uint8_t buf[128];    /* partial block */
} ok_sha512_ctx;

/* sizeof(struct ok_sha512), for JS to allocate one in wasm memory. */
size_t ok_sha512_state_size(void);

/* Start a SHA-512 message. */
void ok_sha512_init(struct ok_sha512 *s);

/* Start a SHA-384 message (same state type, update and final). */
void ok_sha384_init(struct ok_sha512 *s);

/* Append n bytes to either variant; p may be NULL when n is 0. */
void ok_sha512_update(struct ok_sha512 *s, const uint8_t *p, size_t n);

/* Writes the digest of the variant s was initialized as (64 bytes for
 * SHA-512, 48 for SHA-384) into out and returns its length. Re-initializes
 * s as the same variant, so a state is never reused by accident with stale
 * padding in it. */
size_t ok_sha512_final(struct ok_sha512 *s, uint8_t *out);

/* One-shot digests. */
void ok_sha512(const uint8_t *p, size_t n, uint8_t out[64]);
void ok_sha384(const uint8_t *p, size_t n, uint8_t out[48]);

#endif
