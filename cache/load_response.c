/* The load machine: the transport's events (a response, its checks: status,
 * Range, validators, size; a failed request, the back-off over, the quota). */
#include <string.h>

#include "load_internal.h"

static int parse_u64(const char *s, uint64_t *out) {
    uint64_t v = 0;
    if (!s || !*s) return 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9') return 0;
        if (v > (UINT64_MAX - 9) / 10) return 0;
        v = v * 10 + (uint64_t)(*s - '0');
    }
    *out = v;
    return 1;
}

/* "bytes A-B/T" -> start, end (inclusive), total (UINT64_MAX for "*"). */
static int parse_content_range(const char *s, uint64_t *a, uint64_t *b, uint64_t *t) {
    char buf[96];
    char *dash, *slash;
    if (!s || strncmp(s, "bytes ", 6) != 0 || strlen(s + 6) >= sizeof buf) return 0;
    strcpy(buf, s + 6);
    dash = strchr(buf, '-');
    slash = strchr(buf, '/');
    if (!dash || !slash || dash > slash) return 0;
    *dash = 0;
    *slash = 0;
    if (!parse_u64(buf, a) || !parse_u64(dash + 1, b) || *b < *a) return 0;
    if (strcmp(slash + 1, "*") == 0) *t = UINT64_MAX;
    else if (!parse_u64(slash + 1, t) || *b >= *t) return 0;
    return 1;
}

static int is_html(const char *ct) {
    return ct && (ok_ld_lower_prefix(ct, "text/html") || ok_ld_lower_prefix(ct, "application/xhtml"));
}

static int identity(const char *ce) { return !ce || !*ce || ok_ld_lower_prefix(ce, "identity"); }

static int retryable_status(uint32_t s) {
    return s == 408 || s == 425 || s == 429 || s == 500 || s == 502 || s == 503 || s == 504;
}

/* An error status. Doubtful resumes and revalidations fall back to a plain
 * GET; server hiccups are retried after a back-off; the rest fail. */
static ok_status bad_status(ok_load *l, uint32_t status) {
    ok_status st;
    if (l->req_flags & (OK_FETCH_RANGE | OK_FETCH_CONDITIONAL)) return ok_ld_refetch_plain(l);
    if (retryable_status(status)) {
        st = ok_ld_retry_later(l, OK_REASON_HTTP_STATUS, status);
        if (st != OK_ERR_LIMIT) return st;
    }
    return ok_ld_fail(l, OK_ERR_NETWORK, OK_REASON_HTTP_STATUS, status);
}

ok_status ok_load_quota(ok_load *l, uint64_t free_bytes) {
    ok_status st = ok_ld_guard(l, OK_LOAD_STATE_QUOTA);
    if (st) return st;
    /* a form never evicts the original it is made from */
    st = ok_evict_plan_for(l->c, l->n_keys ? l->keys[0] : NULL, l->total, free_bytes, NULL, 0);
    if (st == OK_ERR_QUOTA) {
        l->storing = 0;
        st = ok_ld_warn(l, OK_WARN_QUOTA, OK_REASON_TOO_BIG, l->total);
        /* a form that cannot be kept is not worth verifying */
        if (!st && l->source == OK_SOURCE_FORM) st = ok_ld_done(l);
        else if (!st) st = ok_ld_stream(l);
        return ok_ld_leave(l, st);
    }
    if (!st) st = ok_idx_push_drop_marked(l->c);
    if (!st) {
        ok_idx_remove_marked(l->c);
        st = ok_ld_begin_entry(l);
    }
    if (!st) l->state = OK_LOAD_STATE_STREAMING;
    return ok_ld_leave(l, st);
}

static void keep_validators(ok_load *l, const char *etag, const char *lm) {
    ok_cache_free(l->resp_etag);
    ok_cache_free(l->resp_lm);
    l->resp_etag = etag && *etag ? ok_cache_strdup(etag) : NULL;
    l->resp_lm = lm && *lm ? ok_cache_strdup(lm) : NULL;
    l->strong = etag && *etag && !ok_ld_lower_prefix(etag, "w/");
}

/* A 206 answering our Range: does it continue exactly what is stored? */
static int range_continues(ok_load *l, const char *cr, const char *etag) {
    ok_entry *e = ok_ld_entry_of(l, l->write_id);
    uint64_t a, b, t;
    if (!e) return 0;
    if (cr) {
        if (!parse_content_range(cr, &a, &b, &t)) return 0;
        /* an entry of unknown size (integrity vouches) takes any total */
        if (a != l->req_from || (e->total_size && t != e->total_size)) return 0;
    } else if (!e->integ_count) {
        return 0; /* hidden Content-Range: only integrity can vouch */
    }
    if (e->flags & OK_EF_STRONG) {
        if (etag) return strcmp(etag, e->etag) == 0;
        return e->integ_count != 0; /* hidden ETag: integrity vouches */
    }
    return e->integ_count != 0;
}

