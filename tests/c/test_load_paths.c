/* Every path of the load machine against the fake browser: hits and
 * misses, servers that misbehave (HTML fallbacks, error statuses, cuts,
 * short and long bodies, compressed, chunked and CORS responses, ranges
 * answered wrongly, a model swapped under a resume), integrity, stored
 * copies that rot, quota, a database that closes or fails, aborts in every
 * state, the fetch modes and the non-URL sources. Each checks what the
 * caller got and what the store holds after. */
#include "check.h"
#include "load_driver.h"
#include "sha512.h"

#define CS 4096u
#define URL "https://models.test/m.onnx"

static uint8_t *model_a, *model_b;
static size_t len_a, len_b;

static ok_load_params url_params(void) {
    ok_load_params p;
    memset(&p, 0, sizeof p);
    p.source = OK_SOURCE_URL;
    p.raw = URL;
    p.url = URL;
    p.page_url = "https://models.test/app/";
    p.chunk_size = CS;
    p.now = 1000;
    return p;
}

typedef struct {
    fx_db db;
    fx_server srv;
    fx_page pg;
} world;

static void world_init(world *w, const uint8_t *bytes, size_t len, const char *etag, const char *lm) {
    memset(w, 0, sizeof *w);
    w->db.crash_after = -1;
    w->srv.bytes = bytes;
    w->srv.len = len;
    w->srv.every.cut_at = -1;
    if (etag) snprintf(w->srv.etag, sizeof w->srv.etag, "%s", etag);
    if (lm) snprintf(w->srv.lm, sizeof w->srv.lm, "%s", lm);
    fx_page_init(&w->pg, &w->db, &w->srv, 0x1234);
}

static void world_free(world *w) {
    fx_page_close(&w->pg);
    db_free(&w->db);
}

/* The tab died; a new page opens the same store: the crash lifted, the
 * server's requests counted afresh. */
static void reopen_after_crash(world *w, uint64_t seed) {
    fx_page_close(&w->pg);
    w->db.crashed = 0;
    w->db.crash_after = -1;
    w->srv.n_req = 0;
    fx_page_init(&w->pg, &w->db, &w->srv, seed);
}

static void plan(world *w, int n, fx_reply r) {
    if (r.cut_at == 0) r.cut_at = -1;
    w->srv.plan[n] = r;
    w->srv.planned[n] = 1;
}

static int served(const fx_page *pg, const uint8_t *b, size_t n) {
    return pg->done && pg->served && pg->served_len == n && memcmp(pg->served, b, n) == 0;
}

static void check_clean(world *w, const uint8_t *bytes, size_t len) {
    CHECK(!w->pg.stuck);
    CHECK(!w->pg.crashed);
    CHECK(fx_store_serves(&w->db, bytes, len));
    CHECK_EQ_INT(fx_orphans(&w->db), 0);
    CHECK_EQ_INT(w->pg.sessions - w->pg.released, w->pg.done ? 1 : 0);
}

static void test_miss_then_hit(void) {
    world w;
    ok_load_params p = url_params();
    fx_page other;
    world_init(&w, model_a, len_a, "\"v1\"", "Tue, 01 Dec 2026 00:00:00 GMT");
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, model_a, len_a));
    CHECK_EQ_INT(w.pg.tier, OK_TIER_NETWORK);
    CHECK(w.pg.done_flags & OK_DONE_STORED);
    CHECK_EQ_INT(w.srv.n_req, 1);
    CHECK_EQ_INT(fx_count_state(&w.db, OK_ENTRY_COMMITTED), 1);
    CHECK_EQ_INT(w.db.chunks.n, (len_a + CS - 1) / CS);
    CHECK_EQ_INT(w.db.meta.n, 1);
    check_clean(&w, model_a, len_a);
    /* second load: IndexedDB, verified, no request */
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, model_a, len_a));
    CHECK_EQ_INT(w.pg.tier, OK_TIER_INDEXEDDB);
    CHECK(w.pg.done_flags & OK_DONE_VERIFIED);
    CHECK_EQ_INT(w.srv.n_req, 1);
    /* another tab (its own index, the same stores) hits too */
    fx_page_init(&other, &w.db, &w.srv, 0x9999);
    fx_run(&other, &p);
    CHECK(served(&other, model_a, len_a));
    CHECK_EQ_INT(other.tier, OK_TIER_INDEXEDDB);
    CHECK_EQ_INT(w.srv.n_req, 1);
    fx_page_close(&other);
    check_clean(&w, model_a, len_a);
    world_free(&w);
}

static void test_html_fallback_never_stored(void) {
    world w;
    ok_load_params p = url_params();
    fx_reply spa = {0};
    world_init(&w, model_a, len_a, "\"v1\"", NULL);
    spa.html = 1;
    w.srv.every = spa;
    w.srv.every.cut_at = -1;
    fx_run(&w.pg, &p);
    CHECK(w.pg.failed);
    CHECK_EQ_INT(w.pg.fail_code, OK_ERR_NOT_ONNX);
    CHECK_EQ_INT(w.pg.fail_reason, OK_REASON_HTML);
    CHECK_EQ_INT(w.db.index.n, 0);
    CHECK_EQ_INT(w.db.chunks.n, 0);
    CHECK_EQ_INT(w.srv.n_req, 1);
    /* fixed server: the next load downloads and stores the model */
    w.srv.every.html = 0;
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, model_a, len_a));
    CHECK_EQ_INT(w.pg.tier, OK_TIER_NETWORK);
    check_clean(&w, model_a, len_a);
    world_free(&w);
}

