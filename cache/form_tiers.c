/* The optimized forms' tier policy (form_tiers.h): .onnx -> .ort -> the
 * original. A form is judged for the exact bytes it was made from (its
 * source: the model's SHA-256 and its data files'): a model or a data file
 * that changes at its URL starts over. */
#include <stdio.h>
#include <string.h>

#include "form_tiers.h"
#include "ok_load.h"
#include "sha256.h"

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

/* A committed data file serving beside the model `orig_key` whose bytes
 * hash to `sha` (ok_idx_owner's test, without looking the model up). */
static int part_beside(const ok_entry *p, const char *orig_key, const uint8_t *sha) {
    return p->state == OK_ENTRY_COMMITTED && !p->superseded && ok_part_of(p, orig_key) &&
           memcmp(p->source_sha256, sha, 32) == 0;
}

/* The part beside it whose key sorts first after `after` (NULL: first). */
static const ok_entry *next_part(const ok_cache *c, const char *orig_key, const uint8_t *sha,
                                 const char *after) {
    const ok_entry *best = NULL;
    uint32_t i;
    for (i = 0; i < c->n_entries; i++) {
        const ok_entry *p = c->entries[i];
        if (!part_beside(p, orig_key, sha)) continue;
        if (after && strcmp(p->key, after) <= 0) continue;
        if (!best || strcmp(p->key, best->key) < 0) best = p;
    }
    return best;
}

static const char SOURCE_TAG[] = "ortkeep form source v1";

/* One data file into a source id: its location and a NUL (no two lists
 * collide), then its content hash. */
static void source_add(struct ok_sha256 *h, const char *loc, const uint8_t *sha) {
    ok_sha256_update(h, (const uint8_t *)loc, strlen(loc) + 1);
    ok_sha256_update(h, sha, 32);
}

void ok_form_source_id(const ok_cache *c, const char *orig_key, const uint8_t *sha, uint8_t out[32]) {
    size_t owner = strlen(orig_key);
    const ok_entry *p = next_part(c, orig_key, sha, NULL);
    struct ok_sha256 h;
    if (!p) {
        memmove(out, sha, 32); /* no data files: the model's own hash */
        return;
    }
    ok_sha256_init(&h);
    ok_sha256_update(&h, (const uint8_t *)SOURCE_TAG, sizeof SOURCE_TAG); /* with its NUL */
    ok_sha256_update(&h, sha, 32);
    /* the location: the key after "|data:" */
    for (; p; p = next_part(c, orig_key, sha, p->key))
        source_add(&h, p->key + owner + sizeof OK_PART_SEP - 1, p->sha256);
    ok_sha256_final(&h, out);
}

ok_status ok_form_given_source_id(const uint8_t *sha, uint32_t n, const char *const *locs,
                                  const uint8_t *const *shas, uint8_t out[32]) {
    struct ok_sha256 h;
    const char *last = NULL;
    uint32_t i, k;
    for (i = 0; i < n; i++)
        if (!locs[i] || !shas[i]) return OK_ERR_INVALID_ARG;
    if (!n) {
        memmove(out, sha, 32);
        return OK_OK;
    }
    ok_sha256_init(&h);
    ok_sha256_update(&h, (const uint8_t *)SOURCE_TAG, sizeof SOURCE_TAG);
    ok_sha256_update(&h, sha, 32);
    /* in location order, as stored parts sort (n is a model's few files) */
    for (k = 0; k < n; k++) {
        uint32_t best = n;
        for (i = 0; i < n; i++) {
            int after = !last || strcmp(locs[i], last) > 0;
            if (after && (best == n || strcmp(locs[i], locs[best]) < 0)) best = i;
        }
        if (best == n) return OK_ERR_INVALID_ARG; /* a location given twice */
        source_add(&h, locs[best], shas[best]);
        last = locs[best];
    }
    ok_sha256_final(&h, out);
    return OK_OK;
}

int ok_form_names_given_data(uint64_t data_bytes) { return data_bytes <= OK_FORM_MAX_DATA_BYTES; }

/* The committed entry of form `form` made from these bytes (the model's
 * and its data files'), if any. */
static ok_status form_entry(const ok_cache *c, const char *orig_key, uint32_t form, const char *ctx,
                            const uint8_t *sha, ok_entry **out) {
    char *k = ok_form_key(orig_key, form, ctx);
    ok_entry *f;
    uint8_t id[32];
    if (!k) return OK_ERR_NOMEM;
    f = ok_idx_find_committed(c, k);
    ok_cache_free(k);
    if (f) ok_form_source_id(c, orig_key, sha, id);
    *out = f && memcmp(f->source_sha256, id, 32) == 0 ? f : NULL;
    return OK_OK;
}

/* The tiers in the order a page tries and serves them: the .onnx form
 * first, except where the page creates an .ort form in place
 * (OK_LOAD_ORT_IN_PLACE), where that is the faster one (form_tiers.h).
 * OK_FORM_ORIGINAL ends each list. */
static const uint32_t *tier_order(uint32_t load_flags) {
    static const uint32_t onnx_first[OK_FORM_COUNT] = {OK_FORM_ONNX, OK_FORM_ORT, OK_FORM_ORIGINAL};
    static const uint32_t ort_first[OK_FORM_COUNT] = {OK_FORM_ORT, OK_FORM_ONNX, OK_FORM_ORIGINAL};
    return (load_flags & OK_LOAD_ORT_IN_PLACE) ? ort_first : onnx_first;
}