ok_status ok_load_response(ok_load *l, uint32_t status, uint32_t resp_type, const char *content_length,
                           const char *content_encoding, const char *content_range, const char *content_type,
                           const char *etag, const char *last_modified) {
    uint64_t cl = 0, a, b, t;
    int has_cl;
    ok_status st = ok_ld_guard(l, OK_LOAD_STATE_FETCHING);
    if (st) return st;
    has_cl = parse_u64(content_length, &cl);
    l->html = is_html(content_type);

    if (status == 304) {
        ok_entry *e = ok_ld_entry_of(l, l->hit_id);
        if (!(l->req_flags & OK_FETCH_CONDITIONAL) || !e) return ok_ld_leave(l, bad_status(l, status));
        l->hit_id = 0;
        e->refcount--; /* start_hit takes its own reference */
        return ok_ld_leave(l, ok_ld_start_hit(l, e));
    }
    if (status == 206 && (l->req_flags & OK_FETCH_RANGE)) {
        if (!range_continues(l, content_range, etag) || !identity(content_encoding))
            return ok_ld_leave(l, ok_ld_refetch_plain(l));
        l->resumed_from = l->req_from;
        return ok_ld_leave(l, ok_ld_stream(l));
    }
    if (status == 206) {
        /* a 206 to a plain GET: usable only if it is the whole resource */
        if (!parse_content_range(content_range, &a, &b, &t) || a != 0 || t == UINT64_MAX || b + 1 != t)
            return ok_ld_leave(l, ok_ld_fail(l, OK_ERR_NETWORK, OK_REASON_BAD_RANGE, status));
        status = 200;
        has_cl = 1;
        cl = t;
    }
    if (status != 200) return ok_ld_leave(l, bad_status(l, status));

    /* a fresh body from byte 0 (also a 200 that ignored our Range) */
    if (l->req_flags & OK_FETCH_RANGE) {
        st = ok_ld_end_write(l, 0);
        if (st) return ok_ld_leave(l, st);
    }
    if (l->req_flags & OK_FETCH_CONDITIONAL) {
        st = ok_ld_release_hit(l); /* the stored copy is replaced at commit */
        if (st) return ok_ld_leave(l, st);
    }
    if (l->source == OK_SOURCE_DATA && l->html) {
        /* an SPA fallback or an error page where a data file should be:
         * there is no reader to catch it later */
        st = ok_ld_end_write(l, 0);
        if (!st) st = ok_ld_fail(l, OK_ERR_NETWORK, OK_REASON_HTML, 0);
        return ok_ld_leave(l, st);
    }
    ok_ld_reset_stream(l);
    l->encoded = !identity(content_encoding);
    /* Content-Length is the exact size only for an identity body we can see
     * is identity: same origin, no Content-Encoding. Cross-origin the
     * encoding may be hidden and Content-Length counts encoded bytes. */
    l->size_exact = has_cl && cl > 0 && !l->encoded && resp_type == OK_RESP_BASIC;
    l->total = has_cl ? cl : 0;
    keep_validators(l, etag, last_modified);
    if ((etag && *etag && !l->resp_etag) || (last_modified && *last_modified && !l->resp_lm))
        return ok_ld_leave(l, OK_ERR_NOMEM);
    return ok_ld_leave(l, ok_ld_accept_fresh(l));
}

ok_status ok_load_fetch_failed(ok_load *l) {
    ok_status st = ok_ld_guard(l, OK_LOAD_STATE_FETCHING);
    if (st) return st;
    /* a resume or a revalidation never fails a load: plain GET */
    if (l->req_flags & (OK_FETCH_RANGE | OK_FETCH_CONDITIONAL)) return ok_ld_leave(l, ok_ld_refetch_plain(l));
    st = ok_ld_retry_later(l, OK_REASON_FETCH_FAILED, 0);
    if (st == OK_ERR_LIMIT) st = ok_ld_fail(l, OK_ERR_NETWORK, OK_REASON_FETCH_FAILED, 0);
    return ok_ld_leave(l, st);
}

ok_status ok_load_waited(ok_load *l) {
    ok_status st = ok_ld_guard(l, OK_LOAD_STATE_WAITING);
    if (st) return st;
    return ok_ld_leave(l, ok_ld_send_fetch(l, 0, 0));
}
