/* The inspection report of an ok_model as JSON (the shape is documented in
 * inspect_json.c and mirrored by tests/fixtures/ground_truth.py). */
#ifndef ORTKEEP_INSPECT_JSON_H
#define ORTKEEP_INSPECT_JSON_H

#include <stddef.h>

#include "ok_error.h"
#include "onnx_model.h"

/* Renders m as one JSON object. sha256_hex (may be NULL -> null) is copied
 * into "sha256" as given. On success *json_out is a malloc'd NUL-terminated
 * string (free with free()) of *json_len bytes. Errors: OK_ERR_INVALID_ARG,
 * OK_ERR_NOMEM, OK_ERR_LIMIT (report beyond 64 MiB + 16 x model size). */
int ok_inspect_json(const ok_model *m, const char *sha256_hex, char **json_out, size_t *json_len,
                    ok_error *err);

#endif
