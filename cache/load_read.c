/* The load machine: reading a stored hit, or re-hashing a pending entry's prefix to resume it. */
#include <string.h>

#include "load_internal.h"

/* A stored copy is bad (checksum, missing record, refused by onnxruntime):
 * drop it and fetch the model again, a bounded number of times. */
ok_status ok_ld_drop_and_refetch(ok_load *l, uint32_t warning, uint32_t reason, uint64_t number) {
    ok_entry *e = ok_ld_entry_of(l, l->hit_id);
    ok_status st = OK_OK;
    if (e) {
        st = ok_q_push_drop(&l->q, e);
        if (st) return st;
        l->hit_id = 0;
        ok_idx_remove(l->c, e);
    }
    if (l->form != OK_FORM_ORIGINAL) {
        /* an optimized form failed a check: the original serves, and its
         * session captures this tier again, verified anew */
        ok_entry *o = ok_ld_entry_of(l, l->orig_id);
        st = ok_ld_note(l, OK_NOTE_FORM_DROPPED, reason, l->form);
        l->form = OK_FORM_ORIGINAL;
        l->orig_id = 0;
        l->create_us = l->orig_create_us = 0;
        if (st) return st;
        ok_ld_reset_stream(l);
        if (o && o->state == OK_ENTRY_COMMITTED) return ok_ld_start_hit(l, o);
        l->tier = OK_TIER_NETWORK;
        return ok_ld_send_fetch(l, 0, 0);
    }
    st = ok_ld_warn(l, warning, reason, number);
    if (st) return st;
    ok_ld_reset_stream(l);
    if (l->mode == OK_MODE_ONLY_IF_CACHED) return ok_ld_fail(l, OK_ERR_CORRUPT, reason, number);
    if (l->refetches >= OK_LOAD_MAX_REFETCHES)
        return ok_ld_fail(l, warning == OK_WARN_REFUSED ? OK_ERR_SESSION_CREATE : OK_ERR_CORRUPT, reason,
                          number);
    l->refetches++;
    l->tier = OK_TIER_NETWORK;
    return ok_ld_send_fetch(l, 0, 0);
}

/* A resumed entry's stored chunk idx is bad: keep what is before it. */
static ok_status truncate_resume(ok_load *l, ok_entry *e, uint32_t idx) {
    ok_act_args a;
    ok_status st;
    e->stored_count = idx;
    ok_ld_args0(&a, OK_ACT_DELETE_CHUNKS);
    a.entry = e->id;
    a.chunk = idx;
    a.chunk_end = OK_CACHE_CHUNK_END;
    a.name = e->name;
    st = ok_ld_push(l, &a);
    return st;
}

/* Resume prefix re-read (or truncated): ask for the rest. */
static ok_status resume_fetch(ok_load *l) {
    ok_entry *e = ok_ld_entry_of(l, l->write_id);
    ok_status st;
    l->rehash = 0;
    if (!e || !e->stored_count) return ok_ld_refetch_plain(l);
    /* the manifest first, so a crash leaves it naming only good chunks */
    st = ok_ld_push_manifest(l, e);
    if (st) return st;
    l->w_chunk = 0;
    l->marker_pending = 0;
    l->received = ok_entry_stored_bytes(e);
    l->cut = l->queued = e->stored_count;
    if (e->total_size && l->received == e->total_size) {
        /* every byte is stored (a tab died before the commit): nothing to
         * ask for; the end checks the content hash as after a download */
        l->resumed_from = l->received;
        l->ended = 1;
        l->state = OK_LOAD_STATE_STREAMING; /* pump finishes once it lands */
        return OK_OK;
    }
    l->resumes++;
    st = ok_ld_warn(l, OK_WARN_RESUMING, OK_REASON_NONE, l->received);
    if (!st) st = ok_ld_send_fetch(l, l->received, OK_FETCH_RANGE);
    return st;
}

ok_status ok_load_chunk_read(ok_load *l, uint32_t idx, const uint8_t *p, size_t n) {
    ok_entry *e;
    int ok;
    ok_status st = ok_ld_guard(l, OK_LOAD_STATE_READING);
    if (st) return st;
    e = ok_ld_entry_of(l, l->rehash ? l->write_id : l->hit_id);
    if (!e || idx != l->read_next || idx >= (l->rehash ? e->stored_count : e->chunk_count))
        return ok_ld_leave(l, OK_ERR_STATE);
    ok = p && (uint64_t)n == ok_entry_chunk_len(e, idx);
    if (ok && (l->rehash || !(l->flags & OK_LOAD_NO_VERIFY))) ok = ok_chunk_sum(p, n) == e->sums[idx];
    if (l->rehash) {
        if (!ok) {
            st = truncate_resume(l, e, idx);
            if (!st) st = resume_fetch(l);
            return ok_ld_leave(l, st);
        }
        /* the host hashes the whole body, this prefix included, at its end;
         * but a prefix that is the whole body (a tab died before the
         * commit) sends no STREAM, so no host hashes it: hashed here */
        if (!ok_ld_host_hashes(l) || ok_entry_stored_bytes(e) == l->total) ok_sha256_update(&l->sha, p, n);
        if (l->integ.alg >= OK_HASH_SHA384) ok_sha512_update(&l->sha5, p, n);
        l->read_next++;
        if (l->read_next == e->stored_count) st = resume_fetch(l);
        return ok_ld_leave(l, st);
    }
    if (!ok)
        return ok_ld_leave(
            l, ok_ld_drop_and_refetch(l, OK_WARN_CORRUPT, p ? OK_REASON_CHECKSUM : OK_REASON_MISSING, idx));
    l->read_next++;
    l->received += n;
    if (l->source == OK_SOURCE_DATA && l->read_next == e->chunk_count) {
        /* a part has no report: its chunks are the whole of it */
        memcpy(l->sha256, e->sha256, 32);
        l->has_sha = 1;
        l->verified = !(l->flags & OK_LOAD_NO_VERIFY);
        l->stored = 1;
        e->last_used = l->now;
        e->hit_count++;
        st = ok_ld_done(l);
        if (!st) st = ok_ld_release_hit(l);
    }
    return ok_ld_leave(l, st);
}

ok_status ok_load_meta_read(ok_load *l, const uint8_t *p, size_t n) {
    ok_entry *e;
    ok_status st = ok_ld_guard(l, OK_LOAD_STATE_READING);
    if (st) return st;
    e = ok_ld_entry_of(l, l->hit_id);
    if (!e || l->rehash || l->read_next != e->chunk_count) return ok_ld_leave(l, OK_ERR_STATE);
    if (!p || n != e->report_len || ok_chunk_sum(p, n) != e->report_sum)
        return ok_ld_leave(l, ok_ld_drop_and_refetch(l, OK_WARN_CORRUPT,
                                                     p ? OK_REASON_CHECKSUM : OK_REASON_MISSING,
                                                     e->chunk_count));
    {
        /* a form's load reports the original's content hash: its source
         * (content-keyed bytes: theirs) */
        ok_entry *o = l->form != OK_FORM_ORIGINAL ? ok_ld_entry_of(l, l->orig_id) : NULL;
        memcpy(l->sha256, o ? o->sha256 : l->content ? l->source_sha : e->sha256, 32);
    }
    l->has_sha = 1;
    l->verified = !(l->flags & OK_LOAD_NO_VERIFY);
    l->stored = 1;
    return ok_ld_leave(l, ok_ld_create_session(l));
}
