/* SHA-512 and SHA-384: FIPS 180-4 / NIST example vectors ("abc", the
 * 448- and 896-bit messages, one million 'a'), every length 0..299 (every
 * padding case: 111, 112, 127, 128, 239, 240...), assorted lengths to 1 MiB
 * against digests computed with node:crypto, and streaming == one-shot for
 * every split and random multi-splits. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sha256.h" /* ok_hex */
#include "sha512.h"

typedef void (*oneshot_fn)(const uint8_t *, size_t, uint8_t *);

static void sha512_oneshot(const uint8_t *p, size_t n, uint8_t *out) { ok_sha512(p, n, out); }
static void sha384_oneshot(const uint8_t *p, size_t n, uint8_t *out) { ok_sha384(p, n, out); }

/* The two variants, so every test runs on both. */
static const struct variant {
    const char *name;
    size_t len;
    void (*init)(struct ok_sha512 *);
    oneshot_fn oneshot;
} variants[2] = {
    {"sha512", 64, ok_sha512_init, sha512_oneshot},
    {"sha384", 48, ok_sha384_init, sha384_oneshot},
};

static void hex_of(const struct variant *v, const uint8_t *p, size_t n, char out[129]) {
    uint8_t d[64];
    v->oneshot(p, n, d);
    ok_hex(d, v->len, out);
}

static const char *m448 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
static const char *m896 = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno"
                          "ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";

/* Per variant: "", "abc", 448-bit, 896-bit, one million 'a'. */
static const char *nist[2][5] = {
    {"cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e",
     "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
     "204a8fc6dda82f0a0ced7beb8e08a41657c16ef468b228a8279be331a703c33596fd15c13b1b07f9aa1d3bea57789ca031ad85c7a71dd70354ec631238ca3445",
     "8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018501d289e4900f7e4331b99dec4b5433ac7d329eeb6dd26545e96e55b874be909",
     "e718483d0ce769644e2e42c7bc15b4638e1f98b13b2044285632a803afa973ebde0ff244877ea60a4cb0432ce577c31beb009c5c2c49aa2e4eadb217ad8cc09b"},
    {"38b060a751ac96384cd9327eb1b1e36a21fdb71114be07434c0cc7bf63f6e1da274edebfe76f65fbd51ad2f14898b95b",
     "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7",
     "3391fdddfc8dc7393707a65b1b4709397cf8b1d162af05abfe8f450de5f36bc6b0455a8520bc4e6f5fe95b1fe3c8452b",
     "09330c33f71147e83d192fc782cd1b4753111b173b3b05d22fa08086e3b0f712fcc7c71a557e2db966c3e9fa91746039",
     "9d0e1809716474cb086e834e310a4a1ced149e9c00f248527972cec5704c2a5b07b8b3dc38ecc4ebae97ddd87f3d8985"},
};

static void test_nist(void) {
    char hex[129];
    CHECK_EQ_INT(strlen(m448) * 8, 448);
    CHECK_EQ_INT(strlen(m896) * 8, 896);
    for (int k = 0; k < 2; k++) {
        const struct variant *v = &variants[k];
        hex_of(v, (const uint8_t *)"", 0, hex);
        CHECK_EQ_STR(hex, nist[k][0]);
        hex_of(v, NULL, 0, hex); /* empty input may come with a NULL pointer */
        CHECK_EQ_STR(hex, nist[k][0]);
        hex_of(v, (const uint8_t *)"abc", 3, hex);
        CHECK_EQ_STR(hex, nist[k][1]);
        hex_of(v, (const uint8_t *)m448, strlen(m448), hex);
        CHECK_EQ_STR(hex, nist[k][2]);
        hex_of(v, (const uint8_t *)m896, strlen(m896), hex);
        CHECK_EQ_STR(hex, nist[k][3]);
    }
}

static void test_million_a(void) {
    uint8_t *a = malloc(1000000);
    CHECK(a != NULL);
    if (!a) return;
    memset(a, 'a', 1000000);
    for (int k = 0; k < 2; k++) {
        const struct variant *v = &variants[k];
        char hex[129];
        hex_of(v, a, 1000000, hex);
        CHECK_EQ_STR(hex, nist[k][4]);
        /* Same, streamed in odd chunks that straddle block boundaries. */
        struct ok_sha512 s;
        v->init(&s);
        size_t off = 0, step = 1;
        while (off < 1000000) {
            size_t n = step < 1000000 - off ? step : 1000000 - off;
            ok_sha512_update(&s, a + off, n);
            off += n;
            step = step * 3 % 1999 + 1;
        }
        uint8_t d[64];
        CHECK_EQ_INT(ok_sha512_final(&s, d), v->len);
        ok_hex(d, v->len, hex);
        CHECK_EQ_STR(hex, nist[k][4]);
    }
    free(a);
}

