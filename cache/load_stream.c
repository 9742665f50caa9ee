/* The load machine: the body as it streams (prefix check, chunks and their
 * checksums, the write backlog, a broken body) and its end (integrity). */
#include <string.h>

#include "load_internal.h"
#include "onnx_model.h"

static ok_status finish_stream(ok_load *l);

/* STORE_CHUNK of chunk idx: it travels with the manifest that lists it. */
static ok_status push_chunk_store(ok_load *l, ok_entry *e, uint32_t idx, uint32_t flags) {
    uint64_t len = ok_entry_chunk_len(e, idx);
    uint32_t old = e->stored_count;
    ok_act_args a;
    ok_status st;
    if (l->ended && idx == l->cut - 1) len = l->received - (uint64_t)idx * l->chunk_size;
    e->stored_count = idx + 1;
    if (e->chunk_count < idx + 1) e->chunk_count = idx + 1;
    ok_ld_args0(&a, OK_ACT_STORE_CHUNK);
    a.flags = flags;
    a.chunk = idx;
    a.chunk_end = idx + 1;
    a.value = (uint64_t)idx * l->chunk_size;
    a.value2 = len;
    st = ok_q_push_manifest(&l->q, a, e);
    e->stored_count = old;
    return st;
}

/* Emit the next write when none is outstanding: a complete chunk waiting
 * in the backlog (a URL load's only when the network is idle, it is
 * resuming, or it was served), or -- once the body ended -- the end of the
 * stream; once served, the COMMIT after the last chunk. */
ok_status ok_ld_pump(ok_load *l) {
    ok_entry *e = ok_ld_entry_of(l, l->write_id);
    if (l->w_pending || l->ahead) return OK_OK;
    if (l->storing && e && l->queued < l->cut && (!l->defer || l->idle_write || l->resuming || l->served)) {
        uint32_t idx = l->queued;
        ok_status st = push_chunk_store(l, e, idx, 0);
        if (st) return st;
        l->queued++;
        l->idle_write = 0;
        l->w_pending = 1;
        l->w_type = OK_ACT_STORE_CHUNK;
        l->w_chunk = idx;
        return OK_OK;
    }
    if (l->served) {
        /* the caller has its session: commit what landed, or end here */
        if (l->storing && e) return ok_ld_commit(l);
        l->state = OK_LOAD_STATE_DONE;
        return OK_OK;
    }
    if (l->ended && l->state == OK_LOAD_STATE_STREAMING) return finish_stream(l);
    return OK_OK;
}

ok_status ok_load_body_idle(ok_load *l) {
    ok_status st = ok_ld_guard(l, OK_LOAD_STATE_STREAMING);
    if (st) return st;
    if (l->marker_pending || l->ended) return ok_ld_leave(l, OK_OK);
    /* one chunk complete now may go; the idle moment is not kept for later */
    l->idle_write = 1;
    st = ok_ld_pump(l);
    l->idle_write = 0;
    return ok_ld_leave(l, st);
}

/* A chunk boundary was reached (or the body ended mid-chunk). */
static ok_status cut_chunk(ok_load *l) {
    ok_entry *e = ok_ld_entry_of(l, l->write_id);
    uint32_t idx = l->cut;
    ok_status st;
    if (l->storing && e) {
        st = ok_entry_reserve_sums(e, idx);
        if (st) return st;
        e->sums[idx] = ok_xxh3_digest(&l->sum);
        if (!(e->flags & OK_EF_SIZE_KNOWN) && idx + 1 > e->chunk_count) e->chunk_count = idx + 1;
    }
    ok_xxh3_reset(&l->sum, 0);
    l->cut++;
    if (!l->sha_given && !l->sha_host) l->sha_mark = l->sha; /* else never hashed here */
    if (l->integ.alg >= OK_HASH_SHA384) l->sha5_mark = l->sha5;
    return OK_OK;
}

