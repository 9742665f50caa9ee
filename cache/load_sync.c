/* The load machine: start, the lock and the index sync (the events before the
 * lookup), and the store failing under a load. */
#include "load_internal.h"

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
        if (l->content) {
            /* a form of these bytes may serve: look under their key's lock */
            l->storable = 1;
            l->state = OK_LOAD_STATE_LOCKING;
            return ok_ld_leave(l, ok_ld_push_simple(l, OK_ACT_LOCK, 0, 0, 0, l->lock_name));
        }
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
            st = ok_ld_push_reads(l, e, l->read_next);
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
