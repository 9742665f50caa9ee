/* The write protocol: download -> chunks -> commit, resume, integrity,
 * quota errors. Each event either fully applies (state changed, actions
 * queued) or returns an error with nothing changed: state that an event
 * mutates before queuing is saved and restored when queuing fails. */
#include <string.h>

#include "cache_internal.h"

static const char *nz(const char *s) { return s ? s : ""; }

static ok_entry *writer(ok_cache *c, uint32_t id, ok_status *st) {
    ok_entry *e = ok_idx_find_id(c, id);
    *st = OK_OK;
    if (!e) *st = OK_ERR_NOT_FOUND;
    else if (!e->writing) *st = OK_ERR_STATE;
    return e;
}

static ok_status push_fetch(ok_cache *c, const ok_entry *e, uint32_t from) {
    uint64_t byte = (uint64_t)from * e->chunk_size;
    if (byte > e->total_size) byte = e->total_size;
    return ok_act_push(c, OK_ACT_FETCH, e->id, from, e->chunk_count, e->name,
                       (const uint8_t *)e->url, strlen(e->url), byte);
}

/* Resume needs the same bytes: same source, validators, size and layout. */
static int same_download(const ok_entry *p, const char *url, const char *etag,
                         const char *lm, const uint8_t integ[][32],
                         uint32_t n_integ, uint64_t total, uint32_t cs,
                         uint32_t form) {
    return strcmp(p->url, url) == 0 && strcmp(p->etag, etag) == 0 &&
           strcmp(p->lm, lm) == 0 && p->total_size == total &&
           p->chunk_size == cs && p->form == form &&
           p->integrity_count == n_integ &&
           (n_integ == 0 ||
            memcmp(p->integrity, integ, (size_t)n_integ * 32) == 0);
}

/* STORE_CHUNK idx: the chunk together with the manifest that lists it, i.e.
 * the manifest as it will be once the write lands (stored_count idx + 1). */
static ok_status push_store_chunk(ok_cache *c, ok_entry *e, uint32_t idx) {
    uint32_t old = e->stored_count;
    ok_status st;
    e->stored_count = idx + 1;
    st = ok_act_push_manifest(c, OK_ACT_STORE_CHUNK, e, idx);
    e->stored_count = old;
    return st;
}

static void start_writer(ok_entry *e) {
    e->writing = 1;
    e->uncached = 0;
    e->commit_sent = 0;
    e->rehashing = 0;
    e->rehash_next = 0;
    e->next_idx = 0;
    ok_sha256_init(&e->hash);
}

