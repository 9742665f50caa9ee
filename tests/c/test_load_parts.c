/* External data files (parts) in the load machine, against the fake
 * browser: a model and its data files commit in one transaction (all or
 * none, whatever write the tab dies after), the second load reads every
 * file from the store with no request, a file the quota cannot take leaves
 * nothing stored, a rotten data chunk is refetched and never served, a cut
 * data download resumes by range, a wrong or short data file fails the
 * load, and eviction, delete and the sync take a model's files with it. */
#include "check.h"
#include "load_driver.h"

#define CS 4096u
#define URL "https://models.test/m.onnx"
#define D1 "https://models.test/m.onnx_data"
#define D2 "https://models.test/weights/b.bin"
#define PART_PREFIX "url:" URL "|form:original|data:"

static uint8_t *model_a, *model_b, *data_1, *data_2, *data_1b;
static size_t len_a, len_b, len_1, len_2, len_1b;

typedef struct {
    fx_db db;
    fx_server srv, d1, d2;
    fx_page pg;
} world;

static void server(fx_server *s, const uint8_t *b, size_t n, const char *etag) {
    memset(s, 0, sizeof *s);
    s->bytes = b;
    s->len = n;
    s->every.cut_at = -1;
    snprintf(s->etag, sizeof s->etag, "%s", etag);
}

static void page(world *w, uint64_t seed) {
    fx_page_init(&w->pg, &w->db, &w->srv, seed);
    w->pg.n_parts = 2;
    w->pg.part_loc[0] = "m.onnx_data";
    w->pg.part_url[0] = D1;
    w->pg.part_srv[0] = &w->d1;
    w->pg.part_min[0] = len_1;
    w->pg.part_loc[1] = "weights/b.bin";
    w->pg.part_url[1] = D2;
    w->pg.part_srv[1] = &w->d2;
    w->pg.part_min[1] = len_2 - 100; /* a file may hold more than its tensors */
}

static void world_init(world *w) {
    memset(w, 0, sizeof *w);
    w->db.crash_after = -1;
    server(&w->srv, model_a, len_a, "\"m1\"");
    server(&w->d1, data_1, len_1, "\"d1\"");
    server(&w->d2, data_2, len_2, "\"d2\"");
    page(w, 0x5151);
}

/* A new page on the same store (the tab was closed or died). */
static void new_page(world *w, uint64_t seed) {
    fx_page_close(&w->pg);
    w->db.crashed = 0;
    w->db.crash_after = -1;
    page(w, seed);
}

static void world_free(world *w) {
    fx_page_close(&w->pg);
    db_free(&w->db);
}

static ok_load_params params(void) { return fx_url_params(URL, CS); }

static int requests(const world *w) { return w->srv.n_req + w->d1.n_req + w->d2.n_req; }

static void zero_requests(world *w) { w->srv.n_req = w->d1.n_req = w->d2.n_req = 0; }

/* Whole-store invariant: either nothing of the model is committed, or the
 * model and exactly n_parts parts are, each part naming the model's
 * SHA-256, and every committed entry's chunks hash to its SHA-256. */
static int group_whole(fx_db *d, int n_parts, int *models_out) {
    size_t i;
    int models = 0, parts = 0, ok = 1;
    uint8_t model_sha[32];
    for (i = 0; i < d->index.n && ok; i++) {
        ok_manifest m;
        if (ok_manifest_decode(d->index.v[i].bytes, d->index.v[i].len, &m) != OK_OK) return 0;
        if (m.state == OK_ENTRY_COMMITTED) {
            ok = fx_chunks_hash_to(d, d->index.v[i].name, m.chunk_count, m.sha256);
            if (m.flags & OK_EF_PART) {
                parts++;
                if (fs_find(&d->meta, d->index.v[i].name, 0)) ok = 0;
            } else {
                models++;
                memcpy(model_sha, m.sha256, 32);
            }
        }
        ok_manifest_free(&m);
    }
    for (i = 0; i < d->index.n && ok && models; i++) {
        ok_manifest m;
        if (ok_manifest_decode(d->index.v[i].bytes, d->index.v[i].len, &m) != OK_OK) return 0;
        if (m.state == OK_ENTRY_COMMITTED && (m.flags & OK_EF_PART))
            ok = memcmp(m.source_sha256, model_sha, 32) == 0 &&
                 strncmp(m.key, PART_PREFIX, sizeof PART_PREFIX - 1) == 0;
        ok_manifest_free(&m);
    }
    if (models_out) *models_out = models;
    return ok && ((models == 0 && parts == 0) || (models == 1 && parts == n_parts));
}

