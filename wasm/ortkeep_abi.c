/* The exported C ABI: the only functions JS calls (listed in wasm/exports.txt).
 * Pointers and integers only, so the Emscripten glue needs no marshalling.
 * Failures return 0/NULL (or a status) and leave the details in a per-module
 * last-error slot that JS reads right after the call; wasm here is
 * single-threaded, so one slot is enough. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "inspect_json.h"
#include "ok_error.h"
#include "onnx_reader.h"
#include "sha256.h"

#define OK_EXPORT __attribute__((used, visibility("default")))

static ok_error last_error;

static void set_error(ok_status code, const char *message) {
    last_error.code = code;
    last_error.offset = 0;
    strncpy(last_error.message, message, sizeof last_error.message - 1);
    last_error.message[sizeof last_error.message - 1] = '\0';
}

OK_EXPORT int ok_abi_last_error_code(void) { return (int)last_error.code; }
OK_EXPORT uint32_t ok_abi_last_error_offset(void) { return (uint32_t)last_error.offset; }
OK_EXPORT const char *ok_abi_last_error_message(void) { return last_error.message; }

/* Reads a model and returns its report as malloc'd JSON (free with free()),
 * or NULL with last_error set. The SHA-256 is computed here, over the same
 * bytes the reader sees. */
OK_EXPORT char *ok_abi_inspect(const uint8_t *buf, uint32_t len) {
    uint8_t digest[32];
    char hex[65];
    ok_model *model = NULL;
    char *json = NULL;
    size_t json_len = 0;

    memset(&last_error, 0, sizeof last_error);
    if (ok_onnx_read(buf, len, &model, &last_error) != OK_OK) return NULL;
    ok_sha256(buf, len, digest);
    ok_hex(digest, sizeof digest, hex);
    if (ok_inspect_json(model, hex, &json, &json_len, &last_error) != OK_OK) json = NULL;
    ok_model_free(model);
    return json;
}

/* Streaming SHA-256 with its state in wasm memory, for hashing a download
 * chunk by chunk. */
OK_EXPORT ok_sha256_ctx *ok_abi_sha256_new(void) {
    ok_sha256_ctx *s = malloc(sizeof *s);
    if (!s) {
        set_error(OK_ERR_NOMEM, "out of memory for a hash state");
        return NULL;
    }
    ok_sha256_init(s);
    return s;
}

OK_EXPORT void ok_abi_sha256_update(ok_sha256_ctx *s, const uint8_t *p, uint32_t n) {
    ok_sha256_update(s, p, n);
}

/* Writes 64 hex digits and a NUL to out; the state may then be freed. */
OK_EXPORT void ok_abi_sha256_final_hex(ok_sha256_ctx *s, char *out) {
    uint8_t digest[32];
    ok_sha256_final(s, digest);
    ok_hex(digest, sizeof digest, out);
}
