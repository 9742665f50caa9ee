/* Property test: thousands of random events (loads in every mode, writes
 * that finish, abort, fail integrity or crash, corrupt chunks on disk,
 * quota, eviction, delete, clear, reopen) against the fake store, checking
 * after each step:
 *   - a HIT that read clean is exactly the bytes of that version;
 *   - the core's byte accounting equals the chunk bytes on disk;
 *   - no chunk on disk outside a manifest's stored prefix;
 *   - at most one servable committed entry per key.
 * Then fault injection: every allocation of every kind of event is failed
 * in turn; the event must return OK_ERR_NOMEM and change nothing. */
#include "check.h"
#include "test_cache_store.h"

#define NKEYS 4
#define NVER 3
#define MAXLEN 5000

static uint8_t src[NKEYS][NVER][MAXLEN];
static uint64_t src_len[NKEYS][NVER];
static char sri[NKEYS][NVER][64];
static const char *keys[NKEYS] = {"m0", "m1", "https://h/m2.onnx|ort", "m3"};
static const char *etags[NVER] = {"v0", "v1", "v2"};

static uint64_t rng_s = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(uint32_t n) {
    rng_s ^= rng_s << 13;
    rng_s ^= rng_s >> 7;
    rng_s ^= rng_s << 17;
    return (uint32_t)((rng_s >> 11) % n);
}

static int ver_of(const char *etag) {
    int v;
    for (v = 0; v < NVER; v++)
        if (strcmp(etag, etags[v]) == 0) return v;
    return -1;
}
static int key_of(const char *key) {
    int k;
    for (k = 0; k < NKEYS; k++)
        if (strcmp(key, keys[k]) == 0) return k;
    return -1;
}

static int invariants(fs_js *js) {
    uint32_t i, j;
    ok_cache_entry_info a, b;
    int bad = 0;
    if (ok_cache_bytes_stored(js->c) != fs_chunk_bytes(js->s)) bad++;
    if (fs_check_no_orphans(js->s)) bad++;
    for (i = 0; ok_cache_entry_at(js->c, i, &a) == OK_OK; i++) {
        if (a.state != OK_ENTRY_COMMITTED) continue;
        if (!fs_hit_matches(js->s, a.name,
                            src[key_of(a.key)][ver_of(a.etag)],
                            src_len[key_of(a.key)][ver_of(a.etag)])) {
            /* committed entries may be corrupted on disk by the test; the
             * core must then refuse them at read time (checked below) */
        }
        for (j = i + 1; ok_cache_entry_at(js->c, j, &b) == OK_OK; j++)
            if (b.state == OK_ENTRY_COMMITTED && strcmp(a.key, b.key) == 0 &&
                a.refcount == 0 && b.refcount == 0)
                bad++;
    }
    return bad;
}

static int n_hits, n_refused, n_resumed, n_integrity, n_crashes;
static uint32_t holds[64];
static int n_holds;

static void op_load(fs_js *js) {
    int k = (int)rnd(NKEYS);
    uint32_t mode = rnd(5);
    ok_cache_lookup_result r;
    ok_cache_entry_info info;
    ok_status st;
    js->corrupt_reads = 0;
    st = js_call(js, ok_cache_lookup(js->c, keys[k], mode, rng_s & 0xFFFF,
                                     &r));
    CHECK(st == OK_OK || (st == OK_ERR_NOT_FOUND && mode == 4));
    if (r.kind == OK_LOOKUP_REVALIDATE) {
        CHECK_EQ_INT(ok_cache_entry_info_get(js->c, r.entry, &info), OK_OK);
        CHECK_EQ_INT(info.state, OK_ENTRY_COMMITTED);
        if (rnd(2)) return;
        st = js_call(js, ok_cache_revalidated(js->c, r.entry, 7, &r));
        CHECK_EQ_INT(st, OK_OK);
    }
    if (r.kind != OK_LOOKUP_HIT) return;
    if (js->corrupt_reads) {
        n_refused++;
        /* refused and dropped: never served */
        CHECK(ok_cache_entry_info_get(js->c, r.entry, &info) ==
              OK_ERR_NOT_FOUND);
        return;
    }
    /* served: every chunk read verified; the bytes are that version's */
    CHECK_EQ_INT(ok_cache_entry_info_get(js->c, r.entry, &info), OK_OK);
    CHECK_EQ_INT(info.state, OK_ENTRY_COMMITTED);
    CHECK(fs_hit_matches(js->s, info.name, src[k][ver_of(info.etag)],
                         src_len[k][ver_of(info.etag)]));
    n_hits++;
    if (n_holds < 64 && rnd(3) == 0) holds[n_holds++] = r.entry;
    else CHECK_EQ_INT(ok_cache_release(js->c, r.entry), OK_OK);
}