static void test_statuses(void) {
    world w;
    ok_load_params p = url_params();
    fx_reply r = {0};
    world_init(&w, model_a, len_a, "\"v1\"", NULL);
    r.status = 404;
    w.srv.every = r;
    w.srv.every.cut_at = -1;
    fx_run(&w.pg, &p);
    CHECK_EQ_INT(w.pg.fail_code, OK_ERR_NETWORK);
    CHECK_EQ_INT(w.pg.fail_reason, OK_REASON_HTTP_STATUS);
    CHECK_EQ_INT(w.pg.fail_number, 404);
    CHECK_EQ_INT(w.srv.n_req, 1); /* a 404 is not retried */
    CHECK_EQ_INT(w.db.index.n, 0);
    world_free(&w);

    /* a 503 is retried after a back-off */
    world_init(&w, model_a, len_a, "\"v1\"", NULL);
    r.status = 503;
    plan(&w, 0, r);
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, model_a, len_a));
    CHECK(fx_warned(&w.pg, OK_WARN_RETRYING));
    CHECK_EQ_INT(w.srv.n_req, 2);
    check_clean(&w, model_a, len_a);
    world_free(&w);

    /* offline: a bounded number of tries, then NETWORK */
    world_init(&w, model_a, len_a, "\"v1\"", NULL);
    memset(&r, 0, sizeof r);
    r.fetch_fails = 1;
    w.srv.every = r;
    w.srv.every.cut_at = -1;
    fx_run(&w.pg, &p);
    CHECK_EQ_INT(w.pg.fail_code, OK_ERR_NETWORK);
    CHECK_EQ_INT(w.pg.fail_reason, OK_REASON_FETCH_FAILED);
    CHECK_EQ_INT(w.srv.n_req, OK_LOAD_MAX_FETCHES);
    CHECK_EQ_INT(w.db.index.n, 0);
    world_free(&w);
}

/* A body cut at half of model_a was resumed by one Range from the last
 * whole chunk before the cut, served and stored whole. */
static void check_resumed_at_half(world *w) {
    CHECK(served(&w->pg, model_a, len_a));
    CHECK(fx_warned(&w->pg, OK_WARN_RESUMING));
    CHECK_EQ_INT(w->srv.n_req, 2);
    CHECK_EQ_INT(w->srv.req[1].flags & OK_FETCH_RANGE, OK_FETCH_RANGE);
    CHECK_EQ_INT(w->srv.req[1].from, (len_a / 2) / CS * CS);
    check_clean(w, model_a, len_a);
}

/* A cut with a strong ETag resumes by Range from the last whole chunk. */
static void test_cut_resumes_with_strong_etag(void) {
    world w;
    ok_load_params p = url_params();
    fx_reply cut = {0};
    world_init(&w, model_a, len_a, "\"v1\"", NULL);
    cut.cut_at = (int)(len_a / 2);
    plan(&w, 0, cut);
    fx_run(&w.pg, &p);
    check_resumed_at_half(&w);
    CHECK_EQ_INT(w.srv.req[1].flags & OK_FETCH_CONDITIONAL, 0);
    {
        /* the content hash survives the resume: the cut fell mid-piece,
         * and bytes past the last chunk boundary are hashed once */
        ok_manifest m;
        uint8_t want[32];
        ok_sha256(model_a, len_a, want);
        CHECK_EQ_INT(ok_manifest_decode(w.db.index.v[0].bytes, w.db.index.v[0].len, &m), OK_OK);
        CHECK(memcmp(m.sha256, want, 32) == 0);
        ok_manifest_free(&m);
    }
    world_free(&w);

    /* ended early, cleanly: the same */
    world_init(&w, model_a, len_a, "\"v1\"", NULL);
    memset(&cut, 0, sizeof cut);
    cut.short_by = 5000;
    plan(&w, 0, cut);
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, model_a, len_a));
    CHECK_EQ_INT(w.srv.n_req, 2);
    CHECK(w.srv.req[1].from > 0);
    check_clean(&w, model_a, len_a);
    world_free(&w);
}

/* Last-Modified only: a resume could splice two versions, so it refetches
 * from 0 -- also when the server swapped in a same-size model. */
static void test_cut_without_strong_validator_refetches(void) {
    world w;
    ok_load_params p = url_params();
    fx_reply cut = {0}, swapped = {0};
    world_init(&w, model_a, len_a, NULL, "Tue, 01 Dec 2026 00:00:00 GMT");
    cut.cut_at = (int)(len_a / 2);
    plan(&w, 0, cut);
    swapped.bytes = model_b;
    swapped.len = len_b; /* same size, same Last-Modified */
    plan(&w, 1, swapped);
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, model_b, len_b));
    CHECK_EQ_INT(w.srv.n_req, 2);
    CHECK_EQ_INT(w.srv.req[1].from, 0);
    CHECK_EQ_INT(w.srv.req[1].flags & OK_FETCH_RANGE, 0);
    CHECK(fx_store_serves(&w.db, model_b, len_b));
    world_free(&w);

    /* a weak ETag is no better */
    world_init(&w, model_a, len_a, "W/\"v1\"", NULL);
    plan(&w, 0, cut);
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, model_a, len_a));
    CHECK_EQ_INT(w.srv.req[1].flags & OK_FETCH_RANGE, 0);
    world_free(&w);
}

/* The server changed the model (new strong ETag) between the cut and the
 * resume: the 206 does not continue what is stored -> plain refetch. */
static void test_resume_of_changed_model(void) {
    world w;
    ok_load_params p = url_params();
    fx_reply cut = {0};
    world_init(&w, model_a, len_a, "\"v1\"", NULL);
    cut.cut_at = (int)(len_a / 2);
    plan(&w, 0, cut);
    w.db.crash_after = 4; /* marker + 3 chunks, then the tab dies */
    fx_run(&w.pg, &p);
    CHECK(w.pg.crashed);
    fx_page_close(&w.pg);
    w.db.crashed = 0;
    w.db.crash_after = -1;
    /* a new page; the server now has model_b under a new ETag */
    w.srv.bytes = model_b;
    w.srv.len = len_b;
    snprintf(w.srv.etag, sizeof w.srv.etag, "\"v2\"");
    w.srv.n_req = 0;
    memset(w.srv.planned, 0, sizeof w.srv.planned);
    fx_page_init(&w.pg, &w.db, &w.srv, 0x77);
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, model_b, len_b));
    CHECK_EQ_INT(w.srv.n_req, 2); /* the Range, then a plain GET */
    CHECK_EQ_INT(w.srv.req[0].flags & OK_FETCH_RANGE, OK_FETCH_RANGE);
    CHECK_EQ_INT(w.srv.req[0].from, 3 * CS);
    CHECK_EQ_INT(w.srv.req[1].from, 0);
    check_clean(&w, model_b, len_b);
    CHECK_EQ_INT(fx_count_state(&w.db, OK_ENTRY_PENDING), 0);
    world_free(&w);
}