ok_status ok_cache_begin_write(ok_cache *c, const char *key, const char *url,
                               const char *etag, const char *last_modified,
                               const char *integrity, uint64_t total_size,
                               uint32_t chunk_size, uint32_t form,
                               uint64_t now, uint32_t *out_entry) {
    uint8_t integ[OK_CACHE_MAX_INTEGRITY][32];
    uint32_t n_integ = 0, i;
    uint64_t chunks;
    ok_entry *p, *e;
    ok_act_mark mk;
    ok_status st;

    if (!c || !key || !out_entry) return OK_ERR_INVALID_ARG;
    *out_entry = 0;
    url = nz(url);
    etag = nz(etag);
    last_modified = nz(last_modified);
    if (!key[0] || total_size == 0 || chunk_size == 0) return OK_ERR_INVALID_ARG;
    if (strlen(key) > OK_CACHE_MAX_KEY || strlen(url) > OK_CACHE_MAX_STR ||
        strlen(etag) > OK_CACHE_MAX_STR ||
        strlen(last_modified) > OK_CACHE_MAX_STR ||
        chunk_size > OK_CACHE_MAX_CHUNK_SIZE)
        return OK_ERR_LIMIT;
    chunks = (total_size - 1) / chunk_size + 1;
    if (chunks > OK_CACHE_MAX_CHUNKS) return OK_ERR_LIMIT;
    st = ok_cache_parse_integrity(integrity, integ, OK_CACHE_MAX_INTEGRITY,
                                  &n_integ);
    if (st) return st;
    for (i = 0; i < c->n_entries; i++)
        if (c->entries[i]->writing && strcmp(c->entries[i]->key, key) == 0)
            return OK_ERR_IN_USE; /* one download per key */

    mk = ok_act_mark_get(c);
    p = ok_idx_find_pending(c, key);
    if (p && p->stored_count && ok_entry_resumable(p) &&
        same_download(p, url, etag, last_modified,
                      (const uint8_t(*)[32])integ, n_integ, total_size,
                      chunk_size, form)) {
        /* Resume: re-read the stored prefix one chunk at a time, checking
         * each digest and rebuilding the whole-content hash, then fetch
         * the rest. */
        st = ok_act_push(c, OK_ACT_READ_CHUNK, p->id, 0, 1, p->name, NULL, 0,
                         0);
        if (st) return st;
        start_writer(p);
        p->rehashing = 1;
        p->last_used = now;
        *out_entry = p->id;
        return OK_OK;
    }

    e = ok_cache_calloc(1, sizeof *e);
    if (!e) return OK_ERR_NOMEM;
    e->state = OK_ENTRY_PENDING;
    e->form = form;
    e->chunk_size = chunk_size;
    e->chunk_count = (uint32_t)chunks;
    e->integrity_count = n_integ;
    if (n_integ) memcpy(e->integrity, integ, (size_t)n_integ * 32);
    e->gen = ok_idx_max_gen(c, key) + 1;
    e->total_size = total_size;
    e->last_used = now;
    e->key = ok_cache_strndup(key, strlen(key));
    e->url = ok_cache_strndup(url, strlen(url));
    e->etag = ok_cache_strndup(etag, strlen(etag));
    e->lm = ok_cache_strndup(last_modified, strlen(last_modified));
    e->digests = ok_cache_calloc(e->chunk_count, 32);
    st = (!e->key || !e->url || !e->etag || !e->lm || !e->digests)
             ? OK_ERR_NOMEM : ok_entry_set_name(e);
    if (!st) st = ok_idx_reserve(c, 1);
    /* a stale pending download of the key (other validators): sweep it */
    if (!st && p) st = ok_act_push_drop(c, p);
    /* the PENDING marker goes down before any chunk */
    if (!st) st = ok_act_push_manifest(c, OK_ACT_WRITE_MANIFEST, e, 0);
    if (!st) st = push_fetch(c, e, 0);
    if (st) {
        ok_act_rollback(c, mk);
        ok_entry_free(e);
        return st;
    }
    e->id = c->next_id++;
    /* actions were queued before the id existed */
    for (i = mk.n_acts; i < c->n_acts; i++)
        if (c->acts[i].type != OK_ACT_DROP_ENTRY) c->acts[i].entry = e->id;
    if (p) ok_idx_remove(c, p);
    start_writer(e);
    ok_idx_insert(c, e);
    *out_entry = e->id;
    return OK_OK;
}

/* Truncate a resumed entry at chunk idx: its stored bytes from idx on are
 * bad. The manifest goes first (so a crash leaves it pointing only at good
 * chunks), then the sweep, then the fetch from idx. */
static ok_status truncate_at(ok_cache *c, ok_entry *e, uint32_t idx) {
    ok_act_mark mk = ok_act_mark_get(c);
    uint32_t old = e->stored_count;
    ok_status st;
    e->stored_count = idx;
    st = ok_act_push_manifest(c, OK_ACT_WRITE_MANIFEST, e, 0);
    if (!st)
        st = ok_act_push(c, OK_ACT_DELETE_CHUNKS, e->id, idx,
                         OK_CACHE_CHUNK_END, e->name, NULL, 0, 0);
    if (!st) st = push_fetch(c, e, idx);
    if (!st)
        st = ok_act_push(c, OK_ACT_ERROR, e->id, idx, idx + 1, e->name, NULL,
                         0, OK_ERR_CORRUPT);
    if (st) {
        e->stored_count = old;
        ok_act_rollback(c, mk);
        return st;
    }
    e->rehashing = 0;
    e->next_idx = idx;
    return OK_ERR_CORRUPT;
}

ok_status ok_cache_chunk_rehash(ok_cache *c, uint32_t entry, uint32_t idx,
                                const uint8_t *bytes, size_t len) {
    ok_status st;
    ok_entry *e;
    struct ok_sha256 saved;
    uint8_t d[32];
    if (!c) return OK_ERR_INVALID_ARG;
    e = writer(c, entry, &st);
    if (st) return st;
    if (!e->rehashing || idx != e->rehash_next) return OK_ERR_STATE;
    if (bytes) ok_sha256(bytes, len, d);
    if (!ok_entry_chunk_ok(e, idx, len, bytes ? d : NULL))
        return truncate_at(c, e, idx);
    saved = e->hash;
    ok_sha256_update(&e->hash, bytes, len);
    if (idx + 1 < e->stored_count)
        st = ok_act_push(c, OK_ACT_READ_CHUNK, e->id, idx + 1, idx + 2,
                         e->name, NULL, 0, 0);
    else
        st = push_fetch(c, e, idx + 1); /* chunk_count: nothing left */
    if (st) {
        e->hash = saved;
        return st;
    }
    e->rehash_next = idx + 1;
    if (e->rehash_next == e->stored_count) {
        e->rehashing = 0;
        e->next_idx = e->stored_count;
    }
    return OK_OK;
}

