/* A fake IndexedDB and a fake JS driver for the cache core tests.
 *
 * The store holds the two object stores of cache/README.md: "index"
 * (name -> manifest bytes) and "chunks" ([name, idx] -> bytes). The driver
 * does what the JS layer does: after every call it copies the queued actions
 * out, applies them in order, each as one atomic transaction, and reports
 * completions/failures back. It can "crash" after a given number of applied
 * transactions (everything after is lost), and the store can refuse writes
 * past a byte quota (QuotaExceededError). */
#ifndef ORTKEEP_TEST_CACHE_STORE_H
#define ORTKEEP_TEST_CACHE_STORE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ok_cache.h"
#include "sha256.h"

/* ---------------- the store ---------------- */

typedef struct {
    char *name;
    uint32_t idx;       /* chunk index; unused for manifests */
    uint8_t *bytes;
    size_t len;
} fs_rec;

typedef struct {
    fs_rec *man, *chk;
    size_t n_man, n_chk, cap_man, cap_chk;
    uint64_t quota;     /* 0 = unlimited; bytes of chunk values */
} fstore;

static inline void *fs_xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) abort();
    return p;
}

static inline char *fs_strn(const char *s, size_t n) {
    char *d = fs_xmalloc(n + 1);
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}

static inline uint64_t fs_chunk_bytes(const fstore *s) {
    uint64_t b = 0;
    size_t i;
    for (i = 0; i < s->n_chk; i++) b += s->chk[i].len;
    return b;
}

static inline fs_rec *fs_find_man(fstore *s, const char *name) {
    size_t i;
    for (i = 0; i < s->n_man; i++)
        if (strcmp(s->man[i].name, name) == 0) return &s->man[i];
    return NULL;
}

static inline fs_rec *fs_find_chk(fstore *s, const char *name, uint32_t idx) {
    size_t i;
    for (i = 0; i < s->n_chk; i++)
        if (s->chk[i].idx == idx && strcmp(s->chk[i].name, name) == 0)
            return &s->chk[i];
    return NULL;
}

static inline void fs_put(fs_rec **arr, size_t *n, size_t *cap, fs_rec *existing,
                   const char *name, uint32_t idx, const uint8_t *b,
                   size_t len) {
    fs_rec *r = existing;
    if (!r) {
        if (*n == *cap) {
            fs_rec *na;
            *cap = *cap ? *cap * 2 : 16;
            na = fs_xmalloc(sizeof(fs_rec) * *cap);
            if (*n) memcpy(na, *arr, sizeof(fs_rec) * *n);
            free(*arr);
            *arr = na;
        }
        r = &(*arr)[(*n)++];
        r->name = fs_strn(name, strlen(name));
        r->idx = idx;
        r->bytes = NULL;
    }
    free(r->bytes);
    r->bytes = fs_xmalloc(len);
    if (len) memcpy(r->bytes, b, len);
    r->len = len;
}

static inline void fs_del_at(fs_rec *arr, size_t *n, size_t i) {
    free(arr[i].name);
    free(arr[i].bytes);
    arr[i] = arr[--*n];
}

static inline void fs_del_chunks(fstore *s, const char *name, uint32_t from,
                          uint32_t to) {
    size_t i = 0;
    while (i < s->n_chk) {
        if (strcmp(s->chk[i].name, name) == 0 && s->chk[i].idx >= from &&
            s->chk[i].idx < to)
            fs_del_at(s->chk, &s->n_chk, i);
        else
            i++;
    }
}

static inline void fs_del_man(fstore *s, const char *name) {
    size_t i;
    for (i = 0; i < s->n_man; i++)
        if (strcmp(s->man[i].name, name) == 0) {
            fs_del_at(s->man, &s->n_man, i);
            return;
        }
}

static inline void fs_free(fstore *s) {
    while (s->n_man) fs_del_at(s->man, &s->n_man, 0);
    while (s->n_chk) fs_del_at(s->chk, &s->n_chk, 0);
    free(s->man);
    free(s->chk);
    memset(s, 0, sizeof *s);
}

/* ---------------- the driver ("JS") ---------------- */

/* A download source: the bytes the network would return for an entry. */
typedef struct {
    uint32_t entry;
    const uint8_t *bytes;
    uint64_t len;
} fs_source;

typedef struct {
    uint32_t type, entry, chunk, chunk_end;
    char *name;
    uint8_t *blob;
    size_t blob_len;
    uint64_t value;
} fs_act;

