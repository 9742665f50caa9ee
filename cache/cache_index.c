/* The index: the set of entries, loading it back from "index" records,
 * recovery after a crash, lookups, reads and listing. */
#include <stdio.h>
#include <string.h>

#include "cache_internal.h"

/* ---- entries ---- */

void ok_entry_free(ok_entry *e) {
    if (!e) return;
    ok_cache_free(e->key);
    ok_cache_free(e->url);
    ok_cache_free(e->etag);
    ok_cache_free(e->lm);
    ok_cache_free(e->name);
    ok_cache_free(e->digests);
    ok_cache_free(e);
}

uint64_t ok_entry_chunk_len(const ok_entry *e, uint32_t idx) {
    uint64_t start = (uint64_t)idx * e->chunk_size;
    uint64_t left = e->total_size - start;
    return left < e->chunk_size ? left : e->chunk_size;
}

uint64_t ok_entry_stored_bytes(const ok_entry *e) {
    uint64_t b;
    if (e->uncached) return 0;
    b = (uint64_t)e->stored_count * e->chunk_size;
    return b < e->total_size ? b : e->total_size;
}

/* A pending entry can be continued later if the bytes on the server can be
 * proven the same: a validator for If-Range, or an integrity digest that
 * the final hash must match anyway. */
int ok_entry_resumable(const ok_entry *e) {
    return e->state == OK_ENTRY_PENDING && !e->uncached &&
           (e->etag[0] || e->lm[0] || e->integrity_count);
}

int ok_entry_chunk_ok(const ok_entry *e, uint32_t idx, size_t len,
                      const uint8_t *digest) {
    return digest && (uint64_t)len == ok_entry_chunk_len(e, idx) &&
           memcmp(digest, e->digests + (size_t)idx * 32, 32) == 0;
}

ok_status ok_entry_set_name(ok_entry *e) {
    char num[24];
    size_t kl = strlen(e->key);
    int nl = snprintf(num, sizeof num, "#%llu", (unsigned long long)e->gen);
    char *n = ok_cache_malloc(kl + (size_t)nl + 1);
    if (!n) return OK_ERR_NOMEM;
    memcpy(n, e->key, kl);
    memcpy(n + kl, num, (size_t)nl + 1);
    ok_cache_free(e->name);
    e->name = n;
    return OK_OK;
}

void ok_entry_to_manifest(const ok_entry *e, ok_manifest *m) {
    memset(m, 0, sizeof *m);
    m->state = e->state;
    m->form = e->form;
    m->chunk_size = e->chunk_size;
    m->chunk_count = e->chunk_count;
    m->stored_count = e->stored_count;
    m->integrity_count = e->integrity_count;
    m->gen = e->gen;
    m->total_size = e->total_size;
    m->last_used = e->last_used;
    m->hit_count = e->hit_count;
    memcpy(m->sha256, e->sha256, 32);
    m->integrity = e->integrity[0];
    m->key = e->key;
    m->url = e->url;
    m->etag = e->etag;
    m->last_modified = e->lm;
    m->key_len = (uint32_t)strlen(e->key);
    m->url_len = (uint32_t)strlen(e->url);
    m->etag_len = (uint32_t)strlen(e->etag);
    m->lm_len = (uint32_t)strlen(e->lm);
    m->digests = e->digests;
}

/* ---- the set ---- */

ok_entry *ok_idx_find_id(const ok_cache *c, uint32_t id) {
    uint32_t i;
    for (i = 0; i < c->n_entries; i++)
        if (c->entries[i]->id == id) return c->entries[i];
    return NULL;
}

/* The first entry of key in the given state that is still current: not
 * superseded by a newer commit, not a store-nothing (uncached) download. */
static ok_entry *find_current(const ok_cache *c, const char *key,
                              uint32_t state) {
    uint32_t i;
    for (i = 0; i < c->n_entries; i++) {
        ok_entry *e = c->entries[i];
        if (e->state == state && !e->superseded && !e->uncached &&
            strcmp(e->key, key) == 0)
            return e;
    }
    return NULL;
}