ok_status ok_load_body(ok_load *l, const uint8_t *p, size_t n) {
    ok_status st = ok_ld_guard(l, OK_LOAD_STATE_STREAMING);
    if (st) return st;
    if (!p && n) return ok_ld_leave(l, OK_ERR_INVALID_ARG);
    /* a piece may arrive while a chunk store is outstanding (JS splits big
     * pieces): complete chunks wait in the backlog */
    if (l->marker_pending || l->ended) return ok_ld_leave(l, OK_ERR_STATE);
    if (!n) return ok_ld_leave(l, OK_OK);
    if (l->size_exact && l->received + n > l->total) {
        st = ok_ld_end_write(l, 1);
        if (!st) st = ok_ld_fail(l, OK_ERR_NETWORK, OK_REASON_LONG_BODY, l->total);
        return ok_ld_leave(l, st);
    }
    if (!l->prefix_done && l->received < OK_LOAD_PREFIX_CHECK_BYTES && l->resumed_from == 0 &&
        l->form != OK_FORM_ORT && l->source != OK_SOURCE_DATA) {
        size_t take = OK_LOAD_PREFIX_CHECK_BYTES - (size_t)l->received;
        if (take > n) take = n;
        memcpy(l->prefix + l->prefix_len, p, take);
        l->prefix_len += (uint32_t)take;
        if (l->prefix_len == OK_LOAD_PREFIX_CHECK_BYTES) l->prefix_done = 1;
        if (!ok_onnx_prefix_plausible(l->prefix, l->prefix_len)) {
            if (l->source == OK_SOURCE_FORM)
                return ok_ld_leave(l, ok_ld_form_commit(l, OK_FORM_FAILED, OK_REASON_FORM_CAPTURE));
            st = ok_ld_end_write(l, 0);
            if (!st) st = ok_ld_fail(l, OK_ERR_NOT_ONNX, l->html ? OK_REASON_HTML : OK_REASON_NOT_A_MODEL, 0);
            return ok_ld_leave(l, st);
        }
    }
    while (n) {
        uint64_t in_chunk = l->received % l->chunk_size;
        size_t take = (size_t)(l->chunk_size - in_chunk);
        if (take > n) take = n;
        /* hashed per chunk segment: the marks at a chunk boundary must not
         * include bytes past it (a resume continues from there) */
        if (!l->sha_given && !l->sha_host) ok_sha256_update(&l->sha, p, take);
        if (l->integ.alg >= OK_HASH_SHA384) ok_sha512_update(&l->sha5, p, take);
        if (l->storing) ok_xxh3_update(&l->sum, p, take);
        l->received += take;
        p += take;
        n -= take;
        if (l->received % l->chunk_size == 0) {
            st = cut_chunk(l);
            if (st) return ok_ld_leave(l, st);
        }
    }
    return ok_ld_leave(l, ok_ld_pump(l));
}

/* The body broke off (or ended short). Resume from the last complete chunk
 * when the resource is provably the same, else a plain retry. */
static ok_status broken(ok_load *l, uint32_t reason) {
    ok_entry *e = ok_ld_entry_of(l, l->write_id);
    uint64_t got = l->received;
    ok_status st;
    if (l->storing && e && ok_entry_resumable(e) && l->cut > 0 && l->resumes < OK_LOAD_MAX_RESUMES &&
        l->fetches < OK_LOAD_MAX_FETCHES) {
        /* the complete chunks still in memory get stored first; the partial
         * one is discarded and the hashes go back to its start */
        l->received = (uint64_t)l->cut * l->chunk_size;
        l->sha = l->sha_mark;
        l->sha5 = l->sha5_mark;
        ok_xxh3_reset(&l->sum, 0);
        l->resumes++;
        l->resuming = 1;
        st = ok_ld_warn(l, OK_WARN_RESUMING, reason, got);
        if (!st) st = ok_ld_pump(l);
        if (!st && !l->w_pending) {
            l->resuming = 0;
            st = ok_ld_send_fetch(l, l->received, OK_FETCH_RANGE);
        }
        return st;
    }
    st = ok_ld_end_write(l, 0);
    if (st) return st;
    st = ok_ld_retry_later(l, reason, got);
    if (st == OK_ERR_LIMIT) st = ok_ld_fail(l, got ? OK_ERR_TRUNCATED : OK_ERR_NETWORK, reason, got);
    return st;
}

ok_status ok_load_body_error(ok_load *l) {
    ok_status st = ok_ld_guard(l, OK_LOAD_STATE_STREAMING);
    if (st) return st;
    return ok_ld_leave(l, broken(l, OK_REASON_BODY_BROKEN));
}

ok_status ok_load_body_sha256(ok_load *l, const uint8_t sha[32]) {
    ok_status st = ok_ld_guard(l, OK_LOAD_STATE_STREAMING);
    if (st) return st;
    if (!sha) return ok_ld_leave(l, OK_ERR_INVALID_ARG);
    if (!l->sha_host || l->ended) return ok_ld_leave(l, OK_ERR_STATE);
    memcpy(l->host_sha, sha, 32);
    l->host_sha_set = 1;
    return ok_ld_leave(l, OK_OK);
}