static void op_write(fs_js *js) {
    int k = (int)rnd(NKEYS), v = (int)rnd(NVER);
    uint32_t cs = rnd(2) ? 512 : 1000, id, i, end;
    int integ = (int)rnd(4); /* 0 none, 1-2 right, 3 wrong */
    const char *sr = integ == 0 ? NULL : integ == 3 ? sri[k][(v + 1) % NVER]
                                                    : sri[k][v];
    ok_status st;
    ok_cache_entry_info info;
    if (rnd(3) == 0)
        js_call(js, ok_cache_plan_space(js->c, src_len[k][v],
                                        rnd(2) ? UINT64_MAX : rnd(20000)));
    st = ok_cache_begin_write(js->c, keys[k], "u", etags[v], NULL, sr,
                              src_len[k][v], cs, 0, rng_s & 0xFFFF, &id);
    if (st == OK_ERR_IN_USE) return;
    CHECK_EQ_INT(st, OK_OK);
    if (st) return;
    js_set_source(js, id, src[k][v], src_len[k][v]);
    js->fetch_from = -1;
    js_run(js);
    if (ok_cache_entry_info_get(js->c, id, &info)) return;
    if (js->fetch_from > 0) n_resumed++;
    end = info.chunk_count;
    if (rnd(3) == 0) end = rnd(end + 1); /* network drops */
    if (rnd(8) == 0) js->crash_at = js->applied + rnd(end + 2);
    for (i = (uint32_t)(js->fetch_from < 0 ? 0 : js->fetch_from);
         i < end && !js->crashed; i++) {
        uint64_t off = (uint64_t)i * cs;
        uint64_t len = src_len[k][v] - off < cs ? src_len[k][v] - off : cs;
        st = js_call(js, ok_cache_chunk_arrived(js->c, id, i,
                                                src[k][v] + off, (size_t)len));
        if (st) break;
    }
    if (js->crashed) {
        n_crashes++;
        return;
    }
    if (js->fetch_from < 0 || st) {
        ok_cache_abort_write(js->c, id, 0);
        js_run(js);
    } else if (end < info.chunk_count) {
        js_call(js, ok_cache_abort_write(js->c, id, (int)rnd(2)));
    } else {
        st = js_call(js, ok_cache_download_done(js->c, id));
        n_integrity += st == OK_ERR_INTEGRITY;
        if (integ == 3 && src_len[k][v] != src_len[k][(v + 1) % NVER])
            CHECK_EQ_INT(st, OK_ERR_INTEGRITY);
        if (integ == 1 || integ == 2 || integ == 0) CHECK_EQ_INT(st, OK_OK);
    }
    js->crash_at = -1;
}

static void op_corrupt(fs_js *js) {
    fs_rec *r;
    if (!js->s->n_chk) return;
    r = &js->s->chk[rnd((uint32_t)js->s->n_chk)];
    if (r->len) r->bytes[rnd((uint32_t)r->len)] ^= (uint8_t)(1 + rnd(255));
}

static void reopen(fs_js *js) {
    ok_cache_close(js->c);
    js_drop_queue(js);
    n_holds = 0;
    js_reopen(js, rnd(2) ? 0 : 12000 + rnd(10000));
}

