/* The load machine (ok_load.h, load_internal.h): the small helpers every part uses
 * (actions, FAIL, warnings), a load's lifecycle, entering and leaving an event. */
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

ok_status ok_load_new(ok_cache *c, const ok_load_params *p, ok_load **out) {
    ok_load *l;
    ok_status st = OK_OK;
    if (!c || !p || !out) return OK_ERR_INVALID_ARG;
    *out = NULL;
    if (p->source != OK_SOURCE_URL && p->source != OK_SOURCE_BYTES && p->source != OK_SOURCE_FORM &&
        p->source != OK_SOURCE_DATA)
        return OK_ERR_INVALID_ARG;
    if (p->source == OK_SOURCE_DATA &&
        (!p->owner || !p->url || !p->part || !p->part[0] || strlen(p->part) > OK_CACHE_MAX_STR))
        return OK_ERR_INVALID_ARG;
    if (p->form_ctx &&
        (strlen(p->form_ctx) > OK_CACHE_MAX_FORM_CTX || strchr(p->form_ctx, '|') || !p->form_ctx[0]))
        return OK_ERR_INVALID_ARG;
    if (p->source == OK_SOURCE_FORM &&
        (!p->raw || !p->raw[0] || !p->url || !p->form_ctx || !p->source_sha256 ||
         (p->form != OK_FORM_ONNX && p->form != OK_FORM_ORT) ||
         strlen(p->raw) > OK_CACHE_MAX_KEY - OK_CACHE_MAX_FORM_CTX - 32))
        return OK_ERR_INVALID_ARG;
    /* a capture later is a FORM load's, and it has no bytes yet */
    if ((p->flags & OK_LOAD_CAPTURE_LATER) && (p->source != OK_SOURCE_FORM || p->bytes_len))
        return OK_ERR_INVALID_ARG;
    if (p->mode > OK_MODE_ONLY_IF_CACHED) return OK_ERR_INVALID_ARG;
    if (p->chunk_size && (p->chunk_size < OK_CACHE_MIN_CHUNK_SIZE || p->chunk_size > OK_CACHE_MAX_CHUNK_SIZE))
        return OK_ERR_INVALID_ARG;
    if (p->source == OK_SOURCE_URL && (!p->raw || !p->url)) return OK_ERR_INVALID_ARG;
    /* what is stored (http URLs, integrity) has a size limit; a data: URL
     * is never stored and may be as long as the model */
    if ((p->url && strlen(p->url) > OK_CACHE_MAX_STR && ok_ld_scheme_of(p->url) == SCHEME_HTTP) ||
        (p->integrity && strlen(p->integrity) > OK_CACHE_MAX_STR))
        return OK_ERR_LIMIT;
    l = ok_cache_calloc(1, sizeof *l);
    if (!l) return OK_ERR_NOMEM;
    l->c = c;
    l->source = p->source;
    l->mode = p->mode;
    l->flags = p->flags;
    l->now = p->now;
    l->bytes_len = p->bytes_len;
    l->chunk_size = p->chunk_size ? p->chunk_size : OK_LOAD_DEFAULT_CHUNK_SIZE;
    if (p->form_ctx) {
        l->form_ctx = ok_cache_strdup(p->form_ctx);
        if (!l->form_ctx) st = OK_ERR_NOMEM;
    }
    if (!st && p->source == OK_SOURCE_DATA) st = ok_ld_part_of_owner(l, p);
    if (!st && p->source == OK_SOURCE_FORM) {
        l->form = p->form;
        l->facts = p->facts;
        memcpy(l->source_sha, p->source_sha256, 32);
        l->raw = ok_cache_strdup(p->raw);
        l->url = ok_cache_strdup(p->url);
        if (!l->raw || !l->url) st = OK_ERR_NOMEM;
        if (!st) st = ok_ld_make_keys(l);
    }
    if (p->source == OK_SOURCE_URL) {
        l->raw = ok_cache_strdup(p->raw);
        l->url = ok_ld_strip_fragment(p->url);
        l->page_url = p->page_url ? ok_ld_strip_fragment(p->page_url) : NULL;
        if (!l->raw || !l->url || (p->page_url && !l->page_url)) st = OK_ERR_NOMEM;
    }
    if (!st) {
        l->integ_status = ok_integrity_parse(p->integrity, &l->integ);
        l->integ_bad = l->integ_status != OK_OK;
    }
    if (!st && (p->source == OK_SOURCE_URL || p->source == OK_SOURCE_DATA)) {
        l->scheme = ok_ld_scheme_of(l->url);
        /* only what can be stored has a key (and takes a lock) */
        if (!l->integ_bad && l->scheme == SCHEME_HTTP) st = ok_ld_make_keys(l);
    }
    if (!st) {
        l->lock_name = l->lock_name ? l->lock_name : ok_cache_strdup("");
        if (!l->lock_name) st = OK_ERR_NOMEM;
    }
    if (st) {
        ok_load_free(l);
        return st;
    }
    ok_sha256_init(&l->sha);
    ok_ld_sri_init(l);
    ok_xxh3_reset(&l->sum, 0);
    *out = l;
    return OK_OK;
}

