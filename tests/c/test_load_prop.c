/* Property test: thousands of loads by several tabs over one store, with
 * every fault the fake browser knows switched on at random -- cut, short,
 * compressed, chunked and CORS responses, error statuses, failed fetches,
 * ignored ranges, SPA pages, models replaced on the server, a full quota, a
 * database that closes or fails, rotten and missing records, tabs that
 * crash, callers that abort, allocations that fail. After every load:
 *   - what was served is one whole version the server really had;
 *   - every committed entry in the store is one whole version of its URL;
 *   - no load stalls, no session leaks.
 * At the end, with the faults off, every URL loads and the store is clean. */
#include "check.h"
#include "load_driver.h"

#define CS 4096u
#define N_URL 3
#define N_PAGE 3
#define VERSIONS 4

static uint32_t rng_state = 12345;
static uint32_t rnd(uint32_t n) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return n ? rng_state % n : 0;
}

static const char *urls[N_URL] = {"https://m.test/a.onnx", "https://m.test/b.onnx",
                                  "https://cdn.test/c.onnx"};
static uint8_t *ver[N_URL][VERSIONS];
static size_t ver_len[N_URL][VERSIONS];
static int cur[N_URL]; /* the version the server has now */
static int ever[N_URL][VERSIONS];

static int is_version(int u, const uint8_t *b, size_t n) {
    int v;
    for (v = 0; v < VERSIONS; v++)
        if (ever[u][v] && ver_len[u][v] == n && memcmp(ver[u][v], b, n) == 0) return 1;
    return 0;
}

/* Entries this test damaged on purpose (rot is only caught when read). */
static char rotten[4096][64];
static int n_rotten;

static void rot(const char *name) {
    if (n_rotten < 4096) snprintf(rotten[n_rotten++], 64, "%s", name);
}

static int is_rotten(const char *name) {
    int i;
    for (i = 0; i < n_rotten; i++)
        if (strcmp(rotten[i], name) == 0) return 1;
    return 0;
}

/* Every committed entry (not damaged by the test) serves a whole version of
 * some URL. */
static int store_ok(fx_db *d) {
    size_t i;
    for (i = 0; i < d->index.n; i++) {
        fx_db one;
        int u, v, ok = 0;
        if (is_rotten(d->index.v[i].name)) continue;
        memset(&one, 0, sizeof one);
        one.index.v = &d->index.v[i];
        one.index.n = 1;
        one.chunks = d->chunks;
        one.meta = d->meta;
        if (fx_count_state(&one, OK_ENTRY_COMMITTED) == 0) continue;
        for (u = 0; u < N_URL && !ok; u++)
            for (v = 0; v < VERSIONS && !ok; v++)
                ok = ever[u][v] && fx_store_serves(&one, ver[u][v], ver_len[u][v]);
        if (!ok) return 0;
    }
    return 1;
}

static fx_reply random_reply(void) {
    fx_reply r;
    memset(&r, 0, sizeof r);
    r.cut_at = -1;
    switch (rnd(14)) {
    case 0: r.cut_at = (int)rnd(30000) + 1; break;
    case 1: r.short_by = (int)rnd(9000) + 1; break;
    case 2: r.status = rnd(2) ? 503 : 500; break;
    case 3: r.fetch_fails = 1; break;
    case 4: r.gzip = 1; break;
    case 5: r.chunked = 1; break;
    case 6: r.cors = 1; break;
    case 7: r.ignore_range = 1; break;
    case 8: r.refuse_preflight = 1; break;
    case 9:
        if (!rnd(4)) r.html = 1;
        break;
    case 10: r.range_from0 = 1; break;
    default: break;
    }
    return r;
}

