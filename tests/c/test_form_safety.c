/* Forms that are safe to turn on by default, against the fake browser:
 * a form is tied to every byte it was made from (the model's SHA-256 and
 * each data file's), so a data file that changes under a byte-identical
 * model makes its old form stale; and storing a form never evicts the
 * original it was made from (when both do not fit, the original stays and
 * the form is skipped with one QUOTA warning), while it may evict other
 * models as any write does. And cache: 'no-cache' revalidates each data
 * file as a plain no-cache fetch of it would, not only the model file. A
 * check that itself failed (on WebGPU: another session's run on the
 * device) is tried once more before it fails the tier for good, and a
 * "slower" verdict is tried again once it is OK_FORM_RETRY_SLOWER_MS old
 * (a test clock: the loads' `now`). */
#include "check.h"
#include "form_tiers.h"
#include "load_driver.h"

#define CS 4096u
#define URL "https://models.test/m.onnx"
#define URL_B "https://models.test/other.onnx"
#define D1 "https://models.test/m.onnx_data"
#define D2 "https://models.test/weights/b.bin"
#define KEY "url:" URL "|form:original"
#define CTX "ort=1.30.0;ep=wasm;level=all"

static uint8_t *model_a, *model_b, *opt_a, *data_1, *data_1b, *data_2;
static size_t len_a, len_b, len_opt, len_1, len_1b, len_2;
static uint8_t sha_a[32];

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

/* A page whose model has two data files (n_parts 2) or none (0). */
static void world_init(world *w, int n_parts) {
    memset(w, 0, sizeof *w);
    w->db.crash_after = -1;
    server(&w->srv, model_a, len_a, "\"m1\"");
    server(&w->d1, data_1, len_1, "\"d1\"");
    server(&w->d2, data_2, len_2, "\"d2\"");
    fx_page_init(&w->pg, &w->db, &w->srv, 0x7a11);
    w->pg.n_parts = n_parts;
    w->pg.part_loc[0] = "m.onnx_data";
    w->pg.part_url[0] = D1;
    w->pg.part_srv[0] = &w->d1;
    w->pg.part_min[0] = len_1;
    w->pg.part_loc[1] = "weights/b.bin";
    w->pg.part_url[1] = D2;
    w->pg.part_srv[1] = &w->d2;
    w->pg.part_min[1] = len_2;
    w->pg.create_us[OK_FORM_ONNX] = 100;
    w->pg.orig_create_us = 300;
    w->pg.form_bytes = opt_a;
    w->pg.form_len = len_opt;
}

static void world_free(world *w) {
    fx_page_close(&w->pg);
    db_free(&w->db);
}

static ok_load_params url_params(void) {
    ok_load_params p = fx_url_params(URL, CS);
    p.page_url = "https://models.test/app/";
    p.form_ctx = CTX;
    return p;
}

static ok_load_params form_params(void) {
    ok_load_params p;
    memset(&p, 0, sizeof p);
    p.source = OK_SOURCE_FORM;
    p.raw = KEY;
    p.url = URL;
    p.chunk_size = CS;
    p.now = 2000;
    p.form_ctx = CTX;
    p.form = OK_FORM_ONNX;
    p.source_sha256 = sha_a;
    p.bytes_len = len_opt;
    return p;
}

static void sha(const uint8_t *b, size_t n, uint8_t out[32]) {
    struct ok_sha256 h;
    ok_sha256_init(&h);
    ok_sha256_update(&h, b, n);
    ok_sha256_final(&h, out);
}

/* The committed form's record: its status (OK_FORM_NONE: none) and source. */
static uint32_t stored_form(fx_db *d, uint8_t source[32]) {
    size_t i;
    for (i = 0; i < d->index.n; i++) {
        ok_manifest m;
        uint32_t st;
        if (ok_manifest_decode(d->index.v[i].bytes, d->index.v[i].len, &m) != OK_OK) continue;
        if (m.form != OK_FORM_ONNX || m.state != OK_ENTRY_COMMITTED) {
            ok_manifest_free(&m);
            continue;
        }
        st = m.form_status;
        if (source) memcpy(source, m.source_sha256, 32);
        ok_manifest_free(&m);
        return st;
    }
    return OK_FORM_NONE;
}

