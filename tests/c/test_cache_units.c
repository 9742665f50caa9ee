/* The cache core's parts on their own: SRI parsing, manifests (round trip,
 * every truncation, every bit flip, another version), the early "is this a
 * model?" check, and LRU eviction under budget, quota and busy keys. */
#include "check.h"
#include "load_driver.h"

/* ---- SRI ---- */

static void test_sri(void) {
    ok_integrity in;
    /* sha256 of "" and of "abc", base64 */
    const char *e256 = "sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=";
    const char *abc512 =
        "sha512-3a81oZNherrMQXNJriBBMRLm+k6JqX6iCp7u5ktV05ohkpkqJ0/BqDa6PCOj/uu9RU1EI2Q86A4qmslPpUyknw==";
    char buf[512];
    CHECK_EQ_INT(ok_integrity_parse(NULL, &in), OK_OK);
    CHECK_EQ_INT(in.alg, OK_HASH_NONE);
    CHECK_EQ_INT(ok_integrity_parse("", &in), OK_OK);
    CHECK_EQ_INT(in.alg, OK_HASH_NONE);
    CHECK_EQ_INT(ok_integrity_parse("   \t", &in), OK_OK);
    CHECK_EQ_INT(in.alg, OK_HASH_NONE);
    CHECK_EQ_INT(ok_integrity_parse(e256, &in), OK_OK);
    CHECK_EQ_INT(in.alg, OK_HASH_SHA256);
    CHECK_EQ_INT(in.count, 1);
    CHECK_EQ_INT(in.digest[0][0], 0xe3);
    CHECK_EQ_INT(in.digest[0][31], 0x55);
    /* base64url, no padding, options */
    CHECK_EQ_INT(ok_integrity_parse("sha256-47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU?x=1", &in), OK_OK);
    CHECK_EQ_INT(in.digest[0][3], 0x42);
    /* the strongest algorithm wins; weaker tokens are ignored, even broken
     * ones are still errors */
    snprintf(buf, sizeof buf, "%s %s", e256, abc512);
    CHECK_EQ_INT(ok_integrity_parse(buf, &in), OK_OK);
    CHECK_EQ_INT(in.alg, OK_HASH_SHA512);
    CHECK_EQ_INT(in.count, 1);
    CHECK_EQ_INT(in.digest[0][0], 0xdd);
    snprintf(buf, sizeof buf, "%s  %s\n%s", abc512, e256, abc512);
    CHECK_EQ_INT(ok_integrity_parse(buf, &in), OK_OK);
    CHECK_EQ_INT(in.count, 2);
    /* unknown algorithms only / malformed tokens */
    CHECK_EQ_INT(ok_integrity_parse("md5-abc", &in), OK_ERR_INVALID_ARG);
    CHECK_EQ_INT(ok_integrity_parse("sha256-abc", &in), OK_ERR_INVALID_ARG);
    CHECK_EQ_INT(ok_integrity_parse("sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFV=", &in),
                 OK_ERR_INVALID_ARG); /* non-zero trailing bits */
    CHECK_EQ_INT(ok_integrity_parse("sha384-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=", &in),
                 OK_ERR_INVALID_ARG); /* a sha256-sized sha384 */
    snprintf(buf, sizeof buf, "md5-xyz %s", e256);
    CHECK_EQ_INT(ok_integrity_parse(buf, &in), OK_OK);
    {
        char many[1200] = "";
        int i;
        for (i = 0; i < (int)OK_CACHE_MAX_INTEGRITY + 1; i++) {
            strcat(many, e256);
            strcat(many, " ");
        }
        CHECK_EQ_INT(ok_integrity_parse(many, &in), OK_ERR_LIMIT);
    }
    CHECK_EQ_INT(ok_hash_bytes(OK_HASH_SHA384), 48);
    CHECK_EQ_INT(ok_hash_bytes(77), 0);
}

/* ---- manifests ---- */

static size_t encode(const ok_manifest *m, uint8_t **out) {
    size_t n = ok_manifest_size(m);
    *out = fx_malloc(n);
    if (ok_manifest_encode(m, *out, n) != OK_OK) return 0;
    return n;
}