static int served(const fx_page *pg, const uint8_t *b, size_t n) {
    return pg->done && pg->served && pg->served_len == n && memcmp(pg->served, b, n) == 0 && pg->parts_intact;
}

/* Cold: model + two files in one commit; warm: no request for any file. */
static void test_commit_together_and_hit(void) {
    world w;
    ok_load_params p = params();
    int models = 0;
    world_init(&w);
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, model_a, len_a));
    CHECK_EQ_INT(w.pg.parts_mode, OK_PARTS_STAGE);
    CHECK(w.pg.part_flags[0] & OK_DONE_STAGED);
    CHECK(w.pg.part_flags[1] & OK_DONE_STAGED);
    CHECK(w.pg.done_flags & OK_DONE_STORED);
    CHECK(group_whole(&w.db, 2, &models));
    CHECK_EQ_INT(models, 1);
    CHECK_EQ_INT(fx_count_state(&w.db, OK_ENTRY_PENDING), 0);
    CHECK_EQ_INT(requests(&w), 3);
    {
        /* the index names each part's model and location (cache.list) */
        uint32_t i, model = 0, parts = 0;
        ok_cache_entry_info e;
        for (i = 0; i < ok_cache_count(w.pg.c); i++) {
            CHECK_EQ_INT(ok_cache_entry_at(w.pg.c, i, &e), OK_OK);
            if (!(e.flags & OK_EF_PART)) model = e.id;
        }
        for (i = 0; i < ok_cache_count(w.pg.c); i++) {
            ok_cache_entry_at(w.pg.c, i, &e);
            if (!(e.flags & OK_EF_PART)) {
                CHECK_EQ_INT(e.owner, 0);
                continue;
            }
            parts++;
            CHECK_EQ_INT(e.owner, model);
            CHECK(e.location &&
                  (strcmp(e.location, "m.onnx_data") == 0 || strcmp(e.location, "weights/b.bin") == 0));
        }
        CHECK_EQ_INT(parts, 2);
    }
    /* a new page: every file from IndexedDB */
    new_page(&w, 0x5252);
    zero_requests(&w);
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, model_a, len_a));
    CHECK_EQ_INT(w.pg.tier, OK_TIER_INDEXEDDB);
    CHECK_EQ_INT(w.pg.parts_mode, OK_PARTS_OWNER_STORED);
    CHECK_EQ_INT(w.pg.part_tier[0], OK_TIER_INDEXEDDB);
    CHECK_EQ_INT(w.pg.part_tier[1], OK_TIER_INDEXEDDB);
    CHECK_EQ_INT(requests(&w), 0);
    CHECK_EQ_INT(w.pg.n_warns, 0);
    world_free(&w);
}

/* The tab dies after every write of the cold load: the store never holds
 * a model without its files or a file without its model, and the next
 * page serves the right bytes and leaves the group whole. */
static void test_crash_after_every_write(void) {
    int k, total;
    {
        world w;
        ok_load_params p = params();
        world_init(&w);
        fx_run(&w.pg, &p);
        total = w.db.writes;
        world_free(&w);
    }
    CHECK(total > 6);
    for (k = 0; k <= total; k++) {
        world w;
        ok_load_params p = params();
        int models = 0;
        world_init(&w);
        w.db.crash_after = k;
        fx_run(&w.pg, &p);
        CHECK(group_whole(&w.db, 2, NULL));
        new_page(&w, 0x6000 + (uint64_t)k);
        fx_run(&w.pg, &p);
        CHECK(served(&w.pg, model_a, len_a));
        CHECK(group_whole(&w.db, 2, &models));
        CHECK_EQ_INT(models, 1);
        CHECK_EQ_INT(fx_count_state(&w.db, OK_ENTRY_PENDING), 0);
        fx_sync(&w.pg, 1);
        CHECK_EQ_INT(fx_orphans(&w.db), 0);
        world_free(&w);
    }
}

