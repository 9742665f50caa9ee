/* The load machine: the reader's verdict (VALIDATED) and the session's outcome
 * (SESSION): serve, commit, or drop a stored copy onnxruntime refused as a
 * model. */
#include <string.h>

#include "load_internal.h"
#include "form_tiers.h"

ok_status ok_load_validated(ok_load *l, uint32_t status, uint64_t offset, const uint8_t *report, size_t n) {
    ok_status st = ok_ld_guard(l, OK_LOAD_STATE_VALIDATING);
    if (st) return st;
    if (status != OK_OK && l->source == OK_SOURCE_FORM)
        return ok_ld_leave(l, ok_ld_form_commit(l, OK_FORM_FAILED, OK_REASON_FORM_CAPTURE));
    if (status != OK_OK) {
        st = ok_ld_end_write(l, 0);
        if (!st)
            st = ok_ld_fail(l, (ok_status)status, l->html ? OK_REASON_HTML : OK_REASON_NOT_A_MODEL, offset);
        return ok_ld_leave(l, st);
    }
    if (!report || !n) return ok_ld_leave(l, OK_ERR_INVALID_ARG);
    if (l->storing && n > OK_CACHE_MAX_REPORT) {
        /* a report this big is not worth keeping: serve, store nothing */
        st = ok_ld_go_uncached(l, OK_WARN_UNCACHED, OK_REASON_TOO_BIG);
        if (st) return ok_ld_leave(l, st);
    }
    if (l->storing) {
        ok_cache_free(l->report);
        l->report = ok_cache_malloc(n);
        if (!l->report) return ok_ld_leave(l, OK_ERR_NOMEM);
        memcpy(l->report, report, n);
    }
    l->report_len = (uint32_t)n;
    l->report_sum = ok_chunk_sum(report, n);
    return ok_ld_leave(l, ok_ld_create_session(l));
}

/* e served this load: its use counts, and is kept (in the background,
 * after DONE). A failed creation is no use: counted here, not at the read. */
static ok_status count_use(ok_load *l, ok_entry *e) {
    if (!e) return OK_OK;
    e->last_used = l->now;
    e->hit_count++;
    return e->superseded ? OK_OK : ok_ld_push_manifest(l, e);
}

/* The stored bytes were served: persist the LRU clock and the hits of the
 * entry that served (a form counts its own: bytes have no stored original,
 * and a form used daily must not look unused to eviction) and let go of
 * the read reference. */
static ok_status done_hit(ok_load *l) {
    ok_entry *e = ok_ld_entry_of(l, l->hit_id);
    ok_status st = ok_ld_done(l);
    if (!st) st = count_use(l, e);
    /* a form serves only beside its original: the original is used too
     * (eviction takes the form first, cache_evict.c) */
    if (!st && l->form != OK_FORM_ORIGINAL) st = count_use(l, ok_ld_entry_of(l, l->orig_id));
    if (!st) st = ok_ld_release_hit(l);
    return st;
}

/* The session exists and the entry is still being written: serve now
 * (DONE_STORING), then store the backlog and COMMIT behind the caller. */
static ok_status serve_then_store(ok_load *l) {
    uint32_t flags = OK_DONE_STORING | (l->verified ? OK_DONE_VERIFIED : 0);
    ok_status st = ok_ld_push_simple(l, OK_ACT_DONE, l->tier, l->resumed_from, flags, NULL);
    if (st) return st;
    l->session_live = 0; /* the caller owns it now */
    l->served = 1;
    l->state = OK_LOAD_STATE_COMMITTING;
    return ok_ld_pump(l);
}

ok_status ok_load_session(ok_load *l, int ok) { return ok_load_session_timed(l, ok ? OK_SESSION_OK : 0, 0); }

ok_status ok_load_session_timed(ok_load *l, uint32_t facts, uint32_t create_us) {
    int ok = !!(facts & OK_SESSION_OK);
    ok_status st;
    if (!l) return OK_ERR_INVALID_ARG;
    if (!l->session_pending) return OK_ERR_STATE;
    l->session_pending = 0;
    ok_ld_bind_queue(l);
    if (l->state != OK_LOAD_STATE_CREATING) {
        /* aborted meanwhile: the session must not live on */
        st = ok ? ok_ld_push_simple(l, OK_ACT_RELEASE_SESSION, 0, 0, 0, NULL) : OK_OK;
        ok_ld_unbind_queue(l);
        return st == OK_ERR_NOMEM ? ok_ld_nomem(l) : st;
    }
    if (l->form != OK_FORM_ORIGINAL && ok) l->create_us = create_us;
    if (l->source == OK_SOURCE_FORM) {
        if (!ok) return ok_ld_leave(l, ok_ld_form_commit(l, OK_FORM_FAILED, OK_REASON_SESSION));
        l->session_live = 1;
        l->state = OK_LOAD_STATE_VERIFYING;
        return ok_ld_leave(l, ok_ld_push_simple(l, OK_ACT_VERIFY_FORM, l->form, 0, 0, NULL));
    }
    if (!ok) {
        /* A stored copy whose every chunk passed its check is the very bytes
         * onnxruntime accepted when they were stored: a refusal now is the
         * caller's options' (an execution provider not here, a bad option)
         * unless onnxruntime says the bytes are no model. Dropping it for
         * the options would lose the model the caller's next try (say
         * 'wasm' after 'webgpu') needs, offline too. A form is dropped
         * (its original is still stored and serves at once) unless the
         * same options fail on a model of ortkeep's own too: then they are
         * refused, not the form, and the next load with good options is
         * served from it (a log level is no part of a form's key). */
        int form_refused = l->form != OK_FORM_ORIGINAL && !(facts & OK_SESSION_OPTIONS);
        if (l->tier == OK_TIER_INDEXEDDB && (form_refused || (facts & OK_SESSION_BAD_MODEL)))
            return ok_ld_leave(l, ok_ld_drop_and_refetch(l, OK_WARN_REFUSED, OK_REASON_SESSION, 0));
        st = ok_ld_end_write(l, 0);
        if (!st) st = ok_ld_fail(l, OK_ERR_SESSION_CREATE, OK_REASON_SESSION, 0);
        return ok_ld_leave(l, st);
    }
    l->session_live = 1;
    if (l->tier == OK_TIER_INDEXEDDB && l->form != OK_FORM_ORIGINAL)
        l->revise = ok_form_revise_wanted(ok_ld_entry_of(l, l->hit_id), create_us, facts);
    if (l->tier == OK_TIER_INDEXEDDB) return ok_ld_leave(l, done_hit(l));
    if (l->storing && l->write_id)
        return ok_ld_leave(l, l->defer && !l->parts_lost ? serve_then_store(l) : ok_ld_commit(l));
    return ok_ld_leave(l, ok_ld_done(l));
}
