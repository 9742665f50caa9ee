/* SHA-256: FIPS 180-4 / NIST example vectors, every padding boundary, and
 * streaming == one-shot for every split of a pseudo-random buffer. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sha256.h"

static void hex_of(const uint8_t *p, size_t n, char out[65]) {
    uint8_t d[32];
    ok_sha256(p, n, d);
    ok_hex(d, 32, out);
}

static void test_vectors(void) {
    char hex[65];
    hex_of((const uint8_t *)"", 0, hex);
    CHECK_EQ_STR(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    hex_of(NULL, 0, hex); /* empty input may come with a NULL pointer */
    CHECK_EQ_STR(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    hex_of((const uint8_t *)"abc", 3, hex);
    CHECK_EQ_STR(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *m448 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    CHECK_EQ_INT(strlen(m448) * 8, 448);
    hex_of((const uint8_t *)m448, strlen(m448), hex);
    CHECK_EQ_STR(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    const char *m896 = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno"
                       "ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";
    CHECK_EQ_INT(strlen(m896) * 8, 896);
    hex_of((const uint8_t *)m896, strlen(m896), hex);
    CHECK_EQ_STR(hex, "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
}

static void test_million_a(void) {
    const char *want = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0";
    uint8_t *a = malloc(1000000);
    CHECK(a != NULL);
    if (!a) return;
    memset(a, 'a', 1000000);
    char hex[65];
    hex_of(a, 1000000, hex);
    CHECK_EQ_STR(hex, want);
    /* Same, streamed in odd chunks that straddle block boundaries. */
    struct ok_sha256 s;
    ok_sha256_init(&s);
    size_t off = 0, step = 1;
    while (off < 1000000) {
        size_t n = step < 1000000 - off ? step : 1000000 - off;
        ok_sha256_update(&s, a + off, n);
        off += n;
        step = step * 3 % 997 + 1;
    }
    uint8_t d[32];
    ok_sha256_final(&s, d);
    ok_hex(d, 32, hex);
    CHECK_EQ_STR(hex, want);
    free(a);
}

static uint32_t rng_state = 12345;
static uint32_t rng(void) { /* xorshift32: deterministic on every target */
    uint32_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return rng_state = x;
}

/* Every length 0..299 (so every padding case: 55, 56, 63, 64, 119, 120...)
 * hashed, digests chained; the expected value comes from Python's hashlib. */
static void test_all_lengths(void) {
    uint8_t buf[300];
    for (int i = 0; i < 300; i++) buf[i] = (uint8_t)(((i * 131 + 7) ^ (i >> 3)) & 255);
    ok_sha256_ctx chain;
    ok_sha256_init(&chain);
    for (size_t n = 0; n < 300; n++) {
        uint8_t d[32];
        ok_sha256(buf, n, d);
        ok_sha256_update(&chain, d, 32);
    }
    uint8_t d[32];
    char hex[65];
    ok_sha256_final(&chain, d);
    ok_hex(d, 32, hex);
    CHECK_EQ_STR(hex, "87e8c044a17a8e439cbfab010f72eb2601f282e55e7d67589dbf7c0650f22cae");
}

static void test_streaming(void) {
    uint8_t buf[1000], want[32], got[32];
    for (int i = 0; i < 1000; i++) buf[i] = (uint8_t)rng();
    ok_sha256(buf, sizeof buf, want);
    int mismatches = 0;
    struct ok_sha256 s;
    for (size_t split = 0; split <= sizeof buf; split++) {
        ok_sha256_init(&s);
        ok_sha256_update(&s, buf, split);
        ok_sha256_update(&s, buf + split, sizeof buf - split);
        ok_sha256_final(&s, got);
        mismatches += memcmp(got, want, 32) != 0;
    }
    CHECK_EQ_INT(mismatches, 0);
    /* Random multi-splits, including empty chunks. */
    mismatches = 0;
    for (int trial = 0; trial < 2000; trial++) {
        ok_sha256_init(&s);
        size_t off = 0;
        while (off < sizeof buf) {
            size_t n = rng() % (trial % 3 == 0 ? 8 : 200);
            if (n > sizeof buf - off) n = sizeof buf - off;
            ok_sha256_update(&s, buf + off, n);
            off += n;
        }
        ok_sha256_final(&s, got);
        mismatches += memcmp(got, want, 32) != 0;
    }
    CHECK_EQ_INT(mismatches, 0);
    /* final re-initializes: the state hashes a fresh message right away. */
    ok_sha256_update(&s, (const uint8_t *)"abc", 3);
    ok_sha256_final(&s, got);
    char hex[65];
    ok_hex(got, 32, hex);
    CHECK_EQ_STR(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

static void test_hex_and_size(void) {
    const uint8_t b[] = {0x00, 0x0f, 0xa5, 0xff};
    char out[9];
    memset(out, 'x', sizeof out);
    ok_hex(b, 4, out);
    CHECK_EQ_STR(out, "000fa5ff");
    ok_hex(b, 0, out);
    CHECK_EQ_STR(out, "");
    CHECK_EQ_INT(ok_sha256_state_size(), sizeof(struct ok_sha256));
    CHECK_EQ_INT(ok_sha256_state_size(), 112); /* same on wasm32 and native: JS relies on it */
}

int main(void) {
    test_vectors();
    test_million_a();
    test_all_lengths();
    test_streaming();
    test_hex_and_size();
    return CHECK_DONE();
}
