/* XXH3-64, written from the xxHash specification (doc/xxhash_spec.md,
 * v0.2.0). Short (0-16), medium (17-240) and long (241+) inputs take the
 * spec's three algorithms; only the long one has a hot loop, the stripe
 * accumulate, which has a scalar and a wasm SIMD128 version.
 *
 * Streaming and one-shot share the long-input driver (consume_stripes):
 * a stripe is consumed only when at least one input byte follows it,
 * because the spec treats the final stripe specially (it is re-read as the
 * last 64 bytes, at another secret offset) and scrambles a block only when
 * input remains after it. With that rule the stripe sequence, the block
 * boundaries and the scrambles are the same for every split of the input. */
#include "xxh3.h"

#include <string.h>

#if defined(__wasm_simd128__) && !defined(OK_XXH3_SCALAR)
#include <wasm_simd128.h>
#define OK_XXH3_SIMD128 1
#endif

#define P32_1 0x9E3779B1u
#define P32_2 0x85EBCA77u
#define P32_3 0xC2B2AE3Du
#define P64_1 0x9E3779B185EBCA87ull
#define P64_2 0xC2B2AE3D27D4EB4Full
#define P64_3 0x165667B19E3779F9ull
#define P64_4 0x85EBCA77C2B2AE63ull
#define P64_5 0x27D4EB2F165667C5ull
#define PRIME_MX1 0x165667919E3779F9ull
#define PRIME_MX2 0x9FB21C651E98DF25ull

#define STRIPE 64
#define STRIPES_PER_BLOCK ((OK_XXH3_SECRET_SIZE - STRIPE) / 8) /* 16 */
#define SCRAMBLE_OFFSET (OK_XXH3_SECRET_SIZE - STRIPE)         /* 128 */
#define LAST_STRIPE_OFFSET (OK_XXH3_SECRET_SIZE - STRIPE - 7)  /* 121 */
#define MERGE_OFFSET 11
#define MID_SIZE_MAX 240

/* The spec's default secret (section "Seed and Secret"). */
static const uint8_t default_secret[OK_XXH3_SECRET_SIZE] = {
    0xb8, 0xfe, 0x6c, 0x39, 0x23, 0xa4, 0x4b, 0xbe, 0x7c, 0x01, 0x81, 0x2c, 0xf7, 0x21, 0xad, 0x1c,
    0xde, 0xd4, 0x6d, 0xe9, 0x83, 0x90, 0x97, 0xdb, 0x72, 0x40, 0xa4, 0xa4, 0xb7, 0xb3, 0x67, 0x1f,
    0xcb, 0x79, 0xe6, 0x4e, 0xcc, 0xc0, 0xe5, 0x78, 0x82, 0x5a, 0xd0, 0x7d, 0xcc, 0xff, 0x72, 0x21,
    0xb8, 0x08, 0x46, 0x74, 0xf7, 0x43, 0x24, 0x8e, 0xe0, 0x35, 0x90, 0xe6, 0x81, 0x3a, 0x26, 0x4c,
    0x3c, 0x28, 0x52, 0xbb, 0x91, 0xc3, 0x00, 0xcb, 0x88, 0xd0, 0x65, 0x8b, 0x1b, 0x53, 0x2e, 0xa3,
    0x71, 0x64, 0x48, 0x97, 0xa2, 0x0d, 0xf9, 0x4e, 0x38, 0x19, 0xef, 0x46, 0xa9, 0xde, 0xac, 0xd8,
    0xa8, 0xfa, 0x76, 0x3f, 0xe3, 0x9c, 0x34, 0x3f, 0xf9, 0xdc, 0xbb, 0xc7, 0xc7, 0x0b, 0x4f, 0x1d,
    0x8a, 0x51, 0xe0, 0x4b, 0xcd, 0xb4, 0x59, 0x31, 0xc8, 0x9f, 0x7e, 0xc9, 0xd9, 0x78, 0x73, 0x64,
    0xea, 0xc5, 0xac, 0x83, 0x34, 0xd3, 0xeb, 0xc3, 0xc5, 0x81, 0xa0, 0xff, 0xfa, 0x13, 0x63, 0xeb,
    0x17, 0x0d, 0xdd, 0x51, 0xb7, 0xf0, 0xda, 0x49, 0xd3, 0x16, 0x55, 0x26, 0x29, 0xd4, 0x68, 0x9e,
    0x2b, 0x16, 0xbe, 0x58, 0x7d, 0x47, 0xa1, 0xfc, 0x8f, 0xf8, 0xb8, 0xd1, 0x7a, 0xd0, 0x31, 0xce,
    0x45, 0xcb, 0x3a, 0x8f, 0x95, 0x16, 0x04, 0x28, 0xaf, 0xd7, 0xfb, 0xca, 0xbb, 0x4b, 0x40, 0x7e,
};