/* A tab died after the data files were stored whole but before the
 * commit: the next load asks the network for the model only... and for
 * nothing at all when the model's bytes were stored too. With a host that
 * hashes bodies (the browser, OK_LOAD_HOST_HASHES) the same: a model whose
 * every byte was stored is hashed here, no body coming for the host to hash
 * (its SHA-256 was once the empty string's, the staged files named another
 * model's and were all fetched again, and the model committed under it). */
static void staged_files_are_not_fetched_again(int host_hashes) {
    world w;
    ok_load_params p = params();
    uint8_t want[32];
    size_t i;
    int k;
    ok_sha256(model_a, len_a, want);
    world_init(&w);
    w.pg.host_hashes = host_hashes;
    fx_run(&w.pg, &p);
    k = w.db.writes - 1; /* everything but the group's commit */
    world_free(&w);
    world_init(&w);
    w.pg.host_hashes = host_hashes;
    w.db.crash_after = k;
    fx_run(&w.pg, &p);
    CHECK(w.pg.crashed);
    CHECK_EQ_INT(fx_count_state(&w.db, OK_ENTRY_COMMITTED), 0);
    new_page(&w, 0x7070);
    w.pg.host_hashes = host_hashes;
    zero_requests(&w);
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, model_a, len_a));
    CHECK_EQ_INT(requests(&w), 0);
    CHECK(memcmp(w.pg.served_sha, want, 32) == 0);
    CHECK(group_whole(&w.db, 2, NULL));
    CHECK_EQ_INT(fx_count_state(&w.db, OK_ENTRY_COMMITTED), 3);
    for (i = 0; i < w.db.index.n; i++) {
        /* committed under the model's own SHA-256, its files naming it */
        ok_manifest m;
        CHECK_EQ_INT(ok_manifest_decode(w.db.index.v[i].bytes, w.db.index.v[i].len, &m), OK_OK);
        CHECK(memcmp((m.flags & OK_EF_PART) ? m.source_sha256 : m.sha256, want, 32) == 0);
        ok_manifest_free(&m);
    }
    world_free(&w);
}

static void test_staged_files_are_not_fetched_again(void) {
    staged_files_are_not_fetched_again(0);
    staged_files_are_not_fetched_again(1);
}

/* The quota takes the model but not its data: served, nothing stored. */
static void test_quota_fits_model_not_data(void) {
    world w;
    ok_load_params p = params();
    world_init(&w);
    w.db.quota = len_a + len_1 / 2;
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, model_a, len_a));
    CHECK(fx_warned(&w.pg, OK_WARN_QUOTA));
    CHECK(!(w.pg.done_flags & OK_DONE_STORED));
    CHECK_EQ_INT((int)w.db.index.n, 0);
    CHECK_EQ_INT((int)w.db.chunks.n, 0);
    CHECK_EQ_INT((int)w.db.meta.n, 0);
    world_free(&w);

    /* the estimate lags (it said there was room): the writes of a data
     * file fail with QuotaExceededError; the same, and nothing half-written
     * is kept for a resume that could not fit either */
    world_init(&w);
    w.db.quota = len_a + len_1 / 2;
    w.db.estimate_slack = 1u << 20;
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, model_a, len_a));
    CHECK(fx_warned(&w.pg, OK_WARN_QUOTA));
    CHECK_EQ_INT((int)w.db.index.n, 0);
    CHECK_EQ_INT((int)w.db.chunks.n, 0);
    world_free(&w);
}

/* A stored data chunk rots: detected, that file alone refetched and
 * committed again, never served. */