static void test_manifest(void) {
    uint64_t sums[3] = {1, 0xfedcba9876543210ull, 3};
    uint8_t integ[2 * 64];
    ok_manifest m, d;
    uint8_t *b;
    size_t n, i;
    int bit;
    memset(&m, 0, sizeof m);
    memset(integ, 0xab, sizeof integ);
    m.state = OK_ENTRY_COMMITTED;
    m.flags = OK_EF_SIZE_KNOWN | OK_EF_STRONG;
    m.chunk_size = 4096;
    m.total_size = 2 * 4096 + 5;
    m.chunk_count = m.stored_count = 3;
    m.integrity_alg = OK_HASH_SHA512;
    m.integrity_count = 2;
    m.integrity = integ;
    m.report_len = 77;
    m.report_sum = 0x1122334455667788ull;
    m.gen = 9;
    m.last_used = 123456789012ull;
    m.hit_count = 4;
    m.key = "url:https://x/m.onnx|form:original";
    m.key_len = (uint32_t)strlen(m.key);
    m.url = "https://x/m.onnx";
    m.url_len = (uint32_t)strlen(m.url);
    m.etag = "\"e\"";
    m.etag_len = 3;
    m.last_modified = "";
    m.sums = sums;
    n = encode(&m, &b);
    CHECK(n > 140);
    CHECK_EQ_INT(ok_manifest_decode(b, n, &d), OK_OK);
    CHECK_EQ_INT(d.total_size, m.total_size);
    CHECK_EQ_INT(d.integrity_count, 2);
    CHECK(memcmp(d.integrity, integ, 128) == 0);
    CHECK(d.sums[1] == sums[1]);
    CHECK_EQ_STR(d.key, m.key);
    CHECK_EQ_STR(d.etag, "\"e\"");
    CHECK(d.report_sum == m.report_sum);
    ok_manifest_free(&d);
    /* every truncation is typed; every flipped bit is caught */
    for (i = 0; i < n; i++) {
        ok_status st = ok_manifest_decode(b, i, &d);
        CHECK(st == OK_ERR_TRUNCATED || st == OK_ERR_CORRUPT);
    }
    for (i = 0; i < n; i++)
        for (bit = 0; bit < 8; bit++) {
            ok_status st;
            b[i] ^= (uint8_t)(1 << bit);
            st = ok_manifest_decode(b, n, &d);
            CHECK(st != OK_OK || i == 4 || i == 5);
            if (st == OK_OK) ok_manifest_free(&d);
            b[i] ^= (uint8_t)(1 << bit);
        }
    /* another format version is left alone, not swept */
    b[4] = 7;
    CHECK_EQ_INT(ok_manifest_decode(b, n, &d), OK_ERR_STATE);
    free(b);
    /* a pending download of unknown size lists only what it stored */
    m.state = OK_ENTRY_PENDING;
    m.flags = OK_EF_ENCODED;
    m.total_size = 0;
    m.chunk_count = 2;
    m.stored_count = 2;
    m.report_len = 0;
    n = encode(&m, &b);
    CHECK_EQ_INT(ok_manifest_decode(b, n, &d), OK_OK);
    ok_manifest_free(&d);
    free(b);
    /* inconsistent fields are refused at encode-decode */
    m.state = OK_ENTRY_COMMITTED; /* committed without a size */
    n = encode(&m, &b);
    CHECK_EQ_INT(ok_manifest_decode(b, n, &d), OK_ERR_CORRUPT);
    free(b);
}

/* ---- the early check ---- */

static void test_prefix(void) {
    size_t len, i;
    uint8_t *model = fx_model(5000, 3, &len);
    static const char *not_models[] = {"<!doctype html><html>",
                                       "<html>",
                                       "{\"error\":\"not found\"}",
                                       "Not Found",
                                       "PK\x03\x04zipfile",
                                       "\xef\xbb\xbf<html>",
                                       "Cannot GET /m.onnx",
                                       "\x1f\x8b\x08\x00gzip",
                                       "%PDF-1.7"};
    for (i = 1; i <= 256; i++) CHECK(ok_onnx_prefix_plausible(model, i));
    for (i = 0; i < sizeof not_models / sizeof not_models[0]; i++)
        CHECK(!ok_onnx_prefix_plausible((const uint8_t *)not_models[i], strlen(not_models[i])));
    CHECK(ok_onnx_prefix_plausible(NULL, 0));
    free(model);
}