/* The tab dies after the marker and 4 chunks of model_a; the next page
 * (seed) re-reads them and asks only for the rest: served, one request. */
static void crash_then_resume(world *w, const ok_load_params *p, uint64_t seed) {
    w->db.crash_after = 5; /* marker + 4 chunks */
    fx_run(&w->pg, p);
    CHECK(w->pg.crashed);
    CHECK_EQ_INT(fx_count_state(&w->db, OK_ENTRY_PENDING), 1);
    reopen_after_crash(w, seed);
    fx_run(&w->pg, p);
    CHECK(served(&w->pg, model_a, len_a));
    CHECK_EQ_INT(w->srv.n_req, 1);
    CHECK_EQ_INT(w->srv.req[0].from, 4 * CS);
}

/* A crashed download is resumed by the next page: stored prefix re-read and
 * checked, only the rest requested. */
static void test_resume_after_crash(void) {
    world w;
    ok_load_params p = url_params();
    world_init(&w, model_a, len_a, "\"v1\"", NULL);
    crash_then_resume(&w, &p, 0x78);
    CHECK(fx_warned(&w.pg, OK_WARN_RESUMING));
    check_clean(&w, model_a, len_a);
    CHECK_EQ_INT(fx_count_state(&w.db, OK_ENTRY_PENDING), 0);
    world_free(&w);
}

static void test_wrong_ranges(void) {
    world w;
    ok_load_params p = url_params();
    fx_reply cut = {0}, r = {0};
    /* the server ignores Range and answers 200: that body is used, no
     * third request */
    world_init(&w, model_a, len_a, "\"v1\"", NULL);
    cut.cut_at = (int)(len_a / 2);
    plan(&w, 0, cut);
    r.ignore_range = 1;
    plan(&w, 1, r);
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, model_a, len_a));
    CHECK_EQ_INT(w.srv.n_req, 2);
    check_clean(&w, model_a, len_a);
    world_free(&w);

    /* a 206 from byte 0 to a Range request: doubt -> plain GET */
    world_init(&w, model_a, len_a, "\"v1\"", NULL);
    plan(&w, 0, cut);
    memset(&r, 0, sizeof r);
    r.range_from0 = 1;
    plan(&w, 1, r);
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, model_a, len_a));
    CHECK_EQ_INT(w.srv.n_req, 3);
    CHECK_EQ_INT(w.srv.req[2].from, 0);
    check_clean(&w, model_a, len_a);
    world_free(&w);

    /* a 206 holding the whole resource to a plain GET is the model */
    world_init(&w, model_a, len_a, "\"v1\"", NULL);
    w.srv.every.range_from0 = 1;
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, model_a, len_a));
    CHECK_EQ_INT(w.srv.n_req, 1);
    check_clean(&w, model_a, len_a);
    world_free(&w);

    /* more bytes than Content-Length: refused, nothing stored */
    world_init(&w, model_a, len_a, "\"v1\"", NULL);
    w.srv.every.long_by = 100;
    fx_run(&w.pg, &p);
    CHECK(w.pg.failed);
    CHECK_EQ_INT(w.pg.fail_code, OK_ERR_NETWORK);
    CHECK_EQ_INT(w.pg.fail_reason, OK_REASON_LONG_BODY);
    CHECK_EQ_INT(fx_count_state(&w.db, OK_ENTRY_COMMITTED), 0);
    world_free(&w);
}

/* Responses whose size is not known before the body: stored as they
 * stream, one request, never resumed by range. */
static void test_unknown_sizes(void) {
    static const struct { int gzip, chunked, cors; } kinds[] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}};
    size_t k;
    for (k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        world w;
        ok_load_params p = url_params();
        fx_reply cut = {0};
        world_init(&w, model_a, len_a, "\"v1\"", NULL);
        w.srv.every.gzip = kinds[k].gzip;
        w.srv.every.chunked = kinds[k].chunked;
        w.srv.every.cors = kinds[k].cors;
        fx_run(&w.pg, &p);
        CHECK(served(&w.pg, model_a, len_a));
        CHECK(w.pg.done_flags & OK_DONE_STORED);
        CHECK_EQ_INT(w.srv.n_req, 1);
        check_clean(&w, model_a, len_a);
        fx_run(&w.pg, &p);
        CHECK_EQ_INT(w.pg.tier, OK_TIER_INDEXEDDB);
        CHECK(served(&w.pg, model_a, len_a));
        world_free(&w);

        /* cut: retried from 0, never by range */
        world_init(&w, model_a, len_a, "\"v1\"", NULL);
        cut = w.srv.every;
        cut.gzip = kinds[k].gzip;
        cut.chunked = kinds[k].chunked;
        cut.cors = kinds[k].cors;
        w.srv.every = cut;
        cut.cut_at = (int)(len_a / 2);
        plan(&w, 0, cut);
        fx_run(&w.pg, &p);
        CHECK(served(&w.pg, model_a, len_a));
        CHECK_EQ_INT(w.srv.n_req, 2);
        CHECK_EQ_INT(w.srv.req[1].flags & OK_FETCH_RANGE, 0);
        check_clean(&w, model_a, len_a);
        world_free(&w);
    }
}

/* "alg-<base64>" of the bytes' digest (alg 256, 384 or 512). */
static void sri(int alg, const uint8_t *b, size_t n, char *out) {
    static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    uint8_t d[64];
    size_t i, o, nb = alg == 256 ? 32 : alg == 384 ? 48 : 64;
    if (alg == 256) ok_sha256(b, n, d);
    else if (alg == 384) ok_sha384(b, n, d);
    else ok_sha512(b, n, d);
    o = (size_t)sprintf(out, "sha%d-", alg);
    for (i = 0; i < nb; i += 3) {
        uint32_t v =
            (uint32_t)d[i] << 16 | (i + 1 < nb ? (uint32_t)d[i + 1] << 8 : 0) | (i + 2 < nb ? d[i + 2] : 0);
        out[o++] = t[v >> 18 & 63];
        out[o++] = t[v >> 12 & 63];
        out[o++] = i + 1 < nb ? t[v >> 6 & 63] : '=';
        out[o++] = i + 2 < nb ? t[v & 63] : '=';
    }
    out[o] = 0;
}