/* Every length 0..299, digests chained into one digest of the same variant;
 * the expected values come from node:crypto (same construction). */
static void test_all_lengths(void) {
    static const char *want[2] = {
        "6e01f99e5a3a907990e6e66f440af059f0c1bbf44093fbec58fef7871262245c06c19e4153f799e135f1650c4cd28578eea2736d0010d4ca52341e8e0cdb3127",
        "3a5869acf80a3d83b17e94867ce1ffa484566c90b835e83c0dae641982267f853f691a1c745938e6c5340b62aad6b94f"};
    uint8_t buf[300];
    for (int i = 0; i < 300; i++) buf[i] = (uint8_t)(((i * 131 + 7) ^ (i >> 3)) & 255);
    for (int k = 0; k < 2; k++) {
        const struct variant *v = &variants[k];
        struct ok_sha512 chain;
        v->init(&chain);
        for (size_t n = 0; n < 300; n++) {
            uint8_t d[64];
            v->oneshot(buf, n, d);
            ok_sha512_update(&chain, d, v->len);
        }
        uint8_t d[64];
        char hex[129];
        ok_sha512_final(&chain, d);
        ok_hex(d, v->len, hex);
        CHECK_EQ_STR(hex, want[k]);
    }
}

/* node:crypto digests of the first n bytes of
 * b[i] = ((i * 167) ^ (i >> 5) ^ (i >> 13)) & 255. */
