/* libFuzzer harness for the ONNX reader and its JSON report: any input must
 * give either a model whose report renders, or a typed error with a message;
 * never an out-of-bounds read, a leak or UB (ASan/UBSan). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "inspect_json.h"
#include "onnx_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    ok_model *m = NULL;
    ok_error err;
    char *json = NULL;
    size_t len = 0;
    int rc = ok_onnx_read(data, size, &m, &err);
    if (rc != OK_OK) {
        /* A failure leaves no model and always says why. */
        if (m != NULL || (int)err.code != rc || err.message[0] == '\0') abort();
        return 0;
    }
    if (m->n_graphs == 0 || strcmp(m->graphs[0].path, "main") != 0) abort();
    for (uint32_t i = 0; i < m->n_inits; i++) {
        const ok_initializer *t = &m->inits[i];
        if (t->name.off + t->name.len > size) abort();
        if (t->has_raw && t->raw.off + t->raw.len > size) abort();
    }
    rc = ok_inspect_json(m, "00", &json, &len, &err);
    if (rc == OK_OK) {
        if (json == NULL || strlen(json) > len) abort();
        free(json);
    }
    ok_model_free(m);
    return 0;
}
