/* A URL load serves its session before its store: on a fast link the
 * chunks and the COMMIT go after DONE (DONE_STORING), behind the caller,
 * under the key's lock; on a slow link each chunk is stored while the next
 * one arrives and only the last one waits. Either way the caller gets the
 * right bytes, the store ends committed (or cleanly not, with a warning),
 * and the next load hits. */
#include "check.h"
#include "load_driver.h"

#define CS 4096u
#define URL "https://models.test/m.onnx"

static uint8_t *model_a;
static size_t len_a;
static size_t chunks_a;

typedef struct {
    fx_db db;
    fx_server srv;
    fx_page pg;
} world;

static void world_init(world *w, int fast_net) {
    memset(w, 0, sizeof *w);
    w->db.crash_after = -1;
    w->srv.bytes = model_a;
    w->srv.len = len_a;
    w->srv.every.cut_at = -1;
    snprintf(w->srv.etag, sizeof w->srv.etag, "\"v1\"");
    fx_page_init(&w->pg, &w->db, &w->srv, 0x5e7e);
    w->pg.fast_net = fast_net;
}

static void world_free(world *w) {
    fx_page_close(&w->pg);
    db_free(&w->db);
}

static int served(const fx_page *pg) {
    return pg->done && pg->served && pg->served_len == len_a && memcmp(pg->served, model_a, len_a) == 0;
}

/* The second load of the same page hits IndexedDB, verified, no request. */
static void check_hit_next(world *w) {
    ok_load_params p = fx_url_params(URL, CS);
    int before = w->srv.n_req;
    fx_run(&w->pg, &p);
    CHECK(served(&w->pg));
    CHECK_EQ_INT(w->pg.tier, OK_TIER_INDEXEDDB);
    CHECK(w->pg.done_flags & OK_DONE_VERIFIED);
    CHECK_EQ_INT(w->srv.n_req, before);
}

static void test_fast_link_serves_first(void) {
    world w;
    ok_load_params p = fx_url_params(URL, CS);
    world_init(&w, 1);
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg));
    CHECK(!w.pg.stuck);
    CHECK_EQ_INT(w.pg.tier, OK_TIER_NETWORK);
    CHECK(w.pg.done_flags & OK_DONE_STORING);
    /* nothing stored while the body streamed; at its end every chunk was
     * sent at once, before the session, and settled only after it (the
     * creation never waits for a write); the COMMIT follows DONE */
    CHECK_EQ_INT(w.pg.ahead_runs, 1);
    CHECK_EQ_INT(w.pg.sessions_at_settle, 1);
    CHECK_EQ_INT(w.pg.chunks_at_done, chunks_a);
    CHECK(w.pg.done_flags & OK_DONE_STORED);
    CHECK_EQ_INT(w.db.chunks.n, chunks_a);
    CHECK_EQ_INT(fx_count_state(&w.db, OK_ENTRY_COMMITTED), 1);
    CHECK_EQ_INT(fx_count_state(&w.db, OK_ENTRY_PENDING), 0);
    CHECK_EQ_INT(w.pg.sessions - w.pg.released, 1);
    CHECK(fx_store_serves(&w.db, model_a, len_a));
    check_hit_next(&w);
    world_free(&w);
}

static void test_slow_link_stores_as_it_streams(void) {
    world w;
    ok_load_params p = fx_url_params(URL, CS);
    world_init(&w, 0);
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg));
    CHECK(w.pg.done_flags & OK_DONE_STORING);
    /* stored as they came; a short last chunk (cut by the body's end) went
     * ahead of the session */
    CHECK_EQ_INT(w.pg.chunks_at_done, chunks_a);
    CHECK_EQ_INT(w.pg.ahead_runs, len_a % CS ? 1 : 0);
    CHECK(w.pg.done_flags & OK_DONE_STORED);
    CHECK_EQ_INT(fx_count_state(&w.db, OK_ENTRY_COMMITTED), 1);
    check_hit_next(&w);
    world_free(&w);
}