ok_status ok_cache_chunk_arrived(ok_cache *c, uint32_t entry, uint32_t idx,
                                 const uint8_t *bytes, size_t len) {
    ok_status st;
    ok_entry *e;
    struct ok_sha256 saved;
    uint8_t d[32], old_d[32];
    if (!c || !bytes) return OK_ERR_INVALID_ARG;
    e = writer(c, entry, &st);
    if (st) return st;
    if (e->rehashing || e->commit_sent || idx != e->next_idx ||
        idx >= e->chunk_count)
        return OK_ERR_STATE;
    if ((uint64_t)len != ok_entry_chunk_len(e, idx)) return OK_ERR_INVALID_ARG;
    /* the STORE_CHUNK manifest claims chunks [0, idx]: the earlier ones
     * must be durable already (serial contract) */
    if (!e->uncached && e->stored_count != idx) return OK_ERR_STATE;
    ok_sha256(bytes, len, d);
    saved = e->hash;
    ok_sha256_update(&e->hash, bytes, len);
    memcpy(old_d, e->digests + (size_t)idx * 32, 32);
    memcpy(e->digests + (size_t)idx * 32, d, 32);
    if (!e->uncached) {
        st = push_store_chunk(c, e, idx);
        if (st) {
            e->hash = saved;
            memcpy(e->digests + (size_t)idx * 32, old_d, 32);
            return st;
        }
    }
    e->next_idx = idx + 1;
    return OK_OK;
}

ok_status ok_cache_chunk_stored(ok_cache *c, uint32_t entry, uint32_t idx) {
    ok_status st;
    ok_entry *e;
    if (!c) return OK_ERR_INVALID_ARG;
    e = writer(c, entry, &st);
    if (st) return st;
    if (e->uncached || idx != e->stored_count || idx >= e->next_idx)
        return OK_ERR_STATE;
    e->stored_count++;
    return OK_OK;
}

static int integrity_ok(const ok_entry *e, const uint8_t d[32]) {
    uint32_t i;
    if (!e->integrity_count) return 1;
    for (i = 0; i < e->integrity_count; i++)
        if (memcmp(e->integrity[i], d, 32) == 0) return 1;
    return 0;
}

ok_status ok_cache_download_done(ok_cache *c, uint32_t entry) {
    ok_status st;
    ok_entry *e;
    struct ok_sha256 h;
    uint8_t d[32];
    ok_act_mark mk;
    if (!c) return OK_ERR_INVALID_ARG;
    e = writer(c, entry, &st);
    if (st) return st;
    if (e->rehashing || e->commit_sent || e->next_idx != e->chunk_count)
        return OK_ERR_STATE;
    if (!e->uncached && e->stored_count != e->chunk_count) return OK_ERR_STATE;
    h = e->hash; /* keep the state: a failed call can be retried */
    ok_sha256_final(&h, d);
    mk = ok_act_mark_get(c);
    if (!integrity_ok(e, d)) {
        /* the bytes are not what the page asked for: keep nothing */
        st = ok_act_push(c, OK_ACT_ERROR, e->id, 0, 0, e->name, NULL, 0,
                         OK_ERR_INTEGRITY);
        if (!st && !e->uncached) st = ok_act_push_drop(c, e);
        if (st) {
            ok_act_rollback(c, mk);
            return st;
        }
        ok_idx_remove(c, e);
        return OK_ERR_INTEGRITY;
    }
    if (e->uncached) {
        ok_idx_remove(c, e); /* served from memory; nothing stored */
        return OK_OK;
    }
    e->state = OK_ENTRY_COMMITTED;
    memcpy(e->sha256, d, 32);
    st = ok_act_push_manifest(c, OK_ACT_WRITE_MANIFEST, e, 0);
    /* servable only once that manifest is durable (manifest_written) */
    e->state = OK_ENTRY_PENDING;
    if (st) {
        memset(e->sha256, 0, 32);
        return st;
    }
    e->commit_sent = 1;
    return OK_OK;
}