static void property(void) {
    fstore s = {0};
    fs_js js;
    long step;
    int bad = 0;
    js_init(&js, &s, NULL);
    js_reopen(&js, 0);
    for (step = 0; step < 3000; step++) {
        uint32_t op = rnd(100);
        if (op < 35) op_load(&js);
        else if (op < 70) op_write(&js);
        else if (op < 75) op_corrupt(&js);
        else if (op < 80) s.quota = rnd(2) ? 0 : 2000 + rnd(20000);
        else if (op < 85) js_call(&js, ok_cache_plan_space(js.c, rnd(9000),
                                                           UINT64_MAX));
        else if (op < 88) js_call(&js, ok_cache_delete(js.c, keys[rnd(NKEYS)]));
        else if (op < 89) js_call(&js, ok_cache_clear(js.c));
        else if (op < 95) {
            if (n_holds) {
                uint32_t i = rnd((uint32_t)n_holds);
                ok_status st = js_call(&js, ok_cache_release(js.c, holds[i]));
                CHECK(st == OK_OK || st == OK_ERR_NOT_FOUND);
                holds[i] = holds[--n_holds];
            }
        } else reopen(&js);
        if (js.crashed) reopen(&js);
        if (invariants(&js)) {
            if (!bad) fprintf(stderr, "invariant broken at step %ld\n", step);
            bad++;
        }
    }
    CHECK_EQ_INT(bad, 0);
    printf("property: %d hits served, %d corrupt refused, %d resumed, "
           "%d integrity failures, %d crashes, %d uncached\n",
           n_hits, n_refused, n_resumed, n_integrity, n_crashes, js.uncached);
    CHECK(n_hits > 50 && n_refused > 0 && n_resumed > 0 && n_integrity > 0 &&
          n_crashes > 0 && js.uncached > 0);
    ok_cache_close(js.c);
    js_drop_queue(&js);
    fs_free(&s);
}

/* ---- allocation failures ---- */

/* Everything observable about the cache, hashed. */
static uint64_t fingerprint(ok_cache *c) {
    uint64_t h = 1469598103934665603ull;
    uint32_t i, n;
    ok_cache_entry_info e;
    const ok_cache_action *a = ok_cache_actions(c, &n);
    const uint8_t *d = ok_cache_action_data(c);
#define MIX(v) (h = (h ^ (uint64_t)(v)) * 1099511628211ull)
    MIX(n);
    for (i = 0; i < n; i++) {
        MIX(a[i].type); MIX(a[i].entry); MIX(a[i].chunk);
        MIX(a[i].name_len); MIX(a[i].blob_len);
        MIX(d[a[i].name_off]);
    }
    for (i = 0; ok_cache_entry_at(c, i, &e) == OK_OK; i++) {
        const char *p;
        MIX(e.id); MIX(e.state); MIX(e.stored_count); MIX(e.refcount);
        MIX(e.writing); MIX(e.gen); MIX(e.last_used); MIX(e.hit_count);
        for (p = e.name; *p; p++) MIX(*p);
    }
    MIX(ok_cache_bytes_stored(c));
#undef MIX
    return h;
}

static int nomem_calls, nomem_ok;

/* Fail allocation 1, 2, ... of one event until it succeeds; every failure
 * must be NOMEM with no effect. */
