/* libFuzzer harness: the streaming reader (onnx_stream.h) against the
 * one-shot reader (onnx_reader.h) on arbitrary bytes, fed in pieces whose
 * sizes come from the input itself. They must agree exactly:
 *   - both succeed with the same JSON report, or
 *   - both fail with the same code, byte offset and message,
 * except where the stream hits its own limits (OK_ERR_LIMIT with the
 * one-shot reader succeeding). A failure is typed, says why, and is sticky;
 * never an out-of-bounds read, a leak or UB (ASan/UBSan). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "inspect_json.h"
#include "onnx_reader.h"
#include "onnx_stream.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *json_of(ok_model *m) {
    char *json = NULL;
    size_t len = 0;
    ok_error e;
    if (ok_inspect_json(m, "00", &json, &len, &e) != OK_OK) return NULL;
    return json;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    ok_model *m1 = NULL, *m2 = NULL;
    ok_error e1, e2, e3;
    ok_onnx_stream *s;
    size_t i = 0;
    unsigned seed = size ? data[0] : 0;
    int rc1, rc2 = OK_OK;

    rc1 = ok_onnx_read(data, size, &m1, &e1);
    s = ok_onnx_stream_new(NULL);
    if (!s) abort();
    while (i < size && rc2 == OK_OK) {
        size_t k;
        seed = seed * 1103515245u + 12345u;
        k = 1 + (seed >> 16) % 97;
        if ((seed >> 8) % 5 == 0) k = size - i; /* sometimes the rest at once */
        if (k > size - i) k = size - i;
        rc2 = ok_onnx_stream_feed(s, data + i, k, &e2);
        i += k;
    }
    if (rc2 == OK_OK) rc2 = ok_onnx_stream_end(s, &m2, &e2);
    else if (ok_onnx_stream_end(s, &m2, &e3) != rc2 || m2 != NULL) abort(); /* sticky */
    if (rc2 != OK_OK) {
        if (m2 != NULL || (int)e2.code != rc2 || e2.message[0] == '\0') abort();
        if ((uint64_t)e2.offset != ok_onnx_stream_error_offset(s)) abort();
    }
    ok_onnx_stream_free(s);

    if (rc1 == OK_OK && rc2 == OK_ERR_LIMIT) {
        /* the stream's own limits */
    } else if (rc1 != rc2) {
        abort();
    } else if (rc1 != OK_OK) {
        if (e1.offset != e2.offset || strcmp(e1.message, e2.message) != 0) abort();
    } else {
        char *j1 = json_of(m1), *j2 = json_of(m2);
        if (!j1 || !j2 || strcmp(j1, j2) != 0) abort();
        if (m2->buf != m2->owned_buf || m2->total_len != size) abort();
        free(j1);
        free(j2);
    }
    ok_model_free(m1);
    ok_model_free(m2);
    return 0;
}