ok_entry *ok_idx_find_committed(const ok_cache *c, const char *key) {
    return find_current(c, key, OK_ENTRY_COMMITTED);
}

ok_entry *ok_idx_find_pending(const ok_cache *c, const char *key) {
    return find_current(c, key, OK_ENTRY_PENDING);
}

uint64_t ok_idx_max_gen(const ok_cache *c, const char *key) {
    uint64_t g = 0;
    uint32_t i;
    for (i = 0; i < c->n_entries; i++)
        if (strcmp(c->entries[i]->key, key) == 0 && c->entries[i]->gen > g)
            g = c->entries[i]->gen;
    return g;
}

ok_status ok_idx_reserve(ok_cache *c, uint32_t extra) {
    uint32_t ncap;
    ok_entry **ne;
    if ((uint64_t)c->n_entries + extra > OK_CACHE_MAX_ENTRIES)
        return OK_ERR_LIMIT;
    if (c->n_entries + extra <= c->cap_entries) return OK_OK;
    ncap = c->cap_entries ? c->cap_entries * 2 : 8;
    while (ncap < c->n_entries + extra) ncap *= 2;
    ne = ok_cache_malloc(sizeof(*ne) * ncap);
    if (!ne) return OK_ERR_NOMEM;
    if (c->n_entries) memcpy(ne, c->entries, sizeof(*ne) * c->n_entries);
    ok_cache_free(c->entries);
    c->entries = ne;
    c->cap_entries = ncap;
    return OK_OK;
}

void ok_idx_insert(ok_cache *c, ok_entry *e) {
    c->entries[c->n_entries++] = e;
}

void ok_idx_remove(ok_cache *c, ok_entry *e) {
    uint32_t i;
    for (i = 0; i < c->n_entries; i++) {
        if (c->entries[i] == e) {
            /* keep order: listing and LRU ties stay stable */
            memmove(&c->entries[i], &c->entries[i + 1],
                    sizeof(*c->entries) * (c->n_entries - i - 1));
            c->n_entries--;
            break;
        }
    }
    ok_entry_free(e);
}

ok_status ok_idx_push_drop_marked(ok_cache *c) {
    ok_act_mark mk = ok_act_mark_get(c);
    ok_status st = OK_OK;
    uint32_t i;
    for (i = 0; i < c->n_entries && !st; i++)
        if (c->entries[i]->mark) st = ok_act_push_drop(c, c->entries[i]);
    if (st) ok_act_rollback(c, mk);
    return st;
}

void ok_idx_remove_marked(ok_cache *c) {
    uint32_t i = 0;
    while (i < c->n_entries) {
        if (c->entries[i]->mark) ok_idx_remove(c, c->entries[i]);
        else i++;
    }
}

/* ---- lifecycle ---- */

ok_status ok_cache_open(ok_cache **out, uint64_t budget_bytes) {
    ok_cache *c;
    if (!out) return OK_ERR_INVALID_ARG;
    *out = NULL;
    c = ok_cache_calloc(1, sizeof *c);
    if (!c) return OK_ERR_NOMEM;
    c->next_id = 1;
    c->budget = budget_bytes;
    *out = c;
    return OK_OK;
}

void ok_cache_close(ok_cache *c) {
    uint32_t i;
    if (!c) return;
    for (i = 0; i < c->n_entries; i++) ok_entry_free(c->entries[i]);
    ok_cache_free(c->entries);
    ok_cache_free(c->acts);
    ok_cache_free(c->data);
    ok_cache_free(c);
}

ok_status ok_cache_set_budget(ok_cache *c, uint64_t budget_bytes) {
    if (!c) return OK_ERR_INVALID_ARG;
    c->budget = budget_bytes;
    return OK_OK;
}

