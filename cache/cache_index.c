/* The index: the set of entries, syncing it with the "index" store (other
 * tabs write there too), recovery after a crash, listing, delete/clear. */
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
    ok_cache_free(e->integ);
    ok_cache_free(e->sums);
    ok_cache_free(e);
}

uint64_t ok_entry_chunk_len(const ok_entry *e, uint32_t idx) {
    uint64_t start = (uint64_t)idx * e->chunk_size;
    uint64_t left;
    if (!e->total_size) return e->chunk_size; /* size unknown: all full */
    left = e->total_size - start;
    return left < e->chunk_size ? left : e->chunk_size;
}

uint64_t ok_entry_stored_bytes(const ok_entry *e) {
    uint64_t b = (uint64_t)e->stored_count * e->chunk_size;
    return e->total_size && b > e->total_size ? e->total_size : b;
}

int ok_entry_resumable(const ok_entry *e) {
    /* integrity vouches for any prefix: the end's digest decides, and a
     * resume it refuses is fetched again from byte 0 (load_stream.c) */
    return e->state == OK_ENTRY_PENDING && !(e->flags & OK_EF_ENCODED) &&
           (e->integ_count || ((e->flags & OK_EF_SIZE_KNOWN) && (e->flags & OK_EF_STRONG)));
}

ok_status ok_entry_reserve_sums(ok_entry *e, uint32_t idx) {
    uint32_t ncap;
    uint64_t *ns;
    if (idx < e->sums_cap) return OK_OK;
    if (idx >= OK_CACHE_MAX_CHUNKS) return OK_ERR_LIMIT;
    ncap = e->sums_cap ? e->sums_cap : 8;
    while (ncap <= idx) ncap *= 2;
    ns = ok_cache_realloc(e->sums, (size_t)ncap * sizeof *ns);
    if (!ns) return OK_ERR_NOMEM;
    memset(ns + e->sums_cap, 0, (size_t)(ncap - e->sums_cap) * sizeof *ns);
    e->sums = ns;
    e->sums_cap = ncap;
    return OK_OK;
}

ok_status ok_entry_set_str(char **slot, const char *s) {
    char *d = ok_cache_strdup(s);
    if (!d) return OK_ERR_NOMEM;
    ok_cache_free(*slot);
    *slot = d;
    return OK_OK;
}

static ok_status entry_from_manifest(const ok_manifest *m, const char *name, size_t name_len,
                                     ok_entry **out) {
    size_t ib = (size_t)m->integrity_count * ok_hash_bytes(m->integrity_alg);
    ok_entry *e = ok_cache_calloc(1, sizeof *e);
    if (!e) return OK_ERR_NOMEM;
    e->state = m->state;
    e->form = m->form;
    e->flags = m->flags;
    e->chunk_size = m->chunk_size;
    e->chunk_count = m->chunk_count;
    e->stored_count = m->stored_count;
    e->integ_alg = m->integrity_alg;
    e->integ_count = m->integrity_count;
    e->report_len = m->report_len;
    e->gen = m->gen;
    e->total_size = m->total_size;
    e->last_used = m->last_used;
    e->hit_count = m->hit_count;
    e->report_sum = m->report_sum;
    memcpy(e->sha256, m->sha256, 32);
    e->form_status = m->form_status;
    e->form_reason = m->form_reason;
    e->create_us = m->create_us;
    e->orig_create_us = m->orig_create_us;
    e->rev_pairs = m->rev_pairs;
    e->rev_form_us = m->rev_form_us;
    e->rev_orig_us = m->rev_orig_us;
    memcpy(e->source_sha256, m->source_sha256, 32);
    e->key = ok_cache_strndup(m->key, m->key_len);
    e->url = ok_cache_strndup(m->url, m->url_len);
    e->etag = ok_cache_strndup(m->etag, m->etag_len);
    e->lm = ok_cache_strndup(m->last_modified, m->lm_len);
    e->name = ok_cache_strndup(name, name_len);
    e->integ = ok_cache_malloc(ib ? ib : 1);
    if (!e->key || !e->url || !e->etag || !e->lm || !e->name || !e->integ ||
        (m->chunk_count && ok_entry_reserve_sums(e, m->chunk_count - 1))) {
        ok_entry_free(e);
        return OK_ERR_NOMEM;
    }
    if (ib) memcpy(e->integ, m->integrity, ib);
    if (m->stored_count) memcpy(e->sums, m->sums, (size_t)m->stored_count * sizeof *e->sums);
    *out = e;
    return OK_OK;
}

