/* The load machine: requests (FETCH, back-off, refetch) and a fresh entry with
 * its PENDING marker, up to streaming its body. */
#include <string.h>

#include "load_internal.h"

/* Send FETCH (from byte `from`, with `flags`), counting it. */
ok_status ok_ld_send_fetch(ok_load *l, uint64_t from, uint32_t flags) {
    ok_act_args a;
    const ok_entry *e = NULL;
    if (l->content && !l->fetches && !from && !flags) {
        /* content-keyed bytes with no form to serve: the caller's bytes, once */
        l->fetches++;
        ok_ld_reset_stream(l);
        l->total = l->bytes_len;
        l->size_exact = 1;
        l->tier = OK_TIER_BYTES;
        return ok_ld_stream(l);
    }
    if (l->source != OK_SOURCE_URL && l->source != OK_SOURCE_DATA) /* bytes in memory: nothing to fetch */
        return ok_ld_fail(l, OK_ERR_TRUNCATED, OK_REASON_BODY_BROKEN, l->received);
    if (l->fetches >= OK_LOAD_MAX_FETCHES)
        return ok_ld_fail(l, l->received ? OK_ERR_TRUNCATED : OK_ERR_NETWORK, OK_REASON_FETCH_FAILED,
                          l->received);
    l->fetches++;
    l->req_from = from;
    l->req_flags = flags;
    ok_ld_args0(&a, OK_ACT_FETCH);
    a.flags = flags;
    a.value = from;
    a.blob = (const uint8_t *)l->url;
    a.blob_len = strlen(l->url);
    if (flags & OK_FETCH_CONDITIONAL) {
        e = ok_ld_entry_of(l, l->hit_id);
        a.name = e ? e->etag : "";
        a.aux = e ? (const uint8_t *)e->lm : NULL;
        a.aux_len = e ? strlen(e->lm) : 0;
    }
    l->state = OK_LOAD_STATE_FETCHING;
    return ok_ld_push(l, &a);
}

/* Back off, then a fresh request from byte 0 (WAIT -> waited). */
ok_status ok_ld_retry_later(ok_load *l, uint32_t reason, uint64_t number) {
    uint64_t ms = OK_LOAD_BACKOFF_MS;
    uint32_t i;
    ok_status st;
    if (l->fetches >= OK_LOAD_MAX_FETCHES) return OK_ERR_LIMIT;
    for (i = 1; i < l->fetches && ms < 60000; i++) ms *= 4;
    st = ok_ld_warn(l, OK_WARN_RETRYING, reason, number);
    if (!st) st = ok_ld_push_simple(l, OK_ACT_WAIT, ms, 0, 0, NULL);
    l->state = OK_LOAD_STATE_WAITING;
    return st;
}

/* Forget the download so far; the next response starts from byte 0. */
void ok_ld_reset_stream(ok_load *l) {
    l->received = 0;
    l->ended = 0;
    l->cut = 0;
    l->queued = 0;
    l->prefix_len = 0;
    l->prefix_done = 0;
    l->resumed_from = 0;
    l->total = 0;
    l->size_exact = 0;
    ok_sha256_init(&l->sha);
    ok_ld_sri_init(l);
    ok_xxh3_reset(&l->sum, 0);
}

/* A plain GET from byte 0 now (no back-off): what any doubt about a resume
 * or a revalidation falls back to. A pending entry is dropped: its bytes
 * may not be the ones the server sends now. */
ok_status ok_ld_refetch_plain(ok_load *l) {
    ok_status st = ok_ld_end_write(l, 0);
    ok_ld_reset_stream(l);
    if (!st) st = ok_ld_release_hit(l);
    if (!st) st = ok_ld_send_fetch(l, 0, 0);
    return st;
}

