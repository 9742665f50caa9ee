/* The exported C ABI: the only functions JS calls (listed in wasm/exports.txt).
 * Pointers and integers only, so the Emscripten glue needs no marshalling.
 * Failures return 0/NULL (or a status) and leave the details in a per-module
 * last-error slot that JS reads right after the call; wasm here is
 * single-threaded, so one slot is enough. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "inspect_stream.h"
#include "ok_error.h"
#include "json_buf.h"
#include "ort_format.h"
#include "sha256.h"
#include "stamp.h"

#define OK_EXPORT __attribute__((used, visibility("default")))

static ok_error last_error;
/* ok_error.offset is a size_t, 32-bit here; model offsets go past 4 GB. */
static uint64_t last_error_offset;

static void set_error(ok_status code, const char *message) {
    last_error.code = code;
    last_error.offset = 0;
    last_error_offset = 0;
    strncpy(last_error.message, message, sizeof last_error.message - 1);
    last_error.message[sizeof last_error.message - 1] = '\0';
}

static void clear_error(void) {
    memset(&last_error, 0, sizeof last_error);
    last_error_offset = 0;
}

OK_EXPORT int ok_abi_last_error_code(void) { return (int)last_error.code; }
/* A BigInt in JS (WASM_BIGINT). */
OK_EXPORT uint64_t ok_abi_last_error_offset(void) { return last_error_offset; }
OK_EXPORT const char *ok_abi_last_error_message(void) { return last_error.message; }

/* ---- inspection, streamed (wasm/inspect_stream.h) ----
 * JS feeds the model through one reusable buffer, so the model never sits
 * whole in wasm memory. */

/* sha256_hex (64 hex digits, NUL-terminated) is the content hash when the
 * caller already knows it (a cache load hashed the bytes as they arrived);
 * NULL hashes the fed bytes here. The stream, or NULL with last_error set. */
OK_EXPORT ok_inspect_stream *ok_abi_inspect_stream_new(const char *sha256_hex) {
    ok_inspect_stream *s = NULL;
    clear_error();
    ok_inspect_stream_new(sha256_hex, &s, &last_error);
    return s;
}

/* ok_inspect_stream_judge_for: the report's stamp gets C's verdict for this runtime. */
OK_EXPORT int ok_abi_inspect_stream_judge_for(ok_inspect_stream *s, const char *ort, const char *ep,
                                              const char *level) {
    return ok_inspect_stream_judge_for(s, ort, ep, level);
}

/* The status; an error is also in last_error, with its 64-bit offset. */
OK_EXPORT int ok_abi_inspect_stream_feed(ok_inspect_stream *s, const uint8_t *p, uint32_t n) {
    int rc;
    clear_error();
    rc = ok_inspect_stream_feed(s, p, n, &last_error);
    if (rc) last_error_offset = ok_inspect_stream_error_offset(s);
    return rc;
}

/* The report as malloc'd JSON (free with free()), or NULL with last_error
 * set. The stream still needs ok_inspect_stream_free. */
OK_EXPORT char *ok_abi_inspect_stream_end(ok_inspect_stream *s) {
    char *json = NULL;
    clear_error();
    if (ok_inspect_stream_end(s, &json, NULL, &last_error) != OK_OK) {
        last_error_offset = ok_inspect_stream_error_offset(s);
        return NULL;
    }
    return json;
}

/* Reads an ORT-format model (an .ort form) and returns
 * {"format":"ort","formatVersion":…,"irVersion":…,"producerName":…,"graph":true}
 * (formatVersion: InferenceSession.ort_version, the ORT format's own version)
 * as malloc'd JSON (free with free()), or NULL with last_error set. */
OK_EXPORT char *ok_abi_inspect_ort(const uint8_t *buf, uint32_t len) {
    ok_ort_info info;
    ok_jbuf b;
    memset(&last_error, 0, sizeof last_error);
    if (ok_ort_read(buf, len, &info, &last_error) != OK_OK) return NULL;
    ok_jbuf_init(&b, 4096);
    ok_jbuf_puts(&b, "{\"format\":\"ort\",\"formatVersion\":");
    ok_jbuf_str(&b, (const uint8_t *)info.ort_version, strlen(info.ort_version));
    ok_jbuf_puts(&b, ",\"irVersion\":");
    ok_jbuf_i64(&b, info.ir_version);
    ok_jbuf_puts(&b, ",\"producerName\":");
    ok_jbuf_str(&b, (const uint8_t *)info.producer_name, strlen(info.producer_name));
    ok_jbuf_puts(&b, ",\"graph\":true}");
    if (b.failed) {
        set_error((ok_status)b.failed, "could not build the ORT report");
        ok_jbuf_free(&b);
        return NULL;
    }
    return b.p;
}