#define TRY_NOMEM(c, expr, st_out)                                        \
    do {                                                                  \
        uint64_t fp_, n_;                                                 \
        if (c) ok_cache_actions_trim(c);                                  \
        fp_ = fingerprint(c);                                             \
        for (n_ = 1;; n_++) {                                             \
            if (c) ok_cache_actions_trim(c); /* queue grows again */      \
            ok_cache_test_fail_alloc(n_);                                 \
            (st_out) = (expr);                                            \
            ok_cache_test_fail_alloc(0);                                  \
            if ((st_out) != OK_ERR_NOMEM) break;                          \
            nomem_calls++;                                                \
            if (fingerprint(c) != fp_) {                                  \
                fprintf(stderr, "NOMEM changed state: %s (n=%llu)\n",     \
                        #expr, (unsigned long long)n_);                   \
                CHECK(0);                                                 \
            }                                                             \
        }                                                                 \
        nomem_ok++;                                                       \
    } while (0)

static void nomem(void) {
    fstore s = {0};
    fs_js js;
    ok_cache *c;
    uint32_t id = 0, id2 = 0, i, cnt;
    ok_status st;
    ok_cache_lookup_result r;
    const uint8_t *m = src[2][1];
    uint64_t len = src_len[2][1];

    c = NULL;
    TRY_NOMEM(c, ok_cache_open(&c, 0), st);
    CHECK_EQ_INT(st, OK_OK);
    js_init(&js, &s, c);
    /* a full write */
    TRY_NOMEM(c, ok_cache_begin_write(c, "k", "u", "e", "lm", sri[2][1], len,
                                      100, 1, 5, &id), st);
    CHECK_EQ_INT(st, OK_OK);
    js_set_source(&js, id, m, len);
    js_run(&js);
    cnt = (uint32_t)((len + 99) / 100);
    for (i = 0; i < cnt; i++) {
        uint64_t off = (uint64_t)i * 100;
        size_t l = (size_t)(len - off < 100 ? len - off : 100);
        TRY_NOMEM(c, ok_cache_chunk_arrived(c, id, i, m + off, l), st);
        CHECK_EQ_INT(st, OK_OK);
        js_run(&js);
    }
    TRY_NOMEM(c, ok_cache_download_done(c, id), st);
    CHECK_EQ_INT(st, OK_OK);
    /* the commit ack, by hand */
    ok_cache_actions_clear(c);
    TRY_NOMEM(c, ok_cache_manifest_written(c, id), st);
    CHECK_EQ_INT(st, OK_OK);
    fs_put(&s.man, &s.n_man, &s.cap_man, NULL, "k#1", 0, NULL, 0);
    fs_del_man(&s, "k#1");
    ok_cache_actions_clear(c);
    /* hit, with its touch manifest and reads */
    TRY_NOMEM(c, ok_cache_lookup(c, "k", OK_MODE_DEFAULT, 9, &r), st);
    CHECK_EQ_INT(r.kind, OK_LOOKUP_HIT);
    ok_cache_actions_clear(c);
    TRY_NOMEM(c, ok_cache_release(c, id), st);
    /* model update while the old one is held */
    TRY_NOMEM(c, ok_cache_acquire(c, id), st);
    TRY_NOMEM(c, ok_cache_begin_write(c, "k", "u", "e2", NULL, NULL, 10, 100,
                                      1, 10, &id2), st);
    CHECK_EQ_INT(st, OK_OK);
    TRY_NOMEM(c, ok_cache_chunk_arrived(c, id2, 0, m, 10), st);
    ok_cache_chunk_stored(c, id2, 0);
    TRY_NOMEM(c, ok_cache_download_done(c, id2), st);
    TRY_NOMEM(c, ok_cache_manifest_written(c, id2), st);
    CHECK_EQ_INT(st, OK_OK);
    CHECK_EQ_INT(ok_cache_count(c), 2);
    TRY_NOMEM(c, ok_cache_release(c, id), st); /* drops the superseded */
    CHECK_EQ_INT(ok_cache_count(c), 1);
    ok_cache_actions_clear(c);
    /* corrupt read */
    TRY_NOMEM(c, ok_cache_lookup(c, "k", OK_MODE_DEFAULT, 11, &r), st);
    ok_cache_actions_clear(c);
    TRY_NOMEM(c, ok_cache_chunk_read(c, id2, 0, m + 1, 10), st);
    CHECK_EQ_INT(st, OK_ERR_CORRUPT);
    ok_cache_actions_clear(c);
    /* eviction, delete, clear, recovery */
    for (i = 0; i < 3; i++) {
        char key[8];
        snprintf(key, sizeof key, "e%u", i);
        ok_cache_begin_write(c, key, "u", "e", NULL, NULL, 10, 100, 0, i, &id);
        ok_cache_chunk_arrived(c, id, 0, m, 10);
        ok_cache_chunk_stored(c, id, 0);
        ok_cache_download_done(c, id);
        ok_cache_manifest_written(c, id);
    }
    ok_cache_actions_clear(c);
    TRY_NOMEM(c, ok_cache_plan_space(c, 15, 0), st);
    CHECK_EQ_INT(st, OK_OK);
    CHECK_EQ_INT(ok_cache_count(c), 1);
    TRY_NOMEM(c, ok_cache_delete(c, "e2"), st);
    CHECK_EQ_INT(st, OK_OK);
    /* quota error that eviction can fix: evict and queue the retry */
    ok_cache_begin_write(c, "q", "u", "e", NULL, NULL, 10, 100, 0, 1, &id);
    ok_cache_chunk_arrived(c, id, 0, m, 10);
    ok_cache_chunk_stored(c, id, 0);
    ok_cache_download_done(c, id);
    ok_cache_manifest_written(c, id);
    ok_cache_begin_write(c, "q2", "u", "e", NULL, NULL, 10, 100, 0, 2, &id);
    ok_cache_chunk_arrived(c, id, 0, m, 10);
    TRY_NOMEM(c, ok_cache_write_failed(c, id, 0, 1), st);
    CHECK_EQ_INT(st, OK_OK);
    {
        uint32_t na;
        const ok_cache_action *aa = ok_cache_actions(c, &na);
        CHECK_EQ_INT(na, 2);
        CHECK_EQ_INT(aa[0].type, OK_ACT_DROP_ENTRY);
        CHECK_EQ_INT(aa[1].type, OK_ACT_STORE_CHUNK);
    }
    ok_cache_chunk_stored(c, id, 0);
    ok_cache_begin_write(c, "p", "u", "e", NULL, NULL, 2000, 100, 0, 1, &id);
    ok_cache_chunk_arrived(c, id, 0, m, 100);
    ok_cache_chunk_stored(c, id, 0);
    TRY_NOMEM(c, ok_cache_write_failed(c, id, OK_CACHE_MANIFEST, 1), st);
    CHECK_EQ_INT(st, OK_ERR_QUOTA);
    ok_cache_begin_write(c, "p2", "u", "e", NULL, NULL, 2000, 100, 0, 1, &id);
    for (i = 0; i < 7; i++) {
        ok_cache_chunk_arrived(c, id, i, m + i * 100, 100);
        ok_cache_chunk_stored(c, id, i);
    }
    TRY_NOMEM(c, ok_cache_abort_write(c, id, 1), st);
    TRY_NOMEM(c, ok_cache_begin_write(c, "p2", "u", "e", NULL, NULL, 2000, 100,
                                      0, 1, &id), st);
    for (i = 0; i < 7; i++) {
        TRY_NOMEM(c, ok_cache_chunk_rehash(c, id, i, m + i * 100, 100), st);
        CHECK_EQ_INT(st, OK_OK);
    }
    TRY_NOMEM(c, ok_cache_clear(c), st);
    ok_cache_actions_clear(c);
    {
        /* load records and recover */
        uint8_t buf[600];
        ok_manifest mf;
        uint8_t dg[32] = {0};
        memset(&mf, 0, sizeof mf);
        mf.state = OK_ENTRY_PENDING;
        mf.chunk_size = 10;
        mf.total_size = 20;
        mf.chunk_count = 2;
        mf.stored_count = 1;
        mf.gen = 3;
        mf.key = "r";
        mf.key_len = 1;
        mf.url = mf.etag = mf.last_modified = "x";
        mf.url_len = mf.etag_len = mf.lm_len = 1;
        mf.digests = dg;
        ok_manifest_encode(&mf, buf, sizeof buf);
        TRY_NOMEM(c, ok_cache_load_record(c, "r#3", 3, buf,
                                          ok_manifest_size(&mf)), st);
        CHECK_EQ_INT(st, OK_OK);
        TRY_NOMEM(c, ok_cache_load_record(c, "bad#1", 5, buf, 9), st);
        CHECK_EQ_INT(st, OK_ERR_TRUNCATED);
        TRY_NOMEM(c, ok_cache_recover(c), st);
        CHECK_EQ_INT(st, OK_OK);
        TRY_NOMEM(c, ok_cache_reset(c), st);
    }
    ok_cache_close(c);
    js_drop_queue(&js);
    fs_free(&s);
    CHECK(nomem_calls > 50);
    printf("nomem: %d injected failures over %d events\n", nomem_calls,
           nomem_ok);
}

int main(void) {
    int k, v;
    for (k = 0; k < NKEYS; k++)
        for (v = 0; v < NVER; v++) {
            src_len[k][v] = 1 + (uint64_t)((k * 977 + v * 1531) % MAXLEN);
            fill_bytes(src[k][v], MAXLEN, (uint32_t)(k * 10 + v + 1));
            sri_of(src[k][v], (size_t)src_len[k][v], sri[k][v]);
        }
    property();
    nomem();
    CHECK_EQ_INT(ok_cache_test_alloc_live(), 0);
    return CHECK_DONE();
}
