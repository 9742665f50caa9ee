/* Entry manifests: round trip, and every truncation and every bit flip of a
 * record is a typed error -- on load, a DROP_ENTRY for that record and a
 * cache that keeps working. */
#include <stddef.h>
#include <stdio.h>

#include "check.h"
#include "test_cache_store.h"

static ok_manifest sample(uint8_t *digests, uint8_t *integ) {
    ok_manifest m;
    memset(&m, 0, sizeof m);
    m.state = OK_ENTRY_COMMITTED;
    m.form = 3;
    m.chunk_size = 100;
    m.total_size = 250;
    m.chunk_count = 3;
    m.stored_count = 3;
    m.gen = 0x1122334455ull;
    m.last_used = 1700000000123ull;
    m.hit_count = 42;
    memset(m.sha256, 0xAB, 32);
    m.integrity_count = 2;
    memset(integ, 0x11, 64);
    integ[40] = 0x99;
    m.integrity = integ;
    m.key = "https://h/model.onnx|o=all";
    m.key_len = (uint32_t)strlen(m.key);
    m.url = "https://h/model.onnx";
    m.url_len = (uint32_t)strlen(m.url);
    m.etag = "W/\"abc\"";
    m.etag_len = (uint32_t)strlen(m.etag);
    m.last_modified = "";
    m.lm_len = 0;
    fill_bytes(digests, 96, 5);
    m.digests = digests;
    return m;
}

static void test_round_trip(void) {
    uint8_t dg[96], ig[64], buf[1024];
    ok_manifest m = sample(dg, ig), d;
    size_t n = ok_manifest_size(&m);
    CHECK(n < sizeof buf);
    CHECK_EQ_INT(ok_manifest_encode(&m, buf, n - 1), OK_ERR_INVALID_ARG);
    CHECK_EQ_INT(ok_manifest_encode(&m, buf, n), OK_OK);
    CHECK_EQ_INT(ok_manifest_decode(buf, n, &d), OK_OK);
    CHECK_EQ_INT(d.state, m.state);
    CHECK_EQ_INT(d.form, 3);
    CHECK_EQ_INT(d.chunk_size, 100);
    CHECK_EQ_INT(d.chunk_count, 3);
    CHECK_EQ_INT(d.stored_count, 3);
    CHECK(d.gen == m.gen);
    CHECK(d.total_size == 250);
    CHECK(d.last_used == m.last_used);
    CHECK(d.hit_count == 42);
    CHECK(memcmp(d.sha256, m.sha256, 32) == 0);
    CHECK_EQ_INT(d.integrity_count, 2);
    CHECK(memcmp(d.integrity, ig, 64) == 0);
    CHECK_EQ_STR(d.key, m.key);
    CHECK_EQ_STR(d.url, m.url);
    CHECK_EQ_STR(d.etag, m.etag);
    CHECK_EQ_STR(d.last_modified, "");
    CHECK(memcmp(d.digests, dg, 96) == 0);
    ok_manifest_free(&d);

    /* pending with a partial prefix */
    m.state = OK_ENTRY_PENDING;
    m.stored_count = 1;
    n = ok_manifest_size(&m);
    CHECK_EQ_INT(ok_manifest_encode(&m, buf, n), OK_OK);
    CHECK_EQ_INT(ok_manifest_decode(buf, n, &d), OK_OK);
    CHECK_EQ_INT(d.stored_count, 1);
    ok_manifest_free(&d);
}

static void test_every_truncation_and_flip(void) {
    uint8_t dg[96], ig[64], buf[1024], bad[1024];
    ok_manifest m = sample(dg, ig), d;
    size_t n = ok_manifest_size(&m), i;
    int bit, ok_count = 0;
    ok_manifest_encode(&m, buf, n);
    for (i = 0; i < n; i++) {
        ok_status st = ok_manifest_decode(buf, i, &d);
        if (st != OK_ERR_TRUNCATED) {
            fprintf(stderr, "prefix %zu -> %d\n", i, (int)st);
            ok_count++;
        }
    }
    CHECK_EQ_INT(ok_count, 0);
    ok_count = 0;
    for (i = 0; i < n; i++) {
        for (bit = 0; bit < 8; bit++) {
            ok_status st;
            memcpy(bad, buf, n);
            bad[i] ^= (uint8_t)(1u << bit);
            st = ok_manifest_decode(bad, n, &d);
            if (st == OK_OK) {
                ok_count++;
                ok_manifest_free(&d);
            } else if (st != OK_ERR_CORRUPT && st != OK_ERR_TRUNCATED) {
                ok_count++;
            }
        }
    }
    CHECK_EQ_INT(ok_count, 0);
    /* trailing garbage */
    memcpy(bad, buf, n);
    bad[n] = 0;
    CHECK_EQ_INT(ok_manifest_decode(bad, n + 1, &d), OK_ERR_CORRUPT);
    CHECK_EQ_INT(ok_manifest_decode(NULL, 0, &d), OK_ERR_TRUNCATED);
    CHECK_EQ_INT(ok_manifest_decode((const uint8_t *)"JUNK", 4, &d),
                 OK_ERR_CORRUPT);
}

