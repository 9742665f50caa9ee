/* Streaming ONNX reader throughput and heap: a model file (default isnet,
 * build/models/isnet_quint8.onnx, 44 MB) fed to ok_onnx_stream_* in 64 KiB
 * pieces (a download's size) and in 4 MiB pieces (a cache chunk's), next to
 * the one-shot ok_onnx_read() on the whole buffer. Prints MB/s of model
 * bytes (10^6 bytes per second, best of several runs) and the most heap the
 * stream held (its own count of every allocation, the model included).
 * Not a ctest (its name is not test_*): run it by hand, from the repo root:
 *
 *   native: gcc -O2 -Iwasm/base -Iwasm/onnx -Itests/c/oracle tests/c/bench_onnx_stream.c \
 *             wasm/onnx/onnx_stream*.c wasm/onnx/onnx_rules.c tests/c/oracle/onnx_reader.c \
 *             wasm/base/pb_wire.c -o /tmp/bos && /tmp/bos [MODEL]
 *   wasm:   NODE_PATH=/usr/share/nodejs emcc -O2 -msimd128 -sALLOW_MEMORY_GROWTH=1 \
 *             -sNODERAWFS=1 -Iwasm/base -Iwasm/onnx -Itests/c/oracle tests/c/bench_onnx_stream.c \
 *             wasm/onnx/onnx_stream*.c wasm/onnx/onnx_rules.c tests/c/oracle/onnx_reader.c \
 *             wasm/base/pb_wire.c -o /tmp/bos.js && \
 *           node --no-experimental-fetch /tmp/bos.js [MODEL]
 *
 * Feeds go through volatile pointers, so wasm-opt cannot inline the reader
 * into main() (which would pin it in V8's baseline tier; see bench_xxh3.c). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "onnx_reader.h"
#include "onnx_stream.h"

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int (*volatile feed_fn)(ok_onnx_stream *, const uint8_t *, size_t, ok_error *) = ok_onnx_stream_feed;
static int (*volatile read_fn)(const uint8_t *, size_t, ok_model **, ok_error *) = ok_onnx_read;

/* One streamed read; returns seconds, or -1 on error. */
static double stream_once(const uint8_t *b, size_t n, size_t piece, uint64_t *peak, uint32_t *graphs) {
    ok_onnx_stream *s = ok_onnx_stream_new(NULL);
    ok_model *m = NULL;
    ok_error e;
    double t0 = now_s(), t;
    for (size_t i = 0; i < n; i += piece) {
        size_t k = n - i < piece ? n - i : piece;
        if (feed_fn(s, b + i, k, &e)) break;
    }
    if (ok_onnx_stream_end(s, &m, &e)) {
        fprintf(stderr, "stream: %s\n", e.message);
        ok_onnx_stream_free(s);
        return -1;
    }
    t = now_s() - t0;
    ok_onnx_stream_heap(s, peak);
    *graphs = m->n_graphs;
    ok_model_free(m);
    ok_onnx_stream_free(s);
    return t;
}

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "build/models/isnet_quint8.onnx";
    FILE *f = fopen(path, "rb");
    uint8_t *b;
    long n;
    double best64 = 1e9, best4m = 1e9, best1 = 1e9;
    uint64_t peak = 0;
    uint32_t graphs = 0;
    if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET)) {
        fprintf(stderr, "cannot read %s\n", path);
        return 1;
    }
    b = malloc((size_t)n);
    if (!b || fread(b, 1, (size_t)n, f) != (size_t)n) return 1;
    fclose(f);
    for (int run = 0; run < 8; run++) {
        double t64 = stream_once(b, (size_t)n, 64 << 10, &peak, &graphs);
        double t4m = stream_once(b, (size_t)n, 4 << 20, &peak, &graphs);
        ok_model *m = NULL;
        ok_error e;
        double t0 = now_s(), t1;
        if (t64 < 0 || t4m < 0 || read_fn(b, (size_t)n, &m, &e)) return 1;
        t1 = now_s() - t0;
        ok_model_free(m);
        if (run > 0) { /* run 0 is warm-up (and tier-up in V8) */
            if (t64 < best64) best64 = t64;
            if (t4m < best4m) best4m = t4m;
            if (t1 < best1) best1 = t1;
        }
    }
#if defined(__wasm__)
    const char *where = "wasm";
#else
    const char *where = "native";
#endif
    printf("onnx stream %s, %s (%ld bytes, %u graphs): 64 KiB pieces %.0f MB/s, 4 MiB pieces %.0f MB/s;"
           " one-shot ok_onnx_read %.0f MB/s; stream heap peak %.1f KiB\n",
           where, path, n, graphs, n / best64 / 1e6, n / best4m / 1e6, n / best1 / 1e6, peak / 1024.0);
    free(b);
    return 0;
}
