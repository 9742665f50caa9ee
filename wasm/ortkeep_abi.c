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
 * or NULL with last_error set. sha256_hex (64 hex digits) is the content
 * hash when the caller already knows it (a cache entry verified chunk by
 * chunk); NULL hashes the bytes here, over the same bytes the reader sees. */
OK_EXPORT char *ok_abi_inspect(const uint8_t *buf, uint32_t len, const char *sha256_hex) {
    uint8_t digest[32];
    char hex[65];
    ok_model *model = NULL;
    char *json = NULL;
    size_t json_len = 0;

    memset(&last_error, 0, sizeof last_error);
    if (sha256_hex && strlen(sha256_hex) != 64) {
        set_error(OK_ERR_INVALID_ARG, "sha256_hex must be 64 hex digits");
        return NULL;
    }
    if (ok_onnx_read(buf, len, &model, &last_error) != OK_OK) return NULL;
    if (!sha256_hex) {
        ok_sha256(buf, len, digest);
        ok_hex(digest, sizeof digest, hex);
        sha256_hex = hex;
    }
    if (ok_inspect_json(model, sha256_hex, &json, &json_len, &last_error) != OK_OK) json = NULL;
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

/* ---- model cache (cache/ok_cache.h) ----
 * The flat ok_cache_* functions are exported directly (wasm/exports.txt);
 * only the entry info, a struct of pointers, gets a wrapper: it comes out as
 * malloc'd JSON (free with free()), or NULL when i is out of range. */
#include "json_buf.h"
#include "ok_cache.h"

static void jkey(ok_jbuf *b, const char *k) { ok_jbuf_puts(b, k); }

static void jstr(ok_jbuf *b, const char *s) {
    if (s) ok_jbuf_str(b, (const uint8_t *)s, strlen(s));
    else ok_jbuf_puts(b, "null");
}

OK_EXPORT char *ok_abi_cache_entry_json(const ok_cache *c, uint32_t i) {
    ok_cache_entry_info e;
    ok_jbuf b;
    char hex[65];
    if (ok_cache_entry_at(c, i, &e) != OK_OK) return NULL;
    ok_jbuf_init(&b, 1u << 20);
    jkey(&b, "{\"id\":"); ok_jbuf_u64(&b, e.id);
    jkey(&b, ",\"state\":"); ok_jbuf_u64(&b, e.state);
    jkey(&b, ",\"form\":"); ok_jbuf_u64(&b, e.form);
    jkey(&b, ",\"chunkSize\":"); ok_jbuf_u64(&b, e.chunk_size);
    jkey(&b, ",\"chunkCount\":"); ok_jbuf_u64(&b, e.chunk_count);
    jkey(&b, ",\"storedCount\":"); ok_jbuf_u64(&b, e.stored_count);
    jkey(&b, ",\"refcount\":"); ok_jbuf_u64(&b, e.refcount);
    jkey(&b, ",\"writing\":"); ok_jbuf_u64(&b, e.writing);
    jkey(&b, ",\"gen\":"); ok_jbuf_u64(&b, e.gen);
    jkey(&b, ",\"totalSize\":"); ok_jbuf_u64(&b, e.total_size);
    jkey(&b, ",\"storedBytes\":"); ok_jbuf_u64(&b, e.stored_bytes);
    jkey(&b, ",\"lastUsed\":"); ok_jbuf_u64(&b, e.last_used);
    jkey(&b, ",\"hitCount\":"); ok_jbuf_u64(&b, e.hit_count);
    jkey(&b, ",\"key\":"); jstr(&b, e.key);
    jkey(&b, ",\"url\":"); jstr(&b, e.url);
    jkey(&b, ",\"etag\":"); jstr(&b, e.etag);
    jkey(&b, ",\"lastModified\":"); jstr(&b, e.last_modified);
    jkey(&b, ",\"name\":"); jstr(&b, e.name);
    jkey(&b, ",\"sha256\":");
    if (e.sha256 && e.state == OK_ENTRY_COMMITTED) {
        ok_hex(e.sha256, 32, hex);
        jstr(&b, hex);
    } else {
        ok_jbuf_puts(&b, "null");
    }
    ok_jbuf_puts(&b, "}");
    if (b.failed) {
        ok_jbuf_free(&b);
        set_error((ok_status)b.failed, "cache entry info did not fit");
        return NULL;
    }
    return b.p;
}
