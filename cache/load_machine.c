/* The load machine (ok_load.h): a load's lifecycle (new, free, abort), its
 * action records and its outcome. The events are in the parts. */
#include <string.h>

#include "load_internal.h"

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
    /* a URL load serves before its store; a FORM or DATA load stores each
     * chunk as it comes (nobody waits on the first, the second is staged) */
    l->defer = p->source == OK_SOURCE_URL;
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
    if (!st && p->source == OK_SOURCE_BYTES && p->source_sha256 && !p->integrity) {
        l->sha_given = 1;
        memcpy(l->source_sha, p->source_sha256, 32);
        if (ok_load_bytes_content_keyed(0, l->form_ctx != NULL, p->mode, p->flags)) {
            l->content = 1;
            st = ok_ld_make_keys(l);
        }
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

int ok_load_bytes_content_keyed(int has_integrity, int forms_on, uint32_t mode, uint32_t flags) {
    return !has_integrity && forms_on && mode == OK_MODE_DEFAULT &&
           !(flags & (OK_LOAD_NO_IDB | OK_LOAD_IDB_FAILED | OK_LOAD_DATA_UNNAMED));
}

ok_status ok_load_abort(ok_load *l) {
    ok_status st;
    if (!l) return OK_ERR_INVALID_ARG;
    if (ok_ld_finished(l) || l->served) return OK_OK; /* served: the store goes on */
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
    out->revise = (uint32_t)l->revise;
    out->revision = l->revision;
    out->source_total = l->content ? l->bytes_len : l->total;
    if (l->form != OK_FORM_ORIGINAL && l->source == OK_SOURCE_URL) {
        const ok_entry *o = ok_ld_entry_of(l, l->orig_id);
        if (o) out->source_total = o->total_size;
    }
    return OK_OK;
}