/* Unknown sizes with integrity (a chunked body; a cross-origin one, whose
 * Content-Length may count encoded bytes and whose ETag is hidden): the
 * digest the end must match vouches for a resume, so a cut resumes by
 * Range from the last whole chunk, in the load and on the next page; a
 * resume whose bytes do not add up is fetched again from byte 0. */
static void test_unknown_sizes_resume_under_integrity(void) {
    static const struct { int chunked, cors; } kinds[] = {{1, 0}, {0, 1}};
    char good[128];
    size_t k;
    sri(384, model_a, len_a, good);
    for (k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        world w;
        ok_load_params p = url_params();
        fx_reply every = {0}, r = {0};
        p.integrity = good;
        every.chunked = kinds[k].chunked;
        every.cors = kinds[k].cors;

        /* cut in the load: resumed by Range */
        world_init(&w, model_a, len_a, "\"v1\"", NULL);
        w.srv.every = every;
        r = every;
        r.cut_at = (int)(len_a / 2);
        plan(&w, 0, r);
        fx_run(&w.pg, &p);
        check_resumed_at_half(&w);
        world_free(&w);

        /* the tab dies mid-download: the next page re-reads the stored
         * prefix and asks only for the rest */
        world_init(&w, model_a, len_a, "\"v1\"", NULL);
        w.srv.every = every;
        crash_then_resume(&w, &p, 0x79);
        CHECK_EQ_INT(w.srv.req[0].flags & OK_FETCH_RANGE, OK_FETCH_RANGE);
        check_clean(&w, model_a, len_a);
        CHECK_EQ_INT(fx_count_state(&w.db, OK_ENTRY_PENDING), 0);
        world_free(&w);

        /* the Range is answered with another model's bytes (same size):
         * the digest refuses the resume, a plain GET from 0 decides */
        world_init(&w, model_a, len_a, "\"v1\"", NULL);
        w.srv.every = every;
        r = every;
        r.cut_at = (int)(len_a / 2);
        plan(&w, 0, r);
        r = every;
        r.bytes = model_b;
        r.len = len_b;
        plan(&w, 1, r);
        fx_run(&w.pg, &p);
        CHECK(served(&w.pg, model_a, len_a));
        CHECK(fx_warned(&w.pg, OK_WARN_RETRYING));
        CHECK_EQ_INT(w.srv.n_req, 3);
        CHECK_EQ_INT(w.srv.req[1].flags & OK_FETCH_RANGE, OK_FETCH_RANGE);
        CHECK_EQ_INT(w.srv.req[2].flags & OK_FETCH_RANGE, 0);
        CHECK_EQ_INT(w.srv.req[2].from, 0);
        check_clean(&w, model_a, len_a);
        CHECK_EQ_INT(fx_count_state(&w.db, OK_ENTRY_PENDING), 0);
        world_free(&w);
    }
}

static void test_integrity(void) {
    world w;
    ok_load_params p = url_params();
    char good[128], other[128], both[300], strong[128], key_hex[65];
    uint8_t d[32];
    ok_cache_entry_info info;
    sri(256, model_a, len_a, good);
    sri(256, model_b, len_b, other);
    /* two tokens, the second matches: stored under the matching digest */
    snprintf(both, sizeof both, "%s %s", other, good);
    world_init(&w, model_a, len_a, "\"v1\"", NULL);
    p.integrity = both;
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, model_a, len_a));
    CHECK_EQ_INT(ok_cache_entry_at(w.pg.c, 0, &info), OK_OK);
    ok_sha256(model_a, len_a, d);
    ok_hex(d, 32, key_hex);
    CHECK(strstr(info.key, key_hex) != NULL);
    /* the matching token alone hits, from any URL */
    p.integrity = good;
    p.raw = p.url = "https://cdn.test/copy.onnx";
    fx_run(&w.pg, &p);
    CHECK_EQ_INT(w.pg.tier, OK_TIER_INDEXEDDB);
    CHECK_EQ_INT(w.srv.n_req, 1);
    /* the other token alone misses and the bytes do not match it */
    p.integrity = other;
    fx_run(&w.pg, &p);
    CHECK(w.pg.failed);
    CHECK_EQ_INT(w.pg.fail_code, OK_ERR_INTEGRITY);
    CHECK_EQ_INT(fx_count_state(&w.db, OK_ENTRY_COMMITTED), 1);
    CHECK_EQ_INT(fx_count_state(&w.db, OK_ENTRY_PENDING), 0);
    check_clean(&w, model_a, len_a);
    /* the strongest algorithm present decides: a right sha512 beside a
     * wrong sha256 passes, and keys the entry by the sha512 */
    sri(512, model_a, len_a, strong);
    snprintf(both, sizeof both, "%s %s", other, strong);
    p.integrity = both;
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, model_a, len_a));
    CHECK(fx_count_state(&w.db, OK_ENTRY_COMMITTED) == 2);
    sri(384, model_b, len_b, strong); /* a wrong sha384: refused */
    p.integrity = strong;
    fx_run(&w.pg, &p);
    CHECK_EQ_INT(w.pg.fail_code, OK_ERR_INTEGRITY);
    sri(384, model_a, len_a, strong);
    snprintf(both, sizeof both, "%s?ct=application/octet-stream", strong);
    p.integrity = both;
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, model_a, len_a));
    CHECK_EQ_INT(fx_count_state(&w.db, OK_ENTRY_COMMITTED), 3);
    /* not SRI at all: a typed error before any request */
    p.integrity = "md5-abc";
    w.srv.n_req = 0;
    fx_run(&w.pg, &p);
    CHECK_EQ_INT(w.pg.fail_code, OK_ERR_INVALID_ARG);
    CHECK_EQ_INT(w.pg.fail_reason, OK_REASON_BAD_INTEGRITY);
    CHECK_EQ_INT(w.srv.n_req, 0);
    world_free(&w);
}

