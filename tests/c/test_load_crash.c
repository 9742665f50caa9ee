/* Crash safety of the load machine: the tab dies after every write
 * transaction of a fresh download, a model update, a resume, an eviction
 * and a corrupt-copy heal. After each crash the store must never hold a
 * committed entry that serves wrong bytes, and the next page's first load
 * must serve the right model and leave the store clean (one committed
 * entry, no pending one, no orphan record). */
#include "check.h"
#include "load_driver.h"

#define CS 4096u
#define URL "https://models.test/m.onnx"

static uint8_t *model_a, *model_b, *model_c;
static size_t len_a, len_b, len_c;

static ok_load_params params(const char *url) { return fx_url_params(url, CS); }

/* Committed entries serve either a or b, whole. */
static int store_sane(fx_db *d, const uint8_t *a, size_t la, const uint8_t *b, size_t lb) {
    fx_db one;
    size_t i;
    int ok = 1;
    for (i = 0; i < d->index.n && ok; i++) {
        memset(&one, 0, sizeof one);
        one.index.v = &d->index.v[i];
        one.index.n = 1;
        one.chunks = d->chunks;
        one.meta = d->meta;
        ok = fx_store_serves(&one, a, la) || (b && fx_store_serves(&one, b, lb));
    }
    return ok;
}

typedef void (*setup_fn)(fx_db *db, fx_server *srv, fx_page *pg);

static void no_setup(fx_db *db, fx_server *srv, fx_page *pg) {
    (void)db;
    (void)srv;
    (void)pg;
}

/* The model is stored; the server now has model_b under a new ETag and
 * the load revalidates. */
static void setup_update(fx_db *db, fx_server *srv, fx_page *pg) {
    ok_load_params p = params(URL);
    (void)db;
    fx_run(pg, &p);
    srv->bytes = model_b;
    srv->len = len_b;
    snprintf(srv->etag, sizeof srv->etag, "\"v2\"");
}

/* A download cut at half is pending; the load resumes it. */
static void setup_resume(fx_db *db, fx_server *srv, fx_page *pg) {
    ok_load_params p = params(URL);
    db->crash_after = db->writes + 5;
    fx_run(pg, &p);
    db->crashed = 0;
    db->crash_after = -1;
    (void)srv;
}

/* A stored copy with a flipped byte: the load heals it. */
static void setup_corrupt(fx_db *db, fx_server *srv, fx_page *pg) {
    ok_load_params p = params(URL);
    (void)srv;
    fx_run(pg, &p);
    db->chunks.v[3].bytes[11] ^= 1;
}

/* Quota for one model: loading another evicts the first. */
static void setup_evict(fx_db *db, fx_server *srv, fx_page *pg) {
    ok_load_params p = params("https://models.test/other.onnx");
    const uint8_t *keep = srv->bytes;
    size_t keep_len = srv->len;
    srv->bytes = model_c;
    srv->len = len_c;
    fx_run(pg, &p);
    srv->bytes = keep;
    srv->len = keep_len;
    db->quota = db_used(db) + len_a / 2 + 2000;
}

/* rotten: the setup itself left a corrupt committed copy (which reads
 * catch); the store is only judged after the healing load. */
static void crash_everywhere_on(const char *what, setup_fn setup, uint32_t mode, const uint8_t *want,
                                size_t want_len, int rotten, int fast_net) {
    int after, crashed_once = 1;
    for (after = 0; crashed_once; after++) {
        fx_db db;
        fx_server srv;
        fx_page pg;
        ok_load_params p = params(URL);
        memset(&db, 0, sizeof db);
        memset(&srv, 0, sizeof srv);
        db.crash_after = -1;
        srv.bytes = model_a;
        srv.len = len_a;
        srv.every.cut_at = -1;
        snprintf(srv.etag, sizeof srv.etag, "\"v1\"");
        fx_page_init(&pg, &db, &srv, 0x100 + (uint64_t)after);
        setup(&db, &srv, &pg);
        fx_page_close(&pg);
        fx_page_init(&pg, &db, &srv, 0x200 + (uint64_t)after);
        /* the page under test dies after `after` more writes (on a fast
         * link, most of them after it served the model) */
        pg.fast_net = fast_net;
        db.crash_after = db.writes + after;
        p.mode = mode;
        fx_run(&pg, &p);
        crashed_once = pg.crashed;
        CHECK(!pg.stuck);
        if (!rotten &&
            !(store_sane(&db, model_a, len_a, model_b, len_b) || store_sane(&db, model_c, len_c, NULL, 0))) {
            fprintf(stderr, "%s%s: crash after %d writes: a committed entry is torn\n", what,
                    fast_net ? " (fast link)" : "", after);
            CHECK(0);
        }
        fx_page_close(&pg);
        /* a new page: its first load serves the model and cleans up */
        db.crashed = 0;
        db.crash_after = -1;
        db.quota = 0;
        fx_page_init(&pg, &db, &srv, 0x300 + (uint64_t)after);
        fx_run(&pg, &p); /* the same mode: an update revalidates again */
        if (!pg.done || pg.served_len != want_len || memcmp(pg.served, want, want_len) != 0)
            fprintf(stderr, "%s%s: crash after %d writes: wrong model served\n", what,
                    fast_net ? " (fast link)" : "", after);
        CHECK(pg.done);
        CHECK(pg.served && pg.served_len == want_len && memcmp(pg.served, want, want_len) == 0);
        fx_sync(&pg, 0);
        CHECK_EQ_INT(fx_count_state(&db, OK_ENTRY_PENDING), 0);
        CHECK(store_sane(&db, want, want_len, NULL, 0) || store_sane(&db, model_c, len_c, want, want_len));
        CHECK_EQ_INT(fx_orphans(&db), 0);
        fx_page_close(&pg);
        db_free(&db);
    }
    CHECK(after > 3); /* the scenario did write something */
}

/* Both links: a slow one stores chunks as they arrive, a fast one serves
 * first and stores behind the caller. */
static void crash_everywhere(const char *what, setup_fn setup, uint32_t mode, const uint8_t *want,
                             size_t want_len, int rotten) {
    crash_everywhere_on(what, setup, mode, want, want_len, rotten, 0);
    crash_everywhere_on(what, setup, mode, want, want_len, rotten, 1);
}

int main(void) {
    model_a = fx_model(9 * CS + 77, 11, &len_a);
    model_b = fx_model(12 * CS + 5, 12, &len_b);
    model_c = fx_model(5 * CS, 13, &len_c);
    crash_everywhere("fresh download", no_setup, OK_MODE_DEFAULT, model_a, len_a, 0);
    crash_everywhere("model update", setup_update, OK_MODE_NO_CACHE, model_b, len_b, 0);
    crash_everywhere("resume", setup_resume, OK_MODE_DEFAULT, model_a, len_a, 0);
    crash_everywhere("heal a corrupt copy", setup_corrupt, OK_MODE_DEFAULT, model_a, len_a, 1);
    crash_everywhere("evict to make room", setup_evict, OK_MODE_DEFAULT, model_a, len_a, 0);
    free(model_a);
    free(model_b);
    free(model_c);
    return CHECK_DONE();
}