static ok_status entry_from_manifest(const ok_manifest *m, ok_entry **out) {
    ok_entry *e = ok_cache_calloc(1, sizeof *e);
    if (!e) return OK_ERR_NOMEM;
    e->state = m->state;
    e->form = m->form;
    e->chunk_size = m->chunk_size;
    e->chunk_count = m->chunk_count;
    e->stored_count = m->stored_count;
    e->integrity_count = m->integrity_count;
    e->gen = m->gen;
    e->total_size = m->total_size;
    e->last_used = m->last_used;
    e->hit_count = m->hit_count;
    memcpy(e->sha256, m->sha256, 32);
    if (m->integrity_count)
        memcpy(e->integrity, m->integrity, (size_t)m->integrity_count * 32);
    e->key = ok_cache_strndup(m->key, m->key_len);
    e->url = ok_cache_strndup(m->url, m->url_len);
    e->etag = ok_cache_strndup(m->etag, m->etag_len);
    e->lm = ok_cache_strndup(m->last_modified, m->lm_len);
    e->digests = ok_cache_calloc(m->chunk_count, 32);
    if (!e->key || !e->url || !e->etag || !e->lm || !e->digests ||
        ok_entry_set_name(e) != OK_OK) {
        ok_entry_free(e);
        return OK_ERR_NOMEM;
    }
    if (m->stored_count)
        memcpy(e->digests, m->digests, (size_t)m->stored_count * 32);
    *out = e;
    return OK_OK;
}

static ok_status drop_name(ok_cache *c, const char *name, size_t name_len) {
    ok_status st;
    char *n = ok_cache_strndup(name, name_len);
    if (!n) return OK_ERR_NOMEM;
    st = ok_act_push(c, OK_ACT_DROP_ENTRY, 0, 0, OK_CACHE_CHUNK_END, n, NULL,
                     0, 0);
    ok_cache_free(n);
    return st;
}

ok_status ok_cache_load_record(ok_cache *c, const char *name, size_t name_len,
                               const uint8_t *bytes, size_t len) {
    ok_manifest m;
    ok_entry *e = NULL;
    ok_status st, bad;
    uint32_t i;
    if (!c || !name || name_len == 0 || name_len > OK_CACHE_MAX_KEY + 24 ||
        memchr(name, 0, name_len))
        return OK_ERR_INVALID_ARG;
    for (i = 0; i < c->n_entries; i++)
        if (strlen(c->entries[i]->name) == name_len &&
            memcmp(c->entries[i]->name, name, name_len) == 0)
            return OK_ERR_INVALID_ARG; /* fed twice */
    bad = ok_manifest_decode(bytes, len, &m);
    if (bad == OK_ERR_NOMEM) return bad;
    if (bad == OK_OK) {
        st = entry_from_manifest(&m, &e);
        ok_manifest_free(&m);
        if (st) return st;
        if (strlen(e->name) != name_len || memcmp(e->name, name, name_len))
            bad = OK_ERR_CORRUPT; /* a record under another entry's name */
    }
    if (bad == OK_OK) {
        st = ok_idx_reserve(c, 1);
        if (st == OK_ERR_LIMIT) bad = OK_ERR_LIMIT;
        else if (st) {
            ok_entry_free(e);
            return st;
        }
    }
    if (bad != OK_OK) {
        /* unreadable: sweep it, it can never be served */
        ok_entry_free(e);
        st = drop_name(c, name, name_len);
        return st ? st : bad;
    }
    e->id = c->next_id++;
    ok_idx_insert(c, e);
    return OK_OK;
}

/* Recovery decision for one loaded entry: 0 keep, 1 drop. */
static int recover_drops(const ok_cache *c, const ok_entry *e) {
    uint64_t best_commit = 0, best_pending = 0;
    int has_commit = 0;
    uint32_t i;
    if (e->writing || e->refcount) return 0; /* live in this session */
    for (i = 0; i < c->n_entries; i++) {
        const ok_entry *o = c->entries[i];
        if (strcmp(o->key, e->key) != 0) continue;
        if (o->state == OK_ENTRY_COMMITTED) {
            has_commit = 1;
            if (o->gen > best_commit) best_commit = o->gen;
        } else if (o->gen > best_pending) {
            best_pending = o->gen;
        }
    }
    if (e->state == OK_ENTRY_COMMITTED) return e->gen < best_commit;
    if (!ok_entry_resumable(e) || e->stored_count == 0) return 1;
    if (has_commit && e->gen < best_commit) return 1;
    return e->gen < best_pending;
}