/* The quota runs out behind the caller: it keeps its session, one QUOTA
 * warning, nothing committed, nothing pending, no orphan; the next load
 * downloads again. */
static void test_quota_after_serving(void) {
    world w;
    ok_load_params p = fx_url_params(URL, CS);
    world_init(&w, 1);
    w.db.quota = len_a / 2;
    w.db.estimate_slack = len_a * 2; /* the estimate says it fits */
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg));
    CHECK(!w.pg.stuck);
    CHECK(w.pg.done_flags & OK_DONE_STORING);
    CHECK(!(w.pg.done_flags & OK_DONE_STORED));
    CHECK(fx_warned(&w.pg, OK_WARN_QUOTA));
    CHECK_EQ_INT(w.pg.sessions - w.pg.released, 1);
    fx_sync(&w.pg, 1);
    CHECK_EQ_INT(fx_count_state(&w.db, OK_ENTRY_COMMITTED), 0);
    CHECK_EQ_INT(fx_count_state(&w.db, OK_ENTRY_PENDING), 0);
    CHECK_EQ_INT(fx_orphans(&w.db), 0);
    w.db.quota = 0;
    w.db.estimate_slack = 0;
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg));
    CHECK_EQ_INT(w.pg.tier, OK_TIER_NETWORK);
    CHECK(w.pg.done_flags & OK_DONE_STORED);
    world_free(&w);
}

/* Writes failing behind the caller (not the quota): the same, with a
 * CACHE_ERROR warning. */
static void test_write_fails_after_serving(void) {
    world w;
    ok_load_params p = fx_url_params(URL, CS);
    world_init(&w, 1);
    w.db.fail_from = w.db.writes + 2; /* the PENDING marker lands, every chunk fails */
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg));
    CHECK(!w.pg.stuck);
    CHECK_EQ_INT(w.pg.chunks_at_done, 0);
    CHECK(!(w.pg.done_flags & OK_DONE_STORED));
    CHECK(fx_warned(&w.pg, OK_WARN_CACHE_ERROR));
    CHECK_EQ_INT(w.pg.sessions - w.pg.released, 1);
    fx_sync(&w.pg, 1);
    CHECK_EQ_INT(fx_count_state(&w.db, OK_ENTRY_COMMITTED), 0);
    CHECK_EQ_INT(fx_count_state(&w.db, OK_ENTRY_PENDING), 0);
    CHECK_EQ_INT(fx_orphans(&w.db), 0);
    world_free(&w);
}

/* One store sent ahead of the session fails, the ones after it land: it is
 * handled as a single store's failure would be (CACHE_ERROR, the store
 * ends); what landed before it stays pending, and the next load resumes
 * from it (the chunks after the gap fail their re-read and go). */
static void test_store_ahead_fails_once(void) {
    world w;
    ok_load_params p = fx_url_params(URL, CS);
    world_init(&w, 1);
    w.db.fail_write_at = w.db.writes + 3; /* the marker and chunk 0 land, chunk 1 fails */
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg));
    CHECK(!w.pg.stuck);
    CHECK_EQ_INT(w.pg.ahead_runs, 1);
    CHECK(fx_warned(&w.pg, OK_WARN_CACHE_ERROR));
    CHECK(!(w.pg.done_flags & OK_DONE_STORED));
    fx_sync(&w.pg, 1);
    CHECK_EQ_INT(fx_count_state(&w.db, OK_ENTRY_COMMITTED), 0);
    CHECK_EQ_INT(fx_count_state(&w.db, OK_ENTRY_PENDING), 1);
    CHECK_EQ_INT(fx_orphans(&w.db), 0);
    /* the next load resumes after chunk 0 and stores */
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg));
    CHECK(w.pg.done_flags & OK_DONE_STORED);
    CHECK(w.srv.req[w.srv.n_req - 1].flags & OK_FETCH_RANGE);
    CHECK_EQ_INT(w.srv.req[w.srv.n_req - 1].from, CS);
    CHECK(fx_store_serves(&w.db, model_a, len_a));
    CHECK_EQ_INT(fx_count_state(&w.db, OK_ENTRY_PENDING), 0);
    check_hit_next(&w);
    world_free(&w);
}

