/* LRU eviction under a byte budget and the browser's free quota.
 *
 * Only idle entries are candidates: no reference (being read), no download
 * in flight, and no other load (tab) holding the key's lock; a model goes
 * with its external data files (parts). The plan is all-or-nothing: when
 * evicting every candidate would still not make room, nothing is evicted
 * and the caller loads uncached -- emptying the cache for a download that
 * cannot be stored anyway would only lose data. A form never evicts the
 * original it was made from: it serves only beside it, so storing it in the
 * original's place would leave nothing usable (the original is downloaded
 * and the form captured again on every visit). */
#include <string.h>

#include "cache_internal.h"

static int fits(const ok_cache *c, uint64_t used, uint64_t freed, uint64_t need, uint64_t quota_free) {
    uint64_t after = used - freed;
    if (c->budget && (need > c->budget || after > c->budget - need)) return 0;
    if (quota_free != UINT64_MAX && freed < need && need - freed > quota_free) return 0;
    return 1;
}

/* e is the original that a form keyed `key` is made from: e's key is
 * "<k>|form:original" and key "<k>|form:<form>|<context>". */
static int original_of(const ok_entry *e, const char *key) {
    static const char tail[] = "|form:original";
    size_t n = strlen(e->key), t = sizeof tail - 1;
    if (!key || e->form != OK_FORM_ORIGINAL || n < t || memcmp(e->key + n - t, tail, t) != 0 ||
        strcmp(e->key, key) == 0)
        return 0;
    n -= t;
    return strncmp(key, e->key, n) == 0 && strncmp(key + n, "|form:", 6) == 0;
}

/* Idle here, and no other load (tab) holds its key's lock. A part (an
 * external data file) is never picked on its own: it goes with its model;
 * nor is the original of the form being written (`spare`). */
static int candidate(const ok_cache *c, const ok_entry *e, const ok_entry *keep, const char *spare) {
    return e != keep && e->refcount == 0 && !e->writing && !(e->flags & OK_EF_PART) &&
           !ok_idx_busy(c, e->key) && !original_of(e, spare);
}

/* The parts of e are idle too (they are dropped with it). */
static int parts_idle(const ok_cache *c, const ok_entry *e, const ok_entry *keep) {
    uint32_t i;
    for (i = 0; i < c->n_entries; i++) {
        const ok_entry *p = c->entries[i];
        if (ok_part_of(p, e->key) && (p == keep || p->refcount || p->writing)) return 0;
    }
    return 1;
}

/* Oldest use first. Ties: a form before an original (a form that serves
 * touches its original too, so the two tie, and a form without its
 * original serves nothing), then by id (the older load first). */
static int evicted_before(const ok_entry *e, const ok_entry *than) {
    int e_form = e->form != OK_FORM_ORIGINAL, than_form = than->form != OK_FORM_ORIGINAL;
    if (e->last_used != than->last_used) return e->last_used < than->last_used;
    if (e_form != than_form) return e_form;
    return e->id < than->id;
}

ok_status ok_evict_plan(ok_cache *c, uint64_t need, uint64_t quota_free, const ok_entry *keep, int min_one) {
    return ok_evict_plan_for(c, keep ? keep->key : NULL, need, quota_free, keep, min_one);
}

ok_status ok_evict_plan_for(ok_cache *c, const char *key, uint64_t need, uint64_t quota_free,
                            const ok_entry *keep, int min_one) {
    uint64_t used = ok_cache_bytes_stored(c), freed = 0;
    uint32_t i, picked = 0;

    for (i = 0; i < c->n_entries; i++) c->entries[i]->mark = 0;
    while (!fits(c, used, freed, need, quota_free) || (min_one && !picked)) {
        ok_entry *lru = NULL;
        for (i = 0; i < c->n_entries; i++) {
            ok_entry *e = c->entries[i];
            if (e->mark || !candidate(c, e, keep, key) || !parts_idle(c, e, keep)) continue;
            if (!lru || evicted_before(e, lru)) lru = e;
        }
        if (!lru) {
            for (i = 0; i < c->n_entries; i++) c->entries[i]->mark = 0;
            return OK_ERR_QUOTA;
        }
        lru->mark = 1;
        freed += ok_entry_stored_bytes(lru);
        picked++;
        for (i = 0; i < c->n_entries; i++) {
            ok_entry *p = c->entries[i];
            if (!p->mark && ok_part_of(p, lru->key)) {
                p->mark = 1;
                freed += ok_entry_stored_bytes(p);
            }
        }
    }
    return OK_OK;
}
