/* XXH3-64 (xxHash specification v0.2.0, "XXH3 Algorithm Description"):
 * one-shot and streaming, with an optional 64-bit seed. The model cache uses
 * it as the per-chunk checksum that catches torn or rotten records at rest;
 * it is not a defence against an adversary (SHA-256 covers that).
 *
 * No I/O, no allocation. The state is a plain public struct so JS can
 * allocate it inside wasm memory (ok_xxh3_state_size() bytes, 8-byte
 * aligned) and stream chunks through it.
 *
 * Inner loop: a wasm SIMD128 kernel when compiled with -msimd128, else
 * portable scalar C; both give the same bits (the tests check every build
 * against the same vectors). Define OK_XXH3_SCALAR to force scalar.
 *
 * Results are plain uint64_t; the canonical byte form (for storage or
 * display) is big-endian, as in the reference implementation's
 * XXH64_canonical_t. */
#ifndef ORTKEEP_XXH3_H
#define ORTKEEP_XXH3_H

#include <stddef.h>
#include <stdint.h>

#define OK_XXH3_SECRET_SIZE 192 /* the default secret; seeded secrets too */
#define OK_XXH3_BUFFER_SIZE 256 /* 4 stripes; must exceed 240 (see xxh3.c) */

/* Streaming state. Fields are private to xxh3.c; they are public only so the
 * size is known at compile time and the struct can live on the stack or in
 * wasm memory. */
typedef struct ok_xxh3_state {
    uint64_t acc[8]; /* long-input accumulators */
    uint64_t total;  /* bytes fed so far */
    uint64_t seed;
    uint32_t buffered; /* bytes at buf + 64, 0..OK_XXH3_BUFFER_SIZE */
    uint32_t stripes;  /* stripes consumed in the current block, 0..15 */
    /* buf[0..64) holds the 64 input bytes just before buf + 64 once any
     * stripe has been consumed: the final stripe may straddle them. */
    uint8_t buf[64 + OK_XXH3_BUFFER_SIZE];
    uint8_t secret[OK_XXH3_SECRET_SIZE]; /* default, or derived from seed */
} ok_xxh3_state;

/* sizeof(ok_xxh3_state), for JS to allocate one in wasm memory (8-aligned). */
size_t ok_xxh3_state_size(void);

/* XXH3_64bits_withSeed(p, n, seed); seed 0 is plain XXH3_64bits. p may be
 * NULL when n is 0. */
uint64_t ok_xxh3_64(const void *p, size_t n, uint64_t seed);

/* Starts a new message with the given seed (0 for the unseeded hash). Must
 * be called before the first update; it may be called again at any time to
 * start over. */
void ok_xxh3_reset(ok_xxh3_state *s, uint64_t seed);

/* Appends n bytes. Any split of a message into updates gives the same
 * digest as ok_xxh3_64 on the whole. p may be NULL when n is 0. */
void ok_xxh3_update(ok_xxh3_state *s, const void *p, size_t n);

/* Hash of everything fed since the last reset. Does not change the state:
 * more updates may follow and digest again (a running checksum). */
uint64_t ok_xxh3_digest(const ok_xxh3_state *s);

/* Writes h big-endian into out[8]: XXH3's canonical byte form. */
void ok_xxh3_canonical(uint64_t h, uint8_t out[8]);

#endif