ok_status ok_cache_recover(ok_cache *c) {
    ok_act_mark mk;
    ok_status st = OK_OK;
    uint32_t i;
    if (!c) return OK_ERR_INVALID_ARG;
    /* decide on the full set first, then act */
    for (i = 0; i < c->n_entries; i++)
        c->entries[i]->mark = recover_drops(c, c->entries[i]);
    mk = ok_act_mark_get(c);
    for (i = 0; i < c->n_entries && !st; i++) {
        ok_entry *e = c->entries[i];
        if (e->mark)
            st = ok_act_push_drop(c, e);
        else if (e->state == OK_ENTRY_PENDING && !e->writing)
            /* a crash may have left chunks the manifest never recorded */
            st = ok_act_push(c, OK_ACT_DELETE_CHUNKS, e->id, e->stored_count,
                             OK_CACHE_CHUNK_END, e->name, NULL, 0, 0);
    }
    if (st) {
        ok_act_rollback(c, mk);
        return st;
    }
    ok_idx_remove_marked(c);
    return OK_OK;
}

ok_status ok_cache_reset(ok_cache *c) {
    ok_status st;
    uint32_t i;
    if (!c) return OK_ERR_INVALID_ARG;
    st = ok_act_push(c, OK_ACT_CLEAR_ALL, 0, 0, OK_CACHE_CHUNK_END, NULL, NULL,
                     0, 0);
    if (st) return st;
    for (i = 0; i < c->n_entries; i++) ok_entry_free(c->entries[i]);
    c->n_entries = 0;
    return OK_OK;
}

/* ---- lookups ---- */

static ok_status do_hit(ok_cache *c, ok_entry *e, uint64_t now,
                        ok_cache_lookup_result *out) {
    ok_act_mark mk = ok_act_mark_get(c);
    uint64_t old_used = e->last_used, old_hits = e->hit_count;
    ok_status st;
    uint32_t i;
    if (e->refcount == 0xFFFFFFFFu) return OK_ERR_LIMIT;
    e->last_used = now;
    e->hit_count++;
    st = ok_act_push_manifest(c, OK_ACT_WRITE_MANIFEST, e, 0);
    for (i = 0; i < e->chunk_count && !st; i++)
        st = ok_act_push(c, OK_ACT_READ_CHUNK, e->id, i, i + 1, e->name, NULL,
                         0, 0);
    if (st) {
        e->last_used = old_used;
        e->hit_count = old_hits;
        ok_act_rollback(c, mk);
        return st;
    }
    e->refcount++;
    out->kind = OK_LOOKUP_HIT;
    out->entry = e->id;
    out->chunk_count = e->chunk_count;
    out->total_size = e->total_size;
    return OK_OK;
}

ok_status ok_cache_lookup(ok_cache *c, const char *key, uint32_t mode,
                          uint64_t now, ok_cache_lookup_result *out) {
    ok_entry *e, *p;
    if (!c || !key || !key[0] || !out || mode > OK_MODE_ONLY_IF_CACHED)
        return OK_ERR_INVALID_ARG;
    memset(out, 0, sizeof *out);
    if (mode == OK_MODE_NO_STORE) {
        out->kind = OK_LOOKUP_BYPASS;
        return OK_OK;
    }
    if (mode == OK_MODE_RELOAD) {
        out->kind = OK_LOOKUP_MISS;
        return OK_OK;
    }
    e = ok_idx_find_committed(c, key);
    if (e && mode == OK_MODE_NO_CACHE) {
        out->kind = OK_LOOKUP_REVALIDATE;
        out->entry = e->id;
        out->chunk_count = e->chunk_count;
        out->total_size = e->total_size;
        return OK_OK;
    }
    if (e) return do_hit(c, e, now, out);
    if (mode == OK_MODE_ONLY_IF_CACHED) {
        out->kind = OK_LOOKUP_NOT_FOUND;
        return OK_ERR_NOT_FOUND;
    }
    p = ok_idx_find_pending(c, key);
    if (p && !p->writing && ok_entry_resumable(p) && p->stored_count) {
        out->kind = OK_LOOKUP_RESUME;
        out->entry = p->id;
        out->chunk_count = p->chunk_count;
        out->resume_chunk = p->stored_count;
        out->resume_byte = (uint64_t)p->stored_count * p->chunk_size;
        out->total_size = p->total_size;
        return OK_OK;
    }
    out->kind = OK_LOOKUP_MISS;
    return OK_OK;
}

