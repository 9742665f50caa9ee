/* The load machine: write acknowledgements (a write landed or failed) and what follows. */
#include <string.h>

#include "load_internal.h"

/* e's commit landed: it serves now; older generations of its key go (at
 * their last reader's release when in use). */
static ok_status now_committed(ok_load *l, ok_entry *e) {
    uint32_t i;
    ok_status st;
    e->state = OK_ENTRY_COMMITTED;
    for (i = 0; i < l->c->n_entries; i++) {
        ok_entry *o = l->c->entries[i];
        o->mark = o != e && strcmp(o->key, e->key) == 0 && !o->writing && !o->refcount;
        if (o != e && strcmp(o->key, e->key) == 0 && o->refcount) o->superseded = 1;
    }
    st = ok_idx_push_drop_marked(l->c);
    if (st) return st;
    ok_idx_remove_marked(l->c);
    e->writing = 0;
    return OK_OK;
}

static ok_status committed(ok_load *l) {
    ok_entry *e = ok_ld_entry_of(l, l->write_id);
    ok_status st;
    if (!e) return ok_ld_done(l);
    while (l->n_parts) {
        ok_entry *p = ok_ld_entry_of(l, l->parts[l->n_parts - 1]);
        if (p && (st = now_committed(l, p))) return st;
        l->n_parts--;
    }
    st = now_committed(l, e);
    if (st) return st;
    l->write_id = 0;
    l->storing = 0;
    l->stored = 1;
    return ok_ld_done(l);
}

/* Redo the write that failed (after an eviction or a reopen). */
static ok_status redo_write(ok_load *l, uint32_t type) {
    ok_entry *e = ok_ld_entry_of(l, l->write_id);
    if (!e) return OK_ERR_STATE;
    if (type == OK_ACT_STORE_CHUNK) {
        l->queued--;
        return ok_ld_pump(l);
    }
    if (type == OK_ACT_COMMIT)
        return l->source == OK_SOURCE_FORM ? ok_ld_form_commit(l, l->form_status, l->form_reason)
                                           : ok_ld_commit(l);
    return ok_ld_push_manifest(l, e);
}

/* After the write outstanding was settled (landed, or given up on): what
 * the state waits for next. */
static ok_status after_write(ok_load *l, uint32_t type) {
    if (ok_ld_finished(l)) return OK_OK;
    if (type == OK_ACT_COMMIT) return l->stored ? OK_OK : ok_ld_done(l);
    if (l->marker_pending) {
        l->marker_pending = 0;
        return ok_ld_stream(l);
    }
    if (l->resuming) {
        ok_status st = ok_ld_pump(l);
        if (st || l->w_pending) return st;
        l->resuming = 0;
        if (!l->storing) {
            /* storing stopped: the stored prefix cannot be continued */
            ok_ld_reset_stream(l);
            st = ok_ld_retry_later(l, OK_REASON_BODY_BROKEN, 0);
            return st == OK_ERR_LIMIT ? ok_ld_fail(l, OK_ERR_TRUNCATED, OK_REASON_BODY_BROKEN, 0) : st;
        }
        return ok_ld_send_fetch(l, l->received, OK_FETCH_RANGE);
    }
    if (l->state == OK_LOAD_STATE_STREAMING || l->served) return ok_ld_pump(l);
    return OK_OK;
}

ok_status ok_load_written(ok_load *l) {
    ok_entry *e;
    uint32_t type;
    ok_status st = OK_OK;
    if (!l) return OK_ERR_INVALID_ARG;
    /* after DONE, a hit's touches (the form's manifest, its original's)
     * are acked one by one and waited for by nothing */
    if (!l->w_pending && ok_ld_finished(l)) return OK_OK;
    if (!l->w_pending) return OK_ERR_STATE;
    ok_ld_bind_queue(l);
    l->w_pending = 0;
    type = l->w_type;
    e = ok_ld_entry_of(l, l->write_id);
    if (type == OK_ACT_STORE_CHUNK && e && l->w_chunk == e->stored_count) e->stored_count++;
    if (type == OK_ACT_COMMIT && !ok_ld_finished(l)) st = committed(l);
    if (!st) st = after_write(l, type);
    return ok_ld_leave(l, st);
}

