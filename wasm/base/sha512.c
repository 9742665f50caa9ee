/* SHA-512 and SHA-384 per FIPS 180-4, sections 6.4 and 6.5: the SHA-256
 * structure (sha256.c) on 64-bit words, 80 rounds, 128-byte blocks and a
 * 128-bit length field. The same choices as sha256.c: byte-wise big-endian
 * loads, a 16-word schedule ring instead of W[80], and rounds unrolled 8 at
 * a time by rotating variable roles. */
#include "sha512.h"

#include <string.h>

/* FIPS 180-4 4.2.3: first 64 bits of the fractional parts of the cube roots
 * of the first eighty primes. */
static const uint64_t K[80] = {
    0x428a2f98d728ae22ull, 0x7137449123ef65cdull, 0xb5c0fbcfec4d3b2full, 0xe9b5dba58189dbbcull,
    0x3956c25bf348b538ull, 0x59f111f1b605d019ull, 0x923f82a4af194f9bull, 0xab1c5ed5da6d8118ull,
    0xd807aa98a3030242ull, 0x12835b0145706fbeull, 0x243185be4ee4b28cull, 0x550c7dc3d5ffb4e2ull,
    0x72be5d74f27b896full, 0x80deb1fe3b1696b1ull, 0x9bdc06a725c71235ull, 0xc19bf174cf692694ull,
    0xe49b69c19ef14ad2ull, 0xefbe4786384f25e3ull, 0x0fc19dc68b8cd5b5ull, 0x240ca1cc77ac9c65ull,
    0x2de92c6f592b0275ull, 0x4a7484aa6ea6e483ull, 0x5cb0a9dcbd41fbd4ull, 0x76f988da831153b5ull,
    0x983e5152ee66dfabull, 0xa831c66d2db43210ull, 0xb00327c898fb213full, 0xbf597fc7beef0ee4ull,
    0xc6e00bf33da88fc2ull, 0xd5a79147930aa725ull, 0x06ca6351e003826full, 0x142929670a0e6e70ull,
    0x27b70a8546d22ffcull, 0x2e1b21385c26c926ull, 0x4d2c6dfc5ac42aedull, 0x53380d139d95b3dfull,
    0x650a73548baf63deull, 0x766a0abb3c77b2a8ull, 0x81c2c92e47edaee6ull, 0x92722c851482353bull,
    0xa2bfe8a14cf10364ull, 0xa81a664bbc423001ull, 0xc24b8b70d0f89791ull, 0xc76c51a30654be30ull,
    0xd192e819d6ef5218ull, 0xd69906245565a910ull, 0xf40e35855771202aull, 0x106aa07032bbd1b8ull,
    0x19a4c116b8d2d0c8ull, 0x1e376c085141ab53ull, 0x2748774cdf8eeb99ull, 0x34b0bcb5e19b48a8ull,
    0x391c0cb3c5c95a63ull, 0x4ed8aa4ae3418acbull, 0x5b9cca4f7763e373ull, 0x682e6ff3d6b2b8a3ull,
    0x748f82ee5defb2fcull, 0x78a5636f43172f60ull, 0x84c87814a1f0ab72ull, 0x8cc702081a6439ecull,
    0x90befffa23631e28ull, 0xa4506cebde82bde9ull, 0xbef9a3f7b2c67915ull, 0xc67178f2e372532bull,
    0xca273eceea26619cull, 0xd186b8c721c0c207ull, 0xeada7dd6cde0eb1eull, 0xf57d4f7fee6ed178ull,
    0x06f067aa72176fbaull, 0x0a637dc5a2c898a6ull, 0x113f9804bef90daeull, 0x1b710b35131c471bull,
    0x28db77f523047d84ull, 0x32caab7b40c72493ull, 0x3c9ebe0a15c9bebcull, 0x431d67c49c100d4cull,
    0x4cc5d4becb3e42b6ull, 0x597f299cfc657e2aull, 0x5fcb6fab3ad6faecull, 0x6c44198c4a475817ull,
};

/* 5.3.5: square roots of the first eight primes; 5.3.4: of the ninth
 * through sixteenth (SHA-384). */
static const uint64_t IV512[8] = {0x6a09e667f3bcc908ull, 0xbb67ae8584caa73bull, 0x3c6ef372fe94f82bull,
                                  0xa54ff53a5f1d36f1ull, 0x510e527fade682d1ull, 0x9b05688c2b3e6c1full,
                                  0x1f83d9abfb41bd6bull, 0x5be0cd19137e2179ull};
static const uint64_t IV384[8] = {0xcbbb9d5dc1059ed8ull, 0x629a292a367cd507ull, 0x9159015a3070dd17ull,
                                  0x152fecd8f70e5939ull, 0x67332667ffc00b31ull, 0x8eb44a8768581511ull,
                                  0xdb0c2e0d64f98fa7ull, 0x47b5481dbefa4fa4ull};

