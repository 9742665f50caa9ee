/* The load machine: creating the session, DONE and the COMMIT of an entry. */
#include <string.h>

#include "load_internal.h"
#include "form_tiers.h"

/* CREATE_SESSION: value2 = the form (an optimized one is created at
 * 'disabled': onnxruntime already optimized it). */
ok_status ok_ld_create_session(ok_load *l) {
    l->state = OK_LOAD_STATE_CREATING;
    l->session_pending = 1;
    return ok_ld_push_simple(l, OK_ACT_CREATE_SESSION, l->total, l->form, 0, NULL);
}

ok_status ok_ld_done(ok_load *l) {
    uint32_t flags = (l->stored ? OK_DONE_STORED : 0) | (l->verified ? OK_DONE_VERIFIED : 0) |
                     (l->staged ? OK_DONE_STAGED : 0);
    ok_status st = OK_OK;
    if (l->served) {
        /* served before its store (DONE_STORING): the store ended; what
         * landed is in ok_load_info's `stored` */
        l->state = OK_LOAD_STATE_DONE;
        return OK_OK;
    }
    if (l->source == OK_SOURCE_FORM) {
        /* the round-trip session was for checking only */
        if (l->session_live) st = ok_ld_push_simple(l, OK_ACT_RELEASE_SESSION, 0, 0, 0, NULL);
        l->session_live = 0;
        /* a tier interrupted once is tried again, not escalated */
        if (!st && l->form_status == OK_FORM_FAILED && l->stored &&
            l->form_reason != OK_REASON_FORM_INTERRUPTED) {
            l->next_form = ok_form_after(l->form, l->facts, l->flags);
            st = ok_ld_note(l, OK_NOTE_FORM_ESCALATED, l->form_reason,
                            (uint64_t)l->form | (uint64_t)l->next_form << 8);
        }
        if (st) return st;
    }
    st = ok_ld_push_simple(l, OK_ACT_DONE, l->tier, l->resumed_from, flags, NULL);
    l->session_live = 0; /* served: the caller owns it now */
    l->served = 1;
    l->state = OK_LOAD_STATE_DONE;
    return st;
}

/* COMMIT: the entry's manifest as COMMITTED, with its report, in one
 * transaction; the entry stays pending in memory until the write lands. */
ok_status ok_ld_push_manifest(ok_load *l, ok_entry *e) {
    ok_act_args a;
    ok_status st;
    ok_ld_args0(&a, OK_ACT_WRITE_MANIFEST);
    st = ok_q_push_manifest(&l->q, a, e);
    if (st) return st;
    l->w_pending = 1;
    l->w_type = OK_ACT_WRITE_MANIFEST;
    return OK_OK;
}

ok_status ok_ld_push_commit(ok_load *l, ok_entry *e, const uint8_t *report, uint32_t report_len) {
    ok_act_args a;
    ok_status st;
    ok_ld_args0(&a, OK_ACT_COMMIT);
    a.aux = report;
    a.aux_len = report_len;
    e->state = OK_ENTRY_COMMITTED;
    st = ok_q_push_manifest(&l->q, a, e);
    /* servable only once that transaction is durable (written) */
    e->state = OK_ENTRY_PENDING;
    if (st) return st;
    l->w_pending = 1;
    l->w_type = OK_ACT_COMMIT;
    l->state = OK_LOAD_STATE_COMMITTING;
    return OK_OK;
}

/* The session exists: commit the entry (manifest + reader report in one
 * transaction). */
ok_status ok_ld_commit(ok_load *l) {
    ok_entry *e = ok_ld_entry_of(l, l->write_id);
    const char *key = l->keys[l->key_index];
    ok_status st;
    uint32_t i;
    if (!e || l->parts_lost) {
        /* a data file could not be stored: nothing of the model is (a
         * model without its data is no use and would take the space) */
        st = ok_ld_end_write(l, 0);
        return st ? st : ok_ld_done(l);
    }
    if (strcmp(e->key, key) != 0) {
        /* content-addressed: the digest that matched names the entry */
        uint64_t gen = ok_idx_max_gen(l->c, key) + 1;
        st = ok_entry_set_str(&e->key, key);
        if (st) return st;
        e->gen = gen;
    }
    e->total_size = l->total;
    e->chunk_count = l->cut;
    e->stored_count = l->cut;
    memcpy(e->sha256, l->sha256, 32);
    e->report_len = l->report_len;
    e->report_sum = l->report_sum;
    /* the parts first, in the model's transaction (COMMIT_MORE) */
    for (i = 0; i < l->n_parts; i++) {
        ok_entry *p = ok_ld_entry_of(l, l->parts[i]);
        ok_act_args a;
        if (!p) return OK_ERR_STATE;
        ok_ld_args0(&a, OK_ACT_COMMIT);
        a.flags = OK_COMMIT_MORE;
        memcpy(p->source_sha256, l->sha256, 32);
        p->state = OK_ENTRY_COMMITTED;
        st = ok_q_push_manifest(&l->q, a, p);
        p->state = OK_ENTRY_PENDING;
        if (st) return st;
    }
    return ok_ld_push_commit(l, e, l->report, l->report_len);
}