/* ---- little-endian loads and bit helpers ------------------------------ */

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define OK_XXH3_BIG_ENDIAN 1
#endif

/* memcpy: unaligned-safe and folded into one load by every compiler here. */
static uint32_t rd32(const uint8_t *p) {
    uint32_t v;
    memcpy(&v, p, 4);
#ifdef OK_XXH3_BIG_ENDIAN
    v = __builtin_bswap32(v);
#endif
    return v;
}

static uint64_t rd64(const uint8_t *p) {
    uint64_t v;
    memcpy(&v, p, 8);
#ifdef OK_XXH3_BIG_ENDIAN
    v = __builtin_bswap64(v);
#endif
    return v;
}

static void wr64(uint8_t *p, uint64_t v) {
#ifdef OK_XXH3_BIG_ENDIAN
    v = __builtin_bswap64(v);
#endif
    memcpy(p, &v, 8);
}

static uint32_t bswap32(uint32_t x) {
    return (x >> 24) | ((x >> 8) & 0xff00u) | ((x << 8) & 0xff0000u) | (x << 24);
}

static uint64_t bswap64(uint64_t x) {
    return ((uint64_t)bswap32((uint32_t)x) << 32) | bswap32((uint32_t)(x >> 32));
}

static uint64_t rotl64(uint64_t x, unsigned r) { return (x << r) | (x >> (64 - r)); }

/* Low half xor high half of the full 128-bit product. __int128 only where
 * it is a native instruction: on wasm32 it would be a libcall. */
static uint64_t mul128_fold64(uint64_t a, uint64_t b) {
#if defined(__SIZEOF_INT128__) && (defined(__x86_64__) || defined(__aarch64__))
    unsigned __int128 r = (unsigned __int128)a * b;
    return (uint64_t)r ^ (uint64_t)(r >> 64);
#else
    uint64_t lo_lo = (a & 0xffffffffu) * (b & 0xffffffffu);
    uint64_t hi_lo = (a >> 32) * (b & 0xffffffffu);
    uint64_t lo_hi = (a & 0xffffffffu) * (b >> 32);
    uint64_t hi_hi = (a >> 32) * (b >> 32);
    uint64_t cross = (lo_lo >> 32) + (hi_lo & 0xffffffffu) + lo_hi;
    uint64_t upper = (hi_lo >> 32) + (cross >> 32) + hi_hi;
    uint64_t lower = (cross << 32) | (lo_lo & 0xffffffffu);
    return lower ^ upper;
#endif
}

static uint64_t avalanche_xxh64(uint64_t x) {
    x ^= x >> 33;
    x *= P64_2;
    x ^= x >> 29;
    x *= P64_3;
    x ^= x >> 32;
    return x;
}

static uint64_t avalanche(uint64_t x) {
    x ^= x >> 37;
    x *= PRIME_MX1;
    x ^= x >> 32;
    return x;
}

/* ---- 0..16 bytes ------------------------------------------------------- */

static uint64_t len_0(const uint8_t *secret, uint64_t seed) {
    return avalanche_xxh64(seed ^ rd64(secret + 56) ^ rd64(secret + 64));
}

static uint64_t len_1to3(const uint8_t *p, size_t n, const uint8_t *secret, uint64_t seed) {
    uint32_t combined =
        (uint32_t)p[n - 1] | ((uint32_t)n << 8) | ((uint32_t)p[0] << 16) | ((uint32_t)p[n >> 1] << 24);
    uint64_t value = ((uint64_t)(rd32(secret) ^ rd32(secret + 4)) + seed) ^ combined;
    return avalanche_xxh64(value);
}