/* ---- the set ---- */

ok_entry *ok_idx_find_id(const ok_cache *c, uint32_t id) {
    uint32_t i;
    for (i = 0; i < c->n_entries; i++)
        if (c->entries[i]->id == id) return c->entries[i];
    return NULL;
}

static ok_entry *find_name(const ok_cache *c, const char *name, size_t n) {
    uint32_t i;
    for (i = 0; i < c->n_entries; i++) {
        ok_entry *e = c->entries[i];
        if (strlen(e->name) == n && memcmp(e->name, name, n) == 0) return e;
    }
    return NULL;
}

/* The newest entry of key in `state` that is still current. */
static ok_entry *find_current(const ok_cache *c, const char *key, uint32_t state) {
    ok_entry *best = NULL;
    uint32_t i;
    for (i = 0; i < c->n_entries; i++) {
        ok_entry *e = c->entries[i];
        if (e->state == state && !e->superseded && strcmp(e->key, key) == 0 && (!best || e->gen > best->gen))
            best = e;
    }
    return best;
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
        if (strcmp(c->entries[i]->key, key) == 0 && c->entries[i]->gen > g) g = c->entries[i]->gen;
    return g;
}

ok_status ok_idx_reserve(ok_cache *c, uint32_t extra) {
    uint32_t ncap;
    ok_entry **ne;
    if ((uint64_t)c->n_entries + extra > OK_CACHE_MAX_ENTRIES) return OK_ERR_LIMIT;
    if (c->n_entries + extra <= c->cap_entries) return OK_OK;
    ncap = c->cap_entries ? c->cap_entries * 2 : 8;
    while (ncap < c->n_entries + extra) ncap *= 2;
    ne = ok_cache_realloc(c->entries, sizeof(*ne) * ncap);
    if (!ne) return OK_ERR_NOMEM;
    c->entries = ne;
    c->cap_entries = ncap;
    return OK_OK;
}

void ok_idx_insert(ok_cache *c, ok_entry *e) {
    e->id = c->next_id++;
    e->born = c->sync_counter;
    c->entries[c->n_entries++] = e;
}

/* Out of the index without a tombstone: its records are gone already. */
void ok_idx_forget(ok_cache *c, ok_entry *e) {
    uint32_t i;
    for (i = 0; i < c->n_entries; i++) {
        if (c->entries[i] == e) {
            /* keep order: listing and LRU ties stay stable */
            memmove(&c->entries[i], &c->entries[i + 1], sizeof(*c->entries) * (c->n_entries - i - 1));
            c->n_entries--;
            break;
        }
    }
    ok_entry_free(e);
}

void ok_idx_remove(ok_cache *c, ok_entry *e) {
    /* remember the name (best effort: a ring of the last drops) */
    if (!c->tomb) c->tomb = ok_cache_calloc(OK_CACHE_TOMBS, sizeof(char *));
    if (c->tomb) {
        char *n = ok_cache_strdup(e->name);
        if (n) {
            uint32_t at = c->next_tomb++ % OK_CACHE_TOMBS;
            ok_cache_free(c->tomb[at]);
            c->tomb[at] = n;
            if (c->n_tomb < OK_CACHE_TOMBS) c->n_tomb++;
        }
    }
    ok_idx_forget(c, e);
}

ok_status ok_idx_push_drop_marked(ok_cache *c) {
    ok_act_mark mk = ok_q_mark(c->q);
    ok_status st = OK_OK;
    uint32_t i;
    for (i = 0; i < c->n_entries && !st; i++)
        if (c->entries[i]->mark) st = ok_q_push_drop(c->q, c->entries[i]);
    if (st) ok_q_rollback(c->q, mk);
    return st;
}

void ok_idx_remove_marked(ok_cache *c) {
    uint32_t i = 0;
    while (i < c->n_entries) {
        if (c->entries[i]->mark) ok_idx_remove(c, c->entries[i]);
        else i++;
    }
}

size_t ok_part_owner_len(const char *key) {
    static const char owner_end[] = "|form:original" OK_PART_SEP;
    const char *at = strstr(key, owner_end);
    return at ? (size_t)(at - key) + sizeof owner_end - sizeof OK_PART_SEP : 0;
}