/* Stored copies that rot: a flipped byte, a lost chunk, lost metadata, a
 * copy onnxruntime refuses as no model. Each is dropped and fetched again; the load
 * after that is a hit. */
static void test_healing(void) {
    int kind;
    for (kind = 0; kind < 4; kind++) {
        world w;
        ok_load_params p = url_params();
        world_init(&w, model_a, len_a, "\"v1\"", NULL);
        fx_run(&w.pg, &p);
        CHECK(served(&w.pg, model_a, len_a));
        if (kind == 0) w.db.chunks.v[2].bytes[7] ^= 0x20;
        if (kind == 1) fs_del_at(&w.db.chunks, 1);
        if (kind == 2) fs_del_at(&w.db.meta, 0);
        if (kind == 3) {
            /* onnxruntime says the bytes are no model (a parse error) */
            w.pg.refuse_sessions = 1;
            w.pg.refuse_facts = OK_SESSION_BAD_MODEL;
        }
        fx_run(&w.pg, &p);
        CHECK(served(&w.pg, model_a, len_a));
        CHECK_EQ_INT(w.pg.tier, OK_TIER_NETWORK);
        CHECK(fx_warned(&w.pg, kind == 3 ? OK_WARN_REFUSED : OK_WARN_CORRUPT));
        CHECK_EQ_INT(w.srv.n_req, 2);
        check_clean(&w, model_a, len_a);
        CHECK_EQ_INT(fx_count_state(&w.db, OK_ENTRY_COMMITTED), 1);
        fx_run(&w.pg, &p);
        CHECK_EQ_INT(w.pg.tier, OK_TIER_INDEXEDDB);
        CHECK_EQ_INT(w.srv.n_req, 2);
        world_free(&w);
    }
    /* onnxruntime refuses the downloaded model: nothing is committed */
    {
        world w;
        ok_load_params p = url_params();
        world_init(&w, model_a, len_a, "\"v1\"", NULL);
        w.pg.refuse_sessions = 1;
        fx_run(&w.pg, &p);
        CHECK_EQ_INT(w.pg.fail_code, OK_ERR_SESSION_CREATE);
        CHECK_EQ_INT(w.db.index.n, 0);
        CHECK_EQ_INT(w.db.chunks.n, 0);
        world_free(&w);
    }
}

/* The one committed entry's manifest, decoded (0: none). */
static int stored_manifest(const fx_db *db, ok_manifest *m) {
    size_t i;
    for (i = 0; i < db->index.n; i++) {
        if (ok_manifest_decode(db->index.v[i].bytes, db->index.v[i].len, m) != OK_OK) continue;
        if (m->state == OK_ENTRY_COMMITTED) return 1;
        ok_manifest_free(m);
    }
    return 0;
}

/* onnxruntime refuses a stored copy that passed its checks for the
 * caller's options (an execution provider not here, a bad option), not as
 * a model: SESSION_CREATE, and the copy stays, so the caller's next try
 * (other options) is served from it with the network gone. A refusal is
 * no use: the entry's hits and clock stay. */
static void test_refused_for_options(void) {
    world w;
    ok_manifest m;
    ok_load_params p = url_params();
    world_init(&w, model_a, len_a, "\"v1\"", NULL);
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, model_a, len_a));
    p.now = 2000;
    fx_run(&w.pg, &p); /* served: counted */
    CHECK_EQ_INT(w.pg.tier, OK_TIER_INDEXEDDB);
    w.pg.refuse_sessions = 1;
    w.pg.refuse_facts = 0;
    p.now = 3000;
    fx_run(&w.pg, &p);
    CHECK(w.pg.failed);
    CHECK_EQ_INT(w.pg.fail_code, OK_ERR_SESSION_CREATE);
    CHECK_EQ_INT(w.pg.fail_reason, OK_REASON_SESSION);
    CHECK(!fx_warned(&w.pg, OK_WARN_REFUSED));
    CHECK_EQ_INT(w.srv.n_req, 1);
    CHECK_EQ_INT(fx_count_state(&w.db, OK_ENTRY_COMMITTED), 1);
    CHECK(fx_store_serves(&w.db, model_a, len_a));
    CHECK_EQ_INT(w.pg.sessions, w.pg.released);
    CHECK(stored_manifest(&w.db, &m));
    CHECK_EQ_INT(m.hit_count, 1);
    CHECK_EQ_INT(m.last_used, 2000);
    ok_manifest_free(&m);
    /* offline now: the next try is served from the stored copy */
    w.srv.every.fetch_fails = 1;
    p.now = 4000;
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, model_a, len_a));
    CHECK_EQ_INT(w.pg.tier, OK_TIER_INDEXEDDB);
    CHECK_EQ_INT(w.srv.n_req, 1);
    check_clean(&w, model_a, len_a);
    CHECK(stored_manifest(&w.db, &m));
    CHECK_EQ_INT(m.hit_count, 2);
    CHECK_EQ_INT(m.last_used, 4000);
    ok_manifest_free(&m);
    /* only-if-cached, refused likewise: no CORRUPT, the copy stays */
    p.mode = OK_MODE_ONLY_IF_CACHED;
    w.pg.refuse_sessions = 1;
    fx_run(&w.pg, &p);
    CHECK_EQ_INT(w.pg.fail_code, OK_ERR_SESSION_CREATE);
    CHECK(!fx_warned(&w.pg, OK_WARN_CORRUPT) && !fx_warned(&w.pg, OK_WARN_REFUSED));
    CHECK_EQ_INT(fx_count_state(&w.db, OK_ENTRY_COMMITTED), 1);
    world_free(&w);
}