/* Why the committed .onnx form failed (0: there is none). */
static int form_reason(fx_db *d, uint32_t *reason) {
    size_t i;
    for (i = 0; i < d->index.n; i++) {
        ok_manifest m;
        int found;
        if (ok_manifest_decode(d->index.v[i].bytes, d->index.v[i].len, &m) != OK_OK) continue;
        found = m.form == OK_FORM_ONNX && m.state == OK_ENTRY_COMMITTED;
        if (found) *reason = m.form_reason;
        ok_manifest_free(&m);
        if (found) return 1;
    }
    return 0;
}

static int committed_original(fx_db *d, const char *url) {
    size_t i;
    int n = 0;
    for (i = 0; i < d->index.n; i++) {
        ok_manifest m;
        if (ok_manifest_decode(d->index.v[i].bytes, d->index.v[i].len, &m) != OK_OK) continue;
        n += m.state == OK_ENTRY_COMMITTED && m.form == OK_FORM_ORIGINAL && !(m.flags & OK_EF_PART) &&
             strcmp(m.url, url) == 0;
        ok_manifest_free(&m);
    }
    return n;
}

/* The identity by hand: SHA-256 of the tag (with its NUL), the model's hash,
 * then each data file's location (with a NUL) and hash, in key order
 * ("m.onnx_data" sorts before "weights/b.bin"). */
static void expected_id(const uint8_t *d1, size_t n1, uint8_t out[32]) {
    static const char tag[] = "ortkeep form source v1";
    struct ok_sha256 h;
    uint8_t s1[32], s2[32];
    sha(d1, n1, s1);
    sha(data_2, len_2, s2);
    ok_sha256_init(&h);
    ok_sha256_update(&h, (const uint8_t *)tag, sizeof tag);
    ok_sha256_update(&h, sha_a, 32);
    ok_sha256_update(&h, (const uint8_t *)"m.onnx_data", sizeof "m.onnx_data");
    ok_sha256_update(&h, s1, 32);
    ok_sha256_update(&h, (const uint8_t *)"weights/b.bin", sizeof "weights/b.bin");
    ok_sha256_update(&h, s2, 32);
    ok_sha256_final(&h, out);
}

/* A model with no data files: a form's source is the model's own hash, as
 * before data files counted (forms stored then still serve). */
static void test_source_without_data_files(void) {
    world w;
    ok_load_params p = url_params(), f = form_params();
    uint8_t id[32], src[32];
    world_init(&w, 0);
    fx_run(&w.pg, &p);
    CHECK_EQ_INT(w.pg.capture, OK_FORM_ONNX);
    ok_form_source_id(w.pg.c, KEY, sha_a, id);
    CHECK(memcmp(id, sha_a, 32) == 0);
    fx_run(&w.pg, &f);
    CHECK_EQ_INT(stored_form(&w.db, src), OK_FORM_VERIFIED);
    CHECK(memcmp(src, sha_a, 32) == 0);
    fx_run(&w.pg, &p);
    CHECK_EQ_INT(w.pg.created_form, OK_FORM_ONNX);
    world_free(&w);
}

/* The form's source names every data file; when one changes on the server
 * (the model file byte-identical) and a reload stores it, the old form is
 * never served again: the original serves and a new form is asked for,
 * stored, and served. */