/* The one outstanding write failed: evict and redo it (QUOTA), reopen and
 * redo (CLOSED), or store nothing more with a warning. */
static ok_status write_failed(ok_load *l, uint32_t kind) {
    ok_entry *e;
    uint32_t type;
    ok_status st = OK_OK;
    int redo = 0, marker;
    l->w_pending = 0;
    type = l->w_type;
    marker = l->marker_pending;
    e = ok_ld_entry_of(l, l->write_id);
    if (ok_ld_finished(l) || !e) return OK_OK; /* an LRU touch: let it be */
    if (kind == OK_IOFAIL_QUOTA) {
        uint64_t need = l->size_exact ? l->total : l->received + l->chunk_size;
        uint64_t have = ok_entry_stored_bytes(e);
        st = ok_evict_plan(l->c, need > have ? need - have : l->chunk_size, UINT64_MAX, e, 1);
        if (!st) {
            st = ok_idx_push_drop_marked(l->c);
            if (!st) {
                ok_idx_remove_marked(l->c);
                redo = 1;
            }
        } else if (st == OK_ERR_QUOTA) {
            st = ok_ld_go_uncached(l, OK_WARN_QUOTA, OK_REASON_TOO_BIG);
        }
    } else {
        st = ok_ld_io_trouble(l, kind, &redo);
        if (!st && !redo) st = ok_ld_go_uncached(l, OK_WARN_CACHE_ERROR, OK_REASON_IDB);
    }
    if (!st && redo) return redo_write(l, type);
    if (!st && marker && !l->storing) {
        /* the body was waiting for the marker: it streams uncached now */
        st = ok_ld_stream(l);
    } else if (!st) {
        st = after_write(l, type);
    }
    return st;
}

ok_status ok_load_write_failed(ok_load *l, uint32_t kind) {
    if (!l) return OK_ERR_INVALID_ARG;
    if (!l->w_pending && ok_ld_finished(l)) return OK_OK; /* a touch after DONE */
    if (!l->w_pending) return OK_ERR_STATE;
    ok_ld_bind_queue(l);
    return ok_ld_leave(l, write_failed(l, kind));
}

ok_status ok_load_ahead_settled(ok_load *l, uint32_t landed, uint32_t kind) {
    ok_entry *e;
    ok_status st = OK_OK;
    uint32_t n;
    if (!l) return OK_ERR_INVALID_ARG;
    if (!l->ahead || l->w_pending) return OK_ERR_STATE;
    n = l->ahead;
    if (landed > n || (landed < n && (kind < OK_IOFAIL_QUOTA || kind > OK_IOFAIL_OTHER)))
        return OK_ERR_INVALID_ARG;
    l->ahead = 0;
    if (ok_ld_finished(l)) return OK_OK; /* failed or aborted meanwhile: its drop came after them */
    ok_ld_bind_queue(l);
    e = ok_ld_entry_of(l, l->write_id);
    /* (an entry dropped meanwhile, the load gone on with another: its
     * stores are nothing to this one) */
    if (e && l->write_id == l->ahead_entry && e->stored_count == l->ahead_from) {
        /* they landed in order up to the first that failed */
        e->stored_count += landed;
        if (landed < n) {
            /* the first that failed is the write that failed, as if it were
             * the only one: the same eviction, reopen or warning; what came
             * after it goes again one by one */
            l->queued = e->stored_count + 1;
            l->w_pending = 1;
            l->w_type = OK_ACT_STORE_CHUNK;
            l->w_chunk = e->stored_count;
            return ok_ld_leave(l, write_failed(l, kind));
        }
    }
    if (l->served || l->state == OK_LOAD_STATE_STREAMING) st = ok_ld_pump(l);
    return ok_ld_leave(l, st);
}