static const struct {
    size_t n;
    const char *hex;
} sized[2][19] = {
    {
        {1,
         "b8244d028981d693af7b456af8efa4cad63d282e19ff14942c246e50d9351d22704a802a71c3580b6370de4ceb293c324a8423342557d4e5c38438f0e36910ee"},
        {55,
         "a7535d9bf859e68b59db8b2f9712f4378797913fb74bb3a24d19eac6d0d01a846e5b5bc4aaf6df8786c382432413c7da3e30ef1a4e9de3eb6973cf4ba2b20f3b"},
        {56,
         "56ae7161a803835f28c8fa3ca581ec3a88802a9ae49749b882a7bfe945fc582eafd2775d07ae09039eb04ef8cdbc1d5f087cbed2b8f773b328b5bc0c48305ec8"},
        {111,
         "b32a8c54500667619276dbcd52fafff20641185cf4f60d6ce852a3774594705f5d672e4eff0a4c1eef8aae288b86c5ef9d080985a62a7db6dbced38d8542afd4"},
        {112,
         "533c25a73df217c407e418576f096fb115c9fc2d8883b6532bb27e361fbb37d2fe0c6bd3ad8f6e1578bab4f0b355157da292394ada089f0ccd7ed662228b19d3"},
        {113,
         "7bb2ea3b562d4411507db5cd52398854d6c2d371a60828bf7b9d867ab1bab5798eca81cd60e88d051f6bade876d674a1e86a73179c4e821aedc0e0bbe2e8edfb"},
        {127,
         "e9dea329b7e0737796e8806661a8a8b1ee3e8e0ef9f7acd10fcb46366870c61a44017b66fd67deedf8d802c35d519988bfb97a4d8835012c923f332d6de718a1"},
        {128,
         "30f9f581a14ea94bcbb6200029aef79e5fb740c8efec0875ba198c2724e54aa876235669bb6cedf5c0a9566d8c8d1d75891a04e4d66cd7b603f97045a06a0ddf"},
        {129,
         "b0796128fe8db7f5fa9f59832b4f0cbe534f1f0cfdbd5fe14735e8760c423b3540e01ac161d6d5c90c1eaa977179f49c2e4e74f1451c91989aafffdf7fae6776"},
        {239,
         "a2e995b204f54981c97c8398bf3df83228d4092bee3a8bf8c5d83ccf5d4208d73c082be925da2c91050e282a2a993f4d843e927f9c780d7edb6afb748305aba0"},
        {240,
         "56d303d2cb79e4b3899786c25db777cf0878d24f6aa1a9c7a0de0c58a6dc96fb8580785b828f1b9f4a3e77fa2de4cf6c94ede9e7f3d558b08c76c5aa00c3355d"},
        {255,
         "6271f42024b512466e0156ce4077a957ce380e13b0a25b52c199e06b22f30ea6c6a12209449bb4dd5cfdcf5c7f6b4e5992c2a2264e9ed386640d66e5db0bba7c"},
        {256,
         "05ea401daf84e6c21ca13370e9a583248ca7b01b7cdd63163c7176ec1483d4fa18eb6423735e44a368ffd174bb92d9b08d7b26cc563d392f64c198fed8344150"},
        {257,
         "113de225f131493b96e75bfbdd177f8157ce984c5d2aa3a1c4e4cc475f938ce4aa55f2e4aa4837aa3f682833a3c09ffecd67429f63ea8aaa42ba5dc8cc760b6a"},
        {1000,
         "4b6d1997f7d5a8549bfd2bc1ce7f851eba376e6af83d56a5e34edf675d832c155a1fd71a22ab4c253fcfcf822479260016d8198f24bda49576f3451be64927bc"},
        {4096,
         "6934c13b205b1df63d548a8b871ab4548f58b2ea5fbbea827d59a4605e595dd7109d14ab02566b65c0dc46b55d66e8e5dc9d10dd7671a5c32c6bbaeb1b421a65"},
        {65537,
         "b291c2063a144f1ee6f174f260c58a68973dc347222e315f9189ff659fbd0fb2e0a6d12094cc5418abe474ee08a33919e43d43eec9a4d7b91413da9daa079acc"},
        {1048576,
         "e0071ef587d9978aedf8382128008d015f30438f770279c09f8265a9c1b05fa875d45246538d8b68046fec18d4df7ce7168676adbb558db6590089fcd0f1028f"},
        {1048577,
         "e33c54592303b869ef6c6f3a0a5e7d2de9d7ec90a97b87e6e0b9cc3a5a5912d311a2bfd7d1c289ee30e63df845a59582f03ddf8f118e67830543af7f3dc3512d"},
    },
    {
        {1,
         "bec021b4f368e3069134e012c2b4307083d3a9bdd206e24e5f0d86e13d6636655933ec2b413465966817a9c208a11717"},
        {55,
         "b1d1e306a6975243aa89e2fa6a302e889e5cb320ba9ebd1f31dc2bc1f736c00ceec31222b281ab76df2de9726ba96bd0"},
        {56,
         "47afc3668507148d6189dc6d9331392622997fb61f48ab8b28a5a4fa64db587a2f902d38d60fb09bb5d24b69fad8b89c"},
        {111,
         "962d6cfebe30fc0dd180a4c443b5d8704ba4f3d62597586566778ce422ac1b0464cccb0166ab60fcb2045b0bf34c56c6"},
        {112,
         "b66c2ad2262182ed190f3f5c92f54bbe25fd6dbd46c9cde92d688e463c7f5a4f49bee4d0e01949c4ba3e408baa6c18e1"},
        {113,
         "c710b6d6ca4f65c968c868b7225d34f2249e94b01bb5ff2ff06fffa6de4123c89ab65b0370ddf148369f2386d7d140d0"},
        {127,
         "270dbf81fe3ba6bfb43c217022ca3e004afc89b85564805227328a5aca64aed33b3d0b3e874552f138949fd92911b170"},
        {128,
         "140b1b3be8737c6c3b48aea3edbe210f0290f2b9c272711003dec2f1edce494caa716a3d535f0691c89d0ebcedf3d2c5"},
        {129,
         "0616e6b235cc5ab8871c556aa4ed72c86304fd6bea9391807a5e9561a4741250bfcef211f29f9bd1da0cc75d5a9bdadf"},
        {239,
         "fbd8a2c97eac08d04cceb2c72b03ac31db0d2fb20f06956f46b695f097d27a4ce44fd80b27e25c4d71d3b8c8def294a6"},
        {240,
         "41c341953ac7eb096b9c8e01010ce8409af4be193727bdaa5d89ef1de89c79118d5d14d6e1db946b46650511ebae5b0b"},
        {255,
         "ffbfa9ff2a4ed5d6f1ba49021611916e8dd655d9eddd916712f5a21512f777cc317f1977f315de9ddd9fab4ba10d839b"},
        {256,
         "2673cf573f754bb34c76cf9d222251f0be886bcd46d114e4f74818b813cdcf715c98e4e56b557293dba84c0ab719ecc7"},
        {257,
         "c50a09e5b6629f9ed566a00e3904daaae1907309acc277f8ae8f403ca89f4323ca5bb2d0230d38d1fb1a3039143ef771"},
        {1000,
         "dd0a7048b2a8da7252886beb46e12de432e0db620689da4308f8bf656711de26ee4b15b574d5a74b5b1b2cc34615519c"},
        {4096,
         "63bc1bf2cab2224d69747ca698e996c3689cdd8ac5634b64bb183864154b98ccbd0d92d1717d27d2cf87435bd5cadc79"},
        {65537,
         "18b5f452c2f8c6751a75d74ec01a977d186ac74eaaee7f902af121f5e5d205bf6569707b244b758a007be7fb471b8f86"},
        {1048576,
         "8ac2234cb145de52b1e81c8c86ec13432d727f176b145a9fec14540e2a1ececcc113eba53796c155247ca323ef416adb"},
        {1048577,
         "8e8c746f21602414a18b524de73eedb9d8c7bc5fb5773771e280d24d09467577764067db3f7a50fc06b0216728705ccc"},
    }};