static void test_data_file_change_makes_form_stale(void) {
    world w;
    ok_load_params p = url_params(), f = form_params();
    uint8_t id[32], want[32], src[32];
    world_init(&w, 2);
    fx_run(&w.pg, &p);
    CHECK(w.pg.done && w.pg.parts_intact);
    CHECK_EQ_INT(w.pg.capture, OK_FORM_ONNX);
    ok_form_source_id(w.pg.c, KEY, sha_a, id);
    expected_id(data_1, len_1, want);
    CHECK(memcmp(id, want, 32) == 0);
    fx_run(&w.pg, &f);
    CHECK_EQ_INT(w.pg.verifies, 1);
    CHECK_EQ_INT(stored_form(&w.db, src), OK_FORM_VERIFIED);
    CHECK(memcmp(src, want, 32) == 0);
    fx_run(&w.pg, &p);
    CHECK_EQ_INT(w.pg.created_form, OK_FORM_ONNX);

    /* the server's first data file changes; a reload stores it */
    server(&w.d1, data_1b, len_1b, "\"d1b\"");
    w.pg.part_min[0] = len_1b;
    p.mode = OK_MODE_RELOAD;
    fx_run(&w.pg, &p);
    CHECK(w.pg.done && w.pg.parts_intact);
    CHECK_EQ_INT(w.pg.created_form, OK_FORM_ORIGINAL);
    p.mode = OK_MODE_DEFAULT;
    /* the stale form does not serve; the original does, and a new form is
     * asked for */
    w.srv.n_req = w.d1.n_req = w.d2.n_req = 0;
    fx_run(&w.pg, &p);
    CHECK(w.pg.done);
    CHECK_EQ_INT(w.pg.tier, OK_TIER_INDEXEDDB);
    CHECK_EQ_INT(w.pg.created_form, OK_FORM_ORIGINAL);
    CHECK_EQ_INT(w.pg.capture, OK_FORM_ONNX);
    CHECK_EQ_INT(w.srv.n_req + w.d1.n_req + w.d2.n_req, 0);
    expected_id(data_1b, len_1b, want);
    ok_form_source_id(w.pg.c, KEY, sha_a, id);
    CHECK(memcmp(id, want, 32) == 0);
    /* the new capture replaces the stale form, which the FORM load does
     * not mistake for a verdict on these bytes */
    fx_run(&w.pg, &f);
    CHECK_EQ_INT(w.pg.verifies, 1);
    CHECK_EQ_INT(stored_form(&w.db, src), OK_FORM_VERIFIED);
    CHECK(memcmp(src, want, 32) == 0);
    fx_run(&w.pg, &p);
    CHECK_EQ_INT(w.pg.created_form, OK_FORM_ONNX);
    world_free(&w);
}

/* Bytes handed to load() with their data files handed as bytes: the host
 * hashes each file and the core names them all in one id, whatever order
 * they come in, equal to the id of the same files stored beside a URL's
 * model; no data files: the model's own hash; a location twice: refused. */
static void test_given_source_id(void) {
    world w;
    ok_load_params p = url_params();
    uint8_t stored[32], given[32], again[32], s1[32], s2[32];
    const char *locs[] = {"weights/b.bin", "m.onnx_data"}, *twice[] = {"m.onnx_data", "m.onnx_data"};
    const uint8_t *shas[] = {s2, s1};
    world_init(&w, 2);
    fx_run(&w.pg, &p);
    CHECK(w.pg.done && w.pg.parts_intact);
    ok_form_source_id(w.pg.c, KEY, sha_a, stored);
    sha(data_1, len_1, s1);
    sha(data_2, len_2, s2);
    CHECK_EQ_INT(ok_form_given_source_id(sha_a, 2, locs, shas, given), OK_OK);
    CHECK(memcmp(given, stored, 32) == 0);
    locs[0] = "m.onnx_data";
    locs[1] = "weights/b.bin";
    shas[0] = s1;
    shas[1] = s2;
    CHECK_EQ_INT(ok_form_given_source_id(sha_a, 2, locs, shas, again), OK_OK);
    CHECK(memcmp(again, given, 32) == 0);
    /* one file's bytes other: another id */
    shas[0] = s2;
    CHECK_EQ_INT(ok_form_given_source_id(sha_a, 2, locs, shas, again), OK_OK);
    CHECK(memcmp(again, given, 32) != 0);
    CHECK_EQ_INT(ok_form_given_source_id(sha_a, 0, NULL, NULL, again), OK_OK);
    CHECK(memcmp(again, sha_a, 32) == 0);
    CHECK_EQ_INT(ok_form_given_source_id(sha_a, 2, twice, shas, again), OK_ERR_INVALID_ARG);
    /* past what a form can be made of, data is not worth hashing each load */
    CHECK(ok_form_names_given_data(0));
    CHECK(ok_form_names_given_data(OK_FORM_MAX_DATA_BYTES));
    CHECK(!ok_form_names_given_data(OK_FORM_MAX_DATA_BYTES + 1));
    world_free(&w);
}