int ok_part_of(const ok_entry *e, const char *owner_key) {
    size_t n = strlen(owner_key);
    return (e->flags & OK_EF_PART) && ok_part_owner_len(e->key) == n && strncmp(e->key, owner_key, n) == 0;
}

static int live(const ok_entry *e);

ok_entry *ok_idx_owner(const ok_cache *c, const ok_entry *part) {
    uint32_t i;
    if (!(part->flags & OK_EF_PART)) return NULL;
    for (i = 0; i < c->n_entries; i++) {
        ok_entry *o = c->entries[i];
        if (o->state == OK_ENTRY_COMMITTED && !o->superseded && !(o->flags & OK_EF_PART) &&
            ok_part_of(part, o->key) && memcmp(o->sha256, part->source_sha256, 32) == 0)
            return o;
    }
    return NULL;
}

int ok_idx_mark_parts(ok_cache *c, uint64_t *bytes) {
    uint32_t i, j;
    for (i = 0; i < c->n_entries; i++) {
        ok_entry *o = c->entries[i];
        if (!o->mark || (o->flags & OK_EF_PART)) continue;
        for (j = 0; j < c->n_entries; j++) {
            ok_entry *p = c->entries[j];
            if (p->mark || !ok_part_of(p, o->key)) continue;
            if (live(p)) return 0;
            p->mark = 1;
            if (bytes) *bytes += ok_entry_stored_bytes(p);
        }
    }
    return 1;
}

int ok_idx_busy(const ok_cache *c, const char *key) {
    uint32_t i;
    size_t owner = ok_part_owner_len(key);
    for (i = 0; i < c->n_busy; i++)
        if (strcmp(c->busy[i], key) == 0 ||
            (owner && strlen(c->busy[i]) == owner && strncmp(c->busy[i], key, owner) == 0))
            return 1;
    return 0;
}

ok_status ok_idx_new_entry(ok_cache *c, const char *key, const char *url, uint32_t form, uint32_t chunk_size,
                           uint64_t now, ok_entry **out) {
    char name[OK_CACHE_MAX_NAME];
    ok_entry *e;
    *out = NULL;
    /* seed (random per page) + counter: unique across tabs and page loads
     * without coordination; a name is never reused */
    do {
        snprintf(name, sizeof name, "e%016llx.%llu", (unsigned long long)c->name_seed,
                 (unsigned long long)c->name_counter++);
    } while (find_name(c, name, strlen(name)));
    e = ok_cache_calloc(1, sizeof *e);
    if (!e) return OK_ERR_NOMEM;
    e->state = OK_ENTRY_PENDING;
    e->form = form;
    e->chunk_size = chunk_size;
    e->gen = ok_idx_max_gen(c, key) + 1;
    e->last_used = now;
    e->key = ok_cache_strdup(key);
    e->url = ok_cache_strdup(url);
    e->etag = ok_cache_strdup("");
    e->lm = ok_cache_strdup("");
    e->name = ok_cache_strdup(name);
    e->integ = ok_cache_malloc(1);
    if (!e->key || !e->url || !e->etag || !e->lm || !e->name || !e->integ) {
        ok_entry_free(e);
        return OK_ERR_NOMEM;
    }
    *out = e;
    return OK_OK;
}

/* ---- lifecycle ---- */

ok_status ok_cache_open(ok_cache **out, uint64_t budget_bytes, uint64_t name_seed) {
    ok_cache *c;
    if (!out) return OK_ERR_INVALID_ARG;
    *out = NULL;
    c = ok_cache_calloc(1, sizeof *c);
    if (!c) return OK_ERR_NOMEM;
    c->next_id = 1;
    c->budget = budget_bytes;
    c->name_seed = name_seed;
    c->q = &c->own;
    *out = c;
    return OK_OK;
}

static void names_free(ok_names *l) {
    uint32_t i;
    for (i = 0; i < l->n; i++) ok_cache_free(l->v[i]);
    ok_cache_free(l->v);
    memset(l, 0, sizeof *l);
}

static ok_status names_add(ok_names *l, const char *s, size_t len) {
    char *d;
    if (l->n == l->cap) {
        uint32_t nc = l->cap ? l->cap * 2 : 8;
        char **nv;
        if (nc > OK_CACHE_MAX_ENTRIES * 4) return OK_ERR_LIMIT;
        nv = ok_cache_realloc(l->v, sizeof(char *) * nc);
        if (!nv) return OK_ERR_NOMEM;
        l->v = nv;
        l->cap = nc;
    }
    d = ok_cache_strndup(s, len);
    if (!d) return OK_ERR_NOMEM;
    l->v[l->n++] = d;
    return OK_OK;
}