static void test_rotten_data_chunk(void) {
    world w;
    ok_load_params p = params();
    size_t i;
    int flipped = 0;
    world_init(&w);
    fx_run(&w.pg, &p);
    for (i = 0; i < w.db.index.n && !flipped; i++) {
        ok_manifest m;
        if (ok_manifest_decode(w.db.index.v[i].bytes, w.db.index.v[i].len, &m) != OK_OK) continue;
        if ((m.flags & OK_EF_PART) && strstr(m.key, "weights/b.bin")) {
            fx_rec *r = fs_find(&w.db.chunks, w.db.index.v[i].name, 2);
            CHECK(r != NULL);
            if (r) {
                r->bytes[7] ^= 0x20;
                flipped = 1;
            }
        }
        ok_manifest_free(&m);
    }
    CHECK(flipped);
    new_page(&w, 0x8181);
    zero_requests(&w);
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, model_a, len_a));
    CHECK(fx_warned(&w.pg, OK_WARN_CORRUPT));
    CHECK_EQ_INT(w.srv.n_req, 0);
    CHECK_EQ_INT(w.d1.n_req, 0);
    CHECK_EQ_INT(w.d2.n_req, 1);
    CHECK(group_whole(&w.db, 2, NULL));
    new_page(&w, 0x8282);
    zero_requests(&w);
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, model_a, len_a));
    CHECK_EQ_INT(requests(&w), 0);
    world_free(&w);
}

/* A data download breaks mid-way: it resumes by range, per file. */
static void test_cut_data_resumes(void) {
    world w;
    ok_load_params p = params();
    world_init(&w);
    w.d2.plan[0].cut_at = (int)(len_2 / 2);
    w.d2.planned[0] = 1;
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, model_a, len_a));
    CHECK(fx_warned(&w.pg, OK_WARN_RESUMING));
    CHECK_EQ_INT(w.d2.n_req, 2);
    CHECK(w.d2.req[1].flags & OK_FETCH_RANGE);
    CHECK(w.d2.req[1].from > 0 && w.d2.req[1].from <= len_2 / 2);
    CHECK_EQ_INT(w.d1.n_req, 1);
    CHECK_EQ_INT(w.srv.n_req, 1);
    CHECK(group_whole(&w.db, 2, NULL));
    CHECK_EQ_INT(fx_count_state(&w.db, OK_ENTRY_COMMITTED), 3);
    world_free(&w);
}

/* An SPA fallback where a data file should be, or a file shorter than the
 * model's tensors: the load fails and nothing is committed. */
static void test_bad_data_files(void) {
    world w;
    ok_load_params p = params();
    world_init(&w);
    w.d1.every.html = 1;
    fx_run(&w.pg, &p);
    CHECK(w.pg.failed);
    CHECK_EQ_INT(w.pg.part_fail_code, OK_ERR_NETWORK);
    CHECK_EQ_INT(w.pg.part_fail_reason, OK_REASON_HTML);
    CHECK_EQ_INT(w.pg.sessions, w.pg.released);
    CHECK_EQ_INT(fx_count_state(&w.db, OK_ENTRY_COMMITTED), 0);
    world_free(&w);

    world_init(&w);
    w.pg.part_min[1] = len_2 + 1;
    fx_run(&w.pg, &p);
    CHECK(w.pg.failed);
    CHECK_EQ_INT(w.pg.part_fail_code, OK_ERR_TRUNCATED);
    CHECK_EQ_INT(w.pg.part_fail_reason, OK_REASON_DATA_SHORT);
    CHECK_EQ_INT(fx_count_state(&w.db, OK_ENTRY_COMMITTED), 0);
    /* the good file it fetched first waits, staged, for the next try */
    w.pg.part_min[1] = len_2;
    zero_requests(&w);
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, model_a, len_a));
    CHECK_EQ_INT(w.d1.n_req, 0);
    CHECK(group_whole(&w.db, 2, NULL));
    world_free(&w);
}

/* The model changed on the server: its files are fetched again and the
 * old ones go with the old model. */
static void test_model_update_replaces_files(void) {
    world w;
    ok_load_params p = params();
    world_init(&w);
    fx_run(&w.pg, &p);
    w.srv.bytes = model_b;
    w.srv.len = len_b;
    snprintf(w.srv.etag, sizeof w.srv.etag, "\"m2\"");
    w.d1.bytes = data_1b;
    w.d1.len = len_1b;
    w.pg.part_min[0] = len_1b;
    snprintf(w.d1.etag, sizeof w.d1.etag, "\"d1b\"");
    p.mode = OK_MODE_NO_CACHE; /* the files follow the model's load */
    zero_requests(&w);
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, model_b, len_b));
    CHECK_EQ_INT(w.d1.n_req, 1);
    CHECK_EQ_INT(w.d2.n_req, 1); /* same URL, but stored beside other model bytes */
    fx_sync(&w.pg, 1);
    CHECK(group_whole(&w.db, 2, NULL));
    CHECK_EQ_INT(fx_count_state(&w.db, OK_ENTRY_COMMITTED), 3);
    CHECK_EQ_INT(fx_orphans(&w.db), 0);
    world_free(&w);
}