ok_status ok_cache_manifest_written(ok_cache *c, uint32_t entry) {
    ok_entry *e;
    ok_act_mark mk;
    ok_status st;
    uint32_t i;
    if (!c) return OK_ERR_INVALID_ARG;
    e = ok_idx_find_id(c, entry);
    if (!e) return OK_ERR_NOT_FOUND;
    if (!e->writing || !e->commit_sent) return OK_OK; /* marker or touch */
    /* model update: older generations of the key go, now that this one is
     * durable; one still being read is dropped at its last release */
    mk = ok_act_mark_get(c);
    for (i = 0; i < c->n_entries; i++) {
        ok_entry *o = c->entries[i];
        o->mark = o != e && strcmp(o->key, e->key) == 0 && !o->writing &&
                  !o->refcount;
    }
    st = ok_act_push(c, OK_ACT_COMMITTED, e->id, 0, e->chunk_count, e->name,
                     NULL, 0, e->total_size);
    if (!st) st = ok_idx_push_drop_marked(c);
    if (st) {
        ok_act_rollback(c, mk);
        return st;
    }
    e->state = OK_ENTRY_COMMITTED;
    e->writing = 0;
    e->commit_sent = 0;
    for (i = 0; i < c->n_entries; i++) {
        ok_entry *o = c->entries[i];
        if (o != e && strcmp(o->key, e->key) == 0 && !o->writing)
            o->superseded = 1; /* the marked ones go right below */
    }
    ok_idx_remove_marked(c);
    return OK_OK;
}

/* Give up storing: drop what was stored, keep hashing for integrity. */
static ok_status go_uncached(ok_cache *c, ok_entry *e) {
    ok_act_mark mk = ok_act_mark_get(c);
    ok_status st = ok_act_push_drop(c, e);
    if (!st)
        st = ok_act_push(c, OK_ACT_LOAD_UNCACHED, e->id, 0, 0, e->name, NULL,
                         0, e->total_size);
    if (st) {
        ok_act_rollback(c, mk);
        return st;
    }
    if (e->commit_sent) {
        /* everything was hashed and verified; the bytes are in JS memory */
        ok_idx_remove(c, e);
    } else {
        e->uncached = 1;
        e->stored_count = 0;
    }
    return OK_ERR_QUOTA;
}

ok_status ok_cache_write_failed(ok_cache *c, uint32_t entry, uint32_t idx,
                                int quota) {
    ok_entry *e;
    ok_act_mark mk;
    ok_status st;
    uint64_t need;
    uint32_t old_state;
    if (!c) return OK_ERR_INVALID_ARG;
    e = ok_idx_find_id(c, entry);
    if (!e) return OK_ERR_NOT_FOUND;
    if (!e->writing) {
        /* a touch (LRU clock) manifest of a committed entry: not worth
         * evicting anything for */
        return idx == OK_CACHE_MANIFEST ? OK_OK : OK_ERR_STATE;
    }
    if (e->uncached) return OK_ERR_STATE;
    if (idx != OK_CACHE_MANIFEST &&
        (idx != e->stored_count || idx >= e->next_idx))
        return OK_ERR_STATE;
    if (!quota) return go_uncached(c, e);

    /* room for the rest of this download, then the same write again */
    need = e->total_size - ok_entry_stored_bytes(e);
    st = ok_evict_plan(c, need, 0, e, 1);
    if (st == OK_ERR_QUOTA) return go_uncached(c, e);
    mk = ok_act_mark_get(c);
    st = ok_idx_push_drop_marked(c);
    if (!st && idx == OK_CACHE_MANIFEST) {
        old_state = e->state;
        if (e->commit_sent) e->state = OK_ENTRY_COMMITTED;
        st = ok_act_push_manifest(c, OK_ACT_WRITE_MANIFEST, e, 0);
        e->state = old_state;
    } else if (!st) {
        st = push_store_chunk(c, e, idx);
    }
    if (st) {
        ok_act_rollback(c, mk);
        return st;
    }
    ok_idx_remove_marked(c);
    return OK_OK;
}

ok_status ok_cache_abort_write(ok_cache *c, uint32_t entry, int keep) {
    ok_status st;
    ok_entry *e;
    if (!c) return OK_ERR_INVALID_ARG;
    e = writer(c, entry, &st);
    if (st) return st;
    if (keep && !e->uncached && ok_entry_resumable(e) && e->stored_count) {
        e->writing = 0;
        e->rehashing = 0;
        e->commit_sent = 0;
        return OK_OK;
    }
    if (!e->uncached) {
        st = ok_act_push_drop(c, e);
        if (st) return st;
    }
    ok_idx_remove(c, e);
    return OK_OK;
}