/* The quota runs out for a store sent ahead: the eviction a single store
 * would make, then that chunk and all after it go again, and land. */
static void test_store_ahead_quota_evicts(void) {
    world w;
    ok_load_params p = fx_url_params(URL, CS);
    ok_load_params other = fx_url_params("https://models.test/other.onnx", CS);
    world_init(&w, 1);
    fx_run(&w.pg, &other); /* an older model to evict */
    CHECK(w.pg.done_flags & OK_DONE_STORED);
    w.db.quota = db_used(&w.db) + len_a - CS; /* room for the model less one chunk */
    w.db.estimate_slack = len_a * 2;          /* the estimate says it fits */
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg));
    CHECK(!w.pg.stuck);
    CHECK_EQ_INT(w.pg.ahead_runs, 1);
    CHECK(w.pg.done_flags & OK_DONE_STORED);
    CHECK_EQ_INT(w.pg.n_warns, 0);
    CHECK(fx_store_serves(&w.db, model_a, len_a));
    CHECK_EQ_INT(fx_count_state(&w.db, OK_ENTRY_COMMITTED), 1);
    CHECK_EQ_INT(fx_orphans(&w.db), 0);
    check_hit_next(&w);
    world_free(&w);
}

/* The body breaks on a fast link: the complete chunks in the backlog are
 * stored first, then the rest is asked for by Range (a live tab resumes
 * as before). */
static void test_fast_link_cut_resumes(void) {
    world w;
    ok_load_params p = fx_url_params(URL, CS);
    world_init(&w, 1);
    w.srv.plan[0].cut_at = (int)(len_a / 2);
    w.srv.planned[0] = 1;
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg));
    CHECK(fx_warned(&w.pg, OK_WARN_RESUMING));
    CHECK_EQ_INT(w.srv.n_req, 2);
    CHECK_EQ_INT(w.srv.req[1].flags & OK_FETCH_RANGE, OK_FETCH_RANGE);
    CHECK_EQ_INT(w.srv.req[1].from, (len_a / 2) / CS * CS);
    /* the backlog before the Range, then the rest ahead of the session */
    CHECK_EQ_INT(w.pg.chunks_at_done, chunks_a);
    CHECK(w.pg.done_flags & OK_DONE_STORED);
    CHECK_EQ_INT(fx_count_state(&w.db, OK_ENTRY_COMMITTED), 1);
    check_hit_next(&w);
    world_free(&w);
}

/* An abort after DONE changes nothing: the caller has its session and the
 * store goes on. */
static void test_abort_after_serving(void) {
    world w;
    ok_load_params p = fx_url_params(URL, CS);
    world_init(&w, 1);
    w.pg.abort_in_state = OK_LOAD_STATE_COMMITTING;
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg));
    CHECK(!w.pg.failed);
    CHECK(w.pg.done_flags & OK_DONE_STORED);
    CHECK_EQ_INT(fx_count_state(&w.db, OK_ENTRY_COMMITTED), 1);
    world_free(&w);
}

int main(void) {
    model_a = fx_model(9 * CS + 77, 21, &len_a);
    chunks_a = (len_a + CS - 1) / CS;
    CHECK(chunks_a > 3);
    test_fast_link_serves_first();
    test_slow_link_stores_as_it_streams();
    test_quota_after_serving();
    test_write_fails_after_serving();
    test_store_ahead_fails_once();
    test_store_ahead_quota_evicts();
    test_fast_link_cut_resumes();
    test_abort_after_serving();
    free(model_a);
    return CHECK_DONE();
}