/* Room for the original but not for it and its form: the form is skipped
 * with one QUOTA warning; the original stays and serves with no request. */
static void test_form_never_evicts_its_original(void) {
    world w;
    ok_load_params p = url_params(), f = form_params();
    world_init(&w, 2);
    fx_run(&w.pg, &p);
    CHECK(w.pg.done_flags & OK_DONE_STORED);
    w.db.quota = db_used(&w.db) + len_opt / 2;
    fx_run(&w.pg, &f);
    CHECK(w.pg.done);
    CHECK_EQ_INT(w.pg.n_warns, 1);
    CHECK_EQ_INT(w.pg.warns[0], OK_WARN_QUOTA);
    CHECK_EQ_INT(stored_form(&w.db, NULL), OK_FORM_NONE);
    CHECK_EQ_INT(committed_original(&w.db, URL), 1);
    w.srv.n_req = w.d1.n_req = w.d2.n_req = 0;
    fx_run(&w.pg, &p);
    CHECK(w.pg.done);
    CHECK_EQ_INT(w.pg.tier, OK_TIER_INDEXEDDB);
    CHECK_EQ_INT(w.srv.n_req + w.d1.n_req + w.d2.n_req, 0);
    world_free(&w);
}

/* The quota estimate lags (it says there is room), so the form's chunk
 * write is refused: the eviction that follows may not take the original
 * either. The form goes unstored with one QUOTA warning, its FORM load
 * reports no verdict (nothing was kept), and the original serves. */
static void test_refused_form_write_keeps_the_original(void) {
    world w;
    ok_load_params p = url_params(), f = form_params();
    ok_load *l = NULL;
    ok_load_info info;
    world_init(&w, 2);
    fx_run(&w.pg, &p);
    CHECK(w.pg.done_flags & OK_DONE_STORED);
    w.db.quota = db_used(&w.db) + len_opt / 2;
    w.db.estimate_slack = 2 * (uint64_t)len_opt;
    fx_run_load(&w.pg, &f, &l);
    CHECK(w.pg.done);
    CHECK(l != NULL);
    if (l) {
        CHECK_EQ_INT(ok_load_info_get(l, &info), OK_OK);
        CHECK_EQ_INT(info.form_status, OK_FORM_NONE);
        ok_load_free(l);
    }
    CHECK_EQ_INT(w.pg.n_warns, 1);
    CHECK_EQ_INT(w.pg.warns[0], OK_WARN_QUOTA);
    CHECK_EQ_INT(stored_form(&w.db, NULL), OK_FORM_NONE);
    CHECK_EQ_INT(committed_original(&w.db, URL), 1);
    w.srv.n_req = w.d1.n_req = w.d2.n_req = 0;
    fx_run(&w.pg, &p);
    CHECK_EQ_INT(w.pg.tier, OK_TIER_INDEXEDDB);
    CHECK_EQ_INT(w.srv.n_req + w.d1.n_req + w.d2.n_req, 0);
    world_free(&w);
}

/* The same write of a form may evict another model (least recently used)
 * to make room, never its own original. */