static int names_has(const ok_names *l, const char *s, size_t len) {
    uint32_t i;
    for (i = 0; i < l->n; i++)
        if (strlen(l->v[i]) == len && memcmp(l->v[i], s, len) == 0) return 1;
    return 0;
}

static int tombstoned(const ok_cache *c, const char *name, size_t len) {
    uint32_t i;
    for (i = 0; i < c->n_tomb; i++)
        if (strlen(c->tomb[i]) == len && memcmp(c->tomb[i], name, len) == 0) return 1;
    return 0;
}

void ok_cache_close(ok_cache *c) {
    uint32_t i;
    if (!c) return;
    for (i = 0; i < c->n_entries; i++) ok_entry_free(c->entries[i]);
    ok_cache_free(c->entries);
    ok_q_free(&c->own);
    for (i = 0; i < c->n_busy; i++) ok_cache_free(c->busy[i]);
    ok_cache_free(c->busy);
    for (i = 0; i < c->n_tomb; i++) ok_cache_free(c->tomb[i]);
    ok_cache_free(c->tomb);
    ok_cache_free(c);
}

ok_status ok_cache_set_budget(ok_cache *c, uint64_t budget_bytes) {
    if (!c) return OK_ERR_INVALID_ARG;
    c->budget = budget_bytes;
    return OK_OK;
}

ok_status ok_cache_busy_key(ok_cache *c, const char *key) {
    ok_names l;
    ok_status st;
    if (!c || !key) return OK_ERR_INVALID_ARG;
    if (strncmp(key, OK_CACHE_LOCK_PREFIX, sizeof OK_CACHE_LOCK_PREFIX - 1) == 0)
        key += sizeof OK_CACHE_LOCK_PREFIX - 1;
    else if (strncmp(key, "ortkeep", 7) == 0) return OK_OK; /* another lock of ours, not a key's */
    if (ok_idx_busy(c, key)) return OK_OK;
    l.v = c->busy;
    l.n = c->n_busy;
    l.cap = c->cap_busy;
    st = names_add(&l, key, strlen(key));
    c->busy = l.v;
    c->n_busy = l.n;
    c->cap_busy = l.cap;
    return st;
}

void ok_cache_busy_clear(ok_cache *c) {
    uint32_t i;
    if (!c) return;
    for (i = 0; i < c->n_busy; i++) ok_cache_free(c->busy[i]);
    c->n_busy = 0;
}

/* ---- syncing with the "index" store ---- */

static int live(const ok_entry *e) { return e->refcount || e->writing; }

ok_status ok_cache_sync_begin(ok_cache *c, int with_chunk_names, ok_sync **out) {
    ok_sync *s;
    if (!c || !out) return OK_ERR_INVALID_ARG;
    *out = NULL;
    s = ok_cache_calloc(1, sizeof *s);
    if (!s) return OK_ERR_NOMEM;
    s->id = ++c->sync_counter;
    s->with_chunk_names = with_chunk_names;
    *out = s;
    return OK_OK;
}

void ok_cache_sync_abandon(ok_cache *c, ok_sync *s) {
    (void)c;
    if (!s) return;
    names_free(&s->chunk_names);
    names_free(&s->foreign);
    ok_cache_free(s);
}

static ok_status drop_name(ok_cache *c, const char *name, size_t len) {
    ok_act_args a;
    char *n = ok_cache_strndup(name, len);
    ok_status st;
    if (!n) return OK_ERR_NOMEM;
    memset(&a, 0, sizeof a);
    a.type = OK_ACT_DROP_ENTRY;
    a.chunk_end = OK_CACHE_CHUNK_END;
    a.name = n;
    st = ok_q_push(c->q, &a);
    ok_cache_free(n);
    return st;
}

