/* LRU eviction under a byte budget and the browser quota: order, entries in
 * use are never evicted, all-or-nothing planning, QuotaExceededError during
 * a write (evict and retry, else load uncached). */
#include "check.h"
#include "test_cache_store.h"

#define CS 256u

static uint8_t models[8][6 * CS];

static uint32_t put(fs_js *js, const char *key, int m, uint32_t chunks,
                    uint64_t now) {
    uint32_t id = 0;
    CHECK_EQ_INT(ok_cache_begin_write(js->c, key, "u", "e", NULL, NULL,
                                      (uint64_t)chunks * CS, CS, 0, now, &id),
                 OK_OK);
    js_set_source(js, id, models[m], (uint64_t)chunks * CS);
    js_run(js);
    CHECK_EQ_INT(js_download(js, id), OK_OK);
    return id;
}

static int has_key(ok_cache *c, const char *key) {
    uint32_t i;
    ok_cache_entry_info info;
    for (i = 0; ok_cache_entry_at(c, i, &info) == OK_OK; i++)
        if (strcmp(info.key, key) == 0) return 1;
    return 0;
}

static void test_lru_budget(void) {
    fstore s = {0};
    fs_js js;
    ok_cache *c;
    ok_cache_lookup_result r;
    uint32_t n, id3;
    const ok_cache_action *a;

    ok_cache_open(&c, 9 * CS);
    js_init(&js, &s, c);
    put(&js, "k1", 0, 3, 1);
    put(&js, "k2", 1, 3, 2);
    id3 = put(&js, "k3", 2, 3, 3);
    CHECK_EQ_INT(ok_cache_bytes_stored(c), 9 * CS);
    /* touch k1: k2 becomes least recently used */
    js_call(&js, ok_cache_lookup(c, "k1", OK_MODE_DEFAULT, 10, &r));
    ok_cache_release(c, r.entry);
    CHECK_EQ_INT(ok_cache_plan_space(c, 3 * CS, UINT64_MAX), OK_OK);
    a = ok_cache_actions(c, &n);
    CHECK_EQ_INT(n, 1);
    CHECK_EQ_INT(a[0].type, OK_ACT_DROP_ENTRY);
    CHECK(a[0].name_len == 4 &&
          memcmp(ok_cache_action_data(c) + a[0].name_off, "k2#1", 4) == 0);
    js_run(&js);
    CHECK(!has_key(c, "k2"));
    CHECK(fs_find_man(&s, "k2#1") == NULL);
    CHECK_EQ_INT(ok_cache_bytes_stored(c), 6 * CS);
    CHECK_EQ_INT(fs_chunk_bytes(&s), 6 * CS);
    put(&js, "k4", 3, 3, 11);

    /* k3 is in use: to fit 6 chunks, evict k1 (t=10) and k4 (t=11) */
    js_call(&js, ok_cache_lookup(c, "k3", OK_MODE_DEFAULT, 12, &r));
    CHECK_EQ_INT(r.entry, id3);
    CHECK_EQ_INT(js_call(&js, ok_cache_plan_space(c, 6 * CS, UINT64_MAX)),
                 OK_OK);
    CHECK(has_key(c, "k3"));
    CHECK(!has_key(c, "k1"));
    CHECK(!has_key(c, "k4"));
    CHECK_EQ_INT(ok_cache_bytes_stored(c), 3 * CS);

    /* cannot fit even after evicting every idle entry: evict nothing */
    put(&js, "k5", 4, 3, 13);
    CHECK_EQ_INT(ok_cache_plan_space(c, 7 * CS, UINT64_MAX), OK_ERR_QUOTA);
    ok_cache_actions(c, &n);
    CHECK_EQ_INT(n, 0);
    CHECK_EQ_INT(ok_cache_count(c), 2);
    CHECK_EQ_INT(ok_cache_plan_space(c, 10 * CS, UINT64_MAX), OK_ERR_QUOTA);
    CHECK_EQ_INT(ok_cache_count(c), 2);
    /* fits as is: nothing to do */
    CHECK_EQ_INT(ok_cache_plan_space(c, 3 * CS, UINT64_MAX), OK_OK);
    ok_cache_actions(c, &n);
    CHECK_EQ_INT(n, 0);
    /* the device quota binds too: only one chunk free on disk */
    CHECK_EQ_INT(ok_cache_set_budget(c, 0), OK_OK);
    CHECK_EQ_INT(ok_cache_plan_space(c, 3 * CS, CS), OK_OK);
    CHECK(!has_key(c, "k5"));
    CHECK_EQ_INT(ok_cache_plan_space(c, 3 * CS, CS), OK_ERR_QUOTA);
    ok_cache_release(c, id3);
    CHECK_EQ_INT(js_call(&js, ok_cache_plan_space(c, 3 * CS, CS)), OK_OK);
    CHECK_EQ_INT(ok_cache_count(c), 0);
    CHECK_EQ_INT(s.n_man + s.n_chk, 0);
    ok_cache_close(c);
    js_drop_queue(&js);
    fs_free(&s);
}

