/* The fake IndexedDB (fake_idb.h): records, transactions, and what a test
 * asks of the store afterwards. */
#include <stdlib.h>
#include <string.h>

#include "fake_idb.h"
#include "fx_alloc.h"
#include "ok_cache.h"
#include "ok_load.h"
#include "sha256.h"

fx_rec *fs_find(fx_store *s, const char *name, uint32_t idx) {
    size_t i;
    for (i = 0; i < s->n; i++)
        if (s->v[i].idx == idx && strcmp(s->v[i].name, name) == 0) return &s->v[i];
    return NULL;
}

void fs_put(fx_store *s, const char *name, uint32_t idx, const uint8_t *b, size_t len) {
    fx_rec *r = fs_find(s, name, idx);
    if (!r) {
        if (s->n == s->cap) {
            fx_rec *nv;
            s->cap = s->cap ? s->cap * 2 : 16;
            nv = fx_malloc(sizeof(fx_rec) * s->cap);
            if (s->n) memcpy(nv, s->v, sizeof(fx_rec) * s->n);
            free(s->v);
            s->v = nv;
        }
        r = &s->v[s->n++];
        r->name = fx_strn(name, strlen(name));
        r->idx = idx;
        r->bytes = NULL;
    }
    free(r->bytes);
    r->bytes = fx_malloc(len);
    if (len) memcpy(r->bytes, b, len);
    r->len = len;
}

void fs_del_at(fx_store *s, size_t i) {
    free(s->v[i].name);
    free(s->v[i].bytes);
    s->v[i] = s->v[--s->n];
}

void fs_del(fx_store *s, const char *name, uint32_t from, uint32_t to) {
    size_t i = 0;
    while (i < s->n) {
        if (strcmp(s->v[i].name, name) == 0 && s->v[i].idx >= from && s->v[i].idx < to) fs_del_at(s, i);
        else i++;
    }
}

void fs_free(fx_store *s) {
    while (s->n) fs_del_at(s, 0);
    free(s->v);
    memset(s, 0, sizeof *s);
}

uint64_t fs_bytes(const fx_store *s) {
    uint64_t b = 0;
    size_t i;
    for (i = 0; i < s->n; i++) b += s->v[i].len;
    return b;
}

uint64_t db_used(const fx_db *d) { return fs_bytes(&d->index) + fs_bytes(&d->meta) + fs_bytes(&d->chunks); }

void db_free(fx_db *d) {
    fs_free(&d->index);
    fs_free(&d->meta);
    fs_free(&d->chunks);
}

/* A write transaction: returns 0 ok, else the OK_IOFAIL_* kind; -1 crashed. */
int db_begin_write(fx_db *d, uint64_t adding) {
    if (d->crashed) return -1;
    if (d->crash_after >= 0 && d->writes >= d->crash_after) {
        d->crashed = 1;
        return -1;
    }
    if (d->closed) return OK_IOFAIL_CLOSED;
    if (d->fail_write_at && d->writes + 1 == d->fail_write_at) {
        d->fail_write_at = 0;
        return OK_IOFAIL_OTHER;
    }
    if (d->fail_from && adding && d->writes + 1 >= d->fail_from) return OK_IOFAIL_OTHER;
    if (d->fail_writes > 0) {
        d->fail_writes--;
        return OK_IOFAIL_OTHER;
    }
    if (d->quota && db_used(d) + adding > d->quota) return OK_IOFAIL_QUOTA;
    return 0;
}

/* Every committed entry in the store serves exactly `bytes`. */
int fx_store_serves(fx_db *d, const uint8_t *bytes, size_t len) {
    size_t i;
    int ok = 1;
    for (i = 0; i < d->index.n && ok; i++) {
        ok_manifest m;
        uint32_t k;
        uint64_t at = 0;
        if (ok_manifest_decode(d->index.v[i].bytes, d->index.v[i].len, &m) != OK_OK) return 0;
        if (m.state == OK_ENTRY_COMMITTED) {
            if (m.total_size != len) ok = 0;
            for (k = 0; k < m.chunk_count && ok; k++) {
                fx_rec *r = fs_find(&d->chunks, d->index.v[i].name, k);
                if (!r || at + r->len > len || memcmp(r->bytes, bytes + at, r->len)) ok = 0;
                else at += r->len;
            }
            if (at != len) ok = 0;
            if (!fs_find(&d->meta, d->index.v[i].name, 0)) ok = 0;
        }
        ok_manifest_free(&m);
    }
    return ok;
}

int fx_count_state(fx_db *d, uint32_t state) {
    size_t i;
    int n = 0;
    for (i = 0; i < d->index.n; i++) {
        ok_manifest m;
        if (ok_manifest_decode(d->index.v[i].bytes, d->index.v[i].len, &m) != OK_OK) continue;
        n += m.state == state;
        ok_manifest_free(&m);
    }
    return n;
}

/* Whether entry `name`'s stored chunks [0, count) are all there and hash to
 * sha256. */
int fx_chunks_hash_to(fx_db *d, const char *name, uint32_t count, const uint8_t *sha256) {
    struct ok_sha256 h;
    uint8_t dig[32];
    uint32_t k;
    ok_sha256_init(&h);
    for (k = 0; k < count; k++) {
        fx_rec *r = fs_find(&d->chunks, name, k);
        if (!r) return 0;
        ok_sha256_update(&h, r->bytes, r->len);
    }
    ok_sha256_final(&h, dig);
    return memcmp(dig, sha256, 32) == 0;
}

/* Chunk records whose name no index record has. */
int fx_orphans(fx_db *d) {
    size_t i;
    int n = 0;
    for (i = 0; i < d->chunks.n; i++) n += fs_find(&d->index, d->chunks.v[i].name, 0) == NULL;
    for (i = 0; i < d->meta.n; i++) n += fs_find(&d->index, d->meta.v[i].name, 0) == NULL;
    return n;
}