ok_status ok_load_body_end(ok_load *l) {
    ok_entry *e;
    ok_status st = ok_ld_guard(l, OK_LOAD_STATE_STREAMING);
    if (st) return st;
    if (l->marker_pending || l->ended) return ok_ld_leave(l, OK_ERR_STATE);
    if (l->sha_host && !l->host_sha_set) return ok_ld_leave(l, OK_ERR_STATE); /* asked for, never given */
    if (l->size_exact && l->received != l->total) return ok_ld_leave(l, broken(l, OK_REASON_SHORT_BODY));
    if (!l->prefix_done && l->form != OK_FORM_ORT && l->source != OK_SOURCE_DATA &&
        !ok_onnx_prefix_plausible(l->prefix, l->prefix_len) && l->resumed_from == 0) {
        if (l->source == OK_SOURCE_FORM)
            return ok_ld_leave(l, ok_ld_form_commit(l, OK_FORM_FAILED, OK_REASON_FORM_CAPTURE));
        st = ok_ld_end_write(l, 0);
        if (!st)
            st = ok_ld_fail(l, l->received ? OK_ERR_NOT_ONNX : OK_ERR_EMPTY,
                            l->html ? OK_REASON_HTML : OK_REASON_NOT_A_MODEL, 0);
        return ok_ld_leave(l, st);
    }
    if (l->received == 0) {
        st = ok_ld_end_write(l, 0);
        if (!st) st = ok_ld_fail(l, OK_ERR_EMPTY, OK_REASON_NOT_A_MODEL, 0);
        return ok_ld_leave(l, st);
    }
    if (l->received % l->chunk_size) {
        st = cut_chunk(l); /* the last, short chunk */
        if (st) return ok_ld_leave(l, st);
    }
    l->total = l->received;
    l->ended = 1;
    e = ok_ld_entry_of(l, l->write_id);
    if (e && !(e->flags & OK_EF_SIZE_KNOWN)) {
        e->total_size = l->total;
        e->chunk_count = l->cut;
    }
    return ok_ld_leave(l, ok_ld_pump(l));
}

/* A URL load's body ended with its backlog unstored (a fast link stores
 * nothing while the body streams): send every chunk of it now, before the
 * reader and the session, each in its own transaction with the manifest
 * that lists it. The browser writes them while onnxruntime-web holds the
 * page's thread creating the session (seconds for a big model), so a page
 * closed right after its first result keeps what landed by then; stored
 * after DONE instead, one at a time, a page closed within a second kept a
 * few chunks of 22 (88 MB). */
static ok_status store_ahead(ok_load *l) {
    ok_entry *e = ok_ld_entry_of(l, l->write_id);
    uint32_t idx;
    if (!l->storing || !e || !l->defer || l->served || l->queued >= l->cut) return OK_OK;
    l->ahead_from = l->queued;
    l->ahead_entry = l->write_id;
    for (idx = l->queued; idx < l->cut; idx++) {
        ok_status st = push_chunk_store(l, e, idx, OK_STORE_AHEAD);
        if (st) return st;
        l->ahead++;
    }
    l->queued = l->cut;
    return OK_OK;
}

/* Which digest of the integrity matched: its index, or -1. */
static int integrity_match(ok_load *l, const uint8_t *sha256) {
    uint8_t d[OK_HASH_MAX_BYTES];
    uint32_t nb = ok_hash_bytes(l->integ.alg), i;
    if (l->integ.alg == OK_HASH_NONE) return 0;
    if (l->integ.alg == OK_HASH_SHA256) memcpy(d, sha256, 32);
    else ok_ld_sri_final(l, d);
    for (i = 0; i < l->integ.count; i++)
        if (memcmp(d, l->integ.digest[i], nb) == 0) return (int)i;
    return -1;
}

/* The body is whole (a URL load's backlog may still wait for DONE; every
 * other load's chunks landed): check integrity, then ask the C reader. */
static ok_status finish_stream(ok_load *l) {
    int m;
    if (l->sha_given) memcpy(l->sha256, l->source_sha, 32);
    else if (l->sha_host) memcpy(l->sha256, l->host_sha, 32);
    else ok_sha256_final(&l->sha, l->sha256);
    l->has_sha = 1;
    m = integrity_match(l, l->sha256);
    if (m < 0) {
        ok_status st;
        l->has_sha = 0;
        if (l->resumed_from) {
            /* resumed bytes did not add up: the resource changed; a clean
             * download decides */
            st = ok_ld_warn(l, OK_WARN_RETRYING, OK_REASON_CHANGED, l->resumed_from);
            return st ? st : ok_ld_refetch_plain(l);
        }
        st = ok_ld_end_write(l, 0);
        return st ? st : ok_ld_fail(l, OK_ERR_INTEGRITY, OK_REASON_DIGEST, 0);
    }
    l->key_index = (uint32_t)m;
    if (l->source == OK_SOURCE_DATA) return ok_ld_part_complete(l);
    l->state = OK_LOAD_STATE_VALIDATING;
    {
        char hex[65];
        ok_status st = store_ahead(l);
        if (st) return st;
        ok_hex(l->sha256, 32, hex);
        return ok_ld_push_simple(l, OK_ACT_VALIDATE, l->total, 0, 0, hex);
    }
}