void ok_load_free(ok_load *l) {
    uint32_t i;
    if (!l) return;
    if (l->c) {
        ok_entry *e = ok_ld_entry_of(l, l->hit_id);
        if (e && e->refcount) e->refcount--;
        e = ok_ld_entry_of(l, l->write_id);
        if (e) e->writing = 0;
        for (i = 0; i < l->n_parts; i++) {
            e = ok_ld_entry_of(l, l->parts[i]);
            if (e) e->writing = 0;
        }
        if (l->sync) ok_cache_sync_abandon(l->c, l->sync);
    }
    ok_q_free(&l->q);
    for (i = 0; i < l->n_keys; i++) ok_cache_free(l->keys[i]);
    ok_cache_free(l->lock_name);
    ok_cache_free(l->raw);
    ok_cache_free(l->url);
    ok_cache_free(l->page_url);
    ok_cache_free(l->resp_etag);
    ok_cache_free(l->resp_lm);
    ok_cache_free(l->report);
    ok_cache_free(l->form_ctx);
    ok_cache_free(l->part);
    ok_cache_free(l);
}

const ok_action *ok_load_actions(const ok_load *l, uint32_t *count) {
    if (count) *count = l ? l->q.n : 0;
    return l ? l->q.acts : NULL;
}

const uint8_t *ok_load_action_data(const ok_load *l) { return l ? l->q.data : NULL; }

void ok_load_actions_clear(ok_load *l) {
    if (l) ok_q_clear(&l->q);
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

ok_status ok_load_abort(ok_load *l) {
    ok_status st;
    if (!l) return OK_ERR_INVALID_ARG;
    if (ok_ld_finished(l)) return OK_OK;
    ok_ld_bind_queue(l);
    st = ok_ld_fail(l, OK_ERR_ABORTED, OK_REASON_NONE, 0);
    ok_ld_unbind_queue(l);
    return st == OK_ERR_NOMEM ? ok_ld_nomem(l) : st;
}

ok_status ok_load_info_get(const ok_load *l, ok_load_info *out) {
    if (!l || !out) return OK_ERR_INVALID_ARG;
    memset(out, 0, sizeof *out);
    out->state = l->state;
    out->tier = l->tier;
    out->stored = (uint32_t)l->stored;
    out->has_sha256 = (uint32_t)l->has_sha;
    out->total = l->total;
    out->received = l->received;
    out->resumed_from = l->resumed_from;
    out->fetches = l->fetches;
    out->resumes = l->resumes;
    out->refetches = l->refetches;
    memcpy(out->sha256, l->sha256, 32);
    out->key = l->n_keys ? l->keys[l->key_index] : "";
    out->lock_name = l->lock_name ? l->lock_name : "";
    out->form = l->form;
    out->form_status = l->form_status;
    out->form_reason = l->form_reason;
    out->next_form = l->next_form;
    out->create_us = l->create_us;
    out->orig_create_us = l->orig_create_us;
    out->source_total = l->total;
    if (l->form != OK_FORM_ORIGINAL && l->source == OK_SOURCE_URL) {
        const ok_entry *o = ok_ld_entry_of(l, l->orig_id);
        if (o) out->source_total = o->total_size;
    }
    return OK_OK;
}