/* ---- the normalization stamp (wasm/stamp.h) ----
 * The protobuf tail that stamps an artifact, from its fields as
 * NUL-terminated strings (source/artifact: 64 lowercase hex digits): its
 * length, written into out[0, cap), or 0 with last_error set. The caller
 * appends the tail to the artifact's bytes (no copy of the artifact here). */
OK_EXPORT uint32_t ok_abi_stamp_encode(const char *producer, const char *ort, const char *ep,
                                       const char *level, const char *source_hex, const char *artifact_hex,
                                       uint8_t *out, uint32_t cap) {
    ok_stamp s;
    size_t len = 0;
    ok_status rc;
    clear_error();
    rc = ok_stamp_from_strings(&s, producer, ort, ep, level, source_hex, artifact_hex);
    if (rc != OK_OK) {
        set_error(
            rc,
            rc == OK_ERR_LIMIT
                ? "a stamp field is longer than 64 bytes"
                : "a stamp field is empty or holds ';', '=' or a control byte, or a digest is not 64 lowercase hex digits");
        return 0;
    }
    rc = ok_stamp_encode(&s, out, cap, &len);
    if (rc != OK_OK) {
        set_error(rc, "the stamp does not fit the buffer given");
        return 0;
    }
    return (uint32_t)len;
}

/* ---- model cache and load machine (cache/ok_cache.h, cache/ok_load.h) ----
 * Flat functions are exported as they are (wasm/exports.txt); what takes or
 * returns structs of pointers gets a wrapper here: a load's parameters as
 * arguments, entry and load information as malloc'd JSON (free with
 * free()). */
#include "json_buf.h"
#include "ok_cache.h"
#include "ok_load.h"
#include "form_tiers.h"

static void jkey(ok_jbuf *b, const char *k) { ok_jbuf_puts(b, k); }

static void jstr(ok_jbuf *b, const char *s) {
    if (s) ok_jbuf_str(b, (const uint8_t *)s, strlen(s));
    else ok_jbuf_puts(b, "null");
}

static char *jfinish(ok_jbuf *b, const char *what) {
    if (b->failed) {
        ok_status code = (ok_status)b->failed;
        ok_jbuf_free(b);
        set_error(code, what);
        return NULL;
    }
    return b->p;
}