static void test_sized(void) {
    size_t max = (1u << 20) + 1;
    uint8_t *b = malloc(max);
    CHECK(b != NULL);
    if (!b) return;
    for (size_t i = 0; i < max; i++) b[i] = (uint8_t)(((i * 167) ^ (i >> 5) ^ (i >> 13)) & 255);
    for (int k = 0; k < 2; k++) {
        for (size_t j = 0; j < sizeof sized[k] / sizeof sized[k][0]; j++) {
            char hex[129];
            hex_of(&variants[k], b, sized[k][j].n, hex);
            CHECK_EQ_STR(hex, sized[k][j].hex);
        }
    }
    free(b);
}

static uint32_t rng_state = 12345;
static uint32_t rng(void) { /* xorshift32: deterministic on every target */
    uint32_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return rng_state = x;
}

static void test_streaming(void) {
    uint8_t buf[1000], want[64], got[64];
    for (int i = 0; i < 1000; i++) buf[i] = (uint8_t)rng();
    for (int k = 0; k < 2; k++) {
        const struct variant *v = &variants[k];
        struct ok_sha512 s;
        int mismatches = 0;
        /* Every two-way split of messages of 0..300 bytes and of 1000. */
        for (size_t n = 0; n <= 1000; n = n < 300 ? n + 1 : 1000) {
            v->oneshot(buf, n, want);
            for (size_t split = 0; split <= n; split++) {
                v->init(&s);
                ok_sha512_update(&s, buf, split);
                ok_sha512_update(&s, buf + split, n - split);
                ok_sha512_final(&s, got);
                mismatches += memcmp(got, want, v->len) != 0;
            }
            if (n == 1000) break;
        }
        CHECK_EQ_INT(mismatches, 0);
        /* Random multi-splits, including empty chunks. */
        v->oneshot(buf, sizeof buf, want);
        mismatches = 0;
        for (int trial = 0; trial < 2000; trial++) {
            v->init(&s);
            size_t off = 0;
            while (off < sizeof buf) {
                size_t n = rng() % (trial % 3 == 0 ? 8 : 300);
                if (n > sizeof buf - off) n = sizeof buf - off;
                ok_sha512_update(&s, buf + off, n);
                off += n;
            }
            ok_sha512_final(&s, got);
            mismatches += memcmp(got, want, v->len) != 0;
        }
        CHECK_EQ_INT(mismatches, 0);
        /* final re-initializes as the same variant: the state hashes a fresh
         * message right away and keeps its digest length. */
        ok_sha512_update(&s, (const uint8_t *)"abc", 3);
        memset(got, 0xee, sizeof got);
        CHECK_EQ_INT(ok_sha512_final(&s, got), v->len);
        char hex[129];
        ok_hex(got, v->len, hex);
        CHECK_EQ_STR(hex, nist[k][1]);
        if (v->len < 64) CHECK(got[v->len] == 0xee); /* SHA-384 writes 48 bytes, no more */
    }
}

/* A flipped bit anywhere changes the digest; SHA-384 is not a prefix of
 * SHA-512 (different initial values). */
static void test_flip_and_variants(void) {
    uint8_t m[200], d0[64], d1[64];
    for (int i = 0; i < 200; i++) m[i] = (uint8_t)rng();
    for (int k = 0; k < 2; k++) {
        const struct variant *v = &variants[k];
        v->oneshot(m, sizeof m, d0);
        int unchanged = 0;
        for (size_t i = 0; i < sizeof m * 8; i += 7) {
            m[i / 8] ^= (uint8_t)(1u << (i % 8));
            v->oneshot(m, sizeof m, d1);
            unchanged += memcmp(d0, d1, v->len) == 0;
            m[i / 8] ^= (uint8_t)(1u << (i % 8));
        }
        CHECK_EQ_INT(unchanged, 0);
    }
    ok_sha512(m, sizeof m, d0);
    ok_sha384(m, sizeof m, d1);
    CHECK(memcmp(d0, d1, 48) != 0);
}

static void test_state_size(void) {
    CHECK_EQ_INT(ok_sha512_state_size(), sizeof(struct ok_sha512));
    CHECK_EQ_INT(ok_sha512_state_size(), 208); /* same on wasm32 and native: JS relies on it */
}

int main(void) {
    test_nist();
    test_million_a();
    test_all_lengths();
    test_sized();
    test_streaming();
    test_flip_and_variants();
    test_state_size();
    return CHECK_DONE();
}
