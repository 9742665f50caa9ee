/* The load machine: the lookup after the sync (a hit, a download to resume, a
 * miss, a revalidation) and falling back to uncached when the store fails. */
#include <string.h>

#include "load_internal.h"
#include "form_tiers.h"

static ok_entry *committed_for(ok_load *l) {
    uint32_t i;
    for (i = 0; i < l->n_keys; i++) {
        ok_entry *e = ok_idx_find_committed(l->c, l->keys[i]);
        if (e) {
            l->key_index = i; /* the key parts and forms hang off */
            return e;
        }
    }
    return NULL;
}

/* A pending entry this load can continue: same URL, the same integrity,
 * resumable, something stored. */
static int can_resume(const ok_load *l, const ok_entry *e) {
    uint32_t nb = ok_hash_bytes(l->integ.alg), i;
    if (!ok_entry_resumable(e) || !e->stored_count) return 0;
    if (strcmp(e->url, l->url) != 0 || e->chunk_size != l->chunk_size) return 0;
    if (l->source == OK_SOURCE_DATA && memcmp(e->source_sha256, l->source_sha, 32) != 0) return 0;
    if (e->integ_alg != l->integ.alg || e->integ_count != l->integ.count) return 0;
    for (i = 0; i < l->integ.count; i++)
        if (memcmp(e->integ + (size_t)i * nb, l->integ.digest[i], nb) != 0) return 0;
    return 1;
}

/* READ_CHUNKS from chunk `from` to the end of what is stored (a rehash:
 * the stored prefix of a pending entry), then, on a hit, READ_META. */
ok_status ok_ld_push_reads(ok_load *l, const ok_entry *e, uint32_t from) {
    ok_act_args a;
    ok_status st;
    ok_ld_args0(&a, OK_ACT_READ_CHUNKS);
    a.entry = e->id;
    a.chunk = from;
    a.chunk_end = l->rehash ? e->stored_count : e->chunk_count;
    a.flags = l->rehash ? OK_READ_REHASH : 0;
    a.value = e->chunk_size;
    a.value2 = e->total_size;
    a.name = e->name;
    st = ok_ld_push(l, &a);
    if (!st && !l->rehash && l->source != OK_SOURCE_DATA) {
        ok_ld_args0(&a, OK_ACT_READ_META);
        a.entry = e->id;
        a.name = e->name;
        st = ok_ld_push(l, &a);
    }
    return st;
}

/* Read a committed entry (a hit, or a 304 revalidation). */
ok_status ok_ld_start_hit(ok_load *l, ok_entry *e) {
    ok_status st;
    e->refcount++; /* its use counts once served (load_session.c) */
    l->hit_id = e->id;
    l->total = e->total_size;
    l->read_next = 0;
    l->rehash = 0;
    l->tier = OK_TIER_INDEXEDDB;
    st = ok_ld_push_simple(l, OK_ACT_ALLOC, e->total_size, e->total_size, 0, NULL);
    if (!st) st = ok_ld_push_reads(l, e, 0);
    l->state = OK_LOAD_STATE_READING;
    return st;
}

/* Re-read a pending entry's stored prefix (checking each chunk and
 * rebuilding the content hash), then ask for the rest by Range. */
static ok_status start_resume(ok_load *l, ok_entry *e) {
    ok_status st;
    ok_ld_reset_stream(l);
    e->writing = 1;
    e->last_used = l->now;
    l->write_id = e->id;
    l->rehash = 1;
    l->read_next = 0;
    l->total = e->total_size;
    l->size_exact = e->total_size != 0; /* unknown: a cross-origin hint, integrity vouches */
    l->storing = 1;
    l->strong = (e->flags & OK_EF_STRONG) != 0;
    st = ok_ld_push_simple(l, OK_ACT_ALLOC, e->total_size, e->total_size, 0, NULL);
    if (!st) st = ok_ld_push_reads(l, e, 0);
    l->state = OK_LOAD_STATE_READING;
    return st;
}

/* Drop a pending entry this load cannot continue (the key's lock is held:
 * no one else is writing it). */
static ok_status sweep_pending(ok_load *l, ok_entry *p) {
    ok_status st = ok_q_push_drop(&l->q, p);
    if (st) return st;
    ok_idx_remove(l->c, p);
    return OK_OK;
}

/* Nothing stored serves: continue a download left pending when it can
 * be, else sweep it and fetch. */
static ok_status lookup_miss(ok_load *l) {
    ok_entry *p;
    ok_status st;
    if (l->mode == OK_MODE_ONLY_IF_CACHED) return ok_ld_fail(l, OK_ERR_NOT_FOUND, OK_REASON_NOT_CACHED, 0);
    p = ok_ld_pending_for(l);
    if (p && l->mode != OK_MODE_RELOAD && can_resume(l, p) && l->resumes < OK_LOAD_MAX_RESUMES)
        return start_resume(l, p);
    if (p && (st = sweep_pending(l, p))) return st;
    return ok_ld_send_fetch(l, 0, 0);
}

/* no-cache: a conditional request with the entry's validators (304: the
 * stored copy); nothing to revalidate with: a fetch that replaces it. */