static void test_form_evicts_other_models(void) {
    world w;
    ok_load_params p = url_params(), f = form_params(), b = fx_url_params(URL_B, CS);
    fx_server other;
    world_init(&w, 0);
    server(&other, model_b, len_b, "\"b1\"");
    w.pg.srv = &other;
    b.now = 500; /* used before the model whose form is stored */
    fx_run(&w.pg, &b);
    CHECK(w.pg.done_flags & OK_DONE_STORED);
    w.pg.srv = &w.srv;
    fx_run(&w.pg, &p);
    CHECK(w.pg.done_flags & OK_DONE_STORED);
    w.db.quota = db_used(&w.db) + len_opt / 2;
    fx_run(&w.pg, &f);
    CHECK(w.pg.done);
    CHECK_EQ_INT(w.pg.n_warns, 0);
    CHECK_EQ_INT(stored_form(&w.db, NULL), OK_FORM_VERIFIED);
    CHECK_EQ_INT(committed_original(&w.db, URL), 1);
    CHECK_EQ_INT(committed_original(&w.db, URL_B), 0);
    world_free(&w);
}

/* no-cache revalidates every file: each gets a conditional request; a 304
 * serves the stored copy, a data file that changed under a byte-identical
 * model is fetched, served and stored in place of the old one. */
static void test_no_cache_revalidates_data_files(void) {
    world w;
    ok_load_params p = url_params();
    p.form_ctx = NULL;
    world_init(&w, 2);
    fx_run(&w.pg, &p);
    CHECK(w.pg.done_flags & OK_DONE_STORED);
    p.mode = OK_MODE_NO_CACHE;
    w.srv.n_req = w.d1.n_req = w.d2.n_req = 0;
    fx_run(&w.pg, &p);
    CHECK(w.pg.done && w.pg.parts_intact);
    CHECK_EQ_INT(w.pg.tier, OK_TIER_INDEXEDDB);
    CHECK_EQ_INT(w.d1.n_req, 1);
    CHECK_EQ_INT(w.d2.n_req, 1);
    CHECK(w.d1.req[0].flags & OK_FETCH_CONDITIONAL);
    CHECK_EQ_STR(w.d1.req[0].inm, "\"d1\"");
    CHECK_EQ_INT(w.pg.part_tier[0], OK_TIER_INDEXEDDB);
    CHECK_EQ_INT(w.pg.part_tier[1], OK_TIER_INDEXEDDB);
    /* the first data file changes on the server; the model does not */
    server(&w.d1, data_1b, len_1b, "\"d1b\"");
    w.pg.part_min[0] = len_1b;
    w.srv.n_req = w.d2.n_req = 0;
    fx_run(&w.pg, &p);
    CHECK(w.pg.done && w.pg.parts_intact); /* the new bytes were served */
    CHECK_EQ_INT(w.pg.tier, OK_TIER_INDEXEDDB);
    CHECK_EQ_INT(w.pg.part_tier[0], OK_TIER_NETWORK);
    CHECK_EQ_INT(w.pg.part_tier[1], OK_TIER_INDEXEDDB);
    /* and stored: the next default load reads them with no request */
    p.mode = OK_MODE_DEFAULT;
    w.srv.n_req = w.d1.n_req = w.d2.n_req = 0;
    fx_run(&w.pg, &p);
    CHECK(w.pg.done && w.pg.parts_intact);
    CHECK_EQ_INT(w.pg.part_tier[0], OK_TIER_INDEXEDDB);
    CHECK_EQ_INT(w.srv.n_req + w.d1.n_req + w.d2.n_req, 0);
    CHECK_EQ_INT(fx_count_state(&w.db, OK_ENTRY_COMMITTED), 3);
    world_free(&w);
}

/* Flips a byte of chunk `idx` of the stored data file whose key ends in
 * `loc` (a record rotten at rest: its XXH3 fails on read). */
