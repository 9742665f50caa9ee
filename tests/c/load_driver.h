/* A fake browser for the load machine: IndexedDB (three stores, one
 * transaction per action, quota, a database closed under the page, failing
 * writes, a crash after the n-th write), an HTTP server that misbehaves on
 * request (statuses, cuts, short and long bodies, chunked and compressed
 * responses, CORS-hidden headers, ignored and wrong ranges, failed
 * fetches), the real C reader for VALIDATE and an onnxruntime stand-in that
 * can refuse. It carries out actions exactly as js/cache/load-driver.js
 * does: in order, acking each write before the next action, feeding body
 * pieces only when the queue is empty. */
#ifndef ORTKEEP_TEST_LOAD_DRIVER_H
#define ORTKEEP_TEST_LOAD_DRIVER_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inspect_json.h"
#include "ok_cache.h"
#include "ok_load.h"
#include "onnx_reader.h"
#include "sha256.h"

/* Every event goes through FX_EV: an event answering OK_ERR_NOMEM ends the
 * load (the JS contract: release what was created, reject with NOMEM). */
static int fx_nomem;
#define FX_EV(fn, ...) fx_ev_(fn(__VA_ARGS__))
static inline ok_status fx_ev_(ok_status st) {
    if (st == OK_ERR_NOMEM) fx_nomem = 1;
    return st;
}


static inline void *fx_malloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) abort();
    return p;
}

static inline char *fx_strn(const char *s, size_t n) {
    char *d = fx_malloc(n + 1);
    if (n) memcpy(d, s, n);
    d[n] = 0;
    return d;
}

/* ---------------- a synthetic model ---------------- */

typedef struct { uint8_t *p; size_t n, cap; } fx_buf;

static inline void fb_put(fx_buf *b, const void *p, size_t n) {
    if (b->n + n > b->cap) {
        size_t nc = b->cap ? b->cap * 2 : 256;
        uint8_t *np;
        while (nc < b->n + n) nc *= 2;
        np = fx_malloc(nc);
        if (b->n) memcpy(np, b->p, b->n);
        free(b->p);
        b->p = np;
        b->cap = nc;
    }
    if (n) memcpy(b->p + b->n, p, n);
    b->n += n;
}

static inline void fb_varint(fx_buf *b, uint64_t v) {
    uint8_t t[10];
    size_t n = 0;
    do {
        t[n] = (uint8_t)(v & 0x7f);
        v >>= 7;
        if (v) t[n] |= 0x80;
        n++;
    } while (v);
    fb_put(b, t, n);
}

static inline void fb_len_field(fx_buf *b, uint32_t field, const fx_buf *inner) {
    fb_varint(b, (uint64_t)field << 3 | 2);
    fb_varint(b, inner->n);
    fb_put(b, inner->p, inner->n);
}

static inline void fb_str_field(fx_buf *b, uint32_t field, const char *s) {
    fb_varint(b, (uint64_t)field << 3 | 2);
    fb_varint(b, strlen(s));
    fb_put(b, s, strlen(s));
}

/* A valid ONNX model of about `size` bytes: Identity over a uint8
 * initializer whose raw_data are seeded pseudo-random bytes. */
static inline uint8_t *fx_model(size_t size, uint32_t seed, size_t *out_len) {
    fx_buf m = {0}, g = {0}, node = {0}, init = {0}, out = {0}, op = {0};
    size_t payload = size > 200 ? size - 200 : 16, i;
    uint8_t *raw = fx_malloc(payload);
    uint32_t x = seed * 2654435761u + 1;
    for (i = 0; i < payload; i++) {
        x ^= x << 13; x ^= x >> 17; x ^= x << 5;
        raw[i] = (uint8_t)x;
    }
    fb_str_field(&node, 1, "w");
    fb_str_field(&node, 2, "y");
    fb_str_field(&node, 4, "Identity");
    fb_varint(&init, 1 << 3 | 0);
    fb_varint(&init, payload);
    fb_varint(&init, 2 << 3 | 0);
    fb_varint(&init, 2); /* UINT8 */
    fb_str_field(&init, 8, "w");
    fb_varint(&init, 9 << 3 | 2);
    fb_varint(&init, payload);
    fb_put(&init, raw, payload);
    fb_str_field(&out, 1, "y");
    fb_len_field(&g, 1, &node);
    fb_str_field(&g, 2, "g");
    fb_len_field(&g, 5, &init);
    fb_len_field(&g, 12, &out);
    fb_varint(&op, 2 << 3 | 0);
    fb_varint(&op, 17);
    fb_varint(&m, 1 << 3 | 0);
    fb_varint(&m, 8);
    fb_len_field(&m, 8, &op);
    fb_len_field(&m, 7, &g);
    free(raw);
    free(g.p); free(node.p); free(init.p); free(out.p); free(op.p);
    *out_len = m.n;
    return m.p;
}

/* ---------------- IndexedDB ---------------- */

typedef struct {
    char *name;
    uint32_t idx;
    uint8_t *bytes;
    size_t len;
} fx_rec;

typedef struct {
    fx_rec *v;
    size_t n, cap;
} fx_store;

typedef struct {
    fx_store index, meta, chunks;
    uint64_t quota;      /* bytes of all values; 0 = unlimited */
    uint64_t estimate_slack; /* navigator.storage.estimate() says this much
                                more is free than is (its usage lags) */
    int crash_after;     /* write transactions applied before a crash; <0 off */
    int writes;          /* write transactions applied so far */
    int crashed;
    int closed;          /* every request fails CLOSED until REOPEN */
    int fail_writes;     /* the next n write transactions fail OTHER */
    int fail_reads;      /* the next n read transactions fail OTHER */
    int reopens;
} fx_db;

