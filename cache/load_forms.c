/* The load machine: optimized forms (storing a captured form, its verdict, what to capture). */
#include <string.h>

#include "load_internal.h"
#include "form_tiers.h"

static ok_status store_capture(ok_load *l);
static ok_status revise_form(ok_load *l, ok_entry *f);

/* A FORM load after the sync: another tab (or an earlier load) may have
 * decided this form for these bytes already; else capture it (when asked
 * to, under the key's lock, so two tabs never both capture) and store what
 * was captured, or record that nothing usable was. */
ok_status ok_ld_lookup_form_store(ok_load *l) {
    ok_entry *f = ok_idx_find_committed(l->c, l->keys[0]), *p;
    ok_status st;
    /* what the capture was made from: the original's bytes and the data
     * files stored beside them now (its load committed them, and nothing
     * else changes them without replacing the original's bytes or files) */
    ok_form_source_id(l->c, l->raw, l->source_sha, l->source_sha);
    if (l->revising) return revise_form(l, f);
    if (f && memcmp(f->source_sha256, l->source_sha, 32) == 0) {
        if (!ok_form_retry(f, l->now)) {
            l->form_status = f->form_status;
            l->form_reason = f->form_reason;
            return ok_ld_done(l);
        }
        l->prior_reason = f->form_reason; /* judged once more */
    }
    p = ok_ld_pending_for(l);
    if (p) {
        /* a capture a killed tab left half-stored: it is never resumed */
        st = ok_q_push_drop(&l->q, p);
        if (st) return st;
        ok_idx_remove(l->c, p);
    }
    if (l->flags & OK_LOAD_CAPTURE_LATER) {
        l->state = OK_LOAD_STATE_CAPTURING;
        return ok_ld_push_simple(l, OK_ACT_CAPTURE_FORM, l->form, 0, 0, NULL);
    }
    return store_capture(l);
}

ok_status ok_load_revise(ok_load *l, uint32_t form_us, uint32_t orig_us) {
    if (!l || !form_us || !orig_us) return OK_ERR_INVALID_ARG;
    if (l->source != OK_SOURCE_FORM || l->state != OK_LOAD_STATE_NEW) return OK_ERR_STATE;
    l->revising = 1;
    l->rev_form_us = form_us;
    l->rev_orig_us = orig_us;
    return OK_OK;
}

/* A revising FORM load, under the key's lock: tally the pair into the
 * verified form it was timed on and write its record, or demote it. */
static ok_status revise_form(ok_load *l, ok_entry *f) {
    uint32_t form_us = l->rev_form_us, orig_us = l->rev_orig_us;
    ok_status st;
    if (!f || f->form_status != OK_FORM_VERIFIED || memcmp(f->source_sha256, l->source_sha, 32) != 0) {
        /* another verdict took its place meanwhile (another tab, other
         * bytes): the pair was not timed on it */
        l->form_status = f ? f->form_status : OK_FORM_NONE;
        l->form_reason = f ? f->form_reason : OK_REASON_NONE;
        l->revision = OK_REVISION_NOT_COUNTED;
        return ok_ld_done(l);
    }
    l->revision = ok_form_revise(f, &form_us, &orig_us);
    if (l->revision == OK_REVISION_DEMOTED) {
        /* a tombstone of a newer generation supersedes the form (its
         * chunks go with it) and is retried like any "slower" verdict */
        l->create_us = form_us;
        l->orig_create_us = orig_us;
        l->storing = 1;
        return ok_ld_form_commit(l, OK_FORM_FAILED, OK_REASON_FORM_SLOWER);
    }
    l->form_status = f->form_status;
    l->form_reason = f->form_reason;
    l->create_us = f->create_us;
    l->orig_create_us = f->orig_create_us;
    st = ok_ld_done(l);
    return st ? st : ok_ld_push_manifest(l, f);
}

ok_status ok_load_captured(ok_load *l, uint64_t bytes_len) {
    ok_status st = ok_ld_guard(l, OK_LOAD_STATE_CAPTURING);
    if (st) return st;
    l->bytes_len = bytes_len;
    return ok_ld_leave(l, store_capture(l));
}

static ok_status store_capture(ok_load *l) {
    l->storing = 1;
    if (!l->bytes_len) return ok_ld_form_commit(l, OK_FORM_FAILED, OK_REASON_FORM_CAPTURE);
    if (l->bytes_len > OK_LOAD_MAX_SESSION_BYTES)
        return ok_ld_form_commit(l, OK_FORM_FAILED, OK_REASON_FORM_DOOMED);
    l->total = l->bytes_len;
    l->size_exact = 1;
    /* an .ort file is a FlatBuffer: the C ORT reader checks it at VALIDATE */
    if (l->form == OK_FORM_ORT) l->prefix_done = 1;
    return ok_ld_accept_fresh(l);
}