static uint64_t len_4to8(const uint8_t *p, size_t n, const uint8_t *secret, uint64_t seed) {
    uint64_t modified_seed = seed ^ ((uint64_t)bswap32((uint32_t)seed) << 32);
    uint64_t combined = (uint64_t)rd32(p + n - 4) | ((uint64_t)rd32(p) << 32);
    uint64_t value = ((rd64(secret + 8) ^ rd64(secret + 16)) - modified_seed) ^ combined;
    value ^= rotl64(value, 49) ^ rotl64(value, 24);
    value *= PRIME_MX2;
    value ^= (value >> 35) + (uint64_t)n;
    value *= PRIME_MX2;
    value ^= value >> 28;
    return value;
}

static uint64_t len_9to16(const uint8_t *p, size_t n, const uint8_t *secret, uint64_t seed) {
    uint64_t lo = ((rd64(secret + 24) ^ rd64(secret + 32)) + seed) ^ rd64(p);
    uint64_t hi = ((rd64(secret + 40) ^ rd64(secret + 48)) - seed) ^ rd64(p + n - 8);
    uint64_t value = (uint64_t)n + bswap64(lo) + hi + mul128_fold64(lo, hi);
    return avalanche(value);
}

/* ---- 17..240 bytes ----------------------------------------------------- */

static uint64_t mix16(const uint8_t *p, const uint8_t *secret, uint64_t seed) {
    return mul128_fold64(rd64(p) ^ (rd64(secret) + seed), rd64(p + 8) ^ (rd64(secret + 8) - seed));
}

static uint64_t len_17to128(const uint8_t *p, size_t n, const uint8_t *secret, uint64_t seed) {
    uint64_t acc = (uint64_t)n * P64_1;
    size_t rounds = ((n - 1) >> 5) + 1;
    /* Pairs of 16-byte chunks from both ends; the sum does not depend on
     * the order, so counting up is as good as the spec's counting down. */
    for (size_t i = 0; i < rounds; i++) {
        acc += mix16(p + 16 * i, secret + 32 * i, seed);
        acc += mix16(p + n - 16 * i - 16, secret + 32 * i + 16, seed);
    }
    return avalanche(acc);
}

static uint64_t len_129to240(const uint8_t *p, size_t n, const uint8_t *secret, uint64_t seed) {
    uint64_t acc = (uint64_t)n * P64_1;
    size_t chunks = n >> 4;
    for (size_t i = 0; i < 8; i++) acc += mix16(p + 16 * i, secret + 16 * i, seed);
    acc = avalanche(acc);
    for (size_t i = 8; i < chunks; i++) acc += mix16(p + 16 * i, secret + 16 * (i - 8) + 3, seed);
    acc += mix16(p + n - 16, secret + 119, seed);
    return avalanche(acc);
}

static uint64_t hash_upto240(const uint8_t *p, size_t n, uint64_t seed) {
    const uint8_t *k = default_secret; /* short inputs never use a derived secret */
    if (n > 128) return len_129to240(p, n, k, seed);
    if (n > 16) return len_17to128(p, n, k, seed);
    if (n > 8) return len_9to16(p, n, k, seed);
    if (n >= 4) return len_4to8(p, n, k, seed);
    if (n > 0) return len_1to3(p, n, k, seed);
    return len_0(k, seed);
}

/* ---- long inputs: stripes, blocks, scramble ---------------------------- */

static const uint64_t acc_init[8] = {P32_3, P64_1, P64_2, P64_3, P64_4, P32_2, P64_5, P32_1};

#ifdef OK_XXH3_SIMD128
/* Two 64-bit lanes per vector, two vectors at a time: one shuffle gathers
 * the low 32-bit halves of four lanes and one the high halves, so the four
 * 32x32->64 products are an extmul_low and an extmul_high (gathering per
 * vector took twice the shuffles and measured ~25% slower in V8). The
 * "acc[i ^ 1] += stripe[i]" swap is a 64-bit lane shuffle. */
