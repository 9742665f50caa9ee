/* SHA-256 per FIPS 180-4, section 6.2. Portable C: big-endian loads are
 * done byte by byte (compilers fold them into a load+bswap), the message
 * schedule lives in a 16-word ring instead of W[64], and the 64 rounds are
 * unrolled 8 at a time by rotating variable roles, which avoids the seven
 * register moves per round of the textbook loop. */
#include "sha256.h"

#include <string.h>

static const uint32_t K[64] = {
    0x428a2f98u, 0x71374491u, 0xb5c0fbcfu, 0xe9b5dba5u, 0x3956c25bu, 0x59f111f1u, 0x923f82a4u, 0xab1c5ed5u,
    0xd807aa98u, 0x12835b01u, 0x243185beu, 0x550c7dc3u, 0x72be5d74u, 0x80deb1feu, 0x9bdc06a7u, 0xc19bf174u,
    0xe49b69c1u, 0xefbe4786u, 0x0fc19dc6u, 0x240ca1ccu, 0x2de92c6fu, 0x4a7484aau, 0x5cb0a9dcu, 0x76f988dau,
    0x983e5152u, 0xa831c66du, 0xb00327c8u, 0xbf597fc7u, 0xc6e00bf3u, 0xd5a79147u, 0x06ca6351u, 0x14292967u,
    0x27b70a85u, 0x2e1b2138u, 0x4d2c6dfcu, 0x53380d13u, 0x650a7354u, 0x766a0abbu, 0x81c2c92eu, 0x92722c85u,
    0xa2bfe8a1u, 0xa81a664bu, 0xc24b8b70u, 0xc76c51a3u, 0xd192e819u, 0xd6990624u, 0xf40e3585u, 0x106aa070u,
    0x19a4c116u, 0x1e376c08u, 0x2748774cu, 0x34b0bcb5u, 0x391c0cb3u, 0x4ed8aa4au, 0x5b9cca4fu, 0x682e6ff3u,
    0x748f82eeu, 0x78a5636fu, 0x84c87814u, 0x8cc70208u, 0x90befffau, 0xa4506cebu, 0xbef9a3f7u, 0xc67178f2u};

#define ROTR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))
#define CH(x, y, z) (((x) & ((y) ^ (z))) ^ (z))
#define MAJ(x, y, z) (((x) & (y)) | ((z) & ((x) | (y))))
#define BSIG0(x) (ROTR(x, 2) ^ ROTR(x, 13) ^ ROTR(x, 22))
#define BSIG1(x) (ROTR(x, 6) ^ ROTR(x, 11) ^ ROTR(x, 25))
#define SSIG0(x) (ROTR(x, 7) ^ ROTR(x, 18) ^ ((x) >> 3))
#define SSIG1(x) (ROTR(x, 17) ^ ROTR(x, 19) ^ ((x) >> 10))