/* Commit a FORM load's verdict: the form (VERIFIED: its chunks and the
 * original's reader report) or a tombstone (FAILED: no chunks; those
 * stored are deleted first, so a crash leaves a pending entry that the
 * next load sweeps, never a tombstone naming chunks). */
ok_status ok_ld_form_commit(ok_load *l, uint32_t status, uint32_t reason) {
    ok_entry *e = ok_ld_entry_of(l, l->write_id);
    ok_act_args a;
    ok_status st;
    if (!l->storing) {
        /* storing stopped (quota): nothing kept, so no verdict either */
        l->form_status = OK_FORM_NONE;
        l->form_reason = OK_REASON_NONE;
        return ok_ld_done(l);
    }
    l->form_status = status;
    l->form_reason = status == OK_FORM_FAILED ? reason : OK_REASON_NONE;
    if (!e) {
        st = ok_idx_reserve(l->c, 1);
        if (!st) st = ok_idx_new_entry(l->c, l->keys[0], l->url, l->form, l->chunk_size, l->now, &e);
        if (st) return st;
        memcpy(e->source_sha256, l->source_sha, 32);
        e->writing = 1;
        ok_idx_insert(l->c, e);
        l->write_id = e->id;
        l->storing = 1;
    } else if (status == OK_FORM_FAILED && e->stored_count) {
        ok_ld_args0(&a, OK_ACT_DELETE_CHUNKS);
        a.entry = e->id;
        a.chunk = 0;
        a.chunk_end = OK_CACHE_CHUNK_END;
        a.name = e->name;
        st = ok_ld_push(l, &a);
        if (st) return st;
    }
    e->form_status = status;
    e->form_reason = l->form_reason;
    e->create_us = l->create_us;
    e->orig_create_us = l->orig_create_us;
    if (status == OK_FORM_FAILED) {
        e->flags = 0;
        e->total_size = 0;
        e->chunk_count = e->stored_count = 0;
        e->report_len = 0;
        e->report_sum = 0;
        memset(e->sha256, 0, 32);
        return ok_ld_push_commit(l, e, NULL, 0);
    }
    return ok_ld_commit(l);
}

ok_status ok_load_form_verified(ok_load *l, uint32_t verdict, uint32_t orig_create_us,
                                uint32_t form_create_us) {
    ok_status st = ok_ld_guard(l, OK_LOAD_STATE_VERIFYING);
    if (st) return st;
    if (l->source != OK_SOURCE_FORM) return ok_ld_leave(l, OK_ERR_STATE);
    l->orig_create_us = orig_create_us;
    if (form_create_us && form_create_us < l->create_us) l->create_us = form_create_us;
    {
        uint32_t status, reason;
        st = ok_form_judge(verdict, l->create_us, orig_create_us, l->prior_reason, &status, &reason);
        if (st) {
            ok_ld_unbind_queue(l);
            return st;
        }
        st = ok_ld_form_commit(l, status, reason);
    }
    return ok_ld_leave(l, st);
}

uint32_t ok_load_capture_form(const ok_load *l, uint32_t facts, uint64_t external_bytes) {
    const ok_entry *e;
    uint32_t form = OK_FORM_ORIGINAL;
    if (!l || !l->form_ctx || !l->storable || (l->source != OK_SOURCE_URL && !l->content) ||
        l->form != OK_FORM_ORIGINAL || !l->has_sha || !l->n_keys || l->state != OK_LOAD_STATE_CREATING)
        return OK_FORM_ORIGINAL;
    /* bytes' data files are not stored: a form is bound to them only
     * where the source hash the host gave names them too */
    if (l->content && (facts & OK_FACT_EXTERNAL_DATA) && !(l->flags & OK_LOAD_GIVEN_DATA))
        return OK_FORM_ORIGINAL;
    e = ok_idx_find_id(l->c, l->hit_id);
    /* out of memory: no capture this time */
    if (ok_form_next_capture(l->c, e ? e->key : l->keys[l->key_index], l->form_ctx, l->sha256, facts,
                             l->flags, l->total, external_bytes, l->now, &form) != OK_OK)
        return OK_FORM_ORIGINAL;
    return form;
}