int main(void) {
    fx_db db;
    fx_server srv[N_URL];
    fx_page pg[N_PAGE];
    int u, v, i, k, loads = 0, served_n = 0, failed_n = 0;
    uint64_t seed = 1;
    memset(&db, 0, sizeof db);
    db.crash_after = -1;
    for (u = 0; u < N_URL; u++)
        for (v = 0; v < VERSIONS; v++)
            ver[u][v] = fx_model((size_t)(3 + u * 3 + v) * CS + (size_t)(u * 777 + v * 13),
                                 (uint32_t)(u * 10 + v + 1), &ver_len[u][v]);
    /* version 1 of URL 0 has the same size as version 0 (a swap under a
     * same-size resume) */
    free(ver[0][1]);
    ver[0][1] = fx_model(3 * CS, 99, &ver_len[0][1]);
    free(ver[0][0]);
    ver[0][0] = fx_model(3 * CS, 98, &ver_len[0][0]);
    for (u = 0; u < N_URL; u++) {
        memset(&srv[u], 0, sizeof srv[u]);
        srv[u].bytes = ver[u][0];
        srv[u].len = ver_len[u][0];
        srv[u].every.cut_at = -1;
        snprintf(srv[u].etag, sizeof srv[u].etag, u == 2 ? "W/\"%d.0\"" : "\"%d.0\"", u);
        snprintf(srv[u].lm, sizeof srv[u].lm, "Mon, 0%d Nov 2026 00:00:00 GMT", u + 1);
        cur[u] = 0;
        ever[u][0] = 1;
    }
    for (i = 0; i < N_PAGE; i++) fx_page_init(&pg[i], &db, &srv[0], seed++);

    for (k = 0; k < 2500; k++) {
        int pi = (int)rnd(N_PAGE);
        fx_page *p = &pg[pi];
        ok_load_params lp;
        u = (int)rnd(N_URL);
        memset(&lp, 0, sizeof lp);
        lp.source = OK_SOURCE_URL;
        lp.raw = lp.url = urls[u];
        lp.chunk_size = CS;
        lp.now = (uint64_t)k;
        lp.mode = rnd(6) == 0 ? rnd(5) : OK_MODE_DEFAULT;
        p->srv = &srv[u];
        p->piece = 500 + rnd(rnd(4) ? 6000 : 20000);
        p->split = rnd(3) == 0;
        p->fast_net = rnd(2) == 0;    /* served before its store */
        p->host_hashes = rnd(2) == 0; /* the body's SHA-256 the host's (WebCrypto) */
        /* the server: this request's behaviour, sometimes a new version */
        memset(srv[u].planned, 0, sizeof srv[u].planned);
        srv[u].n_req = 0;
        srv[u].every = rnd(3) ? (fx_reply){0} : random_reply();
        if (srv[u].every.cut_at == 0) srv[u].every.cut_at = -1;
        for (i = 0; i < 3; i++)
            if (!rnd(3)) {
                srv[u].plan[i] = random_reply();
                srv[u].planned[i] = 1;
            }
        if (!rnd(25) && cur[u] + 1 < VERSIONS) {
            cur[u]++;
            ever[u][cur[u]] = 1;
            srv[u].bytes = ver[u][cur[u]];
            srv[u].len = ver_len[u][cur[u]];
            if (u != 0) /* URL 0 keeps its validators: a silent swap */
                snprintf(srv[u].etag, sizeof srv[u].etag, u == 2 ? "W/\"%d.%d\"" : "\"%d.%d\"", u, cur[u]);
        }
        /* the store and the page */
        db.quota = rnd(8) == 0 ? (uint64_t)(20000 + rnd(80000)) : 0;
        db.closed = rnd(20) == 0;
        db.fail_writes = rnd(25) == 0;
        db.fail_reads = rnd(30) == 0;
        if (!rnd(15) && db.chunks.n) {
            fx_rec *r = &db.chunks.v[rnd((uint32_t)db.chunks.n)];
            r->bytes[0] ^= 0x40;
            rot(r->name);
        }
        if (!rnd(40) && db.chunks.n) {
            uint32_t at = rnd((uint32_t)db.chunks.n);
            rot(db.chunks.v[at].name);
            fs_del_at(&db.chunks, at);
        }
        if (!rnd(60) && db.meta.n) {
            uint32_t at = rnd((uint32_t)db.meta.n);
            rot(db.meta.v[at].name);
            fs_del_at(&db.meta, at);
        }
        db.crash_after = rnd(12) == 0 ? db.writes + (int)rnd(12) : -1;
        p->abort_in_state = rnd(12) == 0 ? (int)rnd(11) + 1 : -1;
        p->refuse_sessions = rnd(30) == 0;
        if (!rnd(20)) ok_cache_test_fail_alloc(1 + rnd(60));

        fx_run(p, &lp);
        ok_cache_test_fail_alloc(0);
        loads++;
        CHECK(!p->stuck);
        if (p->stuck) break;
        if (!p->crashed && p->sessions != p->released + (p->done ? 1 : 0))
            fprintf(stderr, "load %d: sessions %d released %d done %d failed %d code %u crashed %d\n", k,
                    p->sessions, p->released, p->done, p->failed, p->fail_code, p->crashed);
        if (!p->crashed) CHECK_EQ_INT(p->sessions, p->released + (p->done ? 1 : 0));
        if (p->done) {
            served_n++;
            if (!is_version(u, p->served, p->served_len)) {
                fprintf(stderr, "load %d: served bytes are no version of %s\n", k, urls[u]);
                CHECK(0);
            }
        } else if (!p->crashed) {
            failed_n++;
            CHECK(p->failed);
        }
        if (!store_ok(&db)) {
            fprintf(stderr, "load %d: a committed entry is torn\n", k);
            CHECK(0);
            break;
        }
        if (p->crashed) {
            /* the tab died: a new page in its place */
            db.crashed = 0;
            fx_page_close(p);
            fx_page_init(p, &db, &srv[0], seed++);
        }
        db.crash_after = -1;
    }

    /* faults off: every URL loads (from the network or the store) and the
     * store ends clean */
    db.quota = 0;
    db.closed = 0;
    db.fail_writes = db.fail_reads = 0;
    for (u = 0; u < N_URL; u++) {
        ok_load_params lp;
        memset(&lp, 0, sizeof lp);
        lp.source = OK_SOURCE_URL;
        lp.raw = lp.url = urls[u];
        lp.chunk_size = CS;
        lp.mode = OK_MODE_RELOAD;
        srv[u].every = (fx_reply){0};
        srv[u].every.cut_at = -1;
        memset(srv[u].planned, 0, sizeof srv[u].planned);
        pg[0].srv = &srv[u];
        pg[0].abort_in_state = -1;
        pg[0].refuse_sessions = 0;
        fx_run(&pg[0], &lp);
        CHECK(pg[0].done);
        CHECK(pg[0].served_len == srv[u].len && memcmp(pg[0].served, srv[u].bytes, srv[u].len) == 0);
    }
    for (i = 0; i < N_PAGE; i++) fx_page_close(&pg[i]);
    fx_page_init(&pg[0], &db, &srv[0], seed++);
    fx_sync(&pg[0], 1);
    CHECK_EQ_INT(fx_orphans(&db), 0);
    CHECK(store_ok(&db));
    fx_page_close(&pg[0]);
    printf("%d loads: %d served, %d failed (typed), rest crashed\n", loads, served_n, failed_n);
    CHECK(served_n > loads / 3);
    CHECK_EQ_INT(ok_cache_test_alloc_live(), 0);
    db_free(&db);
    for (u = 0; u < N_URL; u++)
        for (v = 0; v < VERSIONS; v++) free(ver[u][v]);
    return CHECK_DONE();
}