OK_EXPORT char *ok_abi_cache_entry_json(const ok_cache *c, uint32_t i) {
    ok_cache_entry_info e;
    ok_jbuf b;
    char hex[65];
    ok_status st;
    clear_error();
    st = ok_cache_entry_at(c, i, &e);
    if (st != OK_OK) {
        set_error(st, "no cache entry at that index");
        return NULL;
    }
    ok_jbuf_init(&b, 1u << 20);
    jkey(&b, "{\"id\":");
    ok_jbuf_u64(&b, e.id);
    jkey(&b, ",\"state\":");
    ok_jbuf_u64(&b, e.state);
    jkey(&b, ",\"form\":");
    ok_jbuf_u64(&b, e.form);
    jkey(&b, ",\"flags\":");
    ok_jbuf_u64(&b, e.flags);
    jkey(&b, ",\"chunkSize\":");
    ok_jbuf_u64(&b, e.chunk_size);
    jkey(&b, ",\"chunkCount\":");
    ok_jbuf_u64(&b, e.chunk_count);
    jkey(&b, ",\"storedCount\":");
    ok_jbuf_u64(&b, e.stored_count);
    jkey(&b, ",\"refcount\":");
    ok_jbuf_u64(&b, e.refcount);
    jkey(&b, ",\"writing\":");
    ok_jbuf_u64(&b, e.writing);
    jkey(&b, ",\"integrityAlg\":");
    ok_jbuf_u64(&b, e.integrity_alg);
    jkey(&b, ",\"reportLen\":");
    ok_jbuf_u64(&b, e.report_len);
    jkey(&b, ",\"gen\":");
    ok_jbuf_u64(&b, e.gen);
    jkey(&b, ",\"totalSize\":");
    ok_jbuf_u64(&b, e.total_size);
    jkey(&b, ",\"storedBytes\":");
    ok_jbuf_u64(&b, e.stored_bytes);
    jkey(&b, ",\"lastUsed\":");
    ok_jbuf_u64(&b, e.last_used);
    jkey(&b, ",\"hitCount\":");
    ok_jbuf_u64(&b, e.hit_count);
    jkey(&b, ",\"formStatus\":");
    ok_jbuf_u64(&b, e.form_status);
    jkey(&b, ",\"formReason\":");
    ok_jbuf_u64(&b, e.form_reason);
    jkey(&b, ",\"createUs\":");
    ok_jbuf_u64(&b, e.create_us);
    jkey(&b, ",\"origCreateUs\":");
    ok_jbuf_u64(&b, e.orig_create_us);
    jkey(&b, ",\"revPairs\":");
    ok_jbuf_u64(&b, e.rev_pairs);
    jkey(&b, ",\"revFormUs\":");
    ok_jbuf_u64(&b, e.rev_form_us);
    jkey(&b, ",\"revOrigUs\":");
    ok_jbuf_u64(&b, e.rev_orig_us);
    jkey(&b, ",\"sourceSha256\":");
    if ((e.form != OK_FORM_ORIGINAL || (e.flags & OK_EF_PART)) && e.source_sha256) {
        ok_hex(e.source_sha256, 32, hex);
        jstr(&b, hex);
    } else {
        ok_jbuf_puts(&b, "null");
    }
    jkey(&b, ",\"owner\":");
    ok_jbuf_u64(&b, e.owner);
    jkey(&b, ",\"location\":");
    jstr(&b, e.location ? e.location : "");
    jkey(&b, ",\"key\":");
    jstr(&b, e.key);
    jkey(&b, ",\"url\":");
    jstr(&b, e.url);
    jkey(&b, ",\"etag\":");
    jstr(&b, e.etag);
    jkey(&b, ",\"lastModified\":");
    jstr(&b, e.last_modified);
    jkey(&b, ",\"name\":");
    jstr(&b, e.name);
    jkey(&b, ",\"sha256\":");
    if (e.sha256 && e.state == OK_ENTRY_COMMITTED) {
        ok_hex(e.sha256, 32, hex);
        jstr(&b, hex);
    } else {
        ok_jbuf_puts(&b, "null");
    }
    ok_jbuf_puts(&b, "}");
    return jfinish(&b, "cache entry info did not fit");
}

/* ok_load_new with the parameters flat (no struct of pointers across the
 * boundary). Returns the load, or NULL with last_error set. */
OK_EXPORT ok_load *ok_abi_load_new(ok_cache *c, uint32_t source, const char *raw, const char *url,
                                   const char *page_url, const char *integrity, uint32_t mode,
                                   uint32_t chunk_size, uint32_t flags, uint64_t now, uint64_t bytes_len,
                                   const char *form_ctx, uint32_t form, const uint8_t *source_sha256,
                                   const char *part, uint32_t facts, ok_load *owner) {
    ok_load_params p;
    ok_load *l = NULL;
    ok_status st;
    clear_error();
    memset(&p, 0, sizeof p);
    p.source = source;
    p.raw = raw;
    p.url = url;
    p.page_url = page_url;
    p.integrity = integrity;
    p.mode = mode;
    p.chunk_size = chunk_size;
    p.flags = flags;
    p.now = now;
    p.bytes_len = bytes_len;
    p.form_ctx = form_ctx;
    p.form = form;
    p.source_sha256 = source_sha256;
    p.part = part;
    p.facts = facts;
    p.owner = owner;
    st = ok_load_new(c, &p, &l);
    if (st != OK_OK) {
        set_error(st, "the load's parameters were refused");
        return NULL;
    }
    return l;
}