/* A well-formed CRC over inconsistent fields is still refused. */
static void test_field_checks(void) {
    uint8_t dg[96], ig[64], buf[1024];
    ok_manifest m, d;
    m = sample(dg, ig);
    m.chunk_count = 4; /* 250 bytes in chunks of 100 is 3 */
    ok_manifest_encode(&m, buf, sizeof buf);
    CHECK_EQ_INT(ok_manifest_decode(buf, ok_manifest_size(&m), &d),
                 OK_ERR_CORRUPT);
    m = sample(dg, ig);
    m.stored_count = 2; /* committed must hold every chunk */
    ok_manifest_encode(&m, buf, sizeof buf);
    CHECK_EQ_INT(ok_manifest_decode(buf, ok_manifest_size(&m), &d),
                 OK_ERR_CORRUPT);
    m = sample(dg, ig);
    m.state = 7;
    ok_manifest_encode(&m, buf, sizeof buf);
    CHECK_EQ_INT(ok_manifest_decode(buf, ok_manifest_size(&m), &d),
                 OK_ERR_CORRUPT);
    m = sample(dg, ig);
    m.key = "a\0b";
    m.key_len = 3;
    ok_manifest_encode(&m, buf, sizeof buf);
    CHECK_EQ_INT(ok_manifest_decode(buf, ok_manifest_size(&m), &d),
                 OK_ERR_CORRUPT);
    m = sample(dg, ig);
    m.integrity_count = 5;
    {
        static uint8_t ig5[160];
        m.integrity = ig5;
        ok_manifest_encode(&m, buf, sizeof buf);
        CHECK_EQ_INT(ok_manifest_decode(buf, ok_manifest_size(&m), &d),
                     OK_ERR_LIMIT);
    }
}

/* load_record: bad records are swept, good ones load; reset clears. */
static void test_load_records(void) {
    uint8_t dg[96], ig[64], buf[1024];
    ok_manifest m = sample(dg, ig);
    ok_cache *c;
    const ok_cache_action *a;
    const uint8_t *data;
    uint32_t n;
    size_t len = ok_manifest_size(&m);
    char name[128];
    ok_cache_lookup_result r;

    m.gen = 7;
    ok_manifest_encode(&m, buf, len);
    snprintf(name, sizeof name, "%s#7", m.key);
    ok_cache_open(&c, 0);
    CHECK_EQ_INT(ok_cache_load_record(c, "zz#1", 4, buf, len - 3),
                 OK_ERR_TRUNCATED);
    CHECK_EQ_INT(ok_cache_load_record(c, "other#7", 7, buf, len),
                 OK_ERR_CORRUPT); /* under the wrong name */
    CHECK_EQ_INT(ok_cache_load_record(c, name, strlen(name), buf, len),
                 OK_OK);
    CHECK_EQ_INT(ok_cache_load_record(c, name, strlen(name), buf, len),
                 OK_ERR_INVALID_ARG);
    buf[200] ^= 1;
    CHECK_EQ_INT(ok_cache_load_record(c, "x#2", 3, buf, len), OK_ERR_CORRUPT);
    a = ok_cache_actions(c, &n);
    data = ok_cache_action_data(c);
    CHECK_EQ_INT(n, 3);
    CHECK_EQ_INT(a[0].type, OK_ACT_DROP_ENTRY);
    CHECK(a[0].name_len == 4 && memcmp(data + a[0].name_off, "zz#1", 4) == 0);
    CHECK(a[1].name_len == 7 &&
          memcmp(data + a[1].name_off, "other#7", 7) == 0);
    CHECK_EQ_INT(a[2].chunk_end, OK_CACHE_CHUNK_END);
    ok_cache_actions_clear(c);
    CHECK_EQ_INT(ok_cache_recover(c), OK_OK);
    ok_cache_actions(c, &n);
    CHECK_EQ_INT(n, 0);
    CHECK_EQ_INT(ok_cache_count(c), 1);
    CHECK_EQ_INT(ok_cache_lookup(c, m.key, OK_MODE_DEFAULT, 1, &r), OK_OK);
    CHECK_EQ_INT(r.kind, OK_LOOKUP_HIT);
    CHECK_EQ_INT(ok_cache_release(c, r.entry), OK_OK);
    ok_cache_actions_clear(c);
    CHECK_EQ_INT(ok_cache_reset(c), OK_OK);
    a = ok_cache_actions(c, &n);
    CHECK_EQ_INT(n, 1);
    CHECK_EQ_INT(a[0].type, OK_ACT_CLEAR_ALL);
    CHECK_EQ_INT(ok_cache_count(c), 0);
    ok_cache_close(c);
}

/* The action record layout JS reads is fixed. */
static void test_layout(void) {
    CHECK_EQ_INT(sizeof(ok_cache_action), 40);
    CHECK_EQ_INT(offsetof(ok_cache_action, name_off), 16);
    CHECK_EQ_INT(offsetof(ok_cache_action, value_lo), 32);
}

int main(void) {
    test_round_trip();
    test_every_truncation_and_flip();
    test_field_checks();
    test_load_records();
    test_layout();
    CHECK_EQ_INT(ok_cache_test_alloc_live(), 0);
    return CHECK_DONE();
}
