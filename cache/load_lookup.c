/* The load machine: start, the lock and the index sync, then the lookup (a hit, a
 * download to resume, a miss), and the store failing under it. */
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

ok_entry *ok_ld_pending_for(ok_load *l) {
    uint32_t i;
    for (i = 0; i < l->n_keys; i++) {
        ok_entry *e = ok_idx_find_pending(l->c, l->keys[i]);
        if (e && !e->writing) return e;
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
static ok_status push_reads(ok_load *l, const ok_entry *e, uint32_t from) {
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
    e->refcount++;
    e->hit_count++;
    e->last_used = l->now;
    l->hit_id = e->id;
    l->total = e->total_size;
    l->read_next = 0;
    l->rehash = 0;
    l->tier = OK_TIER_INDEXEDDB;
    st = ok_ld_push_simple(l, OK_ACT_ALLOC, e->total_size, e->total_size, 0, NULL);
    if (!st) st = push_reads(l, e, 0);
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
    l->size_exact = 1;
    l->storing = 1;
    l->strong = (e->flags & OK_EF_STRONG) != 0;
    st = ok_ld_push_simple(l, OK_ACT_ALLOC, e->total_size, e->total_size, 0, NULL);
    if (!st) st = push_reads(l, e, 0);
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

ok_status ok_ld_lookup(ok_load *l) {
    ok_entry *e = NULL;
    ok_status st;
    if (l->source == OK_SOURCE_FORM) return ok_ld_lookup_form_store(l);
    if (l->source == OK_SOURCE_DATA) return lookup_part(l);
    if (l->mode != OK_MODE_RELOAD) e = committed_for(l);
    if (e && l->form_ctx && (l->mode == OK_MODE_DEFAULT || l->mode == OK_MODE_ONLY_IF_CACHED)) {
        ok_entry *f = NULL;
        st = ok_form_servable(l->c, e->key, l->form_ctx, e->sha256, &f);
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

ok_status ok_load_start(ok_load *l) {
    ok_status st = ok_ld_guard(l, OK_LOAD_STATE_NEW);
    if (st) return st;
    if (l->source == OK_SOURCE_BYTES) {
        /* the caller's bytes are the model buffer; JS feeds them as a body
         * so integrity and the prefix check run as for a download */
        l->tier = OK_TIER_BYTES;
        if (l->integ_bad)
            return ok_ld_leave(l, ok_ld_fail(l, OK_ERR_INVALID_ARG, OK_REASON_BAD_INTEGRITY, 0));
        l->total = l->bytes_len;
        l->size_exact = 1;
        return ok_ld_leave(l, ok_ld_stream(l));
    }
    if (l->source == OK_SOURCE_FORM) {
        /* nothing to store into: no IndexedDB here */
        if (l->flags & (OK_LOAD_NO_IDB | OK_LOAD_IDB_FAILED))
            return ok_ld_leave(l, ok_ld_fail(l, OK_ERR_INVALID_ARG, OK_REASON_NONE, 0));
        l->storable = 1;
        l->tier = OK_TIER_BYTES;
        l->state = OK_LOAD_STATE_LOCKING;
        return ok_ld_leave(l, ok_ld_push_simple(l, OK_ACT_LOCK, 0, 0, 0, l->lock_name));
    }
    if (l->source == OK_SOURCE_DATA) return ok_ld_leave(l, ok_ld_start_part(l));
    if (!l->raw[0]) return ok_ld_leave(l, ok_ld_fail(l, OK_ERR_INVALID_SOURCE, OK_REASON_EMPTY_SOURCE, 0));
    {
        int refused;
        st = ok_ld_admit_fetched(l, &refused);
        if (st || refused) return ok_ld_leave(l, st);
    }
    if (!l->storable) {
        if (l->mode == OK_MODE_ONLY_IF_CACHED)
            return ok_ld_leave(l, ok_ld_fail(l, OK_ERR_NOT_FOUND, OK_REASON_NOT_CACHED, 0));
        if (l->scheme == SCHEME_HTTP && l->mode != OK_MODE_NO_STORE && (l->flags & OK_LOAD_IDB_FAILED))
            st = ok_ld_warn(l, OK_WARN_CACHE_UNAVAILABLE, OK_REASON_NONE, 0);
        if (!st) st = ok_ld_send_fetch(l, 0, 0);
        return ok_ld_leave(l, st);
    }
    l->state = OK_LOAD_STATE_LOCKING;
    st = ok_ld_push_simple(l, OK_ACT_LOCK, 0, 0, 0, l->lock_name);
    return ok_ld_leave(l, st);
}

ok_status ok_load_locked(ok_load *l) {
    int first;
    ok_status st = ok_ld_guard(l, OK_LOAD_STATE_LOCKING);
    if (st) return st;
    first = !l->c->synced_once;
    st = ok_cache_sync_begin(l->c, first, &l->sync);
    if (!st) {
        l->c->synced_once = 1;
        l->state = OK_LOAD_STATE_SYNCING;
        st = ok_ld_push_simple(l, OK_ACT_SYNC_INDEX, 0, 0, first ? OK_SYNC_CHUNK_NAMES : 0, NULL);
    }
    return ok_ld_leave(l, st);
}

ok_status ok_load_sync_record(ok_load *l, const char *name, size_t name_len, const uint8_t *bytes,
                              size_t len) {
    ok_status st = ok_ld_guard(l, OK_LOAD_STATE_SYNCING);
    if (st) return st;
    st = ok_cache_sync_record(l->c, l->sync, name, name_len, bytes, len);
    ok_ld_unbind_queue(l);
    return st == OK_ERR_NOMEM ? ok_ld_nomem(l) : st;
}

ok_status ok_load_sync_chunk_name(ok_load *l, const char *name, size_t name_len) {
    ok_status st = ok_ld_guard(l, OK_LOAD_STATE_SYNCING);
    if (st) return st;
    st = ok_cache_sync_chunk_name(l->c, l->sync, name, name_len);
    ok_ld_unbind_queue(l);
    return st == OK_ERR_NOMEM ? ok_ld_nomem(l) : st;
}

ok_status ok_load_synced(ok_load *l) {
    ok_status st = ok_ld_guard(l, OK_LOAD_STATE_SYNCING);
    if (st) return st;
    st = ok_cache_sync_end(l->c, l->sync);
    l->sync = NULL;
    if (!st) st = ok_ld_lookup(l);
    return ok_ld_leave(l, st);
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

ok_status ok_load_io_failed(ok_load *l, uint32_t kind) {
    ok_status st;
    int redo;
    if (!l) return OK_ERR_INVALID_ARG;
    if (l->state != OK_LOAD_STATE_SYNCING && l->state != OK_LOAD_STATE_READING) return OK_ERR_STATE;
    ok_ld_bind_queue(l);
    st = ok_ld_io_trouble(l, kind, &redo);
    if (!st && l->state == OK_LOAD_STATE_SYNCING) {
        if (redo) {
            ok_cache_sync_abandon(l->c, l->sync);
            l->sync = NULL;
            st = ok_cache_sync_begin(l->c, 0, &l->sync);
            if (!st) st = ok_ld_push_simple(l, OK_ACT_SYNC_INDEX, 0, 0, 0, NULL);
        } else {
            ok_cache_sync_abandon(l->c, l->sync);
            l->sync = NULL;
            st = ok_ld_go_uncached(l, OK_WARN_CACHE_ERROR, OK_REASON_IDB);
            if (!st) {
                if (l->mode == OK_MODE_ONLY_IF_CACHED)
                    st = ok_ld_fail(l, OK_ERR_NOT_FOUND, OK_REASON_NOT_CACHED, 0);
                else st = ok_ld_send_fetch(l, 0, 0);
            }
        }
    } else if (!st) {
        /* READING: a hit or a resume could not read its records */
        ok_entry *e = ok_ld_entry_of(l, l->rehash ? l->write_id : l->hit_id);
        if (redo && e) {
            st = push_reads(l, e, l->read_next);
        } else {
            st = ok_ld_release_hit(l);
            if (!st) st = ok_ld_go_uncached(l, OK_WARN_CACHE_ERROR, OK_REASON_IDB);
            ok_ld_reset_stream(l);
            if (!st)
                st = l->mode == OK_MODE_ONLY_IF_CACHED
                         ? ok_ld_fail(l, OK_ERR_NOT_FOUND, OK_REASON_NOT_CACHED, 0)
                         : ok_ld_send_fetch(l, 0, 0);
        }
    }
    return ok_ld_leave(l, st);
}