static int rot_part_chunk(fx_db *d, const char *loc, uint32_t idx) {
    size_t i, n = strlen(loc);
    int flipped = 0;
    for (i = 0; i < d->index.n && !flipped; i++) {
        ok_manifest m;
        size_t k;
        if (ok_manifest_decode(d->index.v[i].bytes, d->index.v[i].len, &m) != OK_OK) continue;
        k = strlen(m.key);
        if ((m.flags & OK_EF_PART) && m.state == OK_ENTRY_COMMITTED && k >= n &&
            strcmp(m.key + k - n, loc) == 0) {
            fx_rec *r = fs_find(&d->chunks, d->index.v[i].name, idx);
            if (r) {
                r->bytes[7] ^= 0x20;
                flipped = 1;
            }
        }
        ok_manifest_free(&m);
    }
    return flipped;
}

static int served_bytes(const fx_page *pg, const uint8_t *b, size_t n) {
    return pg->served && pg->served_len == n && memcmp(pg->served, b, n) == 0;
}

static int noted(const fx_page *pg, uint32_t note, uint32_t reason) {
    int i;
    for (i = 0; i < pg->n_notes; i++)
        if (pg->notes[i] == note && pg->note_reasons[i] == reason) return 1;
    return 0;
}

/* A stored form chosen at the lookup, then a data file of its original
 * fetched again under it (a rotten chunk) with other bytes: the server
 * changed the file. The form folded the old file's weights, so no session
 * is made of it: it is retired (FORM_DROPPED, FORM_STALE), the original
 * serves with the new bytes in the same load and a new form is asked for;
 * the next load serves the original too (no request), and the new form,
 * once verified, serves after. */
static void test_refetched_data_file_retires_form(void) {
    world w;
    ok_load_params p = url_params(), f = form_params();
    uint8_t want[32], src[32];
    world_init(&w, 2);
    fx_run(&w.pg, &p);
    fx_run(&w.pg, &f);
    CHECK_EQ_INT(stored_form(&w.db, NULL), OK_FORM_VERIFIED);
    fx_run(&w.pg, &p);
    CHECK_EQ_INT(w.pg.created_form, OK_FORM_ONNX);

    server(&w.d1, data_1b, len_1b, "\"d1b\"");
    w.pg.part_min[0] = len_1b;
    CHECK(rot_part_chunk(&w.db, "|data:m.onnx_data", 2));
    w.srv.n_req = w.d1.n_req = w.d2.n_req = 0;
    fx_run(&w.pg, &p);
    CHECK(w.pg.done && w.pg.parts_intact); /* the new bytes */
    CHECK(fx_warned(&w.pg, OK_WARN_CORRUPT));
    CHECK(noted(&w.pg, OK_NOTE_FORM_DROPPED, OK_REASON_FORM_STALE));
    CHECK_EQ_INT(w.pg.sessions, 1);
    CHECK_EQ_INT(w.pg.created_form, OK_FORM_ORIGINAL);
    CHECK(served_bytes(&w.pg, model_a, len_a));
    CHECK_EQ_INT(w.pg.capture, OK_FORM_ONNX);
    CHECK_EQ_INT(w.srv.n_req, 0);
    CHECK_EQ_INT(w.d1.n_req, 1);
    CHECK_EQ_INT(w.d2.n_req, 0);
    CHECK_EQ_INT(stored_form(&w.db, NULL), OK_FORM_NONE); /* retired */

    w.d1.n_req = 0;
    fx_run(&w.pg, &p);
    CHECK(w.pg.done && w.pg.parts_intact);
    CHECK_EQ_INT(w.pg.created_form, OK_FORM_ORIGINAL);
    CHECK_EQ_INT(w.pg.n_notes, 0);
    CHECK_EQ_INT(w.srv.n_req + w.d1.n_req + w.d2.n_req, 0);

    fx_run(&w.pg, &f);
    CHECK_EQ_INT(stored_form(&w.db, src), OK_FORM_VERIFIED);
    expected_id(data_1b, len_1b, want);
    CHECK(memcmp(src, want, 32) == 0);
    fx_run(&w.pg, &p);
    CHECK(w.pg.done && w.pg.parts_intact);
    CHECK_EQ_INT(w.pg.created_form, OK_FORM_ONNX);
    world_free(&w);
}