static void accumulate(uint64_t acc[8], const uint8_t *p, size_t nstripes, const uint8_t *secret) {
    v128_t a0 = wasm_v128_load(acc), a1 = wasm_v128_load(acc + 2);
    v128_t a2 = wasm_v128_load(acc + 4), a3 = wasm_v128_load(acc + 6);
    for (size_t n = 0; n < nstripes; n++, p += STRIPE, secret += 8) {
#define OK_XXH3_PAIR(a, b, off)                                                                              \
    do {                                                                                                     \
        v128_t da_ = wasm_v128_load(p + (off)), db_ = wasm_v128_load(p + (off) + 16);                        \
        v128_t ka_ = wasm_v128_xor(da_, wasm_v128_load(secret + (off)));                                     \
        v128_t kb_ = wasm_v128_xor(db_, wasm_v128_load(secret + (off) + 16));                                \
        v128_t lo_ = wasm_i32x4_shuffle(ka_, kb_, 0, 2, 4, 6);                                               \
        v128_t hi_ = wasm_i32x4_shuffle(ka_, kb_, 1, 3, 5, 7);                                               \
        (a) = wasm_i64x2_add(                                                                                \
            (a), wasm_i64x2_add(wasm_u64x2_extmul_low_u32x4(lo_, hi_), wasm_i64x2_shuffle(da_, da_, 1, 0))); \
        (b) = wasm_i64x2_add((b), wasm_i64x2_add(wasm_u64x2_extmul_high_u32x4(lo_, hi_),                     \
                                                 wasm_i64x2_shuffle(db_, db_, 1, 0)));                       \
    } while (0)
        OK_XXH3_PAIR(a0, a1, 0);
        OK_XXH3_PAIR(a2, a3, 32);
#undef OK_XXH3_PAIR
    }
    wasm_v128_store(acc, a0);
    wasm_v128_store(acc + 2, a1);
    wasm_v128_store(acc + 4, a2);
    wasm_v128_store(acc + 6, a3);
}

/* Once per 1 KiB block, so a plain 64-bit lane multiply is fine. */
static void scramble(uint64_t acc[8], const uint8_t *secret) {
    const v128_t prime = wasm_i64x2_splat(P32_1);
    for (int i = 0; i < 8; i += 2) {
        v128_t a = wasm_v128_load(acc + i);
        a = wasm_v128_xor(a, wasm_u64x2_shr(a, 47));
        a = wasm_v128_xor(a, wasm_v128_load(secret + 8 * i));
        wasm_v128_store(acc + i, wasm_i64x2_mul(a, prime));
    }
}
#else
/* The accumulators are copied to a local array: the input is bytes, which
 * may alias acc, so the compiler would otherwise reload and store acc[] at
 * every step. */
static void accumulate(uint64_t acc[8], const uint8_t *p, size_t nstripes, const uint8_t *secret) {
    uint64_t a[8];
    memcpy(a, acc, sizeof a);
    for (size_t n = 0; n < nstripes; n++, p += STRIPE, secret += 8) {
        for (int i = 0; i < 8; i++) {
            uint64_t v = rd64(p + 8 * i);
            uint64_t k = v ^ rd64(secret + 8 * i);
            a[i ^ 1] += v;
            a[i] += (k & 0xffffffffu) * (k >> 32);
        }
    }
    memcpy(acc, a, sizeof a);
}

static void scramble(uint64_t acc[8], const uint8_t *secret) {
    for (int i = 0; i < 8; i++) {
        uint64_t a = acc[i];
        a ^= a >> 47;
        a ^= rd64(secret + 8 * i);
        acc[i] = a * P32_1;
    }
}
#endif

/* Feeds nstripes whole stripes, scrambling after each 16th stripe of a
 * block. Callers guarantee input follows the last of them (see top). */
static void consume_stripes(uint64_t acc[8], uint32_t *stripes, const uint8_t *p, size_t nstripes,
                            const uint8_t *secret) {
    while (nstripes) {
        size_t take = STRIPES_PER_BLOCK - *stripes;
        if (take > nstripes) take = nstripes;
        accumulate(acc, p, take, secret + 8 * *stripes);
        p += take * STRIPE;
        nstripes -= take;
        *stripes += (uint32_t)take;
        if (*stripes == STRIPES_PER_BLOCK) {
            scramble(acc, secret + SCRAMBLE_OFFSET);
            *stripes = 0;
        }
    }
}

/* The last 64 input bytes as a stripe, then the merge into one value. */
static uint64_t finish_long(uint64_t acc[8], const uint8_t *last_stripe, uint64_t total,
                            const uint8_t *secret) {
    accumulate(acc, last_stripe, 1, secret + LAST_STRIPE_OFFSET);
    uint64_t result = total * P64_1;
    for (int i = 0; i < 4; i++) {
        const uint8_t *k = secret + MERGE_OFFSET + 16 * i;
        result += mul128_fold64(acc[2 * i] ^ rd64(k), acc[2 * i + 1] ^ rd64(k + 8));
    }
    return avalanche(result);
}