static ok_status revalidate(ok_load *l, ok_entry *e) {
    ok_status st;
    e->refcount++;
    l->hit_id = e->id;
    if (e->etag[0] || e->lm[0]) return ok_ld_send_fetch(l, 0, OK_FETCH_CONDITIONAL);
    st = ok_ld_release_hit(l);
    return st ? st : ok_ld_send_fetch(l, 0, 0);
}

/* A part: the stored file if it was committed beside these very model
 * bytes, else a download it can continue, else the network. */
static ok_status lookup_part(ok_load *l) {
    ok_entry *e = l->mode != OK_MODE_RELOAD ? ok_idx_find_committed(l->c, l->keys[0]) : NULL;
    if (e && memcmp(e->source_sha256, l->source_sha, 32) == 0)
        return l->mode == OK_MODE_NO_CACHE ? revalidate(l, e) : ok_ld_start_hit(l, e);
    return lookup_miss(l);
}

/* Content-keyed bytes: a verified form made from these very bytes, else
 * the caller's bytes (ok_ld_send_fetch), which are the fallback too. */
static ok_status lookup_bytes(ok_load *l) {
    ok_entry *f = NULL;
    ok_status st = ok_form_servable(l->c, l->keys[0], l->form_ctx, l->source_sha, l->flags, &f);
    if (st) return st;
    if (!f) return ok_ld_send_fetch(l, 0, 0);
    l->orig_id = 0;
    l->form = f->form;
    l->create_us = f->create_us;
    l->orig_create_us = f->orig_create_us;
    return ok_ld_start_hit(l, f);
}

ok_status ok_ld_lookup(ok_load *l) {
    ok_entry *e = NULL;
    ok_status st;
    if (l->source == OK_SOURCE_FORM) return ok_ld_lookup_form_store(l);
    if (l->source == OK_SOURCE_BYTES) return lookup_bytes(l);
    if (l->source == OK_SOURCE_DATA) return lookup_part(l);
    if (l->mode != OK_MODE_RELOAD) e = committed_for(l);
    if (e && l->form_ctx && (l->mode == OK_MODE_DEFAULT || l->mode == OK_MODE_ONLY_IF_CACHED)) {
        ok_entry *f = NULL;
        st = ok_form_servable(l->c, e->key, l->form_ctx, e->sha256, l->flags, &f);
        if (st) return st;
        if (f) {
            /* the original stays the fallback if the form fails its checks */
            l->orig_id = e->id;
            l->form = f->form;
            l->create_us = f->create_us;
            l->orig_create_us = f->orig_create_us;
            return ok_ld_start_hit(l, f);
        }
    }
    if (e && l->mode == OK_MODE_NO_CACHE) return revalidate(l, e);
    if (e) return ok_ld_start_hit(l, e);
    return lookup_miss(l);
}

/* A source that is fetched (URL, DATA): its integrity must parse and its
 * scheme hold a model here (else FAIL is queued and *refused set); then
 * whether it is stored, and the tier it comes from. */
ok_status ok_ld_admit_fetched(ok_load *l, int *refused) {
    *refused = 1;
    if (l->integ_bad) return ok_ld_fail(l, OK_ERR_INVALID_ARG, OK_REASON_BAD_INTEGRITY, 0);
    if (l->scheme == SCHEME_BAD || (l->scheme == SCHEME_FILE && !(l->flags & OK_LOAD_NODE)))
        return ok_ld_fail(l, OK_ERR_INVALID_SOURCE, OK_REASON_SCHEME, 0);
    if (l->page_url && strcmp(l->page_url, l->url) == 0)
        return ok_ld_fail(l, OK_ERR_INVALID_SOURCE, OK_REASON_PAGE_ITSELF, 0);
    *refused = 0;
    l->storable = l->scheme == SCHEME_HTTP && l->mode != OK_MODE_NO_STORE &&
                  !(l->flags & (OK_LOAD_NO_IDB | OK_LOAD_IDB_FAILED));
    l->tier = l->scheme == SCHEME_FILE ? OK_TIER_FILE : OK_TIER_NETWORK;
    return OK_OK;
}

/* The store could not be used: go on without it. What was stored is kept
 * for a resume, unless it is the quota that refused it: then it cannot be
 * finished either, and only takes the space. */
ok_status ok_ld_go_uncached(ok_load *l, uint32_t warning, uint32_t reason) {
    ok_status st = ok_ld_end_write(l, warning != OK_WARN_QUOTA);
    if (!st) st = ok_ld_warn(l, warning, reason, 0);
    l->storable = 0;
    return st;
}

/* A read or a store failed. CLOSED: reopen (a bounded number of times) and
 * redo; else the load goes on without the cache. */
ok_status ok_ld_io_trouble(ok_load *l, uint32_t kind, int *redo) {
    *redo = 0;
    if (kind == OK_IOFAIL_CLOSED && l->reopens < OK_LOAD_MAX_REOPENS) {
        l->reopens++;
        *redo = 1;
        return ok_ld_push_simple(l, OK_ACT_REOPEN, 0, 0, 0, NULL);
    }
    return OK_OK;
}