/* A rotten data chunk fetched again with the very bytes the form was made
 * from: the form is still theirs and serves in the same load. */
static void test_refetched_same_data_keeps_form(void) {
    world w;
    ok_load_params p = url_params(), f = form_params();
    world_init(&w, 2);
    fx_run(&w.pg, &p);
    fx_run(&w.pg, &f);
    CHECK(rot_part_chunk(&w.db, "|data:weights/b.bin", 1));
    w.srv.n_req = w.d1.n_req = w.d2.n_req = 0;
    fx_run(&w.pg, &p);
    CHECK(w.pg.done && w.pg.parts_intact);
    CHECK(fx_warned(&w.pg, OK_WARN_CORRUPT));
    CHECK_EQ_INT(w.d2.n_req, 1);
    CHECK_EQ_INT(w.pg.created_form, OK_FORM_ONNX);
    CHECK_EQ_INT(w.pg.n_notes, 0);
    CHECK_EQ_INT(stored_form(&w.db, NULL), OK_FORM_VERIFIED);
    world_free(&w);
}

/* no-cache finding a data file changed: such a load never serves a form
 * (only default and only-if-cached loads do), it stores the new file, and
 * the old form is stale from then on: the next default load serves the
 * original and asks for a new form. */
static void test_no_cache_changed_data_skips_form(void) {
    world w;
    ok_load_params p = url_params(), f = form_params();
    world_init(&w, 2);
    fx_run(&w.pg, &p);
    fx_run(&w.pg, &f);
    server(&w.d1, data_1b, len_1b, "\"d1b\"");
    w.pg.part_min[0] = len_1b;
    p.mode = OK_MODE_NO_CACHE;
    fx_run(&w.pg, &p);
    CHECK(w.pg.done && w.pg.parts_intact);
    CHECK_EQ_INT(w.pg.part_tier[0], OK_TIER_NETWORK);
    CHECK_EQ_INT(w.pg.created_form, OK_FORM_ORIGINAL);
    p.mode = OK_MODE_DEFAULT;
    fx_run(&w.pg, &p);
    CHECK(w.pg.done && w.pg.parts_intact);
    CHECK_EQ_INT(w.pg.created_form, OK_FORM_ORIGINAL);
    CHECK_EQ_INT(w.pg.capture, OK_FORM_ONNX);
    world_free(&w);
}

/* The check itself failing once (VERDICT_FAILED) leaves an INTERRUPTED
 * tombstone that neither serves nor escalates: the next load captures the
 * same tier and checks it again. A second failure fails the tier for good
 * (SESSION, .ort next); a check that passes the second time keeps it. */
static void test_interrupted_check_is_retried_once(void) {
    world w;
    ok_load_params p = url_params(), f = form_params();
    uint32_t reason;
    int i;
    for (i = 0; i < 2; i++) {
        world_init(&w, 0);
        fx_run(&w.pg, &p);
        CHECK_EQ_INT(w.pg.capture, OK_FORM_ONNX);
        w.pg.verdict = OK_VERDICT_FAILED;
        fx_run(&w.pg, &f);
        CHECK_EQ_INT(w.pg.verifies, 1);
        CHECK_EQ_INT(stored_form(&w.db, NULL), OK_FORM_FAILED);
        CHECK(form_reason(&w.db, &reason) && reason == OK_REASON_FORM_INTERRUPTED);
        CHECK_EQ_INT(w.pg.n_notes, 0); /* not escalated */
        fx_run(&w.pg, &p);
        CHECK_EQ_INT(w.pg.created_form, OK_FORM_ORIGINAL);
        CHECK_EQ_INT(w.pg.capture, OK_FORM_ONNX); /* the same tier again */
        w.pg.verdict = i == 0 ? OK_VERDICT_FAILED : OK_VERDICT_EQUAL;
        fx_run(&w.pg, &f);
        CHECK_EQ_INT(w.pg.verifies, 1);
        if (i == 0) {
            CHECK_EQ_INT(stored_form(&w.db, NULL), OK_FORM_FAILED);
            CHECK(form_reason(&w.db, &reason) && reason == OK_REASON_SESSION);
            CHECK_EQ_INT(w.pg.n_notes, 1);
            CHECK_EQ_INT(w.pg.notes[0], OK_NOTE_FORM_ESCALATED);
            fx_run(&w.pg, &p);
            CHECK_EQ_INT(w.pg.capture, OK_FORM_ORT);
        } else {
            CHECK_EQ_INT(stored_form(&w.db, NULL), OK_FORM_VERIFIED);
            fx_run(&w.pg, &p);
            CHECK_EQ_INT(w.pg.created_form, OK_FORM_ONNX);
        }
        world_free(&w);
    }
}

