/* The fake page (load_driver.h): a page's lifecycle, one load run to its
 * end (actions in queue order, each write acked before the next), the
 * data files of a model, and the cache's own queue. */
#include <stdlib.h>
#include <string.h>

#include "driver_internal.h"

int fx_nomem;

ok_status fx_ev_(ok_status st) {
    if (st == OK_ERR_NOMEM) fx_nomem = 1;
    return st;
}

void fx_group_clear(fx_page *pg) {
    while (pg->n_group) free(pg->group[--pg->n_group].bytes);
}

int fx_warned(const fx_page *pg, uint32_t code) {
    int i;
    for (i = 0; i < pg->n_warns; i++)
        if (pg->warns[i] == code) return 1;
    return 0;
}

void fx_page_init(fx_page *pg, fx_db *db, fx_server *srv, uint64_t seed) {
    memset(pg, 0, sizeof *pg);
    pg->db = db;
    pg->srv = srv;
    pg->abort_in_state = -1;
    pg->piece = 1000;
    if (ok_cache_open(&pg->c, 0, seed) != OK_OK) abort();
}

void fx_page_close(fx_page *pg) {
    fx_group_clear(pg);
    ok_cache_close(pg->c);
    free(pg->buf);
    free(pg->served);
    pg->c = NULL;
    pg->buf = NULL;
    pg->served = NULL;
}

void fx_reset_outcome(fx_page *pg) {
    free(pg->served);
    pg->served = NULL;
    pg->done = pg->failed = pg->crashed = pg->stuck = 0;
    pg->fail_code = pg->fail_reason = pg->tier = pg->done_flags = 0;
    pg->n_warns = 0;
    pg->sessions = pg->released = 0;
    pg->served_len = 0;
    pg->n_notes = pg->verifies = pg->captures = 0;
    pg->created_form = pg->capture = 0;
    pg->parts_mode = 0;
    pg->parts_intact = 0;
    memset(pg->part_tier, 0, sizeof pg->part_tier);
    memset(pg->part_flags, 0, sizeof pg->part_flags);
    pg->part_fail_code = pg->part_fail_reason = 0;
    pg->adopt_fail = 0;
    pg->ahead_n = pg->ahead_landed = 0;
    pg->ahead_failed = pg->ahead_runs = pg->sessions_at_settle = 0;
}

/* The model's data files, each a DATA load on the same index and store,
 * adopted by the model's load (what js/cache/load-driver.js does before it
 * creates the session). 0, or -1 when the store crashed meanwhile. */
int fx_load_parts(fx_page *pg, ok_load *l) {
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
        for (k = 0; k < sub.n_warns && pg->n_warns < 64; k++) pg->warns[pg->n_warns++] = sub.warns[k];
        pg->part_tier[i] = sub.tier;
        pg->part_flags[i] = sub.done_flags;
        if (!sub.done || sub.buf_len < sub.srv->len || memcmp(sub.buf, sub.srv->bytes, sub.srv->len) != 0)
            pg->parts_intact = 0;
        if (!sub.crashed && sub.done && pl) {
            ok_status st = FX_EV(ok_load_adopt_part, l, pl);
            if (st != OK_OK) pg->adopt_fail = (uint32_t)st;
        }
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

/* One batch of actions copied out of the load (records + arena). */
typedef struct fx_batch {
    ok_action *acts;
    uint32_t n, next;
    uint8_t *data;
    struct fx_batch *later;
} fx_batch;

static fx_batch *fx_take(ok_load *l) {
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

static void fx_batch_free(fx_batch *b) {
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
void fx_run(fx_page *pg, const ok_load_params *p) { fx_run_load(pg, p, NULL); }

/* fx_run; keep: the finished load is handed back, not freed. */
void fx_run_load(fx_page *pg, const ok_load_params *p, ok_load **keep) {
    ok_load *l = NULL;
    ok_load_params host = *p;
    ok_status st;
    if (pg->host_hashes) host.flags |= OK_LOAD_HOST_HASHES;
    st = ok_load_new(pg->c, &host, &l);
    if (st != OK_OK) {
        fx_reset_outcome(pg);
        pg->failed = 1;
        pg->fail_code = (uint32_t)st;
        return;
    }
    fx_drive(pg, l, &host, keep);
}

/* Run load l (created from p) to its end; see fx_run. */
void fx_drive(fx_page *pg, ok_load *l, const ok_load_params *p, ok_load **keep) {
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
        if (pg->ahead_n && !(s.active && s.streaming && info.state == OK_LOAD_STATE_STREAMING)) {
            /* nothing else to carry out: the stores sent ahead settle (JS's loop) */
            uint32_t landed = pg->ahead_landed, kind = (uint32_t)pg->ahead_failed;
            pg->ahead_n = pg->ahead_landed = 0;
            pg->ahead_failed = 0;
            pg->ahead_runs++;
            pg->sessions_at_settle = pg->sessions;
            FX_EV(ok_load_ahead_settled, l, landed, kind);
            continue;
        }
        if (info.state == OK_LOAD_STATE_STREAMING &&
            (p->source == OK_SOURCE_BYTES || p->source == OK_SOURCE_FORM) && !s.active && !s.pos) {
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
        if (info.state == OK_LOAD_STATE_DONE || info.state == OK_LOAD_STATE_FAILED) break;
        pg->stuck = 1;
        break;
    }
    fx_batch_free(head);
    if (pg->done && (pg->done_flags & OK_DONE_STORING)) {
        /* served before its store: JS reads the outcome when the load ends */
        ok_load_info info;
        ok_load_info_get(l, &info);
        if (info.stored) pg->done_flags |= OK_DONE_STORED;
    }
    if (keep) *keep = l;
    else ok_load_free(l);
}

/* Carry out the cache's own queue (cache.delete / clear / list syncs). */
void fx_apply_own(fx_page *pg) {
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
void fx_sync(fx_page *pg, int chunk_names) {
    ok_sync *sy = NULL;
    size_t i;
    if (ok_cache_sync_begin(pg->c, chunk_names, &sy) != OK_OK) return;
    for (i = 0; i < pg->db->index.n; i++)
        ok_cache_sync_record(pg->c, sy, pg->db->index.v[i].name, strlen(pg->db->index.v[i].name),
                             pg->db->index.v[i].bytes, pg->db->index.v[i].len);
    for (i = 0; chunk_names && i < pg->db->chunks.n; i++)
        ok_cache_sync_chunk_name(pg->c, sy, pg->db->chunks.v[i].name, strlen(pg->db->chunks.v[i].name));
    ok_cache_sync_end(pg->c, sy);
    fx_apply_own(pg);
}

/* A URL load of `url` in chunks of chunk_size at clock 1000, nothing else set. */
ok_load_params fx_url_params(const char *url, uint32_t chunk_size) {
    ok_load_params p;
    memset(&p, 0, sizeof p);
    p.source = OK_SOURCE_URL;
    p.raw = url;
    p.url = url;
    p.chunk_size = chunk_size;
    p.now = 1000;
    return p;
}