typedef struct {
    fstore *s;
    ok_cache *c;
    fs_source src[16]; /* recent downloads; the oldest is recycled */
    int n_src, next_src;
    /* crash injection: applied store transactions; crash when == crash_at */
    long applied, crash_at; /* crash_at < 0: never */
    int crashed;
    /* what the driver saw */
    int committed, uncached, refetch, errors, corrupt_reads;
    long fetch_from;        /* chunk of the last FETCH, -1 none */
    uint32_t fetch_entry;
    ok_status last_err;     /* last non-OK status of an event call */
    /* queue */
    fs_act *q;
    size_t qh, qn, qcap;
} fs_js;

static inline void js_init(fs_js *js, fstore *s, ok_cache *c) {
    memset(js, 0, sizeof *js);
    js->s = s;
    js->c = c;
    js->crash_at = -1;
    js->fetch_from = -1;
}

static inline void js_set_source(fs_js *js, uint32_t entry, const uint8_t *b,
                          uint64_t len) {
    int i;
    for (i = 0; i < js->n_src; i++)
        if (js->src[i].entry == entry) break;
    if (i == js->n_src) {
        if (js->n_src < 16) js->n_src++;
        else i = js->next_src++ % 16;
    }
    js->src[i].entry = entry;
    js->src[i].bytes = b;
    js->src[i].len = len;
}

/* Length of chunk idx of a source split into chunk_size pieces. */
static inline uint64_t fs_src_chunk_len(const fs_source *src, uint32_t idx,
                                        uint32_t chunk_size) {
    uint64_t off = (uint64_t)idx * chunk_size;
    return src->len - off < chunk_size ? src->len - off : chunk_size;
}

static inline const fs_source *js_source(fs_js *js, uint32_t entry) {
    int i;
    for (i = 0; i < js->n_src; i++)
        if (js->src[i].entry == entry) return &js->src[i];
    return NULL;
}

static inline void js_free_act(fs_act *a) {
    free(a->name);
    free(a->blob);
}

static inline void js_drop_queue(fs_js *js) {
    while (js->qh < js->qn) js_free_act(&js->q[js->qh++]);
    free(js->q);
    js->q = NULL;
    js->qh = js->qn = js->qcap = 0;
}

/* Copy the cache's queued actions to the tail of the JS queue and clear. */
static inline void js_take(fs_js *js) {
    uint32_t n, i;
    const ok_cache_action *a = ok_cache_actions(js->c, &n);
    const uint8_t *d = ok_cache_action_data(js->c);
    for (i = 0; i < n; i++) {
        fs_act *t;
        if (js->qn == js->qcap) {
            fs_act *nq;
            js->qcap = js->qcap ? js->qcap * 2 : 32;
            nq = fs_xmalloc(sizeof(fs_act) * js->qcap);
            if (js->qn) memcpy(nq, js->q, sizeof(fs_act) * js->qn);
            free(js->q);
            js->q = nq;
        }
        t = &js->q[js->qn++];
        t->type = a[i].type;
        t->entry = a[i].entry;
        t->chunk = a[i].chunk;
        t->chunk_end = a[i].chunk_end;
        t->name = fs_strn((const char *)d + a[i].name_off, a[i].name_len);
        t->blob = fs_xmalloc(a[i].blob_len);
        if (a[i].blob_len) memcpy(t->blob, d + a[i].blob_off, a[i].blob_len);
        t->blob_len = a[i].blob_len;
        t->value = (uint64_t)a[i].value_lo | (uint64_t)a[i].value_hi << 32;
    }
    ok_cache_actions_clear(js->c);
}

static inline void js_note(fs_js *js, ok_status st) {
    if (st != OK_OK) js->last_err = st;
}

/* One store transaction; returns 0 done, 1 crashed before it, 2 quota. */
static inline int js_txn_begin(fs_js *js) {
    if (js->crashed) return 1;
    if (js->crash_at >= 0 && js->applied == js->crash_at) {
        js->crashed = 1;
        return 1;
    }
    return 0;
}

