/* The optimized forms' tier policy (form_tiers.h): .onnx -> .ort -> the
 * original. A form is judged for the exact bytes it was made from (its
 * source SHA-256): a model that changes at its URL starts over. */
#include <stdio.h>
#include <string.h>

#include "form_tiers.h"
#include "ok_load.h"

#define FORM_NAME_(name, value, js) js,
static const char *const FORM_NAMES[] = {OK_FORM_LIST(FORM_NAME_)};
#undef FORM_NAME_

char *ok_form_key(const char *orig_key, uint32_t form, const char *ctx) {
    static const char tail[] = "|form:original";
    size_t n = strlen(orig_key), t = sizeof tail - 1, need;
    char *k;
    if (form >= OK_FORM_COUNT) return NULL;
    if (n >= t && memcmp(orig_key + n - t, tail, t) == 0) n -= t;
    need = n + strlen(ctx) + 32;
    k = ok_cache_malloc(need);
    if (k) snprintf(k, need, "%.*s|form:%s|%s", (int)n, orig_key, FORM_NAMES[form], ctx);
    return k;
}

/* The committed entry of form `form` made from these bytes, if any. */
static ok_status form_entry(const ok_cache *c, const char *orig_key,
                            uint32_t form, const char *ctx, const uint8_t *sha,
                            ok_entry **out) {
    char *k = ok_form_key(orig_key, form, ctx);
    ok_entry *f;
    if (!k) return OK_ERR_NOMEM;
    f = ok_idx_find_committed(c, k);
    ok_cache_free(k);
    *out = f && memcmp(f->source_sha256, sha, 32) == 0 ? f : NULL;
    return OK_OK;
}

ok_status ok_form_servable(const ok_cache *c, const char *orig_key,
                           const char *ctx, const uint8_t *sha, ok_entry **out) {
    uint32_t form;
    *out = NULL;
    for (form = OK_FORM_ONNX; form < OK_FORM_COUNT; form++) {
        ok_entry *f;
        ok_status st = form_entry(c, orig_key, form, ctx, sha, &f);
        if (st) return st;
        if (f && f->form_status == OK_FORM_VERIFIED) {
            *out = f;
            return OK_OK;
        }
    }
    return OK_OK;
}

/* The reader's facts rule the tier out: the ORT format cannot point at
 * external data, and onnxruntime's .onnx writer duplicates subgraph
 * initializers that live in external data; neither round-trips. */
static int doomed(uint32_t form, uint32_t facts) {
    if (!(facts & OK_FACT_EXTERNAL_DATA)) return 0;
    return form == OK_FORM_ORT || (facts & OK_FACT_SUBGRAPH_INITIALIZERS);
}

ok_status ok_form_next_capture(const ok_cache *c, const char *orig_key,
                               const char *ctx, const uint8_t *sha,
                               uint32_t facts, uint64_t model_bytes,
                               uint64_t data_bytes, uint32_t *out) {
    uint32_t form;
    int external = (facts & OK_FACT_EXTERNAL_DATA) != 0;
    *out = OK_FORM_ORIGINAL;
    if (model_bytes >= OK_FORM_MAX_INLINE_BYTES) return OK_OK;
    if (external && data_bytes > OK_FORM_MAX_DATA_BYTES) return OK_OK;
    for (form = OK_FORM_ONNX; form < OK_FORM_COUNT; form++) {
        ok_entry *f;
        ok_status st;
        if (doomed(form, facts)) continue;
        st = form_entry(c, orig_key, form, ctx, sha, &f);
        if (st) return st;
        if (!f) {
            *out = form;
            return OK_OK;
        }
        if (f->form_status == OK_FORM_VERIFIED) return OK_OK; /* have one */
        /* FAILED for these bytes: the next tier */
    }
    return OK_OK; /* every tier failed: the sentinel */
}

ok_status ok_form_judge(uint32_t verdict, uint32_t create_us,
                        uint32_t orig_create_us, uint32_t *status,
                        uint32_t *reason) {
    *status = OK_FORM_FAILED;
    *reason = OK_REASON_NONE;
    switch (verdict) {
    case OK_VERDICT_EQUAL:
        /* fastest as measured here: a form must create faster than the
         * original it replaces */
        if (create_us < orig_create_us) *status = OK_FORM_VERIFIED;
        else *reason = OK_REASON_FORM_SLOWER;
        return OK_OK;
    case OK_VERDICT_DIFFERS: *reason = OK_REASON_FORM_OUTPUTS; return OK_OK;
    case OK_VERDICT_UNVERIFIABLE: *reason = OK_REASON_FORM_UNVERIFIABLE; return OK_OK;
    case OK_VERDICT_FAILED: *reason = OK_REASON_SESSION; return OK_OK;
    default: return OK_ERR_INVALID_ARG;
    }
}

uint32_t ok_form_after(uint32_t form, uint32_t facts) {
    for (form++; form < OK_FORM_COUNT; form++)
        if (!doomed(form, facts)) return form;
    return OK_FORM_ORIGINAL;
}