ok_status ok_cache_revalidated(ok_cache *c, uint32_t entry, uint64_t now,
                               ok_cache_lookup_result *out) {
    ok_entry *e;
    if (!c || !out) return OK_ERR_INVALID_ARG;
    memset(out, 0, sizeof *out);
    e = ok_idx_find_id(c, entry);
    if (!e) return OK_ERR_NOT_FOUND;
    if (e->state != OK_ENTRY_COMMITTED || e->superseded) return OK_ERR_STATE;
    return do_hit(c, e, now, out);
}

/* A served entry is bad: drop it (even while referenced -- its bytes must
 * never be used again) and ask JS to refetch. */
static ok_status drop_corrupt(ok_cache *c, ok_entry *e) {
    ok_act_mark mk = ok_act_mark_get(c);
    ok_status st = ok_act_push_drop(c, e);
    if (!st)
        st = ok_act_push(c, OK_ACT_ERROR, e->id, 0, 0, e->name, NULL, 0,
                         OK_ERR_CORRUPT);
    if (!st)
        st = ok_act_push(c, OK_ACT_REFETCH, e->id, 0, 0, e->key,
                         (const uint8_t *)e->url, strlen(e->url), 0);
    if (st) {
        ok_act_rollback(c, mk);
        return st;
    }
    ok_idx_remove(c, e);
    return OK_ERR_CORRUPT;
}

/* The read-path decision with the digest computed by the caller (WebCrypto:
 * native and off the wasm thread). len is the length of the bytes that were
 * hashed; digest == NULL means the chunk is missing. */
ok_status ok_cache_chunk_read_digest(ok_cache *c, uint32_t entry, uint32_t idx,
                                     size_t len, const uint8_t *digest) {
    ok_entry *e;
    if (!c) return OK_ERR_INVALID_ARG;
    e = ok_idx_find_id(c, entry);
    if (!e) return OK_ERR_NOT_FOUND;
    if (e->state != OK_ENTRY_COMMITTED) return OK_ERR_STATE;
    if (idx >= e->chunk_count) return OK_ERR_INVALID_ARG;
    if (!ok_entry_chunk_ok(e, idx, len, digest)) return drop_corrupt(c, e);
    return OK_OK;
}

ok_status ok_cache_chunk_read(ok_cache *c, uint32_t entry, uint32_t idx,
                              const uint8_t *bytes, size_t len) {
    uint8_t d[32];
    if (bytes) ok_sha256(bytes, len, d);
    return ok_cache_chunk_read_digest(c, entry, idx, len, bytes ? d : NULL);
}

ok_status ok_cache_acquire(ok_cache *c, uint32_t entry) {
    ok_entry *e;
    if (!c) return OK_ERR_INVALID_ARG;
    e = ok_idx_find_id(c, entry);
    if (!e) return OK_ERR_NOT_FOUND;
    if (e->state != OK_ENTRY_COMMITTED || e->superseded) return OK_ERR_STATE;
    if (e->refcount == 0xFFFFFFFFu) return OK_ERR_LIMIT;
    e->refcount++;
    return OK_OK;
}

