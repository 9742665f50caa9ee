/* XXH3-64 throughput: 64 MiB hashed the way the cache does it (4 MiB chunk
 * at a time, one-shot), and the same 64 MiB streamed through one state in
 * 1 MiB updates. Prints GB/s (10^9 bytes per second), best of several runs.
 * Not a ctest (its name is not test_*): run it by hand, from the repo root:
 *
 *   native:      gcc -O2 -Iwasm tests/c/bench_xxh3.c wasm/xxh3.c -o /tmp/bx && /tmp/bx
 *   wasm SIMD:   NODE_PATH=/usr/share/nodejs emcc -O2 -msimd128 -sALLOW_MEMORY_GROWTH=1 \
 *                  -Iwasm tests/c/bench_xxh3.c wasm/xxh3.c -o /tmp/bx.js && node --no-experimental-fetch /tmp/bx.js
 *   wasm scalar: the same with -DOK_XXH3_SCALAR (or without -msimd128)
 *
 * Calls are 1-4 MiB on purpose: V8 tiers a wasm function up between calls
 * only (no on-stack replacement), and the first run is warm-up. The hash
 * functions are called through volatile pointers: wasm-opt would otherwise
 * inline them into main(), which runs once and so stays in V8's baseline
 * tier (Liftoff) for good, measuring a case production never has (JS calls
 * the exported functions once per chunk). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "xxh3.h"

#define TOTAL (64u << 20)
#define CHUNK (4u << 20)
#define STREAM_PIECE (1u << 20)

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static uint64_t (*volatile hash_fn)(const void *, size_t, uint64_t) = ok_xxh3_64;
static void (*volatile update_fn)(ok_xxh3_state *, const void *, size_t) = ok_xxh3_update;

int main(void) {
    uint8_t *buf = malloc(TOTAL);
    if (!buf) return 1;
    uint64_t x = 1;
    for (size_t i = 0; i < TOTAL; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        buf[i] = (uint8_t)(x >> 56);
    }
    uint64_t sink = 0; /* printed, so no call is optimized away */
    double best_chunks = 1e9, best_stream = 1e9;
    static ok_xxh3_state st;
    for (int run = 0; run < 8; run++) {
        double t0 = now_s();
        for (size_t off = 0; off < TOTAL; off += CHUNK) sink += hash_fn(buf + off, CHUNK, 0);
        double t1 = now_s();
        ok_xxh3_reset(&st, 0);
        for (size_t off = 0; off < TOTAL; off += STREAM_PIECE) update_fn(&st, buf + off, STREAM_PIECE);
        sink += ok_xxh3_digest(&st);
        double t2 = now_s();
        if (run > 0) { /* run 0 is warm-up (and tier-up in V8) */
            if (t1 - t0 < best_chunks) best_chunks = t1 - t0;
            if (t2 - t1 < best_stream) best_stream = t2 - t1;
        }
    }
#if defined(__wasm_simd128__) && !defined(OK_XXH3_SCALAR)
    const char *path = "wasm simd128";
#elif defined(__wasm__)
    const char *path = "wasm scalar";
#else
    const char *path = "native scalar";
#endif
    printf("xxh3 %s: 64 MiB in 4 MiB one-shot chunks %.2f GB/s, streamed in 1 MiB updates %.2f GB/s"
           " (44 MB load: %.1f ms) [%016llx]\n",
           path, TOTAL / best_chunks / 1e9, TOTAL / best_stream / 1e9, 44e6 / (TOTAL / best_chunks) * 1e3,
           (unsigned long long)sink);
    free(buf);
    return 0;
}
