/* The load machine's base (load_internal.h): what every part does to a load:
 * push actions, FAIL, warn and note, enter and leave an event, end the one
 * write (and the adopted data files with it), the SRI digest. */
#include <string.h>

#include "load_internal.h"

/* The SRI digest beside SHA-256, when integrity names sha384/512. */
void ok_ld_sri_init(ok_load *l) {
    if (l->integ.alg == OK_HASH_SHA384) ok_sha384_init(&l->sha5);
    else ok_sha512_init(&l->sha5);
}

void ok_ld_sri_final(ok_load *l, uint8_t *d) {
    ok_sha512_final(&l->sha5, d); /* 48 or 64 bytes, by the init */
}

void ok_ld_args0(ok_act_args *a, uint32_t type) {
    memset(a, 0, sizeof *a);
    a->type = type;
}

/* A queue failure (NOMEM) after the state already moved on would strand
 * the caller; every push goes through here and a failure becomes FAIL. */
ok_status ok_ld_push(ok_load *l, const ok_act_args *a) { return ok_q_push(&l->q, a); }

ok_status ok_ld_push_simple(ok_load *l, uint32_t type, uint64_t value, uint64_t value2, uint32_t flags,
                            const char *name) {
    ok_act_args a;
    ok_ld_args0(&a, type);
    a.value = value;
    a.value2 = value2;
    a.flags = flags;
    a.name = name;
    return ok_ld_push(l, &a);
}

ok_entry *ok_ld_entry_of(const ok_load *l, uint32_t id) { return id ? ok_idx_find_id(l->c, id) : NULL; }

void ok_ld_bind_queue(ok_load *l) { l->c->q = &l->q; }

void ok_ld_unbind_queue(ok_load *l) { l->c->q = &l->c->own; }

int ok_ld_finished(const ok_load *l) {
    return l->state == OK_LOAD_STATE_DONE || l->state == OK_LOAD_STATE_FAILED;
}

/* Let go of the read reference: the last reader of a superseded version
 * drops it. */
ok_status ok_ld_release_hit(ok_load *l) {
    ok_entry *e = ok_ld_entry_of(l, l->hit_id);
    l->hit_id = 0;
    if (!e) return OK_OK;
    if (e->refcount) e->refcount--;
    if (!e->refcount && e->superseded) {
        ok_status st = ok_q_push_drop(&l->q, e);
        if (st) return st;
        ok_idx_remove(l->c, e);
    }
    return OK_OK;
}

/* Let go of the adopted parts: each kept if it can be resumed (completed)
 * later, else dropped. */
ok_status ok_ld_end_parts(ok_load *l, int keep) {
    while (l->n_parts) {
        ok_entry *e = ok_ld_entry_of(l, l->parts[--l->n_parts]);
        ok_status st;
        if (!e) continue;
        e->writing = 0;
        if (keep && ok_entry_resumable(e) && e->stored_count) continue;
        st = ok_q_push_drop(&l->q, e);
        if (st) {
            e->writing = 1;
            l->n_parts++;
            return st;
        }
        ok_idx_remove(l->c, e);
    }
    return OK_OK;
}

/* Stop writing: keep the pending entry (and parts) when it can be resumed
 * later. */
ok_status ok_ld_end_write(ok_load *l, int keep) {
    ok_entry *e = ok_ld_entry_of(l, l->write_id);
    ok_status pst = ok_ld_end_parts(l, keep);
    if (pst) return pst;
    l->write_id = 0;
    l->storing = 0;
    l->w_pending = 0;
    l->marker_pending = 0;
    if (!e) return OK_OK;
    e->writing = 0;
    if (keep && ok_entry_resumable(e) && e->stored_count) return OK_OK;
    {
        ok_status st = ok_q_push_drop(&l->q, e);
        if (st) return st;
    }
    ok_idx_remove(l->c, e);
    return OK_OK;
}

ok_status ok_ld_fail(ok_load *l, ok_status code, uint32_t reason, uint64_t number) {
    ok_act_args a;
    ok_status st = OK_OK;
    if (ok_ld_finished(l)) return OK_OK;
    if (l->served) {
        /* the caller has its session: a failure now only ends the store */
        st = ok_ld_end_write(l, 1);
        l->state = OK_LOAD_STATE_DONE;
        return st;
    }
    if (l->state == OK_LOAD_STATE_FETCHING || l->state == OK_LOAD_STATE_STREAMING)
        st = ok_ld_push_simple(l, OK_ACT_CANCEL_FETCH, 0, 0, 0, NULL);
    if (!st && l->session_live) {
        st = ok_ld_push_simple(l, OK_ACT_RELEASE_SESSION, 0, 0, 0, NULL);
        l->session_live = 0;
    }
    if (!st) st = ok_ld_release_hit(l);
    if (!st) st = ok_ld_end_write(l, 1);
    if (!st) {
        ok_ld_args0(&a, OK_ACT_FAIL);
        a.value = code;
        a.flags = reason;
        a.value2 = number;
        a.name = l->url;
        st = ok_ld_push(l, &a);
    }
    l->state = OK_LOAD_STATE_FAILED;
    return st;
}

/* Out of memory mid-event: the queue may not even hold FAIL. Drop what was
 * queued and try once more with an empty arena; JS treats OK_ERR_NOMEM
 * with no FAIL queued as a failed load too. */
ok_status ok_ld_nomem(ok_load *l) {
    ok_q_clear(&l->q);
    l->session_live = 0; /* JS releases what it created (the contract) */
    ok_ld_fail(l, OK_ERR_NOMEM, OK_REASON_NONE, 0);
    l->state = OK_LOAD_STATE_FAILED;
    return OK_ERR_NOMEM;
}

/* WARN (a warning) or NOTE (an event for the caller): code, why, a number. */
static ok_status tell(ok_load *l, uint32_t type, uint32_t code, uint32_t reason, uint64_t number) {
    ok_act_args a;
    ok_ld_args0(&a, type);
    a.value = code;
    a.flags = reason;
    a.value2 = number;
    a.name = l->url;
    return ok_ld_push(l, &a);
}

ok_status ok_ld_warn(ok_load *l, uint32_t code, uint32_t reason, uint64_t number) {
    return tell(l, OK_ACT_WARN, code, reason, number);
}

ok_status ok_ld_note(ok_load *l, uint32_t code, uint32_t reason, uint64_t number) {
    return tell(l, OK_ACT_NOTE, code, reason, number);
}

ok_status ok_ld_guard(ok_load *l, uint32_t state) {
    if (!l) return OK_ERR_INVALID_ARG;
    if (l->state != state) return OK_ERR_STATE;
    ok_ld_bind_queue(l);
    return OK_OK;
}

ok_status ok_ld_leave(ok_load *l, ok_status st) {
    ok_ld_unbind_queue(l);
    if (st == OK_ERR_NOMEM) return ok_ld_nomem(l);
    if (st && st != OK_ERR_STATE) {
        /* a limit hit inside a decision: the load cannot go on */
        ok_status code = st;
        st = ok_ld_fail(l, code, OK_REASON_NONE, 0);
        return st ? ok_ld_nomem(l) : code;
    }
    return st;
}