static void derive_secret(uint8_t out[OK_XXH3_SECRET_SIZE], uint64_t seed) {
    for (int i = 0; i < OK_XXH3_SECRET_SIZE; i += 16) {
        wr64(out + i, rd64(default_secret + i) + seed);
        wr64(out + i + 8, rd64(default_secret + i + 8) - seed);
    }
}

/* ---- public API -------------------------------------------------------- */

size_t ok_xxh3_state_size(void) { return sizeof(ok_xxh3_state); }

uint64_t ok_xxh3_64(const void *data, size_t n, uint64_t seed) {
    const uint8_t *p = data;
    if (n <= MID_SIZE_MAX) return hash_upto240(p, n, seed);
    uint8_t derived[OK_XXH3_SECRET_SIZE];
    const uint8_t *secret = default_secret; /* a seed of 0 derives the default */
    if (seed) {
        derive_secret(derived, seed);
        secret = derived;
    }
    uint64_t acc[8];
    uint32_t stripes = 0;
    memcpy(acc, acc_init, sizeof acc);
    consume_stripes(acc, &stripes, p, (n - 1) / STRIPE, secret);
    return finish_long(acc, p + n - STRIPE, (uint64_t)n, secret);
}

void ok_xxh3_reset(ok_xxh3_state *s, uint64_t seed) {
    memcpy(s->acc, acc_init, sizeof s->acc);
    s->total = 0;
    s->seed = seed;
    s->buffered = 0;
    s->stripes = 0;
    memset(s->buf, 0, sizeof s->buf);
    if (seed) derive_secret(s->secret, seed);
    else memcpy(s->secret, default_secret, sizeof s->secret);
}

/* Input collects in buf + 64 until more than OK_XXH3_BUFFER_SIZE bytes have
 * come (so a message of up to 240 bytes is all there for the short paths at
 * digest). Past that, whole stripes are consumed, from buf or straight from
 * the caller's memory, always leaving 1..OK_XXH3_BUFFER_SIZE bytes buffered,
 * with the 64 bytes before them saved in buf[0..64). */
void ok_xxh3_update(ok_xxh3_state *s, const void *data, size_t n) {
    const uint8_t *p = data;
    if (n == 0) return;
    s->total += (uint64_t)n;
    if (n <= OK_XXH3_BUFFER_SIZE - s->buffered) {
        memcpy(s->buf + STRIPE + s->buffered, p, n);
        s->buffered += (uint32_t)n;
        return;
    }
    if (s->buffered) {
        size_t take = OK_XXH3_BUFFER_SIZE - s->buffered;
        memcpy(s->buf + STRIPE + s->buffered, p, take);
        p += take;
        n -= take; /* > 0: input follows the buffered stripes */
        consume_stripes(s->acc, &s->stripes, s->buf + STRIPE, OK_XXH3_BUFFER_SIZE / STRIPE, s->secret);
        memcpy(s->buf, s->buf + OK_XXH3_BUFFER_SIZE, STRIPE);
        s->buffered = 0;
    }
    if (n > OK_XXH3_BUFFER_SIZE) {
        size_t k = (n - 1) / STRIPE;
        consume_stripes(s->acc, &s->stripes, p, k, s->secret);
        memcpy(s->buf, p + k * STRIPE - STRIPE, STRIPE);
        p += k * STRIPE;
        n -= k * STRIPE;
    }
    memcpy(s->buf + STRIPE, p, n);
    s->buffered = (uint32_t)n;
}

uint64_t ok_xxh3_digest(const ok_xxh3_state *s) {
    const uint8_t *data = s->buf + STRIPE;
    if (s->total <= MID_SIZE_MAX) return hash_upto240(data, (size_t)s->total, s->seed);
    /* Work on copies: digest leaves the state as it was. */
    uint64_t acc[8];
    uint32_t stripes = s->stripes;
    memcpy(acc, s->acc, sizeof acc);
    consume_stripes(acc, &stripes, data, (s->buffered - 1) / STRIPE, s->secret);
    return finish_long(acc, data + s->buffered - STRIPE, s->total, s->secret);
}

void ok_xxh3_canonical(uint64_t h, uint8_t out[8]) {
    for (int i = 0; i < 8; i++) out[i] = (uint8_t)(h >> (56 - 8 * i));
}