/* A form measured slower than its original is a tombstone, and stays one
 * (nothing captured) until OK_FORM_RETRY_SLOWER_MS after that verdict; then
 * the tier is captured and judged again: kept if it is faster now. */
static void test_slower_verdict_is_retried_after_a_while(void) {
    world w;
    ok_load_params p = url_params(), f = form_params();
    uint32_t reason;
    const uint64_t judged = 5000;
    world_init(&w, 0);
    fx_run(&w.pg, &p);
    w.pg.create_us[OK_FORM_ONNX] = 400; /* slower than the original's 300 */
    f.now = judged;
    fx_run(&w.pg, &f);
    CHECK(form_reason(&w.db, &reason) && reason == OK_REASON_FORM_SLOWER);
    /* .ort is tried next and fails too (its bytes are no .ort file): every
     * tier failed */
    fx_run(&w.pg, &p);
    CHECK_EQ_INT(w.pg.capture, OK_FORM_ORT);
    f.form = OK_FORM_ORT;
    fx_run(&w.pg, &f);
    p.now = judged + OK_FORM_RETRY_SLOWER_MS - 1;
    fx_run(&w.pg, &p);
    CHECK_EQ_INT(w.pg.capture, OK_FORM_ORIGINAL); /* not yet */
    /* a week later the .onnx tier is captured and judged again: faster now */
    p.now = judged + OK_FORM_RETRY_SLOWER_MS;
    fx_run(&w.pg, &p);
    CHECK_EQ_INT(w.pg.capture, OK_FORM_ONNX);
    w.pg.create_us[OK_FORM_ONNX] = 100;
    f = form_params();
    f.now = p.now;
    fx_run(&w.pg, &f);
    CHECK_EQ_INT(w.pg.verifies, 1);
    CHECK_EQ_INT(stored_form(&w.db, NULL), OK_FORM_VERIFIED);
    fx_run(&w.pg, &p);
    CHECK_EQ_INT(w.pg.created_form, OK_FORM_ONNX);
    world_free(&w);
}

int main(void) {
    model_a = fx_model(10 * CS + 123, 21, &len_a);
    model_b = fx_model(8 * CS + 5, 22, &len_b);
    opt_a = fx_model(12 * CS + 77, 23, &len_opt); /* a form bigger than its original */
    data_1 = fx_model(6 * CS + 5, 24, &len_1);    /* any bytes: data is not read */
    data_1b = fx_model(6 * CS + 5, 25, &len_1b);
    data_2 = fx_model(3 * CS, 26, &len_2);
    sha(model_a, len_a, sha_a);
    test_source_without_data_files();
    test_data_file_change_makes_form_stale();
    test_given_source_id();
    test_form_never_evicts_its_original();
    test_refused_form_write_keeps_the_original();
    test_form_evicts_other_models();
    test_no_cache_revalidates_data_files();
    test_refetched_data_file_retires_form();
    test_refetched_same_data_keeps_form();
    test_no_cache_changed_data_skips_form();
    test_interrupted_check_is_retried_once();
    test_slower_verdict_is_retried_after_a_while();
    free(model_a);
    free(model_b);
    free(opt_a);
    free(data_1);
    free(data_1b);
    free(data_2);
    return CHECK_DONE();
}