/* Apply everything queued (and what the reports queue in turn). */
static inline void js_run(fs_js *js) {
    js_take(js);
    while (js->qh < js->qn && !js->crashed) {
        fs_act a = js->q[js->qh++];
        fstore *s = js->s;
        switch (a.type) {
        case OK_ACT_WRITE_MANIFEST:
            if (js_txn_begin(js)) break;
            fs_put(&s->man, &s->n_man, &s->cap_man, fs_find_man(s, a.name),
                   a.name, 0, a.blob, a.blob_len);
            js->applied++;
            js_note(js, ok_cache_manifest_written(js->c, a.entry));
            break;
        case OK_ACT_STORE_CHUNK: {
            const fs_source *src = js_source(js, a.entry);
            uint64_t off, len;
            fs_rec *old;
            if (!src) abort();
            if (js_txn_begin(js)) break;
            {
                ok_cache_entry_info info;
                if (ok_cache_entry_info_get(js->c, a.entry, &info)) abort();
                off = (uint64_t)a.chunk * info.chunk_size;
                len = fs_src_chunk_len(src, a.chunk, info.chunk_size);
            }
            old = fs_find_chk(s, a.name, a.chunk);
            if (s->quota &&
                fs_chunk_bytes(s) - (old ? old->len : 0) + len > s->quota) {
                js->applied++; /* a failed transaction changes nothing */
                js_note(js, ok_cache_write_failed(js->c, a.entry, a.chunk, 1));
                break;
            }
            fs_put(&s->chk, &s->n_chk, &s->cap_chk, old, a.name, a.chunk,
                   src->bytes + off, (size_t)len);
            fs_put(&s->man, &s->n_man, &s->cap_man, fs_find_man(s, a.name),
                   a.name, 0, a.blob, a.blob_len);
            js->applied++;
            js_note(js, ok_cache_chunk_stored(js->c, a.entry, a.chunk));
            break;
        }
        case OK_ACT_DELETE_CHUNKS:
            if (js_txn_begin(js)) break;
            fs_del_chunks(s, a.name, a.chunk, a.chunk_end);
            js->applied++;
            break;
        case OK_ACT_DROP_ENTRY:
            if (js_txn_begin(js)) break;
            fs_del_chunks(s, a.name, 0, OK_CACHE_CHUNK_END);
            fs_del_man(s, a.name);
            js->applied++;
            break;
        case OK_ACT_CLEAR_ALL:
            if (js_txn_begin(js)) break;
            while (s->n_man) fs_del_at(s->man, &s->n_man, 0);
            while (s->n_chk) fs_del_at(s->chk, &s->n_chk, 0);
            js->applied++;
            break;
        case OK_ACT_READ_CHUNK: {
            ok_cache_entry_info info;
            fs_rec *r = fs_find_chk(s, a.name, a.chunk);
            ok_status st;
            if (ok_cache_entry_info_get(js->c, a.entry, &info)) break;
            if (info.writing)
                st = ok_cache_chunk_rehash(js->c, a.entry, a.chunk,
                                           r ? r->bytes : NULL, r ? r->len : 0);
            else
                st = ok_cache_chunk_read(js->c, a.entry, a.chunk,
                                         r ? r->bytes : NULL, r ? r->len : 0);
            if (st == OK_ERR_CORRUPT) js->corrupt_reads++;
            js_note(js, st);
            break;
        }
        case OK_ACT_FETCH:
            js->fetch_from = a.chunk;
            js->fetch_entry = a.entry;
            break;
        case OK_ACT_COMMITTED: js->committed++; break;
        case OK_ACT_LOAD_UNCACHED: js->uncached++; break;
        case OK_ACT_REFETCH: js->refetch++; break;
        case OK_ACT_ERROR: js->errors++; break;
        default: abort();
        }
        js_free_act(&a);
        js_take(js);
    }
    if (js->crashed) js_drop_queue(js);
}

/* Event wrappers: call, then run the actions. */
static inline ok_status js_call(fs_js *js, ok_status st) {
    js_note(js, st);
    js_run(js);
    return st;
}

/* Stream the source's chunks from the last FETCH to the end, then done.
 * Returns the status of download_done (or of the first failing event). */