ok_status ok_cache_release(ok_cache *c, uint32_t entry) {
    ok_entry *e;
    ok_status st;
    if (!c) return OK_ERR_INVALID_ARG;
    e = ok_idx_find_id(c, entry);
    if (!e) return OK_ERR_NOT_FOUND;
    if (e->refcount == 0) return OK_ERR_STATE;
    if (e->refcount == 1 && e->superseded) {
        /* the last reader of a replaced version is gone */
        st = ok_act_push_drop(c, e);
        if (st) return st;
        ok_idx_remove(c, e);
        return OK_OK;
    }
    e->refcount--;
    return OK_OK;
}

static int idle(const ok_entry *e) {
    return e->refcount == 0 && !e->writing;
}

ok_status ok_cache_delete(ok_cache *c, const char *key) {
    ok_status st;
    uint32_t i, found = 0;
    if (!c || !key) return OK_ERR_INVALID_ARG;
    for (i = 0; i < c->n_entries; i++) {
        ok_entry *e = c->entries[i];
        e->mark = strcmp(e->key, key) == 0 && !e->uncached;
        if (!e->mark) continue;
        found++;
        if (!idle(e)) return OK_ERR_IN_USE;
    }
    if (!found) return OK_ERR_NOT_FOUND;
    st = ok_idx_push_drop_marked(c);
    if (!st) ok_idx_remove_marked(c);
    return st;
}

ok_status ok_cache_clear(ok_cache *c) {
    ok_status st;
    uint32_t i;
    if (!c) return OK_ERR_INVALID_ARG;
    for (i = 0; i < c->n_entries; i++)
        c->entries[i]->mark = idle(c->entries[i]);
    st = ok_idx_push_drop_marked(c);
    if (!st) ok_idx_remove_marked(c);
    return st;
}

/* ---- inspection ---- */

static void fill_info(const ok_entry *e, ok_cache_entry_info *o) {
    memset(o, 0, sizeof *o);
    o->id = e->id;
    o->state = e->state;
    o->form = e->form;
    o->chunk_size = e->chunk_size;
    o->chunk_count = e->chunk_count;
    o->stored_count = e->stored_count;
    o->refcount = e->refcount;
    o->writing = e->writing;
    o->gen = e->gen;
    o->total_size = e->total_size;
    o->stored_bytes = ok_entry_stored_bytes(e);
    o->last_used = e->last_used;
    o->hit_count = e->hit_count;
    o->key = e->key;
    o->url = e->url;
    o->etag = e->etag;
    o->last_modified = e->lm;
    o->name = e->name;
    o->sha256 = e->sha256;
}

uint32_t ok_cache_count(const ok_cache *c) {
    uint32_t i, n = 0;
    if (!c) return 0;
    for (i = 0; i < c->n_entries; i++) n += !c->entries[i]->uncached;
    return n;
}

ok_status ok_cache_entry_at(const ok_cache *c, uint32_t i,
                            ok_cache_entry_info *out) {
    uint32_t j;
    if (!c || !out) return OK_ERR_INVALID_ARG;
    for (j = 0; j < c->n_entries; j++) {
        if (c->entries[j]->uncached) continue;
        if (i-- == 0) {
            fill_info(c->entries[j], out);
            return OK_OK;
        }
    }
    return OK_ERR_NOT_FOUND;
}

ok_status ok_cache_entry_info_get(const ok_cache *c, uint32_t entry,
                                  ok_cache_entry_info *out) {
    ok_entry *e;
    if (!c || !out) return OK_ERR_INVALID_ARG;
    e = ok_idx_find_id(c, entry);
    if (!e) return OK_ERR_NOT_FOUND;
    fill_info(e, out);
    return OK_OK;
}

uint64_t ok_cache_bytes_stored(const ok_cache *c) {
    uint64_t b = 0;
    uint32_t i;
    if (!c) return 0;
    for (i = 0; i < c->n_entries; i++) b += ok_entry_stored_bytes(c->entries[i]);
    return b;
}