static uint32_t load_be32(const uint8_t *p) {
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

static void store_be32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* Round t (0..63) with schedule word w. The caller rotates the roles of
 * a..h, so "d += T1; h = T1 + T2" replaces the shifting of eight words. */
#define ROUND(a, b, c, d, e, f, g, h, t, w)                       \
    do {                                                          \
        uint32_t t1_ = (h) + BSIG1(e) + CH(e, f, g) + K[t] + (w); \
        (d) += t1_;                                               \
        (h) = t1_ + BSIG0(a) + MAJ(a, b, c);                      \
    } while (0)

/* W[t] for t >= 16, computed in place in the 16-word ring. */
#define SCHED(t) (W[(t)&15] += SSIG1(W[((t)-2) & 15]) + W[((t)-7) & 15] + SSIG0(W[((t)-15) & 15]))

#define EIGHT_ROUNDS(t, WX)                                  \
    do {                                                     \
        ROUND(a, b, c, d, e, f, g, h, (t) + 0, WX((t) + 0)); \
        ROUND(h, a, b, c, d, e, f, g, (t) + 1, WX((t) + 1)); \
        ROUND(g, h, a, b, c, d, e, f, (t) + 2, WX((t) + 2)); \
        ROUND(f, g, h, a, b, c, d, e, (t) + 3, WX((t) + 3)); \
        ROUND(e, f, g, h, a, b, c, d, (t) + 4, WX((t) + 4)); \
        ROUND(d, e, f, g, h, a, b, c, (t) + 5, WX((t) + 5)); \
        ROUND(c, d, e, f, g, h, a, b, (t) + 6, WX((t) + 6)); \
        ROUND(b, c, d, e, f, g, h, a, (t) + 7, WX((t) + 7)); \
    } while (0)

#define WLOAD(t) (W[t] = load_be32(p + 4 * (t)))

/* Compress nblocks consecutive 64-byte blocks into h. */
static void compress(uint32_t st[8], const uint8_t *p, size_t nblocks) {
    while (nblocks--) {
        uint32_t W[16];
        uint32_t a = st[0], b = st[1], c = st[2], d = st[3];
        uint32_t e = st[4], f = st[5], g = st[6], h = st[7];
        EIGHT_ROUNDS(0, WLOAD);
        EIGHT_ROUNDS(8, WLOAD);
        EIGHT_ROUNDS(16, SCHED);
        EIGHT_ROUNDS(24, SCHED);
        EIGHT_ROUNDS(32, SCHED);
        EIGHT_ROUNDS(40, SCHED);
        EIGHT_ROUNDS(48, SCHED);
        EIGHT_ROUNDS(56, SCHED);
        st[0] += a;
        st[1] += b;
        st[2] += c;
        st[3] += d;
        st[4] += e;
        st[5] += f;
        st[6] += g;
        st[7] += h;
        p += 64;
    }
}

size_t ok_sha256_state_size(void) { return sizeof(struct ok_sha256); }

void ok_sha256_init(struct ok_sha256 *s) {
    /* FIPS 180-4 5.3.3: first 32 bits of the fractional parts of the
     * square roots of the first eight primes. */
    s->h[0] = 0x6a09e667u;
    s->h[1] = 0xbb67ae85u;
    s->h[2] = 0x3c6ef372u;
    s->h[3] = 0xa54ff53au;
    s->h[4] = 0x510e527fu;
    s->h[5] = 0x9b05688cu;
    s->h[6] = 0x1f83d9abu;
    s->h[7] = 0x5be0cd19u;
    s->total = 0;
    s->buffered = 0;
    s->pad_ = 0;
    memset(s->buf, 0, sizeof s->buf);
}

void ok_sha256_update(struct ok_sha256 *s, const uint8_t *p, size_t n) {
    if (n == 0) return; /* p may be NULL for an empty chunk */
    s->total += (uint64_t)n;
    if (s->buffered) {
        size_t take = 64 - s->buffered;
        if (take > n) take = n;
        memcpy(s->buf + s->buffered, p, take);
        s->buffered += (uint32_t)take;
        p += take;
        n -= take;
        if (s->buffered < 64) return;
        compress(s->h, s->buf, 1);
        s->buffered = 0;
    }
    /* Whole blocks straight from the caller's memory: no copy. */
    if (n >= 64) {
        size_t blocks = n / 64;
        compress(s->h, p, blocks);
        p += blocks * 64;
        n -= blocks * 64;
    }
    if (n) {
        memcpy(s->buf, p, n);
        s->buffered = (uint32_t)n;
    }
}

void ok_sha256_final(struct ok_sha256 *s, uint8_t out[32]) {
    uint64_t bits = s->total * 8u;
    uint32_t used = s->buffered;
    /* 5.1.1: a 1 bit, zeros to 56 mod 64, then the 64-bit length. */
    s->buf[used++] = 0x80;
    if (used > 56) {
        memset(s->buf + used, 0, 64 - used);
        compress(s->h, s->buf, 1);
        used = 0;
    }
    memset(s->buf + used, 0, 56 - used);
    store_be32(s->buf + 56, (uint32_t)(bits >> 32));
    store_be32(s->buf + 60, (uint32_t)bits);
    compress(s->h, s->buf, 1);
    for (int i = 0; i < 8; i++) store_be32(out + 4 * i, s->h[i]);
    ok_sha256_init(s);
}

void ok_sha256(const uint8_t *p, size_t n, uint8_t out[32]) {
    struct ok_sha256 s;
    ok_sha256_init(&s);
    ok_sha256_update(&s, p, n);
    ok_sha256_final(&s, out);
}

void ok_hex(const uint8_t *p, size_t n, char *out) {
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[p[i] >> 4];
        out[2 * i + 1] = digits[p[i] & 15];
    }
    out[2 * n] = '\0';
}