static inline ok_status js_download(fs_js *js, uint32_t entry) {
    const fs_source *src = js_source(js, entry);
    ok_cache_entry_info info;
    ok_status st;
    uint32_t i;
    if (!src || js->fetch_entry != entry || js->fetch_from < 0)
        return OK_ERR_STATE;
    if (ok_cache_entry_info_get(js->c, entry, &info)) return OK_ERR_NOT_FOUND;
    for (i = (uint32_t)js->fetch_from; i < info.chunk_count; i++) {
        uint64_t off = (uint64_t)i * info.chunk_size;
        uint64_t len = fs_src_chunk_len(src, i, info.chunk_size);
        if (js->crashed) return OK_ERR_STATE;
        st = js_call(js, ok_cache_chunk_arrived(js->c, entry, i,
                                                src->bytes + off, (size_t)len));
        if (st) return st;
    }
    if (js->crashed) return OK_ERR_STATE;
    return js_call(js, ok_cache_download_done(js->c, entry));
}

/* Reopen: a fresh cache from the store's index records, then recovery. */
static inline ok_cache *js_reopen(fs_js *js, uint64_t budget) {
    ok_cache *c;
    size_t i, n = js->s->n_man;
    if (ok_cache_open(&c, budget)) abort();
    js->c = c;
    js->crashed = 0;
    js->crash_at = -1;
    /* load_record failures queue DROP_ENTRY; applied after all are read */
    for (i = 0; i < n; i++) {
        fs_rec *r = &js->s->man[i];
        js_note(js, ok_cache_load_record(c, r->name, strlen(r->name), r->bytes,
                                         r->len));
    }
    js_call(js, ok_cache_recover(c));
    return c;
}

/* Deterministic test data. */
static inline void fill_bytes(uint8_t *p, size_t n, uint32_t seed) {
    size_t i;
    uint32_t x = seed * 2654435761u + 1;
    for (i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        p[i] = (uint8_t)x;
    }
}

/* SRI "sha256-<base64>" of bytes into out (>= 52 chars). */
static inline void sri_of(const uint8_t *b, size_t n, char *out) {
    static const char t[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    uint8_t d[33];
    size_t i, o = 7;
    ok_sha256(b, n, d);
    d[32] = 0;
    memcpy(out, "sha256-", 7);
    for (i = 0; i < 33; i += 3) {
        uint32_t v = (uint32_t)d[i] << 16 | (uint32_t)d[i + 1] << 8 |
                     (i + 2 < 33 ? d[i + 2] : 0);
        out[o++] = t[(v >> 18) & 63];
        out[o++] = t[(v >> 12) & 63];
        out[o++] = t[(v >> 6) & 63];
        out[o++] = t[v & 63];
    }
    /* 32 bytes -> 43 chars + '=' */
    out[7 + 43] = '=';
    out[7 + 44] = 0;
}

/* Invariants between the store and the model of what each name holds.
 * Returns the number of violations:
 *  - every chunk in the store belongs to a manifest that lists it
 *    (index < stored_count): no orphan survives recovery;
 *  - every manifest parses. */
static inline int fs_check_no_orphans(fstore *s) {
    size_t i;
    int bad = 0;
    for (i = 0; i < s->n_chk; i++) {
        fs_rec *m = fs_find_man(s, s->chk[i].name);
        ok_manifest mf;
        if (!m) {
            bad++;
            continue;
        }
        if (ok_manifest_decode(m->bytes, m->len, &mf)) {
            bad++;
            continue;
        }
        if (s->chk[i].idx >= mf.stored_count) bad++;
        ok_manifest_free(&mf);
    }
    return bad;
}

/* A HIT must be servable: every chunk present with the right digest and
 * the bytes equal to `want`. Reads through the store like JS would. */
static inline int fs_hit_matches(fstore *s, const char *name, const uint8_t *want,
                          uint64_t want_len) {
    fs_rec *m = fs_find_man(s, name);
    ok_manifest mf;
    uint32_t i;
    int ok = 1;
    if (!m || ok_manifest_decode(m->bytes, m->len, &mf)) return 0;
    if (mf.state != OK_ENTRY_COMMITTED || mf.total_size != want_len) ok = 0;
    for (i = 0; ok && i < mf.chunk_count; i++) {
        fs_rec *r = fs_find_chk(s, name, i);
        uint64_t off = (uint64_t)i * mf.chunk_size;
        uint8_t d[32];
        if (!r || off + r->len > want_len ||
            memcmp(r->bytes, want + off, r->len) != 0) {
            ok = 0;
            break;
        }
        ok_sha256(r->bytes, r->len, d);
        if (memcmp(d, mf.digests + (size_t)i * 32, 32) != 0) ok = 0;
    }
    ok_manifest_free(&mf);
    return ok;
}

#endif