ok_status ok_form_servable(const ok_cache *c, const char *orig_key, const char *ctx, const uint8_t *sha,
                           uint32_t load_flags, ok_entry **out) {
    const uint32_t *order = tier_order(load_flags);
    uint32_t i;
    *out = NULL;
    for (i = 0; order[i] != OK_FORM_ORIGINAL; i++) {
        ok_entry *f;
        ok_status st = form_entry(c, orig_key, order[i], ctx, sha, &f);
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

int ok_form_retry(const ok_entry *f, uint64_t now) {
    if (f->form_status != OK_FORM_FAILED) return 0;
    if (f->form_reason == OK_REASON_FORM_INTERRUPTED) return 1;
    return f->form_reason == OK_REASON_FORM_SLOWER && now >= f->last_used &&
           now - f->last_used >= OK_FORM_RETRY_SLOWER_MS;
}

int ok_form_revise_wanted(const ok_entry *f, uint32_t form_us, uint32_t facts) {
    if (!f || f->form_status != OK_FORM_VERIFIED || !form_us) return 0;
    if (facts & (OK_SESSION_FIRST | OK_SESSION_DATA_FILES)) return 0;
    return f->rev_pairs > 0 ||
           (uint64_t)form_us * 100u >= (uint64_t)f->orig_create_us * OK_FORM_REVISE_NEAR_PCT;
}

static uint32_t add_sat(uint32_t a, uint32_t b) { return b > UINT32_MAX - a ? UINT32_MAX : a + b; }

/* Slower over the pairs (form first) and the verification (both orders,
 * each side's best sample) together: the geometric mean of the two ratios
 * past OK_FORM_REVISE_SLOWER_PCT%, so the pairs' order counts half, not
 * whole. A record without verified times has only the pairs to go by. */
static int slower(const ok_entry *f, uint32_t fsum, uint32_t osum) {
    double limit = OK_FORM_REVISE_SLOWER_PCT / 100.0, pairs = (double)fsum / (double)(osum ? osum : 1);
    if (!f->create_us || !f->orig_create_us) return pairs > limit;
    return pairs * ((double)f->create_us / (double)f->orig_create_us) > limit * limit;
}

uint32_t ok_form_revise(ok_entry *f, uint32_t *form_us, uint32_t *orig_us) {
    uint32_t pairs = f->rev_pairs + 1, fsum = add_sat(f->rev_form_us, *form_us),
             osum = add_sat(f->rev_orig_us, *orig_us);
    if (pairs < OK_FORM_REVISE_PAIRS) {
        f->rev_pairs = pairs;
        f->rev_form_us = fsum;
        f->rev_orig_us = osum;
        return OK_REVISION_TALLIED;
    }
    f->rev_pairs = f->rev_form_us = f->rev_orig_us = 0;
    if (!slower(f, fsum, osum)) return OK_REVISION_KEPT;
    *form_us = fsum / pairs;
    *orig_us = osum / pairs;
    return OK_REVISION_DEMOTED;
}

ok_status ok_form_next_capture(const ok_cache *c, const char *orig_key, const char *ctx, const uint8_t *sha,
                               uint32_t facts, uint32_t load_flags, uint64_t model_bytes, uint64_t data_bytes,
                               uint64_t now, uint32_t *out) {
    const uint32_t *order = tier_order(load_flags);
    uint32_t i;
    int external = (facts & OK_FACT_EXTERNAL_DATA) != 0;
    *out = OK_FORM_ORIGINAL;
    if (model_bytes >= OK_FORM_MAX_INLINE_BYTES) return OK_OK;
    if (external && data_bytes > OK_FORM_MAX_DATA_BYTES) return OK_OK;
    for (i = 0; order[i] != OK_FORM_ORIGINAL; i++) {
        uint32_t form = order[i];
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
        if (ok_form_retry(f, now)) {
            *out = form; /* once more */
            return OK_OK;
        }
        /* FAILED for these bytes: the next tier */
    }
    return OK_OK; /* every tier failed: the sentinel */
}

ok_status ok_form_judge(uint32_t verdict, uint32_t create_us, uint32_t orig_create_us, uint32_t prior_reason,
                        uint32_t *status, uint32_t *reason) {
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
    case OK_VERDICT_FAILED:
        *reason = prior_reason == OK_REASON_FORM_INTERRUPTED ? OK_REASON_SESSION : OK_REASON_FORM_INTERRUPTED;
        return OK_OK;
    default: return OK_ERR_INVALID_ARG;
    }
}

uint32_t ok_form_after(uint32_t form, uint32_t facts, uint32_t load_flags) {
    const uint32_t *order = tier_order(load_flags);
    uint32_t i = 0;
    while (order[i] != OK_FORM_ORIGINAL && order[i] != form) i++;
    if (order[i] == OK_FORM_ORIGINAL) return OK_FORM_ORIGINAL;
    for (i++; order[i] != OK_FORM_ORIGINAL; i++)
        if (!doomed(order[i], facts)) return order[i];
    return OK_FORM_ORIGINAL;
}