/* Eviction and delete take a model's files with it; a file whose model
 * another tab dropped goes at the next sync. */
static void test_evicted_and_deleted_together(void) {
    world w;
    ok_load_params p = params(), q = params();
    int models = 0;
    world_init(&w);
    fx_run(&w.pg, &p);
    CHECK_EQ_INT(fx_count_state(&w.db, OK_ENTRY_COMMITTED), 3);
    /* another model needs the space: the group goes, nothing of it stays */
    CHECK_EQ_INT(ok_cache_set_budget(w.pg.c, len_a + len_1 + len_2), OK_OK);
    q.raw = q.url = "https://models.test/other.onnx";
    w.pg.n_parts = 0;
    w.srv.bytes = model_b;
    w.srv.len = len_b;
    fx_run(&w.pg, &q);
    CHECK(w.pg.done && (w.pg.done_flags & OK_DONE_STORED));
    CHECK_EQ_INT(fx_count_state(&w.db, OK_ENTRY_COMMITTED), 1);
    CHECK(group_whole(&w.db, 0, &models)); /* the one model left has no parts */
    CHECK_EQ_INT(fx_orphans(&w.db), 0);
    world_free(&w);

    world_init(&w);
    fx_run(&w.pg, &p);
    fx_sync(&w.pg, 0);
    CHECK_EQ_INT(ok_cache_delete(w.pg.c, URL), OK_OK);
    fx_apply_own(&w.pg);
    CHECK_EQ_INT((int)w.db.index.n, 0);
    CHECK_EQ_INT((int)w.db.chunks.n, 0);
    world_free(&w);

    world_init(&w);
    fx_run(&w.pg, &p);
    {
        /* another tab deleted the model record only (an older ortkeep, or
         * a crash mid-delete): its files are orphans */
        size_t i;
        for (i = 0; i < w.db.index.n; i++) {
            ok_manifest m;
            int model;
            if (ok_manifest_decode(w.db.index.v[i].bytes, w.db.index.v[i].len, &m) != OK_OK) continue;
            model = !(m.flags & OK_EF_PART);
            ok_manifest_free(&m);
            if (model) {
                char name[128];
                snprintf(name, sizeof name, "%s", w.db.index.v[i].name);
                fs_del(&w.db.chunks, name, 0, OK_CACHE_CHUNK_END);
                fs_del(&w.db.index, name, 0, 1);
                fs_del(&w.db.meta, name, 0, 1);
                break;
            }
        }
    }
    new_page(&w, 0x9191);
    fx_sync(&w.pg, 1);
    CHECK_EQ_INT((int)w.db.index.n, 0);
    CHECK_EQ_INT((int)w.db.chunks.n, 0);
    world_free(&w);
}

/* Parts cannot be made outside the rules: a DATA load needs the model's
 * load, creating its session, and the file's location; the files of one
 * model that would not fit one session with it are refused as they are
 * planned, before any is fetched; a part's manifest is version 4 and
 * carries no report. */