static void test_quota(void) {
    world w;
    ok_load_params p = url_params();
    /* smaller than the model: served uncached with a warning */
    world_init(&w, model_a, len_a, "\"v1\"", NULL);
    w.db.quota = len_a / 2;
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, model_a, len_a));
    CHECK(fx_warned(&w.pg, OK_WARN_QUOTA));
    CHECK(!(w.pg.done_flags & OK_DONE_STORED));
    CHECK_EQ_INT(w.db.index.n, 0);
    CHECK_EQ_INT(w.db.chunks.n, 0);
    world_free(&w);

    /* room for one model: the least recently used one makes room */
    world_init(&w, model_a, len_a, "\"v1\"", NULL);
    w.db.quota = len_a + len_a / 2;
    fx_run(&w.pg, &p);
    CHECK(w.pg.done_flags & OK_DONE_STORED);
    p.raw = p.url = "https://models.test/b.onnx";
    w.srv.bytes = model_b;
    w.srv.len = len_b;
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, model_b, len_b));
    CHECK(w.pg.done_flags & OK_DONE_STORED);
    CHECK_EQ_INT(fx_count_state(&w.db, OK_ENTRY_COMMITTED), 1);
    check_clean(&w, model_b, len_b);
    world_free(&w);
}

static void test_database_trouble(void) {
    world w;
    ok_load_params p = url_params();
    /* closed under the page mid-download: reopened, the write redone */
    world_init(&w, model_a, len_a, "\"v1\"", NULL);
    w.db.crash_after = -1;
    fx_run(&w.pg, &p); /* stored */
    p.mode = OK_MODE_RELOAD;
    w.db.closed = 1;
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, model_a, len_a));
    CHECK(w.pg.done_flags & OK_DONE_STORED);
    CHECK_EQ_INT(w.db.reopens, 1);
    CHECK_EQ_INT(fx_count_state(&w.db, OK_ENTRY_COMMITTED), 1);
    check_clean(&w, model_a, len_a);
    world_free(&w);

    /* a write that fails for another reason: served uncached, warned */
    world_init(&w, model_a, len_a, "\"v1\"", NULL);
    p.mode = OK_MODE_DEFAULT;
    w.db.fail_writes = 1;
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, model_a, len_a));
    CHECK(fx_warned(&w.pg, OK_WARN_CACHE_ERROR));
    CHECK(!(w.pg.done_flags & OK_DONE_STORED));
    CHECK_EQ_INT(fx_count_state(&w.db, OK_ENTRY_COMMITTED), 0);
    world_free(&w);

    /* the index cannot be read: straight to the network */
    world_init(&w, model_a, len_a, "\"v1\"", NULL);
    w.db.fail_reads = 1;
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, model_a, len_a));
    CHECK(fx_warned(&w.pg, OK_WARN_CACHE_ERROR));
    world_free(&w);
}

/* Abort in every state: ABORTED, nothing served, the session released,
 * the store consistent, and the next load fine. */
static void test_abort_everywhere(void) {
    static const int states[] = {OK_LOAD_STATE_LOCKING,   OK_LOAD_STATE_SYNCING, OK_LOAD_STATE_FETCHING,
                                 OK_LOAD_STATE_STREAMING, OK_LOAD_STATE_WAITING, OK_LOAD_STATE_VALIDATING,
                                 OK_LOAD_STATE_CREATING,  OK_LOAD_STATE_READING, OK_LOAD_STATE_QUOTA};
    size_t k;
    for (k = 0; k < sizeof states / sizeof states[0]; k++) {
        world w;
        ok_load_params p = url_params();
        fx_reply r = {0};
        world_init(&w, model_a, len_a, "\"v1\"", NULL);
        if (states[k] == OK_LOAD_STATE_READING) fx_run(&w.pg, &p); /* stored */
        if (states[k] == OK_LOAD_STATE_WAITING) {
            r.status = 503;
            plan(&w, 0, r);
        }
        w.pg.abort_in_state = states[k];
        fx_run(&w.pg, &p);
        CHECK(!w.pg.stuck);
        CHECK(w.pg.failed);
        CHECK_EQ_INT(w.pg.fail_code, OK_ERR_ABORTED);
        CHECK_EQ_INT(w.pg.sessions, w.pg.released);
        CHECK_EQ_INT(fx_orphans(&w.db), 0);
        fx_run(&w.pg, &p);
        CHECK(served(&w.pg, model_a, len_a));
        check_clean(&w, model_a, len_a);
        world_free(&w);
    }
}

static void test_modes(void) {
    world w;
    ok_load_params p = url_params();
    fx_reply refuse = {0};
    world_init(&w, model_a, len_a, "\"v1\"", "Tue, 01 Dec 2026 00:00:00 GMT");
    p.mode = OK_MODE_ONLY_IF_CACHED;
    fx_run(&w.pg, &p);
    CHECK_EQ_INT(w.pg.fail_code, OK_ERR_NOT_FOUND);
    CHECK_EQ_INT(w.srv.n_req, 0);
    p.mode = OK_MODE_NO_STORE;
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, model_a, len_a));
    CHECK_EQ_INT(w.db.index.n, 0);
    p.mode = OK_MODE_DEFAULT;
    fx_run(&w.pg, &p);
    CHECK_EQ_INT(w.srv.n_req, 2);
    /* no-cache: a conditional request; 304 -> the stored copy */
    p.mode = OK_MODE_NO_CACHE;
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, model_a, len_a));
    CHECK_EQ_INT(w.pg.tier, OK_TIER_INDEXEDDB);
    CHECK_EQ_INT(w.srv.n_req, 3);
    CHECK(w.srv.req[2].flags & OK_FETCH_CONDITIONAL);
    CHECK_EQ_STR(w.srv.req[2].inm, "\"v1\"");
    /* a CDN refusing the preflight of a conditional request: plain GET */
    refuse.refuse_preflight = 1;
    refuse.cut_at = -1;
    w.srv.every = refuse;
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, model_a, len_a));
    CHECK_EQ_INT(w.srv.n_req, 5);
    CHECK_EQ_INT(w.srv.req[4].flags, 0);
    w.srv.every.refuse_preflight = 0;
    /* the model changed: the new one replaces the old entry */
    w.srv.bytes = model_b;
    w.srv.len = len_b;
    snprintf(w.srv.etag, sizeof w.srv.etag, "\"v2\"");
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, model_b, len_b));
    CHECK_EQ_INT(w.pg.tier, OK_TIER_NETWORK);
    CHECK_EQ_INT(fx_count_state(&w.db, OK_ENTRY_COMMITTED), 1);
    check_clean(&w, model_b, len_b);
    /* reload: the network, replacing what is stored */
    p.mode = OK_MODE_RELOAD;
    fx_run(&w.pg, &p);
    CHECK_EQ_INT(w.pg.tier, OK_TIER_NETWORK);
    CHECK_EQ_INT(fx_count_state(&w.db, OK_ENTRY_COMMITTED), 1);
    check_clean(&w, model_b, len_b);
    world_free(&w);
}