OK_EXPORT char *ok_abi_load_info_json(const ok_load *l) {
    ok_load_info i;
    ok_jbuf b;
    char hex[65];
    clear_error();
    if (ok_load_info_get(l, &i) != OK_OK) {
        set_error(OK_ERR_INVALID_ARG, "no load");
        return NULL;
    }
    ok_jbuf_init(&b, 1u << 16);
    jkey(&b, "{\"state\":");
    ok_jbuf_u64(&b, i.state);
    jkey(&b, ",\"tier\":");
    ok_jbuf_u64(&b, i.tier);
    jkey(&b, ",\"stored\":");
    ok_jbuf_puts(&b, i.stored ? "true" : "false");
    jkey(&b, ",\"total\":");
    ok_jbuf_u64(&b, i.total);
    jkey(&b, ",\"received\":");
    ok_jbuf_u64(&b, i.received);
    jkey(&b, ",\"resumedFrom\":");
    ok_jbuf_u64(&b, i.resumed_from);
    jkey(&b, ",\"fetches\":");
    ok_jbuf_u64(&b, i.fetches);
    jkey(&b, ",\"resumes\":");
    ok_jbuf_u64(&b, i.resumes);
    jkey(&b, ",\"refetches\":");
    ok_jbuf_u64(&b, i.refetches);
    jkey(&b, ",\"key\":");
    jstr(&b, i.key);
    jkey(&b, ",\"lockName\":");
    jstr(&b, i.lock_name);
    jkey(&b, ",\"form\":");
    ok_jbuf_u64(&b, i.form);
    jkey(&b, ",\"formStatus\":");
    ok_jbuf_u64(&b, i.form_status);
    jkey(&b, ",\"formReason\":");
    ok_jbuf_u64(&b, i.form_reason);
    jkey(&b, ",\"nextForm\":");
    ok_jbuf_u64(&b, i.next_form);
    jkey(&b, ",\"createUs\":");
    ok_jbuf_u64(&b, i.create_us);
    jkey(&b, ",\"origCreateUs\":");
    ok_jbuf_u64(&b, i.orig_create_us);
    jkey(&b, ",\"sourceTotal\":");
    ok_jbuf_u64(&b, i.source_total);
    jkey(&b, ",\"revise\":");
    ok_jbuf_puts(&b, i.revise ? "true" : "false");
    jkey(&b, ",\"revision\":");
    ok_jbuf_u64(&b, i.revision);
    jkey(&b, ",\"sha256\":");
    if (i.has_sha256) {
        ok_hex(i.sha256, 32, hex);
        jstr(&b, hex);
    } else {
        ok_jbuf_puts(&b, "null");
    }
    ok_jbuf_puts(&b, "}");
    return jfinish(&b, "load info did not fit");
}

/* ok_form_given_source_id with the locations NUL-separated in one string
 * and the n hashes back to back (32 bytes each); 1 with out written, or 0
 * with last_error set. */
OK_EXPORT int ok_abi_given_source_id(const uint8_t *sha, uint32_t n, const char *locs, const uint8_t *shas,
                                     uint8_t *out) {
    const char **lv;
    const uint8_t **sv;
    uint32_t i;
    ok_status st;
    clear_error();
    if (n > 1024) {
        set_error(OK_ERR_LIMIT, "too many data files");
        return 0;
    }
    lv = malloc((n ? n : 1) * sizeof *lv);
    sv = malloc((n ? n : 1) * sizeof *sv);
    if (!lv || !sv) {
        free(lv);
        free(sv);
        set_error(OK_ERR_NOMEM, "out of memory for data file names");
        return 0;
    }
    for (i = 0; i < n; i++) {
        lv[i] = locs;
        sv[i] = shas + (size_t)i * 32;
        locs += strlen(locs) + 1;
    }
    st = ok_form_given_source_id(sha, n, lv, sv, out);
    free(lv);
    free(sv);
    if (st != OK_OK) {
        set_error(st, "a data file's location is given twice");
        return 0;
    }
    return 1;
}

/* ---- the host's small decisions (cache/host_policy.h) ----
 * The scalar ones are exported as they are (wasm/exports.txt); the sharing
 * key comes back as a string the caller frees. */
#include "host_policy.h"

/* The memory tier's key (ok_session_share_key), or NULL with last_error set. */
OK_EXPORT char *ok_abi_session_share_key(const char *source_key, const char *integrity, const char *eps_json,
                                         const char *options_json) {
    size_t n;
    char *out;
    clear_error();
    n = ok_session_share_key(source_key, integrity, eps_json, options_json, NULL, 0);
    if (!n) {
        set_error(OK_ERR_INVALID_ARG, "no source key");
        return NULL;
    }
    out = malloc(n + 1);
    if (!out) {
        set_error(OK_ERR_NOMEM, "out of memory for a session key");
        return NULL;
    }
    ok_session_share_key(source_key, integrity, eps_json, options_json, out, n + 1);
    return out;
}