ok_status ok_cache_sync_record(ok_cache *c, ok_sync *s, const char *name, size_t name_len,
                               const uint8_t *bytes, size_t len) {
    ok_manifest m;
    ok_entry *known, *e = NULL;
    ok_status st;
    if (!c || !s) return OK_ERR_INVALID_ARG;
    if (!name || name_len == 0 || name_len >= OK_CACHE_MAX_NAME || memchr(name, 0, name_len))
        return OK_ERR_INVALID_ARG; /* not a name this core ever writes */
    if (tombstoned(c, name, name_len)) return OK_OK;
    known = find_name(c, name, name_len);
    if (known && live(known)) {
        known->seen = s->id; /* this page's own view is the newer one */
        return OK_OK;
    }
    st = ok_manifest_decode(bytes, len, &m);
    if (st == OK_ERR_NOMEM) return st;
    if (st == OK_ERR_STATE) {
        /* another format version: not ours to read or to sweep; its name
         * keeps its chunks from the orphan sweep */
        if (known) ok_idx_remove(c, known);
        return names_add(&s->foreign, name, name_len);
    }
    if (st != OK_OK) {
        /* unreadable: it can never be served; sweep it */
        if (known) ok_idx_remove(c, known);
        return drop_name(c, name, name_len);
    }
    st = entry_from_manifest(&m, name, name_len, &e);
    ok_manifest_free(&m);
    if (st) return st;
    if (known) {
        /* another tab changed it (committed, touched): take its version */
        uint32_t i;
        e->id = known->id;
        e->born = known->born;
        e->superseded = known->superseded;
        for (i = 0; i < c->n_entries; i++)
            if (c->entries[i] == known) c->entries[i] = e;
        ok_entry_free(known);
    } else {
        st = ok_idx_reserve(c, 1);
        if (st) {
            ok_entry_free(e);
            return st;
        }
        ok_idx_insert(c, e);
    }
    e->seen = s->id;
    return OK_OK;
}

ok_status ok_cache_sync_chunk_name(ok_cache *c, ok_sync *s, const char *name, size_t name_len) {
    if (!c || !s) return OK_ERR_INVALID_ARG;
    if (!s->with_chunk_names || !name || !name_len || name_len >= OK_CACHE_MAX_NAME ||
        memchr(name, 0, name_len) || names_has(&s->chunk_names, name, name_len))
        return OK_OK;
    return names_add(&s->chunk_names, name, name_len);
}

/* Recovery decision for one idle, unbusy entry after a sync: drop it?
 * Per key the newest committed generation serves. An older committed one is
 * left by a crash between a commit and the drop of the version it replaced;
 * an older pending one is a download abandoned before a newer committed. */
static int stale(const ok_cache *c, const ok_entry *e) {
    const ok_entry *newest = ok_idx_find_committed(c, e->key);
    if (newest && newest->gen > e->gen) return 1;
    /* a data file serves only beside the model it was committed with: no
     * such model committed (evicted, deleted, replaced) -- it goes */
    return (e->flags & OK_EF_PART) && e->state == OK_ENTRY_COMMITTED && !ok_idx_owner(c, e);
}

ok_status ok_cache_sync_end(ok_cache *c, ok_sync *s) {
    ok_act_mark mk;
    ok_status st = OK_OK;
    uint32_t i, j;
    if (!c || !s) return OK_ERR_INVALID_ARG;
    /* entries another tab deleted: forget them (ours in use, and any added
     * after this sync read the store, stay) */
    i = 0;
    while (i < c->n_entries) {
        ok_entry *e = c->entries[i];
        if (e->seen != s->id && !live(e) && e->born < s->id) ok_idx_forget(c, e);
        else i++;
    }
    for (i = 0; i < c->n_entries; i++) {
        ok_entry *e = c->entries[i];
        e->mark = !live(e) && !ok_idx_busy(c, e->key) && stale(c, e);
    }
    mk = ok_q_mark(c->q);
    st = ok_idx_push_drop_marked(c);
    /* chunks no record names (a drop that failed, an older crash): sweep.
     * The names were read in the same transaction as the records, and a
     * name is never reused, so no live writer can own them. */
    for (j = 0; j < s->chunk_names.n && !st; j++) {
        const char *n = s->chunk_names.v[j];
        size_t nl = strlen(n);
        if (!find_name(c, n, nl) && !names_has(&s->foreign, n, nl)) st = drop_name(c, n, nl);
    }
    if (st) {
        ok_q_rollback(c->q, mk);
        for (i = 0; i < c->n_entries; i++) c->entries[i]->mark = 0;
        return st;
    }
    ok_idx_remove_marked(c);
    ok_cache_sync_abandon(c, s);
    return OK_OK;
}