static void test_sources(void) {
    world w;
    ok_load_params p = url_params();
    world_init(&w, model_a, len_a, "\"v1\"", NULL);
    p.raw = "";
    p.url = "https://models.test/app/";
    fx_run(&w.pg, &p);
    CHECK_EQ_INT(w.pg.fail_code, OK_ERR_INVALID_SOURCE);
    CHECK_EQ_INT(w.pg.fail_reason, OK_REASON_EMPTY_SOURCE);
    p.raw = "./";
    fx_run(&w.pg, &p);
    CHECK_EQ_INT(w.pg.fail_reason, OK_REASON_PAGE_ITSELF);
    p.raw = p.url = "ftp://models.test/m.onnx";
    fx_run(&w.pg, &p);
    CHECK_EQ_INT(w.pg.fail_reason, OK_REASON_SCHEME);
    p.raw = p.url = "file:///srv/m.onnx";
    fx_run(&w.pg, &p);
    CHECK_EQ_INT(w.pg.fail_reason, OK_REASON_SCHEME); /* not in a browser */
    CHECK_EQ_INT(w.srv.n_req, 0);
    p.flags = OK_LOAD_NODE;
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, model_a, len_a));
    CHECK_EQ_INT(w.pg.tier, OK_TIER_FILE);
    p.flags = 0;
    p.raw = p.url = "blob:https://models.test/5d0e";
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, model_a, len_a));
    CHECK_EQ_INT(w.db.index.n, 0); /* never stored */
    p.raw = p.url = URL;
    p.flags = OK_LOAD_IDB_FAILED; /* IndexedDB did not open in time */
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, model_a, len_a));
    CHECK(fx_warned(&w.pg, OK_WARN_CACHE_UNAVAILABLE));
    CHECK_EQ_INT(w.db.index.n, 0);
    p.flags = OK_LOAD_NO_IDB; /* none at all (Node): silent */
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, model_a, len_a));
    CHECK_EQ_INT(w.pg.n_warns, 0);
    CHECK_EQ_INT(w.db.index.n, 0);
    /* bytes in memory: checked like a download, never stored */
    memset(&p, 0, sizeof p);
    p.source = OK_SOURCE_BYTES;
    p.bytes_len = len_a;
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, model_a, len_a));
    CHECK_EQ_INT(w.pg.tier, OK_TIER_BYTES);
    CHECK_EQ_INT(w.db.index.n, 0);
    world_free(&w);
}

/* Another tab deleted the entry, and left chunks of a dead download. */
static void test_other_tabs(void) {
    world w;
    ok_load_params p = url_params();
    fx_page b;
    ok_cache_entry_info info;
    world_init(&w, model_a, len_a, "\"v1\"", NULL);
    fx_page_init(&b, &w.db, &w.srv, 0x4242);
    fx_run(&b, &p);    /* tab B stores it */
    fx_run(&w.pg, &p); /* tab A hits */
    CHECK_EQ_INT(w.pg.tier, OK_TIER_INDEXEDDB);
    CHECK_EQ_INT(ok_cache_entry_at(b.c, 0, &info), OK_OK);
    CHECK_EQ_INT(ok_cache_delete(b.c, info.key), OK_OK);
    fx_apply_own(&b);
    CHECK_EQ_INT(w.db.index.n, 0);
    fx_run(&w.pg, &p); /* tab A: its sync forgets, it downloads */
    CHECK(served(&w.pg, model_a, len_a));
    CHECK_EQ_INT(w.pg.tier, OK_TIER_NETWORK);
    CHECK_EQ_INT(w.srv.n_req, 2);
    fx_page_close(&b);
    /* orphans of a dead page are swept by the next page's first sync */
    fs_put(&w.db.chunks, "edeadbeefdeadbeef.7", 0, model_a, 100);
    fs_put(&w.db.chunks, "edeadbeefdeadbeef.7", 1, model_a, 100);
    fx_page_init(&b, &w.db, &w.srv, 0x4343);
    fx_sync(&b, 1);
    CHECK_EQ_INT(fx_orphans(&w.db), 0);
    check_clean(&w, model_a, len_a);
    fx_page_close(&b);
    world_free(&w);
}

/* A host with native SHA-256 (OK_LOAD_HOST_HASHES): a URL body's hash is
 * the host's, handed before the body's end; the core hashes none of it. */