/* ---- eviction ---- */

static void test_eviction(void) {
    fx_db db;
    fx_server srv;
    fx_page pg;
    size_t la, lb, lc;
    uint8_t *a = fx_model(20000, 1, &la), *b = fx_model(20000, 2, &lb), *c = fx_model(20000, 3, &lc);
    static const char *urls[] = {"https://m.test/a", "https://m.test/b", "https://m.test/c"};
    uint8_t *models[] = {a, b, c};
    size_t lens[] = {la, lb, lc};
    ok_load_params p;
    int i;
    memset(&db, 0, sizeof db);
    memset(&srv, 0, sizeof srv);
    db.crash_after = -1;
    srv.every.cut_at = -1;
    fx_page_init(&pg, &db, &srv, 5);
    memset(&p, 0, sizeof p);
    p.source = OK_SOURCE_URL;
    p.chunk_size = 4096;
    for (i = 0; i < 3; i++) {
        srv.bytes = models[i];
        srv.len = lens[i];
        p.raw = p.url = urls[i];
        p.now = (uint64_t)(10 + i);
        fx_run(&pg, &p);
        CHECK(pg.done_flags & OK_DONE_STORED);
    }
    /* touch a (now the most recent), then a budget for two: b goes */
    srv.bytes = a;
    srv.len = la;
    p.raw = p.url = urls[0];
    p.now = 20;
    fx_run(&pg, &p);
    CHECK_EQ_INT(pg.tier, OK_TIER_INDEXEDDB);
    CHECK_EQ_INT(ok_cache_set_budget(pg.c, la + lc + lb / 2), OK_OK);
    srv.bytes = b;
    srv.len = lb;
    p.raw = p.url = "https://m.test/b2";
    p.now = 30;
    fx_run(&pg, &p);
    CHECK(pg.done_flags & OK_DONE_STORED);
    fx_sync(&pg, 0);
    CHECK_EQ_INT(ok_cache_count(pg.c), 2);
    {
        ok_cache_entry_info e0, e1;
        ok_cache_entry_at(pg.c, 0, &e0);
        ok_cache_entry_at(pg.c, 1, &e1);
        CHECK(strstr(e0.key, "m.test/a|") || strstr(e1.key, "m.test/a|"));
        CHECK(strstr(e0.key, "b2") || strstr(e1.key, "b2"));
    }
    /* a busy key (another tab holds its lock) is never evicted */
    ok_cache_busy_key(pg.c, "url:https://m.test/a|form:original");
    ok_cache_busy_key(pg.c, "url:https://m.test/b2|form:original");
    srv.bytes = c;
    srv.len = lc;
    p.raw = p.url = "https://m.test/c2";
    fx_run(&pg, &p);
    CHECK(pg.done);
    CHECK(!(pg.done_flags & OK_DONE_STORED));
    CHECK(fx_warned(&pg, OK_WARN_QUOTA));
    CHECK_EQ_INT(ok_cache_clear(pg.c), OK_OK); /* busy entries stay */
    fx_apply_own(&pg);
    CHECK_EQ_INT(db.index.n, 2);
    ok_cache_busy_clear(pg.c);
    CHECK_EQ_INT(ok_cache_delete(pg.c, "url:https://m.test/a|form:original"), OK_OK);
    CHECK_EQ_INT(ok_cache_delete(pg.c, "url:https://m.test/a|form:original"), OK_ERR_NOT_FOUND);
    CHECK_EQ_INT(ok_cache_clear(pg.c), OK_OK);
    fx_apply_own(&pg);
    CHECK_EQ_INT(db.index.n, 0);
    CHECK_EQ_INT(db.chunks.n, 0);
    fx_page_close(&pg);
    db_free(&db);
    free(a);
    free(b);
    free(c);
}

int main(void) {
    test_sri();
    test_manifest();
    test_prefix();
    test_eviction();
    return CHECK_DONE();
}