/* Begin storing a fresh download: a new pending entry and its marker. */
ok_status ok_ld_begin_entry(ok_load *l) {
    ok_entry *e = NULL;
    ok_status st;
    size_t ib = (size_t)l->integ.count * ok_hash_bytes(l->integ.alg);
    uint32_t i;
    st = ok_idx_reserve(l->c, 1);
    if (!st)
        st = ok_idx_new_entry(l->c, l->keys[0], l->url,
                              l->source == OK_SOURCE_FORM ? l->form : OK_FORM_ORIGINAL, l->chunk_size, l->now,
                              &e);
    if (st) return st;
    if (l->source == OK_SOURCE_FORM) memcpy(e->source_sha256, l->source_sha, 32);
    e->flags = (l->size_exact ? OK_EF_SIZE_KNOWN : 0) | (l->strong ? OK_EF_STRONG : 0) |
               (l->encoded ? OK_EF_ENCODED : 0);
    if (l->source == OK_SOURCE_DATA) {
        e->flags |= OK_EF_PART;
        memcpy(e->source_sha256, l->source_sha, 32);
    }
    e->total_size = l->size_exact ? l->total : 0;
    e->chunk_count = l->size_exact ? (uint32_t)((l->total - 1) / l->chunk_size + 1) : 0;
    e->integ_alg = l->integ.alg;
    e->integ_count = l->integ.count;
    if (ib) {
        uint8_t *d = ok_cache_malloc(ib);
        if (!d) st = OK_ERR_NOMEM;
        else {
            for (i = 0; i < l->integ.count; i++)
                memcpy(d + (size_t)i * ok_hash_bytes(l->integ.alg), l->integ.digest[i],
                       ok_hash_bytes(l->integ.alg));
            ok_cache_free(e->integ);
            e->integ = d;
        }
    }
    if (!st && l->resp_etag) st = ok_entry_set_str(&e->etag, l->resp_etag);
    if (!st && l->resp_lm) st = ok_entry_set_str(&e->lm, l->resp_lm);
    if (!st && e->chunk_count) st = ok_entry_reserve_sums(e, e->chunk_count - 1);
    if (st) {
        ok_entry_free(e);
        return st;
    }
    e->writing = 1;
    ok_idx_insert(l->c, e);
    l->write_id = e->id;
    /* the PENDING marker goes down before any chunk */
    st = ok_ld_push_manifest(l, e);
    if (st) return st;
    l->marker_pending = 1;
    return OK_OK;
}

int ok_ld_host_hashes(const ok_load *l) {
    return l->source == OK_SOURCE_URL && (l->flags & OK_LOAD_HOST_HASHES) && !l->sha_given;
}

ok_status ok_ld_stream(ok_load *l) {
    l->state = OK_LOAD_STATE_STREAMING;
    /* A URL's body is hashed by the host when it can (natively, in one
     * call once the body is whole): the SHA-256 is only needed then. */
    l->sha_host = ok_ld_host_hashes(l);
    l->host_sha_set = 0;
    return ok_ld_push_simple(l, OK_ACT_STREAM, l->received, l->total, l->sha_host ? OK_STREAM_HOST_SHA256 : 0,
                             NULL);
}

/* The response is accepted and its size known as far as it can be:
 * plan space, write the marker, stream. */
ok_status ok_ld_accept_fresh(ok_load *l) {
    ok_status st = OK_OK;
    if (l->size_exact && l->total > OK_LOAD_MAX_SESSION_BYTES)
        return ok_ld_fail(l, OK_ERR_LIMIT, OK_REASON_TOO_BIG, l->total);
    st = ok_ld_push_simple(l, OK_ACT_ALLOC, l->size_exact ? l->total : 0, l->total, 0, NULL);
    if (st) return st;
    l->storing = l->storable;
    if (l->storing && l->size_exact && (l->total - 1) / l->chunk_size + 1 > OK_CACHE_MAX_CHUNKS) {
        l->storing = 0;
        st = ok_ld_warn(l, OK_WARN_UNCACHED, OK_REASON_TOO_BIG, l->total);
    }
    if (st || !l->storing) return st ? st : ok_ld_stream(l);
    if (l->size_exact) {
        /* estimate first: evict what must go before the first byte */
        l->state = OK_LOAD_STATE_QUOTA;
        return ok_ld_push_simple(l, OK_ACT_ESTIMATE_QUOTA, 0, 0, 0, NULL);
    }
    st = ok_ld_begin_entry(l);
    if (st) return st;
    l->state = OK_LOAD_STATE_STREAMING; /* STREAM once the marker lands */
    return OK_OK;
}