static void test_host_hashes(void) {
    world w;
    ok_load_params p = url_params();
    ok_load *l = NULL;
    ok_manifest m;
    uint8_t want[32], wrong[32];
    char good[128];
    ok_sha256(model_a, len_a, want);
    memcpy(wrong, want, 32);
    wrong[0] ^= 0xff;

    /* served and stored under the host's digest of the whole body, also
     * across a resume (the cut falls mid-chunk) */
    world_init(&w, model_a, len_a, "\"v1\"", NULL);
    w.pg.host_hashes = 1;
    {
        fx_reply cut = {0};
        cut.cut_at = (int)(len_a / 2);
        plan(&w, 0, cut);
    }
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, model_a, len_a));
    CHECK(fx_warned(&w.pg, OK_WARN_RESUMING));
    CHECK(memcmp(w.pg.served_sha, want, 32) == 0);
    CHECK_EQ_INT(ok_manifest_decode(w.db.index.v[0].bytes, w.db.index.v[0].len, &m), OK_OK);
    CHECK(memcmp(m.sha256, want, 32) == 0);
    ok_manifest_free(&m);
    check_clean(&w, model_a, len_a);
    /* the hit reads it back with its chunk checks, no body to hash */
    fx_run(&w.pg, &p);
    CHECK_EQ_INT(w.pg.tier, OK_TIER_INDEXEDDB);
    CHECK(memcmp(w.pg.served_sha, want, 32) == 0);
    world_free(&w);

    /* the core takes the host's digest as it is: it hashed nothing itself */
    world_init(&w, model_a, len_a, "\"v1\"", NULL);
    w.pg.host_hashes = 1;
    w.pg.host_sha_wrong = 1;
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, model_a, len_a));
    CHECK(memcmp(w.pg.served_sha, wrong, 32) == 0);
    /* ... and integrity is checked against it: a sha256 token of the real
     * bytes fails on the host's other digest, nothing is kept for it */
    sri(256, model_a, len_a, good);
    p.integrity = good;
    p.raw = p.url = "https://cdn.test/other.onnx";
    fx_run(&w.pg, &p);
    CHECK(w.pg.failed);
    CHECK_EQ_INT(w.pg.fail_code, OK_ERR_INTEGRITY);
    CHECK_EQ_INT(fx_count_state(&w.db, OK_ENTRY_PENDING), 0);
    world_free(&w);

    /* a host that never hands it: the body does not end, nothing is served
     * nor committed; what it left (a PENDING entry) never serves, and the
     * next load, whose host hands the digest, serves and stores the model */
    world_init(&w, model_a, len_a, "\"v1\"", NULL);
    w.pg.host_hashes = 1;
    w.pg.host_sha_skip = 1;
    p = url_params();
    fx_run(&w.pg, &p);
    CHECK(!w.pg.done);
    CHECK_EQ_INT(w.pg.sessions, 0);
    CHECK_EQ_INT(fx_count_state(&w.db, OK_ENTRY_COMMITTED), 0);
    w.pg.host_sha_skip = 0;
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, model_a, len_a));
    CHECK(memcmp(w.pg.served_sha, want, 32) == 0);
    check_clean(&w, model_a, len_a);
    world_free(&w);

    /* only while streaming a body STREAM asked it for */
    world_init(&w, model_a, len_a, "\"v1\"", NULL);
    p.flags = OK_LOAD_HOST_HASHES;
    CHECK_EQ_INT(ok_load_new(w.pg.c, &p, &l), OK_OK);
    CHECK_EQ_INT(ok_load_body_sha256(l, want), OK_ERR_STATE);
    ok_load_free(l);
    world_free(&w);

    /* without the flag, no STREAM asks: the core hashes as before */
    world_init(&w, model_a, len_a, "\"v1\"", NULL);
    w.pg.host_sha_wrong = 1; /* would show if it were asked */
    p = url_params();
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, model_a, len_a));
    CHECK(memcmp(w.pg.served_sha, want, 32) == 0);
    world_free(&w);
}

/* A tab died after every chunk of a download was stored, before its
 * commit, under a host that hashes bodies: the next page has nothing to
 * fetch, so no body for the host to hash; the core hashes the stored bytes
 * as it re-reads them. Its SHA-256 was once the empty string's: committed
 * under it, and with a sha256 integrity token the whole model was fetched
 * again as "changed". */
static void test_whole_pending_under_host_hashes(void) {
    int with_integrity;
    uint8_t want[32];
    char good[128];
    ok_sha256(model_a, len_a, want);
    sri(256, model_a, len_a, good);
    for (with_integrity = 0; with_integrity < 2; with_integrity++) {
        world w;
        ok_load_params p = url_params();
        ok_manifest m;
        int writes;
        if (with_integrity) p.integrity = good;
        world_init(&w, model_a, len_a, "\"v1\"", NULL);
        w.pg.host_hashes = 1;
        fx_run(&w.pg, &p);
        writes = w.db.writes;
        world_free(&w);
        world_init(&w, model_a, len_a, "\"v1\"", NULL);
        w.pg.host_hashes = 1;
        w.db.crash_after = writes - 1; /* every chunk, not the commit */
        fx_run(&w.pg, &p);
        CHECK(w.pg.crashed);
        CHECK_EQ_INT(fx_count_state(&w.db, OK_ENTRY_PENDING), 1);
        reopen_after_crash(&w, 0x79);
        w.pg.host_hashes = 1;
        fx_run(&w.pg, &p);
        CHECK(served(&w.pg, model_a, len_a));
        CHECK_EQ_INT(w.srv.n_req, 0);
        CHECK(!fx_warned(&w.pg, OK_WARN_RETRYING));
        CHECK(memcmp(w.pg.served_sha, want, 32) == 0);
        CHECK_EQ_INT(w.db.index.n, 1);
        CHECK_EQ_INT(ok_manifest_decode(w.db.index.v[0].bytes, w.db.index.v[0].len, &m), OK_OK);
        CHECK_EQ_INT(m.state, OK_ENTRY_COMMITTED);
        CHECK(memcmp(m.sha256, want, 32) == 0);
        ok_manifest_free(&m);
        check_clean(&w, model_a, len_a);
        world_free(&w);
    }
}

int main(void) {
    model_a = fx_model(10 * CS + 123, 1, &len_a);
    model_b = fx_model(10 * CS + 123, 2, &len_b); /* same size */
    test_miss_then_hit();
    test_html_fallback_never_stored();
    test_statuses();
    test_cut_resumes_with_strong_etag();
    test_cut_without_strong_validator_refetches();
    test_resume_of_changed_model();
    test_resume_after_crash();
    test_wrong_ranges();
    test_unknown_sizes();
    test_integrity();
    test_unknown_sizes_resume_under_integrity();
    test_healing();
    test_refused_for_options();
    test_quota();
    test_database_trouble();
    test_abort_everywhere();
    test_modes();
    test_sources();
    test_other_tabs();
    test_host_hashes();
    test_whole_pending_under_host_hashes();
    free(model_a);
    free(model_b);
    return CHECK_DONE();
}
