/* libFuzzer harness: the streaming inspection (inspect_stream.h: reader +
 * SHA-256 + stamp tracker + report in one pass) on arbitrary bytes fed in
 * pieces whose sizes come from the input, against the same bytes fed in one
 * piece. The split must not matter: the same code and 64-bit offset on
 * failure, the same JSON report (hash and stamp verdict included) on
 * success, the same count of bytes consumed; errors are sticky; a call after
 * the end is OK_ERR_STATE (or the end's error). Never an out-of-bounds read, a leak or UB. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "inspect_stream.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct {
    int rc;
    uint64_t offset, consumed;
    char *json;
    size_t len;
} outcome;

/* Feeds data in pieces of 1 + (next pseudo-random % max_piece) bytes. */
static outcome inspect(const uint8_t *data, size_t size, unsigned seed, size_t max_piece) {
    outcome o;
    ok_inspect_stream *s = NULL;
    ok_error err;
    size_t i = 0;
    memset(&o, 0, sizeof o);
    if (ok_inspect_stream_new(NULL, &s, &err) != OK_OK) abort();
    o.rc = OK_OK;
    while (i < size && o.rc == OK_OK) {
        size_t k;
        seed = seed * 1103515245u + 12345u;
        k = 1 + (seed >> 16) % max_piece;
        if (k > size - i) k = size - i;
        o.rc = ok_inspect_stream_feed(s, data + i, k, &err);
        i += k;
    }
    if (o.rc != OK_OK) {
        /* sticky: feeding more changes nothing */
        if (ok_inspect_stream_feed(s, data, size ? 1 : 0, &err) != o.rc) abort();
    } else {
        o.rc = ok_inspect_stream_end(s, &o.json, &o.len, &err);
        if (o.rc == OK_OK && (!o.json || strlen(o.json) != o.len)) abort();
        {
            /* after the end: STATE, or the end's own (sticky) error */
            int again = ok_inspect_stream_feed(s, data, 0, &err);
            if (again != OK_ERR_STATE && again != o.rc) abort();
        }
    }
    o.offset = ok_inspect_stream_error_offset(s);
    o.consumed = ok_inspect_stream_consumed(s);
    ok_inspect_stream_free(s);
    return o;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    unsigned seed = size ? data[size - 1] : 0;
    outcome whole = inspect(data, size, 0, size ? size : 1);
    outcome split = inspect(data, size, seed, 1 + seed % 97);
    if (whole.rc != split.rc) abort();
    if (whole.rc != OK_OK) {
        if (whole.offset != split.offset) abort();
    } else {
        if (whole.len != split.len || memcmp(whole.json, split.json, whole.len) != 0) abort();
        if (whole.consumed != size || split.consumed != size) abort();
    }
    free(whole.json);
    free(split.json);
    return 0;
}