/* A write hits QuotaExceededError: evict LRU, retry, finish. */
static void test_quota_error_evicts(void) {
    fstore s = {0};
    fs_js js;
    ok_cache *c;
    uint32_t id;
    ok_cache_entry_info info;

    ok_cache_open(&c, 0);
    js_init(&js, &s, c);
    put(&js, "a", 0, 3, 1);
    put(&js, "b", 1, 3, 2);
    put(&js, "c", 2, 3, 3);
    s.quota = 12 * CS;
    id = put(&js, "big", 3, 6, 4);
    CHECK_EQ_INT(js.uncached, 0);
    CHECK_EQ_INT(js.last_err, OK_OK);
    CHECK(!has_key(c, "a")); /* the LRU one made room */
    CHECK(has_key(c, "b"));
    CHECK(has_key(c, "c"));
    ok_cache_entry_info_get(c, id, &info);
    CHECK_EQ_INT(info.state, OK_ENTRY_COMMITTED);
    CHECK(fs_hit_matches(&s, info.name, models[3], 6 * CS));
    CHECK_EQ_INT(ok_cache_bytes_stored(c), fs_chunk_bytes(&s));
    ok_cache_close(c);
    js_drop_queue(&js);
    fs_free(&s);
}

/* Nothing can make room: load uncached, integrity still checked. */
static void test_quota_uncached(int good_integrity) {
    fstore s = {0};
    fs_js js;
    ok_cache *c;
    uint32_t id;
    ok_cache_lookup_result r;
    char sri[64];
    ok_status st;

    sri_of(models[good_integrity ? 5 : 6], 6 * CS, sri);
    ok_cache_open(&c, 0);
    js_init(&js, &s, c);
    put(&js, "held", 0, 2, 1);
    js_call(&js, ok_cache_lookup(c, "held", OK_MODE_DEFAULT, 2, &r));
    s.quota = 4 * CS;
    CHECK_EQ_INT(ok_cache_begin_write(c, "big", "u", "e", NULL, sri, 6 * CS,
                                      CS, 0, 3, &id),
                 OK_OK);
    js_set_source(&js, id, models[5], 6 * CS);
    js_run(&js);
    st = js_download(&js, id);
    CHECK_EQ_INT(js.uncached, 1);
    CHECK_EQ_INT(js.last_err, good_integrity ? OK_ERR_QUOTA : OK_ERR_INTEGRITY);
    CHECK_EQ_INT(st, good_integrity ? OK_OK : OK_ERR_INTEGRITY);
    CHECK_EQ_INT(ok_cache_count(c), 1); /* only the held entry */
    CHECK(has_key(c, "held"));
    CHECK(fs_find_man(&s, "big#1") == NULL);
    CHECK_EQ_INT(fs_chunk_bytes(&s), 2 * CS);
    CHECK_EQ_INT(ok_cache_bytes_stored(c), 2 * CS);
    CHECK_EQ_INT(ok_cache_release(c, r.entry), OK_OK);
    ok_cache_close(c);
    js_drop_queue(&js);
    fs_free(&s);
}

int main(void) {
    int i;
    for (i = 0; i < 8; i++) fill_bytes(models[i], sizeof models[i], 100 + i);
    test_lru_budget();
    test_quota_error_evicts();
    test_quota_uncached(1);
    test_quota_uncached(0);
    CHECK_EQ_INT(ok_cache_test_alloc_live(), 0);
    return CHECK_DONE();
}