#define ROTR(x, n) (((x) >> (n)) | ((x) << (64 - (n))))
#define CH(x, y, z) (((x) & ((y) ^ (z))) ^ (z))
#define MAJ(x, y, z) (((x) & (y)) | ((z) & ((x) | (y))))
#define BSIG0(x) (ROTR(x, 28) ^ ROTR(x, 34) ^ ROTR(x, 39))
#define BSIG1(x) (ROTR(x, 14) ^ ROTR(x, 18) ^ ROTR(x, 41))
#define SSIG0(x) (ROTR(x, 1) ^ ROTR(x, 8) ^ ((x) >> 7))
#define SSIG1(x) (ROTR(x, 19) ^ ROTR(x, 61) ^ ((x) >> 6))

static uint64_t load_be64(const uint8_t *p) {
    return ((uint64_t)p[0] << 56) | ((uint64_t)p[1] << 48) | ((uint64_t)p[2] << 40) | ((uint64_t)p[3] << 32) |
           ((uint64_t)p[4] << 24) | ((uint64_t)p[5] << 16) | ((uint64_t)p[6] << 8) | (uint64_t)p[7];
}

static void store_be64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (56 - 8 * i));
}

/* Round t (0..79) with schedule word w; the caller rotates a..h. */
#define ROUND(a, b, c, d, e, f, g, h, t, w)                       \
    do {                                                          \
        uint64_t t1_ = (h) + BSIG1(e) + CH(e, f, g) + K[t] + (w); \
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

#define WLOAD(t) (W[t] = load_be64(p + 8 * (t)))

/* Compress nblocks consecutive 128-byte blocks into st. */
static void compress(uint64_t st[8], const uint8_t *p, size_t nblocks) {
    while (nblocks--) {
        uint64_t W[16];
        uint64_t a = st[0], b = st[1], c = st[2], d = st[3];
        uint64_t e = st[4], f = st[5], g = st[6], h = st[7];
        EIGHT_ROUNDS(0, WLOAD);
        EIGHT_ROUNDS(8, WLOAD);
        for (int t = 16; t < 80; t += 16) { /* a loop here keeps the code small */
            EIGHT_ROUNDS(t, SCHED);
            EIGHT_ROUNDS(t + 8, SCHED);
        }
        st[0] += a;
        st[1] += b;
        st[2] += c;
        st[3] += d;
        st[4] += e;
        st[5] += f;
        st[6] += g;
        st[7] += h;
        p += 128;
    }
}

size_t ok_sha512_state_size(void) { return sizeof(struct ok_sha512); }

static void init_with(struct ok_sha512 *s, const uint64_t iv[8], uint32_t digest_len) {
    memcpy(s->h, iv, sizeof s->h);
    s->total = 0;
    s->buffered = 0;
    s->digest_len = digest_len;
    memset(s->buf, 0, sizeof s->buf);
}

void ok_sha512_init(struct ok_sha512 *s) { init_with(s, IV512, OK_SHA512_DIGEST_SIZE); }

void ok_sha384_init(struct ok_sha512 *s) { init_with(s, IV384, OK_SHA384_DIGEST_SIZE); }

void ok_sha512_update(struct ok_sha512 *s, const uint8_t *p, size_t n) {
    if (n == 0) return; /* p may be NULL for an empty chunk */
    s->total += (uint64_t)n;
    if (s->buffered) {
        size_t take = 128 - s->buffered;
        if (take > n) take = n;
        memcpy(s->buf + s->buffered, p, take);
        s->buffered += (uint32_t)take;
        p += take;
        n -= take;
        if (s->buffered < 128) return;
        compress(s->h, s->buf, 1);
        s->buffered = 0;
    }
    /* Whole blocks straight from the caller's memory: no copy. */
    if (n >= 128) {
        size_t blocks = n / 128;
        compress(s->h, p, blocks);
        p += blocks * 128;
        n -= blocks * 128;
    }
    if (n) {
        memcpy(s->buf, p, n);
        s->buffered = (uint32_t)n;
    }
}

size_t ok_sha512_final(struct ok_sha512 *s, uint8_t *out) {
    uint32_t used = s->buffered;
    uint32_t len = s->digest_len;
    /* 5.1.2: a 1 bit, zeros to 112 mod 128, then the 128-bit bit length
     * (its high word is the top 3 bits of total, shifted out by * 8). */
    s->buf[used++] = 0x80;
    if (used > 112) {
        memset(s->buf + used, 0, 128 - used);
        compress(s->h, s->buf, 1);
        used = 0;
    }
    memset(s->buf + used, 0, 112 - used);
    store_be64(s->buf + 112, s->total >> 61);
    store_be64(s->buf + 120, s->total << 3);
    compress(s->h, s->buf, 1);
    /* SHA-384 keeps the leftmost 384 bits: the first six words. */
    for (uint32_t i = 0; i < len / 8; i++) store_be64(out + 8 * i, s->h[i]);
    if (len == OK_SHA384_DIGEST_SIZE) ok_sha384_init(s);
    else ok_sha512_init(s);
    return len;
}

void ok_sha512(const uint8_t *p, size_t n, uint8_t out[64]) {
    struct ok_sha512 s;
    ok_sha512_init(&s);
    ok_sha512_update(&s, p, n);
    ok_sha512_final(&s, out);
}

void ok_sha384(const uint8_t *p, size_t n, uint8_t out[48]) {
    struct ok_sha512 s;
    ok_sha384_init(&s);
    ok_sha512_update(&s, p, n);
    ok_sha512_final(&s, out);
}