ok_status ok_cache_reset(ok_cache *c) {
    ok_act_args a;
    ok_status st;
    uint32_t i = 0;
    if (!c) return OK_ERR_INVALID_ARG;
    memset(&a, 0, sizeof a);
    a.type = OK_ACT_CLEAR_ALL;
    a.chunk_end = OK_CACHE_CHUNK_END;
    st = ok_q_push(c->q, &a);
    if (st) return st;
    while (i < c->n_entries) {
        if (live(c->entries[i])) i++;
        else ok_idx_remove(c, c->entries[i]);
    }
    return OK_OK;
}

/* ---- delete / clear ---- */

ok_status ok_cache_delete(ok_cache *c, const char *key_or_url) {
    ok_status st;
    uint32_t i, found = 0;
    int busy = 0;
    if (!c || !key_or_url) return OK_ERR_INVALID_ARG;
    for (i = 0; i < c->n_entries; i++) {
        ok_entry *e = c->entries[i];
        e->mark = strcmp(e->key, key_or_url) == 0 || strcmp(e->url, key_or_url) == 0;
        if (!e->mark) continue;
        found++;
        busy |= live(e) || ok_idx_busy(c, e->key);
    }
    if (!busy && found && !ok_idx_mark_parts(c, NULL)) busy = 1;
    if (busy) {
        for (i = 0; i < c->n_entries; i++) c->entries[i]->mark = 0;
        return OK_ERR_IN_USE;
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
        c->entries[i]->mark = !live(c->entries[i]) && !ok_idx_busy(c, c->entries[i]->key);
    st = ok_idx_push_drop_marked(c);
    if (!st) ok_idx_remove_marked(c);
    else
        for (i = 0; i < c->n_entries; i++) c->entries[i]->mark = 0;
    return st;
}

/* ---- inspection ---- */

static void fill_info(const ok_entry *e, ok_cache_entry_info *o) {
    memset(o, 0, sizeof *o);
    o->id = e->id;
    o->state = e->state;
    o->form = e->form;
    o->flags = e->flags;
    o->chunk_size = e->chunk_size;
    o->chunk_count = e->chunk_count;
    o->stored_count = e->stored_count;
    o->refcount = e->refcount;
    o->writing = e->writing;
    o->integrity_alg = e->integ_alg;
    o->report_len = e->report_len;
    o->gen = e->gen;
    o->total_size = e->total_size;
    o->stored_bytes = ok_entry_stored_bytes(e);
    o->last_used = e->last_used;
    o->hit_count = e->hit_count;
    o->form_status = e->form_status;
    o->form_reason = e->form_reason;
    o->create_us = e->create_us;
    o->orig_create_us = e->orig_create_us;
    o->rev_pairs = e->rev_pairs;
    o->rev_form_us = e->rev_form_us;
    o->rev_orig_us = e->rev_orig_us;
    o->source_sha256 = e->source_sha256;
    o->key = e->key;
    o->url = e->url;
    o->etag = e->etag;
    o->last_modified = e->lm;
    o->name = e->name;
    o->sha256 = e->sha256;
}

uint32_t ok_cache_count(const ok_cache *c) { return c ? c->n_entries : 0; }

/* fill_info, and for a part the model it serves beside */
static void fill_info_of(const ok_cache *c, const ok_entry *e, ok_cache_entry_info *o) {
    const ok_entry *owner = ok_idx_owner(c, e);
    fill_info(e, o);
    if (owner) {
        o->owner = owner->id;
        o->location = e->key + ok_part_owner_len(e->key) + sizeof OK_PART_SEP - 1;
    }
}

ok_status ok_cache_entry_at(const ok_cache *c, uint32_t i, ok_cache_entry_info *out) {
    if (!c || !out) return OK_ERR_INVALID_ARG;
    if (i >= c->n_entries) return OK_ERR_NOT_FOUND;
    fill_info_of(c, c->entries[i], out);
    return OK_OK;
}

ok_status ok_cache_entry_info_get(const ok_cache *c, uint32_t entry, ok_cache_entry_info *out) {
    ok_entry *e;
    if (!c || !out) return OK_ERR_INVALID_ARG;
    e = ok_idx_find_id(c, entry);
    if (!e) return OK_ERR_NOT_FOUND;
    fill_info_of(c, e, out);
    return OK_OK;
}

uint64_t ok_cache_bytes_stored(const ok_cache *c) {
    uint64_t b = 0;
    uint32_t i;
    if (!c) return 0;
    for (i = 0; i < c->n_entries; i++) b += ok_entry_stored_bytes(c->entries[i]);
    return b;
}
