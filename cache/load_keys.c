/* The load machine: what a source is (its scheme) and the keys and lock name it is stored under. */
#include <stdio.h>
#include <string.h>

#include "load_internal.h"
#include "form_tiers.h"

int ok_ld_lower_prefix(const char *s, const char *p) {
    for (; *p; s++, p++) {
        char ch = *s;
        if (ch >= 'A' && ch <= 'Z') ch = (char)(ch - 'A' + 'a');
        if (ch != *p) return 0;
    }
    return 1;
}

uint32_t ok_ld_scheme_of(const char *url) {
    if (ok_ld_lower_prefix(url, "https:") || ok_ld_lower_prefix(url, "http:")) return SCHEME_HTTP;
    if (ok_ld_lower_prefix(url, "file:")) return SCHEME_FILE;
    if (ok_ld_lower_prefix(url, "blob:") || ok_ld_lower_prefix(url, "data:")) return SCHEME_DIRECT;
    return SCHEME_BAD;
}

/* The URL without its fragment (a copy). */
char *ok_ld_strip_fragment(const char *url) {
    const char *h = strchr(url, '#');
    return ok_cache_strndup(url, h ? (size_t)(h - url) : strlen(url));
}

static const char *alg_name(uint32_t alg) {
    switch (alg) {
    case OK_HASH_SHA256: return "sha256";
    case OK_HASH_SHA384: return "sha384";
    default: return "sha512";
    }
}

/* The form a load stores and reads (the original bytes, until the
 * artifact-forms issue adds optimized forms to OK_FORM_LIST). */
#define FORM_KEY_(name, value, js) js,
static const char *const FORM_NAMES[] = {OK_FORM_LIST(FORM_KEY_)};
#undef FORM_KEY_

/* Keys: "url:<url>|form:original", or with integrity one content key per
 * digest of the strongest algorithm ("sha384:<hex>|form:original"): the
 * same bytes hit whatever URL they came from. */
ok_status ok_ld_make_keys(ok_load *l) {
    uint32_t i;
    if (l->source == OK_SOURCE_DATA) {
        /* the model's key + "|data:" + location; no lock of its own */
        size_t n = strlen(l->raw) + sizeof OK_PART_SEP + strlen(l->part);
        l->keys[0] = ok_cache_malloc(n);
        if (!l->keys[0]) return OK_ERR_NOMEM;
        snprintf(l->keys[0], n, "%s" OK_PART_SEP "%s", l->raw, l->part);
        l->n_keys = 1;
        return OK_OK;
    }
    if (l->source == OK_SOURCE_FORM) {
        l->keys[0] = ok_form_key(l->raw, l->form, l->form_ctx);
        if (!l->keys[0]) return OK_ERR_NOMEM;
        l->n_keys = 1;
    } else if (l->source == OK_SOURCE_BYTES) {
        /* content-keyed bytes: the key an integrity sha256 load of them has */
        char hex[65];
        size_t n = sizeof hex + 32;
        l->keys[0] = ok_cache_malloc(n);
        if (!l->keys[0]) return OK_ERR_NOMEM;
        ok_hex(l->source_sha, 32, hex);
        snprintf(l->keys[0], n, "sha256:%s|form:%s", hex, FORM_NAMES[OK_FORM_ORIGINAL]);
        l->n_keys = 1;
    } else if (l->integ.alg == OK_HASH_NONE) {
        size_t n = strlen(l->url) + 32;
        char *k = ok_cache_malloc(n);
        if (!k) return OK_ERR_NOMEM;
        snprintf(k, n, "url:%s|form:%s", l->url, FORM_NAMES[OK_FORM_ORIGINAL]);
        l->keys[l->n_keys++] = k;
    } else {
        uint32_t nb = ok_hash_bytes(l->integ.alg);
        for (i = 0; i < l->integ.count; i++) {
            char hex[2 * OK_HASH_MAX_BYTES + 1];
            size_t n = 2 * nb + 32;
            char *k = ok_cache_malloc(n);
            if (!k) return OK_ERR_NOMEM;
            ok_hex(l->integ.digest[i], nb, hex);
            snprintf(k, n, "%s:%s|form:%s", alg_name(l->integ.alg), hex, FORM_NAMES[OK_FORM_ORIGINAL]);
            l->keys[l->n_keys++] = k;
        }
    }
    /* the lock is the smallest key, so every load of the same key set
     * serialises on one name whatever the token order */
    {
        const char *min = l->keys[0];
        size_t n;
        for (i = 1; i < l->n_keys; i++)
            if (strcmp(l->keys[i], min) < 0) min = l->keys[i];
        n = strlen(min) + sizeof OK_CACHE_LOCK_PREFIX;
        l->lock_name = ok_cache_malloc(n);
        if (!l->lock_name) return OK_ERR_NOMEM;
        snprintf(l->lock_name, n, "%s%s", OK_CACHE_LOCK_PREFIX, min);
    }
    return OK_OK;
}

ok_entry *ok_ld_pending_for(ok_load *l) {
    uint32_t i;
    for (i = 0; i < l->n_keys; i++) {
        ok_entry *e = ok_idx_find_pending(l->c, l->keys[i]);
        if (e && !e->writing) return e;
    }
    return NULL;
}