static void test_params_and_manifest(void) {
    world w;
    ok_load_params d, u;
    ok_load *l = NULL, *owner = NULL;
    world_init(&w);
    memset(&d, 0, sizeof d);
    d.source = OK_SOURCE_DATA;
    d.url = D1;
    d.part = "m.onnx_data";
    CHECK_EQ_INT(ok_load_new(w.pg.c, &d, &l), OK_ERR_INVALID_ARG); /* no owner */
    memset(&u, 0, sizeof u);
    u.source = OK_SOURCE_URL;
    u.raw = u.url = URL;
    CHECK_EQ_INT(ok_load_new(w.pg.c, &u, &owner), OK_OK);
    d.owner = owner;
    d.part = NULL;
    CHECK_EQ_INT(ok_load_new(w.pg.c, &d, &l), OK_ERR_INVALID_ARG); /* no part */
    d.part = "m.onnx_data";
    CHECK_EQ_INT(ok_load_new(w.pg.c, &d, &l), OK_ERR_STATE); /* not creating */
    ok_load_free(owner);
    /* past one session: the second file is refused when it is planned */
    w.pg.part_min[0] = OK_LOAD_MAX_SESSION_BYTES / 2;
    w.pg.part_min[1] = OK_LOAD_MAX_SESSION_BYTES / 2;
    fx_run(&w.pg,
           &(ok_load_params){.source = OK_SOURCE_URL, .raw = URL, .url = URL, .chunk_size = CS, .now = 1});
    CHECK(w.pg.failed);
    CHECK_EQ_INT(w.pg.part_fail_code, OK_ERR_LIMIT);
    CHECK_EQ_INT(w.d1.n_req + w.d2.n_req, 0);
    w.pg.part_min[0] = len_1;
    w.pg.part_min[1] = len_2 - 100;
    fx_run(&w.pg,
           &(ok_load_params){.source = OK_SOURCE_URL, .raw = URL, .url = URL, .chunk_size = CS, .now = 1});
    {
        size_t i;
        int seen = 0;
        for (i = 0; i < w.db.index.n; i++) {
            ok_manifest m;
            uint8_t *copy;
            size_t n = w.db.index.v[i].len;
            CHECK_EQ_INT(ok_manifest_decode(w.db.index.v[i].bytes, n, &m), OK_OK);
            if (m.flags & OK_EF_PART) {
                seen++;
                CHECK_EQ_INT(w.db.index.v[i].bytes[4], 4);
                CHECK_EQ_INT(m.report_len, 0);
                /* a part that claims a report is corrupt */
                m.report_len = 5;
                copy = malloc(ok_manifest_size(&m));
                CHECK(copy != NULL);
                CHECK_EQ_INT(ok_manifest_encode(&m, copy, ok_manifest_size(&m)), OK_OK);
                {
                    ok_manifest bad;
                    CHECK_EQ_INT(ok_manifest_decode(copy, ok_manifest_size(&m), &bad), OK_ERR_CORRUPT);
                }
                free(copy);
            } else {
                CHECK_EQ_INT(w.db.index.v[i].bytes[4], 2);
            }
            ok_manifest_free(&m);
        }
        CHECK_EQ_INT(seen, 2);
    }
    world_free(&w);
}

/* A model handed as bytes (never stored) whose data files are given by URL
 * (onnxruntime-web's externalData option): each file is loaded and adopted
 * with nothing to carry, the session gets every byte, nothing is stored. */
static void test_bytes_model_with_data_urls(void) {
    world w;
    ok_load_params p;
    world_init(&w);
    memset(&p, 0, sizeof p);
    p.source = OK_SOURCE_BYTES;
    p.bytes_len = len_a;
    p.chunk_size = CS;
    p.now = 1;
    fx_run(&w.pg, &p);
    CHECK(!w.pg.failed);
    CHECK_EQ_INT(w.pg.adopt_fail, 0);
    CHECK(served(&w.pg, model_a, len_a));
    CHECK_EQ_INT(w.pg.parts_mode, OK_PARTS_UNSTORED);
    CHECK_EQ_INT(w.d1.n_req > 0 && w.d2.n_req > 0, 1);
    CHECK_EQ_INT((int)w.db.index.n, 0);
    CHECK_EQ_INT((int)w.db.chunks.n, 0);
    world_free(&w);
}

int main(void) {
    model_a = fx_model(6 * CS + 77, 11, &len_a);
    model_b = fx_model(6 * CS + 91, 12, &len_b);
    data_1 = fx_model(9 * CS + 5, 13, &len_1); /* any bytes: data is not read */
    data_2 = fx_model(5 * CS, 14, &len_2);
    data_1b = fx_model(9 * CS + 8, 15, &len_1b);
    test_commit_together_and_hit();
    test_crash_after_every_write();
    test_staged_files_are_not_fetched_again();
    test_quota_fits_model_not_data();
    test_rotten_data_chunk();
    test_cut_data_resumes();
    test_bad_data_files();
    test_model_update_replaces_files();
    test_evicted_and_deleted_together();
    test_params_and_manifest();
    test_bytes_model_with_data_urls();
    free(model_a);
    free(model_b);
    free(data_1);
    free(data_2);
    free(data_1b);
    return CHECK_DONE();
}