static inline fx_rec *fs_find(fx_store *s, const char *name, uint32_t idx) {
    size_t i;
    for (i = 0; i < s->n; i++)
        if (s->v[i].idx == idx && strcmp(s->v[i].name, name) == 0) return &s->v[i];
    return NULL;
}

static inline void fs_put(fx_store *s, const char *name, uint32_t idx,
                          const uint8_t *b, size_t len) {
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

static inline void fs_del_at(fx_store *s, size_t i) {
    free(s->v[i].name);
    free(s->v[i].bytes);
    s->v[i] = s->v[--s->n];
}

static inline void fs_del(fx_store *s, const char *name, uint32_t from, uint32_t to) {
    size_t i = 0;
    while (i < s->n) {
        if (strcmp(s->v[i].name, name) == 0 && s->v[i].idx >= from && s->v[i].idx < to)
            fs_del_at(s, i);
        else
            i++;
    }
}

static inline void fs_free(fx_store *s) {
    while (s->n) fs_del_at(s, 0);
    free(s->v);
    memset(s, 0, sizeof *s);
}

static inline uint64_t fs_bytes(const fx_store *s) {
    uint64_t b = 0;
    size_t i;
    for (i = 0; i < s->n; i++) b += s->v[i].len;
    return b;
}

static inline uint64_t db_used(const fx_db *d) {
    return fs_bytes(&d->index) + fs_bytes(&d->meta) + fs_bytes(&d->chunks);
}

static inline void db_free(fx_db *d) {
    fs_free(&d->index);
    fs_free(&d->meta);
    fs_free(&d->chunks);
}

/* ---------------- the server ---------------- */

typedef struct {
    uint32_t status;         /* 0 = 200/206 as the request asks */
    int fetch_fails;         /* fetch() rejects (offline, CORS) */
    int refuse_preflight;    /* conditional or If-Range requests fail */
    int cut_at;              /* body breaks after this many bytes (-1 off) */
    int short_by;            /* body ends cleanly this many bytes early */
    int long_by;             /* body has this many extra bytes */
    int chunked;             /* no Content-Length */
    int gzip;                /* Content-Encoding: gzip (decoded body) */
    int cors;                /* Response.type 'cors': ETag/Content-Range hidden */
    int ignore_range;        /* 200 with everything to a Range request */
    int range_from0;         /* 206 from byte 0 whatever was asked */
    int html;                /* an SPA fallback page instead of the model */
    const uint8_t *bytes;    /* override the body for this request */
    size_t len;
} fx_reply;

typedef struct {
    uint64_t from;
    uint32_t flags;
    char inm[64], ims[64];
} fx_request;

#define FX_MAX_REQ 16
typedef struct fx_server {
    const uint8_t *bytes;
    size_t len;
    char etag[64], lm[64];
    fx_reply plan[FX_MAX_REQ];    /* what request n gets (0-based) */
    fx_reply every;               /* what every request gets (unless planned) */
    int planned[FX_MAX_REQ];
    fx_request req[FX_MAX_REQ];
    int n_req;
} fx_server;

/* ---------------- one page ---------------- */

#define FX_MAX_PARTS 4
#define FX_MAX_GROUP 8

typedef struct {
    ok_cache *c;
    fx_db *db;
    fx_server *srv;
    int refuse_sessions;   /* onnxruntime refuses the next n sessions */
    int abort_in_state;    /* abort when the load reaches this state (-1 off) */
    size_t piece;          /* body piece size */
    int split;             /* hand each piece in two calls back to back, as
                              JS does with pieces over 1 MiB */
    /* the load's model buffer */
    uint8_t *buf;
    size_t buf_len, buf_cap;
    /* outcome */
    int done, failed, crashed, stuck;
    uint32_t fail_code, fail_reason, tier, done_flags;
    uint64_t fail_number;
    uint32_t warns[64];
    int n_warns;
    int sessions, released;
    uint8_t served_sha[32];
    size_t served_len;
    uint8_t *served;       /* copy of what the session was created from */
    /* optimized forms: what onnxruntime and the verification answer */
    uint32_t facts;            /* OK_FACT_* the reader found */
    uint64_t external_bytes;   /* the model's external data */
    uint32_t create_us[OK_FORM_COUNT]; /* session creation time per form */
    uint32_t orig_create_us;   /* the original's, measured at VERIFY_FORM */
    uint32_t form_resample_us; /* the form timed again there (0: not) */
    uint32_t verdict;          /* VERIFY_FORM's answer (0: EQUAL) */
    uint32_t refuse_forms;     /* bit per form: onnxruntime refuses it */
    const uint8_t *form_bytes; /* a FORM load's captured bytes */
    size_t form_len;
    /* outcome */
    uint32_t created_form;     /* the form of the last session created */
    uint32_t capture;          /* ok_load_capture_form at the last original */
    int verifies;
    uint32_t notes[16], note_reasons[16];
    uint64_t note_values[16];
    int n_notes;
    /* external data files (parts), loaded at an original's CREATE_SESSION
     * as JS does: one DATA load each, from its own server */
    int n_parts;
    const char *part_loc[FX_MAX_PARTS];
    const char *part_url[FX_MAX_PARTS];
    fx_server *part_srv[FX_MAX_PARTS];
    uint64_t part_min[FX_MAX_PARTS];
    /* outcome */
    uint32_t parts_mode;       /* ok_load_parts_mode at the last original */
    int parts_intact;          /* every part's bytes arrived, equal */
    uint32_t part_tier[FX_MAX_PARTS], part_flags[FX_MAX_PARTS];
    uint32_t part_fail_code, part_fail_reason;
    /* COMMIT_MORE puts held for their transaction */
    struct { char name[128]; uint8_t *bytes; size_t len; } group[FX_MAX_GROUP];
    int n_group;
} fx_page;

static inline void fx_group_clear(fx_page *pg) {
    while (pg->n_group) free(pg->group[--pg->n_group].bytes);
}

static inline int fx_warned(const fx_page *pg, uint32_t code) {
    int i;
    for (i = 0; i < pg->n_warns; i++)
        if (pg->warns[i] == code) return 1;
    return 0;
}

static inline void fx_page_init(fx_page *pg, fx_db *db, fx_server *srv, uint64_t seed) {
    memset(pg, 0, sizeof *pg);
    pg->db = db;
    pg->srv = srv;
    pg->abort_in_state = -1;
    pg->piece = 1000;
    if (ok_cache_open(&pg->c, 0, seed) != OK_OK) abort();
}

static inline void fx_page_close(fx_page *pg) {
    fx_group_clear(pg);
    ok_cache_close(pg->c);
    free(pg->buf);
    free(pg->served);
    pg->c = NULL;
    pg->buf = NULL;
    pg->served = NULL;
}

static inline void fx_reset_outcome(fx_page *pg) {
    free(pg->served);
    pg->served = NULL;
    pg->done = pg->failed = pg->crashed = pg->stuck = 0;
    pg->fail_code = pg->fail_reason = pg->tier = pg->done_flags = 0;
    pg->n_warns = 0;
    pg->sessions = pg->released = 0;
    pg->served_len = 0;
    pg->n_notes = pg->verifies = 0;
    pg->created_form = pg->capture = 0;
    pg->parts_mode = 0;
    pg->parts_intact = 0;
    memset(pg->part_tier, 0, sizeof pg->part_tier);
    memset(pg->part_flags, 0, sizeof pg->part_flags);
    pg->part_fail_code = pg->part_fail_reason = 0;
}

static inline void fx_run_load(fx_page *pg, const ok_load_params *p, ok_load **keep);
static inline void fx_drive(fx_page *pg, ok_load *l, const ok_load_params *p, ok_load **keep);

/* The model's data files, each a DATA load on the same index and store,
 * adopted by the model's load (what js/cache/load-driver.js does before it
 * creates the session). 0, or -1 when the store crashed meanwhile. */
static inline int fx_load_parts(fx_page *pg, ok_load *l) {
    ok_load *planned[FX_MAX_PARTS] = {0};
    ok_load_params pp[FX_MAX_PARTS];
    int i, failed = 0;
    pg->parts_mode = ok_load_parts_mode(l);
    pg->parts_intact = 1;
    /* every file is planned before any is started (a set past one session
     * is refused before a byte is fetched) */
    for (i = 0; i < pg->n_parts && !failed; i++) {
        ok_status st;
        memset(&pp[i], 0, sizeof pp[i]);
        pp[i].source = OK_SOURCE_DATA;
        pp[i].owner = l;
        pp[i].url = pg->part_url[i];
        pp[i].part = pg->part_loc[i];
        pp[i].bytes_len = pg->part_min[i];
        st = ok_load_new(pg->c, &pp[i], &planned[i]);
        if (st != OK_OK) {
            pg->part_fail_code = (uint32_t)st;
            failed = 1;
        }
    }
    for (i = 0; i < pg->n_parts && !failed; i++) {
        fx_page sub;
        ok_load *pl = NULL;
        int k;
        memset(&sub, 0, sizeof sub);
        sub.c = pg->c;
        sub.db = pg->db;
        sub.srv = pg->part_srv[i];
        sub.piece = pg->piece;
        sub.abort_in_state = -1;
        fx_drive(&sub, planned[i], &pp[i], &pl);
        planned[i] = NULL;
        for (k = 0; k < sub.n_warns && pg->n_warns < 64; k++)
            pg->warns[pg->n_warns++] = sub.warns[k];
        pg->part_tier[i] = sub.tier;
        pg->part_flags[i] = sub.done_flags;
        if (!sub.done || sub.buf_len < sub.srv->len ||
            memcmp(sub.buf, sub.srv->bytes, sub.srv->len) != 0)
            pg->parts_intact = 0;
        if (!sub.crashed && sub.done && pl) FX_EV(ok_load_adopt_part, l, pl);
        ok_load_free(pl);
        free(sub.buf);
        free(sub.served);
        if (sub.crashed) {
            failed = -1;
        } else if (!sub.done) {
            pg->part_fail_code = sub.fail_code;
            pg->part_fail_reason = sub.fail_reason;
            failed = 1;
        }
    }
    for (i = 0; i < pg->n_parts; i++) ok_load_free(planned[i]);
    if (failed > 0) FX_EV(ok_load_abort, l); /* a file failed: so does the model's load */
    return failed;
}


/* A write transaction: returns 0 ok, else the OK_IOFAIL_* kind; -1 crashed. */
static inline int db_begin_write(fx_db *d, uint64_t adding) {
    if (d->crashed) return -1;
    if (d->crash_after >= 0 && d->writes >= d->crash_after) {
        d->crashed = 1;
        return -1;
    }
    if (d->closed) return OK_IOFAIL_CLOSED;
    if (d->fail_writes > 0) {
        d->fail_writes--;
        return OK_IOFAIL_OTHER;
    }
    if (d->quota && db_used(d) + adding > d->quota) return OK_IOFAIL_QUOTA;
    return 0;
}

static inline void buf_ensure(fx_page *pg, size_t n) {
    if (n > pg->buf_cap) {
        size_t nc = pg->buf_cap ? pg->buf_cap : 4096;
        uint8_t *nb;
        while (nc < n) nc *= 2;
        nb = fx_malloc(nc);
        if (pg->buf_len) memcpy(nb, pg->buf, pg->buf_len);
        free(pg->buf);
        pg->buf = nb;
        pg->buf_cap = nc;
    }
}

/* the response being streamed */
typedef struct {
    int active;
    const uint8_t *body;
    size_t start, end;      /* byte range of `body` sent */
    size_t pos;             /* next byte */
    int cut_at;             /* absolute body byte count where it breaks, -1 */
    int streaming;          /* STREAM came: JS reads the body only then */
} fx_stream;

static inline const char *fx_str(const uint8_t *d, uint32_t off, uint32_t len,
                                 char *tmp, size_t cap) {
    if (len >= cap) len = (uint32_t)cap - 1;
    if (len) memcpy(tmp, d + off, len);
    tmp[len] = 0;
    return tmp;
}

/* Answer a FETCH: the response headers, and the body to stream. */
static inline void fx_fetch(fx_page *pg, ok_load *l, const ok_action *a,
                            const uint8_t *data, fx_stream *s) {
    fx_server *sv = pg->srv;
    int n = sv->n_req;
    fx_reply r = (n < FX_MAX_REQ && sv->planned[n]) ? sv->plan[n] : sv->every;
    uint64_t from = (uint64_t)a->value_lo | (uint64_t)a->value_hi << 32;
    const uint8_t *body = r.bytes ? r.bytes : sv->bytes;
    size_t len = r.bytes ? r.len : sv->len;
    static const char html[] = "<!doctype html><html><head><title>app</title></head><body>spa</body></html>";
    char cl[32], cr[96], tmp[64] = "";
    const char *etag = sv->etag[0] ? sv->etag : NULL;
    const char *lm = sv->lm[0] ? sv->lm : NULL;
    uint32_t status = 200;
    size_t start = 0, end;
    if (n < FX_MAX_REQ) {
        sv->req[n].from = (a->flags & OK_FETCH_RANGE) ? from : 0;
        sv->req[n].flags = a->flags;
        fx_str(data, a->name_off, a->name_len, sv->req[n].inm, sizeof sv->req[n].inm);
        fx_str(data, a->aux_off, a->aux_len, sv->req[n].ims, sizeof sv->req[n].ims);
    }
    sv->n_req++;
    memset(s, 0, sizeof *s);
    if (r.fetch_fails ||
        (r.refuse_preflight && (a->flags & OK_FETCH_CONDITIONAL))) {
        FX_EV(ok_load_fetch_failed, l);
        return;
    }
    if (r.html) {
        body = (const uint8_t *)html;
        len = sizeof html - 1;
    }
    if (a->flags & OK_FETCH_CONDITIONAL) {
        char *inm = n < FX_MAX_REQ ? sv->req[n].inm : tmp;
        char *ims = n < FX_MAX_REQ ? sv->req[n].ims : tmp;
        if ((inm[0] && etag && strcmp(inm, etag) == 0) ||
            (!inm[0] && ims[0] && lm && strcmp(ims, lm) == 0)) {
            FX_EV(ok_load_response, l, 304, r.cors ? OK_RESP_CORS : OK_RESP_BASIC, NULL,
                             NULL, NULL, NULL, r.cors ? NULL : etag, lm);
            return;
        }
    }
    end = len;
    if (r.status) {
        /* an error page; the machine never streams it */
        FX_EV(ok_load_response, l, r.status, OK_RESP_BASIC, "9", NULL, NULL,
                         "text/plain", NULL, NULL);
        return;
    }
    if ((a->flags & OK_FETCH_RANGE) && !r.ignore_range && from < len) {
        status = 206;
        start = r.range_from0 ? 0 : (size_t)from;
    } else if (r.range_from0) {
        status = 206;
        start = 0;
    }
    if (r.short_by && (size_t)r.short_by < end - start) end -= (size_t)r.short_by;
    /* gzip: Content-Length counts encoded bytes (here: two thirds) */
    snprintf(cl, sizeof cl, "%llu",
             (unsigned long long)(len - start - (r.gzip ? (len - start) / 3 : 0)));
    if (status == 206)
        snprintf(cr, sizeof cr, "bytes %llu-%llu/%llu", (unsigned long long)start,
                 (unsigned long long)(len - 1), (unsigned long long)len);
    FX_EV(ok_load_response, l, status, r.cors ? OK_RESP_CORS : OK_RESP_BASIC,
                     r.chunked ? NULL : cl, r.gzip && !r.cors ? "gzip" : NULL,
                     status == 206 && !r.cors ? cr : NULL,
                     r.html ? "text/html; charset=utf-8" : "application/octet-stream",
                     r.cors ? NULL : etag, lm);
    s->active = 1;
    s->body = body;
    s->start = start;
    s->end = end + (size_t)r.long_by;
    if (s->end > len && !r.long_by) s->end = len;
    s->pos = start;
    s->cut_at = r.cut_at >= 0 && r.cut_at != 0 ? r.cut_at : -1;
}

/* Carry out one action; returns 0, or -1 when the page "crashed". */
static inline int fx_apply(fx_page *pg, ok_load *l, const ok_action *a,
                           const uint8_t *data, fx_stream *s) {
    fx_db *d = pg->db;
    char name[128];
    uint64_t value = (uint64_t)a->value_lo | (uint64_t)a->value_hi << 32;
    uint64_t value2 = (uint64_t)a->value2_lo | (uint64_t)a->value2_hi << 32;
    int rc;
    uint32_t i;
    fx_str(data, a->name_off, a->name_len, name, sizeof name);
    if (getenv("FX_TRACE"))
        fprintf(stderr, "  action %u name=%s chunk=%u..%u value=%llu value2=%llu flags=%u\n",
                a->type, name, a->chunk, a->chunk_end, (unsigned long long)value,
                (unsigned long long)value2, a->flags);
    switch (a->type) {
    case OK_ACT_LOCK:
        FX_EV(ok_load_locked, l);
        return 0;
    case OK_ACT_SYNC_INDEX:
        if (d->closed) {
            FX_EV(ok_load_io_failed, l, OK_IOFAIL_CLOSED);
            return 0;
        }
        if (d->fail_reads > 0) {
            d->fail_reads--;
            FX_EV(ok_load_io_failed, l, OK_IOFAIL_OTHER);
            return 0;
        }
        for (i = 0; i < d->index.n; i++)
            FX_EV(ok_load_sync_record, l, d->index.v[i].name, strlen(d->index.v[i].name),
                                d->index.v[i].bytes, d->index.v[i].len);
        if (a->flags & OK_SYNC_CHUNK_NAMES)
            for (i = 0; i < d->chunks.n; i++)
                FX_EV(ok_load_sync_chunk_name, l, d->chunks.v[i].name,
                                        strlen(d->chunks.v[i].name));
        FX_EV(ok_load_synced, l);
        return 0;
    case OK_ACT_ESTIMATE_QUOTA:
        FX_EV(ok_load_quota, l, d->quota ? (db_used(d) > d->quota ? 0 : d->quota - db_used(d)) +
                                      d->estimate_slack
                                  : UINT64_MAX);
        return 0;
    case OK_ACT_FETCH:
        fx_fetch(pg, l, a, data, s);
        return 0;
    case OK_ACT_STREAM:
        /* the body is fed by the loop when the queue is empty */
        if (s->active) pg->buf_len = (size_t)value;
        s->streaming = s->active;
        return 0;
    case OK_ACT_CANCEL_FETCH:
        s->active = 0;
        return 0;
    case OK_ACT_WAIT:
        FX_EV(ok_load_waited, l);
        return 0;
    case OK_ACT_ALLOC:
        free(pg->buf);
        pg->buf = NULL;
        pg->buf_len = pg->buf_cap = 0;
        buf_ensure(pg, value ? (size_t)value : 16);
        return 0;
    case OK_ACT_READ_CHUNKS:
        if (d->closed) {
            FX_EV(ok_load_io_failed, l, OK_IOFAIL_CLOSED);
            return 0;
        }
        if (d->fail_reads > 0) {
            d->fail_reads--;
            FX_EV(ok_load_io_failed, l, OK_IOFAIL_OTHER);
            return 0;
        }
        for (i = a->chunk; i < a->chunk_end; i++) {
            fx_rec *r = fs_find(&d->chunks, name, i);
            if (r) {
                buf_ensure(pg, (size_t)(i * value + r->len));
                if (r->len <= value) memcpy(pg->buf + i * value, r->bytes, r->len);
                if (pg->buf_len < i * value + r->len) pg->buf_len = (size_t)(i * value + r->len);
            }
            if (FX_EV(ok_load_chunk_read, l, i, r ? r->bytes : NULL, r ? r->len : 0) != OK_OK)
                break;
        }
        return 0;
    case OK_ACT_READ_META: {
        fx_rec *r;
        if (d->closed) {
            FX_EV(ok_load_io_failed, l, OK_IOFAIL_CLOSED);
            return 0;
        }
        r = fs_find(&d->meta, name, 0);
        FX_EV(ok_load_meta_read, l, r ? r->bytes : NULL, r ? r->len : 0);
        return 0;
    }
    case OK_ACT_WRITE_MANIFEST:
    case OK_ACT_STORE_CHUNK:
    case OK_ACT_COMMIT: {
        uint64_t adding = a->blob_len + a->aux_len +
                          (a->type == OK_ACT_STORE_CHUNK ? value2 : 0);
        int g;
        if (a->type == OK_ACT_COMMIT && (a->flags & OK_COMMIT_MORE)) {
            /* held for the group's one transaction */
            if (pg->n_group < FX_MAX_GROUP) {
                fx_str(data, a->name_off, a->name_len, pg->group[pg->n_group].name,
                       sizeof pg->group[0].name);
                pg->group[pg->n_group].len = a->blob_len;
                pg->group[pg->n_group].bytes = fx_malloc(a->blob_len);
                memcpy(pg->group[pg->n_group++].bytes, data + a->blob_off, a->blob_len);
            }
            return 0;
        }
        for (g = 0; g < pg->n_group; g++) adding += pg->group[g].len;
        rc = db_begin_write(d, adding);
        if (rc) fx_group_clear(pg);
        if (rc < 0) return -1;
        if (rc) {
            FX_EV(ok_load_write_failed, l, (uint32_t)rc);
            return 0;
        }
        if (a->type == OK_ACT_STORE_CHUNK)
            fs_put(&d->chunks, name, a->chunk, pg->buf + value, (size_t)value2);
        if (a->type == OK_ACT_COMMIT && a->aux_len)
            fs_put(&d->meta, name, 0, data + a->aux_off, a->aux_len);
        for (g = 0; g < pg->n_group; g++)
            fs_put(&d->index, pg->group[g].name, 0, pg->group[g].bytes, pg->group[g].len);
        fx_group_clear(pg);
        fs_put(&d->index, name, 0, data + a->blob_off, a->blob_len);
        d->writes++;
        FX_EV(ok_load_written, l);
        return 0;
    }
    case OK_ACT_DELETE_CHUNKS:
    case OK_ACT_DROP_ENTRY:
    case OK_ACT_CLEAR_ALL:
        rc = db_begin_write(d, 0);
        if (rc < 0) return -1;
        if (rc) return 0; /* a failed delete: JS logs it and goes on */
        if (a->type == OK_ACT_DELETE_CHUNKS) {
            fs_del(&d->chunks, name, a->chunk, a->chunk_end);
        } else if (a->type == OK_ACT_DROP_ENTRY) {
            fs_del(&d->chunks, name, 0, OK_CACHE_CHUNK_END);
            fs_del(&d->index, name, 0, 1);
            fs_del(&d->meta, name, 0, 1);
        } else {
            fs_free(&d->index);
            fs_free(&d->meta);
            fs_free(&d->chunks);
        }
        d->writes++;
        return 0;
    case OK_ACT_REOPEN:
        d->closed = 0;
        d->reopens++;
        return 0;
    case OK_ACT_VALIDATE: {
        ok_model *m = NULL;
        ok_error err;
        char *json = NULL, hex[65];
        size_t jl = 0;
        uint8_t dig[32];
        ok_load_info li;
        memset(&err, 0, sizeof err);
        ok_load_info_get(l, &li);
        if (li.form == OK_FORM_ORT) {
            /* JS reads an .ort with the C ORT reader and hands over the
             * original's report; the stand-in takes bytes starting "ORTM" */
            static const char rep[] = "{\"ort\":true}";
            if (value >= 8 && memcmp(pg->buf + 4, "ORTM", 4) == 0)
                FX_EV(ok_load_validated, l, OK_OK, 0, (const uint8_t *)rep, sizeof rep - 1);
            else
                FX_EV(ok_load_validated, l, OK_ERR_NOT_ONNX, 0, NULL, 0);
            return 0;
        }
        if (ok_onnx_read(pg->buf, (size_t)value, &m, &err) != OK_OK) {
            FX_EV(ok_load_validated, l, err.code, err.offset, NULL, 0);
            return 0;
        }
        ok_sha256(pg->buf, (size_t)value, dig);
        ok_hex(dig, 32, hex);
        if (ok_inspect_json(m, hex, &json, &jl, &err) != OK_OK) {
            ok_model_free(m);
            FX_EV(ok_load_validated, l, err.code, 0, NULL, 0);
            return 0;
        }
        ok_model_free(m);
        FX_EV(ok_load_validated, l, OK_OK, 0, (const uint8_t *)json, jl);
        free(json);
        return 0;
    }
    case OK_ACT_CREATE_SESSION:
        /* value2: the form (an optimized one is created at 'disabled'); an
         * original is asked which form to capture, as JS does */
        pg->created_form = (uint32_t)value2;
        if (!value2 && pg->n_parts) {
            int pr = fx_load_parts(pg, l);
            if (pr) return pr < 0 ? -1 : 0;
        }
        if (!value2) pg->capture = ok_load_capture_form(l, pg->facts, pg->external_bytes);
        if (pg->refuse_sessions > 0 || (pg->refuse_forms >> value2 & 1)) {
            if (pg->refuse_sessions > 0) pg->refuse_sessions--;
            FX_EV(ok_load_session, l, 0);
            return 0;
        }
        pg->sessions++;
        free(pg->served);
        pg->served = fx_malloc((size_t)value);
        memcpy(pg->served, pg->buf, (size_t)value);
        pg->served_len = (size_t)value;
        FX_EV(ok_load_session_timed, l, 1,
              value2 < OK_FORM_COUNT ? pg->create_us[value2] : 0);
        return 0;
    case OK_ACT_VERIFY_FORM:
        pg->verifies++;
        FX_EV(ok_load_form_verified, l, pg->verdict ? pg->verdict : OK_VERDICT_EQUAL,
              pg->orig_create_us, pg->form_resample_us);
        return 0;
    case OK_ACT_NOTE:
        if (pg->n_notes < 16) {
            pg->notes[pg->n_notes] = (uint32_t)value;
            pg->note_reasons[pg->n_notes] = a->flags;
            pg->note_values[pg->n_notes++] = value2;
        }
        return 0;
    case OK_ACT_RELEASE_SESSION:
        pg->released++;
        return 0;
    case OK_ACT_WARN:
        if (pg->n_warns < 64) pg->warns[pg->n_warns++] = (uint32_t)value;
        return 0;
    case OK_ACT_DONE:
        pg->done = 1;
        pg->tier = (uint32_t)value;
        pg->done_flags = a->flags;
        return 0;
    case OK_ACT_FAIL:
        pg->failed = 1;
        pg->fail_code = (uint32_t)value;
        pg->fail_reason = a->flags;
        pg->fail_number = value2;
        return 0;
    default:
        return 0;
    }
}

/* Feed the next body piece (or the end, or the break). */
static inline void fx_feed(fx_page *pg, ok_load *l, fx_stream *s) {
    size_t n;
    if (s->cut_at >= 0 && s->pos - s->start >= (size_t)s->cut_at) {
        s->active = 0;
        FX_EV(ok_load_body_error, l);
        return;
    }
    if (s->pos >= s->end) {
        s->active = 0;
        FX_EV(ok_load_body_end, l);
        return;
    }
    n = pg->piece;
    if (n > s->end - s->pos) n = s->end - s->pos;
    if (s->cut_at >= 0 && s->pos - s->start + n > (size_t)s->cut_at)
        n = (size_t)s->cut_at - (s->pos - s->start);
    buf_ensure(pg, pg->buf_len + n);
    {
        /* long bodies repeat the last byte past the end */
        size_t i;
        for (i = 0; i < n; i++) {
            size_t at = s->pos + i;
            pg->buf[pg->buf_len + i] = at < pg->srv->len || s->body != pg->srv->bytes
                                           ? s->body[at < s->end ? at : s->end - 1]
                                           : 0x5a;
        }
    }
    s->pos += n;
    if (pg->split && n > 1) {
        size_t h = n / 2;
        if (FX_EV(ok_load_body, l, pg->buf + pg->buf_len, h) != OK_OK ||
            FX_EV(ok_load_body, l, pg->buf + pg->buf_len + h, n - h) != OK_OK) {
            s->active = 0;
            return;
        }
        pg->buf_len += n;
        return;
    }
    if (FX_EV(ok_load_body, l, pg->buf + pg->buf_len, n) == OK_OK) pg->buf_len += n;
    else s->active = 0;
}

/* One batch of actions copied out of the load (records + arena). */
typedef struct fx_batch {
    ok_action *acts;
    uint32_t n, next;
    uint8_t *data;
    struct fx_batch *later;
} fx_batch;

static inline fx_batch *fx_take(ok_load *l) {
    uint32_t n, i;
    size_t dl = 0;
    const ok_action *q = ok_load_actions(l, &n);
    fx_batch *b;
    if (!n) return NULL;
    b = fx_malloc(sizeof *b);
    memset(b, 0, sizeof *b);
    b->acts = fx_malloc(sizeof(ok_action) * n);
    memcpy(b->acts, q, sizeof(ok_action) * n);
    b->n = n;
    for (i = 0; i < n; i++) {
        size_t e1 = (size_t)q[i].name_off + q[i].name_len;
        size_t e2 = (size_t)q[i].blob_off + q[i].blob_len;
        size_t e3 = (size_t)q[i].aux_off + q[i].aux_len;
        if (e1 > dl) dl = e1;
        if (e2 > dl) dl = e2;
        if (e3 > dl) dl = e3;
    }
    b->data = fx_malloc(dl);
    if (dl) memcpy(b->data, ok_load_action_data(l), dl);
    ok_load_actions_clear(l);
    return b;
}

static inline void fx_batch_free(fx_batch *b) {
    while (b) {
        fx_batch *n = b->later;
        free(b->acts);
        free(b->data);
        free(b);
        b = n;
    }
}

/* Run one load to its end (DONE/FAIL and nothing left to do), a crash, or
 * a stall (a test failure). Actions run in the order they were queued:
 * what an event queues goes behind what was queued before it. */
static inline void fx_run(fx_page *pg, const ok_load_params *p) {
    fx_run_load(pg, p, NULL);
}

/* fx_run; keep: the finished load is handed back, not freed. */
static inline void fx_run_load(fx_page *pg, const ok_load_params *p, ok_load **keep) {
    ok_load *l = NULL;
    ok_status st = ok_load_new(pg->c, p, &l);
    if (st != OK_OK) {
        fx_reset_outcome(pg);
        pg->failed = 1;
        pg->fail_code = (uint32_t)st;
        return;
    }
    fx_drive(pg, l, p, keep);
}

/* Run load l (created from p) to its end; see fx_run. */
static inline void fx_drive(fx_page *pg, ok_load *l, const ok_load_params *p, ok_load **keep) {
    fx_stream s;
    fx_batch *head = NULL, *tail = NULL, *nb;
    int steps = 0;
    fx_reset_outcome(pg);
    memset(&s, 0, sizeof s);
    fx_nomem = 0;
    FX_EV(ok_load_start, l);
    for (;;) {
        ok_load_info info;
        if (++steps > 2000000) {
            pg->stuck = 1;
            break;
        }
        if (fx_nomem) {
            /* the load is over: what it created and did not serve goes */
            if (!pg->done && pg->sessions > pg->released) pg->released = pg->sessions;
            if (!pg->done) {
                pg->failed = 1;
                pg->fail_code = OK_ERR_NOMEM;
            }
            break;
        }
        nb = fx_take(l);
        if (nb) {
            if (tail) tail->later = nb;
            else head = nb;
            tail = nb;
        }
        if (head) {
            ok_action a;
            ok_load_info_get(l, &info);
            if (pg->abort_in_state >= 0 && info.state == (uint32_t)pg->abort_in_state) {
                /* the caller's signal fires while the load is in that state */
                pg->abort_in_state = -1;
                FX_EV(ok_load_abort, l);
                continue;
            }
            a = head->acts[head->next++];
            int crashed = fx_apply(pg, l, &a, head->data, &s) < 0;
            if (head->next == head->n) {
                fx_batch *done_b = head;
                head = head->later;
                if (!head) tail = NULL;
                done_b->later = NULL;
                fx_batch_free(done_b);
            }
            if (crashed) {
                pg->crashed = 1;
                break;
            }
            continue;
        }
        ok_load_info_get(l, &info);
        if (pg->abort_in_state >= 0 && info.state == (uint32_t)pg->abort_in_state) {
            pg->abort_in_state = -1;
            FX_EV(ok_load_abort, l);
            continue;
        }
        if (info.state == OK_LOAD_STATE_STREAMING &&
            (p->source == OK_SOURCE_BYTES || p->source == OK_SOURCE_FORM) &&
            !s.active && !s.pos) {
            /* the caller's bytes (a FORM load: the captured ones), fed as a body */
            int form = p->source == OK_SOURCE_FORM;
            s.active = 1;
            s.streaming = 1;
            s.body = form ? pg->form_bytes : pg->srv->bytes;
            s.start = 0;
            s.end = form ? pg->form_len : pg->srv->len;
            s.pos = 0;
            s.cut_at = -1;
            pg->buf_len = 0;
            buf_ensure(pg, s.end);
            continue;
        }
        if (s.active && s.streaming && info.state == OK_LOAD_STATE_STREAMING) {
            fx_feed(pg, l, &s);
            continue;
        }
        if (info.state == OK_LOAD_STATE_DONE || info.state == OK_LOAD_STATE_FAILED)
            break;
        pg->stuck = 1;
        break;
    }
    fx_batch_free(head);
    if (keep) *keep = l;
    else ok_load_free(l);
}

/* Carry out the cache's own queue (cache.delete / clear / list syncs). */
static inline void fx_apply_own(fx_page *pg) {
    uint32_t n, i;
    const ok_action *q = ok_cache_actions(pg->c, &n);
    const uint8_t *data = ok_cache_action_data(pg->c);
    for (i = 0; i < n; i++) {
        char name[128];
        fx_str(data, q[i].name_off, q[i].name_len, name, sizeof name);
        if (db_begin_write(pg->db, 0)) continue;
        if (q[i].type == OK_ACT_DROP_ENTRY) {
            fs_del(&pg->db->chunks, name, 0, OK_CACHE_CHUNK_END);
            fs_del(&pg->db->index, name, 0, 1);
            fs_del(&pg->db->meta, name, 0, 1);
        } else if (q[i].type == OK_ACT_DELETE_CHUNKS) {
            fs_del(&pg->db->chunks, name, q[i].chunk, q[i].chunk_end);
        } else if (q[i].type == OK_ACT_CLEAR_ALL) {
            fs_free(&pg->db->index);
            fs_free(&pg->db->meta);
            fs_free(&pg->db->chunks);
        }
        pg->db->writes++;
    }
    ok_cache_actions_clear(pg->c);
}

/* A sync outside a load (what cache.list() does). */
static inline void fx_sync(fx_page *pg, int chunk_names) {
    ok_sync *sy = NULL;
    size_t i;
    if (ok_cache_sync_begin(pg->c, chunk_names, &sy) != OK_OK) return;
    for (i = 0; i < pg->db->index.n; i++)
        ok_cache_sync_record(pg->c, sy, pg->db->index.v[i].name,
                             strlen(pg->db->index.v[i].name),
                             pg->db->index.v[i].bytes, pg->db->index.v[i].len);
    for (i = 0; chunk_names && i < pg->db->chunks.n; i++)
        ok_cache_sync_chunk_name(pg->c, sy, pg->db->chunks.v[i].name,
                                 strlen(pg->db->chunks.v[i].name));
    ok_cache_sync_end(pg->c, sy);
    fx_apply_own(pg);
}

/* Every committed entry in the store serves exactly `bytes`. */
static inline int fx_store_serves(fx_db *d, const uint8_t *bytes, size_t len) {
    size_t i;
    int ok = 1;
    for (i = 0; i < d->index.n && ok; i++) {
        ok_manifest m;
        uint32_t k;
        uint64_t at = 0;
        if (ok_manifest_decode(d->index.v[i].bytes, d->index.v[i].len, &m) != OK_OK)
            return 0;
        if (m.state == OK_ENTRY_COMMITTED) {
            if (m.total_size != len) ok = 0;
            for (k = 0; k < m.chunk_count && ok; k++) {
                fx_rec *r = fs_find(&d->chunks, d->index.v[i].name, k);
                if (!r || at + r->len > len || memcmp(r->bytes, bytes + at, r->len))
                    ok = 0;
                else
                    at += r->len;
            }
            if (at != len) ok = 0;
            if (!fs_find(&d->meta, d->index.v[i].name, 0)) ok = 0;
        }
        ok_manifest_free(&m);
    }
    return ok;
}

static inline int fx_count_state(fx_db *d, uint32_t state) {
    size_t i;
    int n = 0;
    for (i = 0; i < d->index.n; i++) {
        ok_manifest m;
        if (ok_manifest_decode(d->index.v[i].bytes, d->index.v[i].len, &m) != OK_OK)
            continue;
        n += m.state == state;
        ok_manifest_free(&m);
    }
    return n;
}

/* A URL load of `url` in chunks of chunk_size at clock 1000, nothing else set. */
static inline ok_load_params fx_url_params(const char *url, uint32_t chunk_size) {
    ok_load_params p;
    memset(&p, 0, sizeof p);
    p.source = OK_SOURCE_URL;
    p.raw = url;
    p.url = url;
    p.chunk_size = chunk_size;
    p.now = 1000;
    return p;
}

/* Whether entry `name`'s stored chunks [0, count) are all there and hash to
 * sha256. */
static inline int fx_chunks_hash_to(fx_db *d, const char *name, uint32_t count,
                                    const uint8_t *sha256) {
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
static inline int fx_orphans(fx_db *d) {
    size_t i;
    int n = 0;
    for (i = 0; i < d->chunks.n; i++)
        n += fs_find(&d->index, d->chunks.v[i].name, 0) == NULL;
    for (i = 0; i < d->meta.n; i++)
        n += fs_find(&d->index, d->meta.v[i].name, 0) == NULL;
    return n;
}

#endif

