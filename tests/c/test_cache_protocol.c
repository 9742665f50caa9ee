/* The cache write/read protocol end to end against a fake IndexedDB:
 * write then hit, corrupt and missing chunks, resume, integrity, model
 * update, fetch modes, delete/clear/list. */
#include "check.h"
#include "test_cache_store.h"

#define CS 1024u

static uint8_t model_a[10 * CS + 123];
static uint8_t model_b[7 * CS];

/* begin_write + stream everything + commit. Returns the final status. */
static ok_status write_model(fs_js *js, const char *key, const char *etag,
                             const char *integ, const uint8_t *b, uint64_t n,
                             uint64_t now, uint32_t *id) {
    ok_status st = ok_cache_begin_write(js->c, key, "https://x/m.onnx", etag,
                                        NULL, integ, n, CS, 0, now, id);
    if (st) return st;
    js_set_source(js, *id, b, n);
    js_run(js);
    return js_download(js, *id);
}

static void hit_and_read(fs_js *js, const char *key, uint64_t now,
                         ok_cache_lookup_result *r) {
    CHECK_EQ_INT(js_call(js, ok_cache_lookup(js->c, key, OK_MODE_DEFAULT, now,
                                             r)),
                 OK_OK);
}

static void test_write_then_hit(void) {
    fstore s = {0};
    fs_js js;
    ok_cache *c;
    uint32_t id, n;
    const ok_cache_action *a;
    ok_cache_lookup_result r;
    ok_cache_entry_info info;
    uint8_t want[32];

    ok_cache_open(&c, 0);
    js_init(&js, &s, c);
    CHECK_EQ_INT(ok_cache_begin_write(c, "k", "https://x/m.onnx", "\"e1\"",
                                      "Tue, 01 Jan 2026", NULL,
                                      sizeof model_a, CS, 2, 100, &id),
                 OK_OK);
    /* the PENDING marker comes first, then the fetch */
    a = ok_cache_actions(c, &n);
    CHECK_EQ_INT(n, 2);
    CHECK_EQ_INT(a[0].type, OK_ACT_WRITE_MANIFEST);
    CHECK_EQ_INT(a[1].type, OK_ACT_FETCH);
    CHECK_EQ_INT(a[1].value_lo, 0);
    CHECK_EQ_INT(ok_cache_begin_write(c, "k", "u", NULL, NULL, NULL, 5, CS, 0,
                                      1, &n),
                 OK_ERR_IN_USE);
    js_set_source(&js, id, model_a, sizeof model_a);
    js_run(&js);
    CHECK_EQ_INT(s.n_man, 1);
    /* not servable while pending */
    CHECK_EQ_INT(ok_cache_lookup(c, "k", OK_MODE_DEFAULT, 1, &r), OK_OK);
    CHECK_EQ_INT(r.kind, OK_LOOKUP_MISS);
    CHECK_EQ_INT(js_download(&js, id), OK_OK);
    CHECK_EQ_INT(js.committed, 1);
    CHECK_EQ_INT(s.n_chk, 11);
    CHECK_EQ_INT(ok_cache_bytes_stored(c), sizeof model_a);
    CHECK_EQ_INT(ok_cache_entry_info_get(c, id, &info), OK_OK);
    CHECK_EQ_INT(info.state, OK_ENTRY_COMMITTED);
    CHECK_EQ_INT(info.form, 2);
    ok_sha256(model_a, sizeof model_a, want);
    CHECK(memcmp(info.sha256, want, 32) == 0);
    CHECK(fs_hit_matches(&s, info.name, model_a, sizeof model_a));

    hit_and_read(&js, "k", 200, &r);
    CHECK_EQ_INT(r.kind, OK_LOOKUP_HIT);
    CHECK_EQ_INT(r.entry, id);
    CHECK_EQ_INT(r.chunk_count, 11);
    CHECK_EQ_INT(js.corrupt_reads, 0);
    CHECK_EQ_INT(js.last_err, OK_OK);
    ok_cache_entry_info_get(c, id, &info);
    CHECK_EQ_INT(info.hit_count, 1);
    CHECK_EQ_INT(info.last_used, 200);
    CHECK_EQ_INT(info.refcount, 1);
    CHECK_EQ_INT(ok_cache_delete(c, "k"), OK_ERR_IN_USE);
    CHECK_EQ_INT(ok_cache_release(c, id), OK_OK);
    CHECK_EQ_INT(ok_cache_release(c, id), OK_ERR_STATE);

    /* the persisted LRU clock survives a reopen */
    ok_cache_close(c);
    c = js_reopen(&js, 0);
    CHECK_EQ_INT(ok_cache_count(c), 1);
    CHECK_EQ_INT(ok_cache_entry_at(c, 0, &info), OK_OK);
    CHECK_EQ_INT(info.hit_count, 1);
    CHECK_EQ_INT(info.last_used, 200);
    CHECK_EQ_STR(info.etag, "\"e1\"");
    CHECK_EQ_STR(info.last_modified, "Tue, 01 Jan 2026");
    CHECK_EQ_INT(ok_cache_entry_at(c, 1, &info), OK_ERR_NOT_FOUND);
    hit_and_read(&js, "k", 300, &r);
    CHECK_EQ_INT(r.kind, OK_LOOKUP_HIT);
    CHECK_EQ_INT(ok_cache_release(c, r.entry), OK_OK);

    /* delete: manifest and chunks gone */
    CHECK_EQ_INT(js_call(&js, ok_cache_delete(c, "k")), OK_OK);
    CHECK_EQ_INT(s.n_man, 0);
    CHECK_EQ_INT(s.n_chk, 0);
    CHECK_EQ_INT(ok_cache_delete(c, "k"), OK_ERR_NOT_FOUND);
    CHECK_EQ_INT(ok_cache_count(c), 0);
    ok_cache_close(c);
    js_drop_queue(&js);
    fs_free(&s);
}

static void test_corrupt_chunk(int missing) {
    fstore s = {0};
    fs_js js;
    ok_cache *c;
    uint32_t id;
    ok_cache_lookup_result r;
    fs_rec *rec;
    ok_cache_entry_info info;

    ok_cache_open(&c, 0);
    js_init(&js, &s, c);
    CHECK_EQ_INT(write_model(&js, "k", "e", NULL, model_a, sizeof model_a, 1,
                             &id),
                 OK_OK);
    ok_cache_entry_info_get(c, id, &info);
    rec = fs_find_chk(&s, info.name, 3);
    CHECK(rec != NULL);
    if (missing) fs_del_chunks(&s, info.name, 3, 4);
    else rec->bytes[17] ^= 0x40;
    js.last_err = OK_OK;
    hit_and_read(&js, "k", 2, &r);
    CHECK_EQ_INT(r.kind, OK_LOOKUP_HIT);
    CHECK_EQ_INT(js.corrupt_reads, 1);
    CHECK_EQ_INT(js.refetch, 1);
    CHECK_EQ_INT(js.errors, 1);
    /* evicted from index and store; the next lookup refetches */
    CHECK_EQ_INT(s.n_man, 0);
    CHECK_EQ_INT(s.n_chk, 0);
    CHECK_EQ_INT(ok_cache_count(c), 0);
    CHECK_EQ_INT(ok_cache_release(c, r.entry), OK_ERR_NOT_FOUND);
    CHECK_EQ_INT(ok_cache_lookup(c, "k", OK_MODE_DEFAULT, 3, &r), OK_OK);
    CHECK_EQ_INT(r.kind, OK_LOOKUP_MISS);
    CHECK_EQ_INT(write_model(&js, "k", "e", NULL, model_a, sizeof model_a, 4,
                             &id),
                 OK_OK);
    ok_cache_entry_info_get(c, id, &info);
    CHECK(fs_hit_matches(&s, info.name, model_a, sizeof model_a));
    ok_cache_close(c);
    js_drop_queue(&js);
    fs_free(&s);
}

/* ok_cache_chunk_read_digest: the read-path decision with the digest
 * computed by JS (WebCrypto). Good digests pass; a wrong digest, a wrong
 * length or a missing chunk drop the entry and ask for a refetch, exactly
 * like ok_cache_chunk_read. */
static void test_read_digest(int fault) {
    fstore s = {0};
    fs_js js;
    ok_cache *c;
    uint32_t id, i, n;
    ok_cache_lookup_result r;
    ok_cache_entry_info info;
    const ok_cache_action *a;
    int drops = 0, refetch = 0;
    uint8_t d[32];

    ok_cache_open(&c, 0);
    js_init(&js, &s, c);
    CHECK_EQ_INT(write_model(&js, "k", "e", NULL, model_a, sizeof model_a, 1,
                             &id),
                 OK_OK);
    ok_cache_entry_info_get(c, id, &info);
    CHECK_EQ_INT(ok_cache_lookup(c, "k", OK_MODE_DEFAULT, 2, &r), OK_OK);
    CHECK_EQ_INT(r.kind, OK_LOOKUP_HIT);
    ok_cache_actions_clear(c);
    for (i = 0; i < r.chunk_count; i++) {
        fs_rec *rec = fs_find_chk(&s, info.name, i);
        CHECK(rec != NULL);
        ok_sha256(rec->bytes, rec->len, d);
        if (fault && i == 3) {
            ok_status st;
            if (fault == 1) d[5] ^= 1;
            st = ok_cache_chunk_read_digest(c, id, i,
                                            rec->len - (fault == 2),
                                            fault == 3 ? NULL : d);
            CHECK_EQ_INT(st, OK_ERR_CORRUPT);
            break;
        }
        CHECK_EQ_INT(ok_cache_chunk_read_digest(c, id, i, rec->len, d), OK_OK);
    }
    a = ok_cache_actions(c, &n);
    for (i = 0; i < n; i++) {
        drops += a[i].type == OK_ACT_DROP_ENTRY;
        refetch += a[i].type == OK_ACT_REFETCH;
    }
    CHECK_EQ_INT(drops, fault ? 1 : 0);
    CHECK_EQ_INT(refetch, fault ? 1 : 0);
    if (!fault) {
        CHECK_EQ_INT(r.chunk_count, 11);
        CHECK_EQ_INT(ok_cache_chunk_read_digest(c, id, 11, 1, d),
                     OK_ERR_INVALID_ARG);
        CHECK_EQ_INT(ok_cache_release(c, id), OK_OK);
    } else {
        CHECK_EQ_INT(ok_cache_count(c), 0);
        CHECK_EQ_INT(ok_cache_chunk_read_digest(c, id, 0, 1, d),
                     OK_ERR_NOT_FOUND);
    }
    ok_cache_close(c);
    js_drop_queue(&js);
    fs_free(&s);
}

/* Stream only the first `upto` chunks of a download. */
static void partial(fs_js *js, uint32_t id, const uint8_t *b, uint32_t upto) {
    uint32_t i;
    for (i = 0; i < upto; i++)
        CHECK_EQ_INT(js_call(js, ok_cache_chunk_arrived(js->c, id, i,
                                                        b + (size_t)i * CS,
                                                        CS)),
                     OK_OK);
}

static void test_resume(int with_integrity, int corrupt_stored) {
    fstore s = {0};
    fs_js js;
    ok_cache *c;
    uint32_t id, id2;
    ok_cache_lookup_result r;
    ok_cache_entry_info info;
    char sri[64];
    const char *integ = NULL;

    if (with_integrity) {
        sri_of(model_a, sizeof model_a, sri);
        integ = sri;
    }
    ok_cache_open(&c, 0);
    js_init(&js, &s, c);
    CHECK_EQ_INT(ok_cache_begin_write(c, "k", "https://x/m.onnx", "e1", NULL,
                                      integ, sizeof model_a, CS, 0, 1, &id),
                 OK_OK);
    js_set_source(&js, id, model_a, sizeof model_a);
    js_run(&js);
    partial(&js, id, model_a, 4);
    /* network drops: keep it */
    CHECK_EQ_INT(ok_cache_abort_write(c, id, 1), OK_OK);
    /* and the tab closes */
    ok_cache_close(c);
    c = js_reopen(&js, 0);
    CHECK_EQ_INT(ok_cache_lookup(c, "k", OK_MODE_DEFAULT, 5, &r), OK_OK);
    CHECK_EQ_INT(r.kind, OK_LOOKUP_RESUME);
    CHECK_EQ_INT(r.resume_chunk, 4);
    CHECK_EQ_INT(r.resume_byte, 4 * CS);
    if (corrupt_stored) {
        ok_cache_entry_info_get(c, r.entry, &info);
        fs_find_chk(&s, info.name, 2)->bytes[0] ^= 1;
    }
    /* server answered 206 for If-Range "e1": same validators => resume */
    js.fetch_from = -1;
    CHECK_EQ_INT(ok_cache_begin_write(c, "k", "https://x/m.onnx", "e1", NULL,
                                      integ, sizeof model_a, CS, 0, 6, &id2),
                 OK_OK);
    CHECK_EQ_INT(id2, r.entry);
    js_set_source(&js, id2, model_a, sizeof model_a);
    js_run(&js);
    CHECK_EQ_INT(js.fetch_from, corrupt_stored ? 2 : 4);
    CHECK_EQ_INT(js.corrupt_reads, corrupt_stored ? 1 : 0);
    CHECK_EQ_INT(js_download(&js, id2), OK_OK);
    CHECK_EQ_INT(js.committed, 1);
    ok_cache_entry_info_get(c, id2, &info);
    CHECK(fs_hit_matches(&s, info.name, model_a, sizeof model_a));
    CHECK_EQ_INT(fs_check_no_orphans(&s), 0);
    {
        uint8_t want[32];
        ok_sha256(model_a, sizeof model_a, want);
        CHECK(memcmp(info.sha256, want, 32) == 0);
    }
    ok_cache_close(c);
    js_drop_queue(&js);
    fs_free(&s);
}

/* A resumed download whose stored prefix came from other bytes (a server
 * that lied about validators) is caught by the final integrity check. */
static void test_resume_integrity_still_checked(void) {
    fstore s = {0};
    fs_js js;
    ok_cache *c;
    uint32_t id;
    char sri[64];
    static uint8_t other[sizeof model_a];

    memcpy(other, model_a, sizeof other);
    other[5] ^= 0xFF; /* chunk 0 differs */
    sri_of(model_a, sizeof model_a, sri);
    ok_cache_open(&c, 0);
    js_init(&js, &s, c);
    CHECK_EQ_INT(ok_cache_begin_write(c, "k", "u", "e1", NULL, sri,
                                      sizeof model_a, CS, 0, 1, &id),
                 OK_OK);
    js_set_source(&js, id, other, sizeof other);
    js_run(&js);
    partial(&js, id, other, 3);
    CHECK_EQ_INT(ok_cache_abort_write(c, id, 1), OK_OK);
    CHECK_EQ_INT(ok_cache_begin_write(c, "k", "u", "e1", NULL, sri,
                                      sizeof model_a, CS, 0, 2, &id),
                 OK_OK);
    js_set_source(&js, id, model_a, sizeof model_a); /* rest is genuine */
    js_run(&js);
    CHECK_EQ_INT(js.fetch_from, 3);
    CHECK_EQ_INT(js_download(&js, id), OK_ERR_INTEGRITY);
    CHECK_EQ_INT(s.n_man, 0);
    CHECK_EQ_INT(s.n_chk, 0);
    CHECK_EQ_INT(ok_cache_count(c), 0);
    ok_cache_close(c);
    js_drop_queue(&js);
    fs_free(&s);
}

static void test_resume_validators_changed(void) {
    fstore s = {0};
    fs_js js;
    ok_cache *c;
    uint32_t id, id2;
    ok_cache_entry_info info;

    ok_cache_open(&c, 0);
    js_init(&js, &s, c);
    CHECK_EQ_INT(ok_cache_begin_write(c, "k", "u", "e1", NULL, NULL,
                                      sizeof model_a, CS, 0, 1, &id),
                 OK_OK);
    js_set_source(&js, id, model_a, sizeof model_a);
    js_run(&js);
    partial(&js, id, model_a, 5);
    CHECK_EQ_INT(ok_cache_abort_write(c, id, 1), OK_OK);
    /* 200 instead of 206: new ETag => clean refetch, old partial swept */
    CHECK_EQ_INT(ok_cache_begin_write(c, "k", "u", "e2", NULL, NULL,
                                      sizeof model_b, CS, 0, 2, &id2),
                 OK_OK);
    CHECK(id2 != id);
    js_set_source(&js, id2, model_b, sizeof model_b);
    js_run(&js);
    CHECK_EQ_INT(js.fetch_from, 0);
    CHECK_EQ_INT(s.n_chk, 0);
    CHECK_EQ_INT(s.n_man, 1);
    CHECK_EQ_INT(js_download(&js, id2), OK_OK);
    ok_cache_entry_info_get(c, id2, &info);
    CHECK(fs_hit_matches(&s, info.name, model_b, sizeof model_b));
    CHECK_EQ_INT(ok_cache_count(c), 1);
    /* abort without keep drops everything */
    CHECK_EQ_INT(ok_cache_begin_write(c, "k2", "u", NULL, NULL, NULL, 3000, CS,
                                      0, 3, &id),
                 OK_OK);
    js_set_source(&js, id, model_a, 3000);
    js_run(&js);
    partial(&js, id, model_a, 1);
    /* no validator and no integrity: not resumable even with keep */
    CHECK_EQ_INT(js_call(&js, ok_cache_abort_write(c, id, 1)), OK_OK);
    CHECK_EQ_INT(ok_cache_count(c), 1);
    CHECK_EQ_INT(s.n_man, 1);
    ok_cache_close(c);
    js_drop_queue(&js);
    fs_free(&s);
}

static void test_integrity(void) {
    fstore s = {0};
    fs_js js;
    ok_cache *c;
    uint32_t id;
    char sri[64], two[160];
    uint8_t d[4][32];
    uint32_t n;
    ok_cache_lookup_result r;

    /* parser */
    CHECK_EQ_INT(ok_cache_parse_integrity(
                     "sha256-ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=", d,
                     4, &n),
                 OK_OK);
    CHECK_EQ_INT(n, 1);
    ok_sha256((const uint8_t *)"abc", 3, d[1]);
    CHECK(memcmp(d[0], d[1], 32) == 0);
    CHECK_EQ_INT(ok_cache_parse_integrity(NULL, d, 4, &n), OK_OK);
    CHECK_EQ_INT(n, 0);
    CHECK_EQ_INT(ok_cache_parse_integrity("  ", d, 4, &n), OK_OK);
    CHECK_EQ_INT(n, 0);
    CHECK_EQ_INT(ok_cache_parse_integrity("sha384-abc", d, 4, &n),
                 OK_ERR_INVALID_ARG);
    CHECK_EQ_INT(ok_cache_parse_integrity("sha256-abc", d, 4, &n),
                 OK_ERR_INVALID_ARG);
    CHECK_EQ_INT(ok_cache_parse_integrity(
                     "sha384-xyz sha256-ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0?x=1",
                     d, 4, &n),
                 OK_OK);
    CHECK_EQ_INT(n, 1);
    CHECK_EQ_INT(ok_cache_parse_integrity(
                     "sha256-ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa1=", d,
                     4, &n),
                 OK_ERR_INVALID_ARG); /* non-zero trailing bits */
    CHECK_EQ_INT(ok_cache_begin_write(NULL, "k", "u", NULL, NULL, NULL, 1, 1,
                                      0, 0, &id),
                 OK_ERR_INVALID_ARG);

    ok_cache_open(&c, 0);
    js_init(&js, &s, c);
    CHECK_EQ_INT(ok_cache_begin_write(c, "k", "u", NULL, NULL, "sha512-zz", 5,
                                      CS, 0, 1, &id),
                 OK_ERR_INVALID_ARG);
    /* wrong digest: nothing stored, pending chunks dropped */
    sri_of(model_b, sizeof model_b, sri);
    CHECK_EQ_INT(write_model(&js, "k", "e", sri, model_a, sizeof model_a, 1,
                             &id),
                 OK_ERR_INTEGRITY);
    CHECK_EQ_INT(js.errors, 1);
    CHECK_EQ_INT(js.committed, 0);
    CHECK_EQ_INT(s.n_man, 0);
    CHECK_EQ_INT(s.n_chk, 0);
    CHECK_EQ_INT(ok_cache_count(c), 0);
    CHECK_EQ_INT(ok_cache_lookup(c, "k", OK_MODE_DEFAULT, 2, &r), OK_OK);
    CHECK_EQ_INT(r.kind, OK_LOOKUP_MISS);
    /* any of several sha256 tokens may match */
    sri_of(model_a, sizeof model_a, two + 100);
    sri_of(model_b, sizeof model_b, two);
    two[51] = ' ';
    memmove(two + 52, two + 100, 52);
    CHECK_EQ_INT(write_model(&js, "k", "e", two, model_a, sizeof model_a, 3,
                             &id),
                 OK_OK);
    CHECK_EQ_INT(js.committed, 1);
    ok_cache_close(c);
    js_drop_queue(&js);
    fs_free(&s);
}

static void test_model_update(int in_use) {
    fstore s = {0};
    fs_js js;
    ok_cache *c;
    uint32_t v1, v2;
    ok_cache_lookup_result r;
    ok_cache_entry_info info;
    char name1[64];

    ok_cache_open(&c, 0);
    js_init(&js, &s, c);
    CHECK_EQ_INT(write_model(&js, "k", "A", NULL, model_a, sizeof model_a, 1,
                             &v1),
                 OK_OK);
    ok_cache_entry_info_get(c, v1, &info);
    strcpy(name1, info.name);
    if (in_use) {
        hit_and_read(&js, "k", 2, &r);
        CHECK_EQ_INT(r.entry, v1);
    }
    /* revalidation says 200 with a new ETag: fetch v2 alongside */
    CHECK_EQ_INT(ok_cache_begin_write(c, "k", "https://x/m.onnx", "B", NULL,
                                      NULL, sizeof model_b, CS, 0, 3, &v2),
                 OK_OK);
    js_set_source(&js, v2, model_b, sizeof model_b);
    js_run(&js);
    /* v1 still serves while v2 downloads */
    CHECK_EQ_INT(ok_cache_lookup(c, "k", OK_MODE_ONLY_IF_CACHED, 4, &r),
                 OK_OK);
    CHECK_EQ_INT(r.entry, v1);
    js_call(&js, OK_OK);
    CHECK_EQ_INT(ok_cache_release(c, v1), OK_OK);
    CHECK_EQ_INT(js_download(&js, v2), OK_OK);
    ok_cache_entry_info_get(c, v2, &info);
    CHECK_EQ_INT(info.gen, 2);
    CHECK(fs_hit_matches(&s, info.name, model_b, sizeof model_b));
    if (in_use) {
        /* the old version is still read: kept until released */
        CHECK(fs_find_man(&s, name1) != NULL);
        CHECK_EQ_INT(ok_cache_count(c), 2);
        CHECK_EQ_INT(js_call(&js, ok_cache_release(c, v1)), OK_OK);
    }
    CHECK(fs_find_man(&s, name1) == NULL);
    CHECK_EQ_INT(ok_cache_count(c), 1);
    CHECK_EQ_INT(fs_check_no_orphans(&s), 0);
    CHECK_EQ_INT(ok_cache_bytes_stored(c), sizeof model_b);
    hit_and_read(&js, "k", 5, &r);
    CHECK_EQ_INT(r.entry, v2);
    ok_cache_entry_info_get(c, v2, &info);
    CHECK_EQ_STR(info.etag, "B");
    ok_cache_close(c);
    js_drop_queue(&js);
    fs_free(&s);
}

static void test_modes(void) {
    fstore s = {0};
    fs_js js;
    ok_cache *c;
    uint32_t id;
    ok_cache_lookup_result r;

    ok_cache_open(&c, 0);
    js_init(&js, &s, c);
    CHECK_EQ_INT(ok_cache_lookup(c, "k", OK_MODE_ONLY_IF_CACHED, 1, &r),
                 OK_ERR_NOT_FOUND);
    CHECK_EQ_INT(r.kind, OK_LOOKUP_NOT_FOUND);
    CHECK_EQ_INT(ok_cache_lookup(c, "k", 9, 1, &r), OK_ERR_INVALID_ARG);
    CHECK_EQ_INT(ok_cache_lookup(c, "", 0, 1, &r), OK_ERR_INVALID_ARG);
    CHECK_EQ_INT(write_model(&js, "k", "A", NULL, model_b, sizeof model_b, 1,
                             &id),
                 OK_OK);
    CHECK_EQ_INT(ok_cache_lookup(c, "k", OK_MODE_NO_STORE, 2, &r), OK_OK);
    CHECK_EQ_INT(r.kind, OK_LOOKUP_BYPASS);
    CHECK_EQ_INT(ok_cache_lookup(c, "k", OK_MODE_RELOAD, 2, &r), OK_OK);
    CHECK_EQ_INT(r.kind, OK_LOOKUP_MISS);
    CHECK_EQ_INT(ok_cache_lookup(c, "k", OK_MODE_NO_CACHE, 2, &r), OK_OK);
    CHECK_EQ_INT(r.kind, OK_LOOKUP_REVALIDATE);
    CHECK_EQ_INT(r.entry, id);
    {
        uint32_t n;
        ok_cache_actions(c, &n);
        CHECK_EQ_INT(n, 0); /* nothing read, nothing held */
    }
    /* 304 */
    CHECK_EQ_INT(js_call(&js, ok_cache_revalidated(c, id, 3, &r)), OK_OK);
    CHECK_EQ_INT(r.kind, OK_LOOKUP_HIT);
    CHECK_EQ_INT(js.corrupt_reads, 0);
    CHECK_EQ_INT(ok_cache_release(c, id), OK_OK);
    CHECK_EQ_INT(ok_cache_lookup(c, "k", OK_MODE_ONLY_IF_CACHED, 4, &r),
                 OK_OK);
    CHECK_EQ_INT(r.kind, OK_LOOKUP_HIT);
    js_call(&js, OK_OK);
    CHECK_EQ_INT(ok_cache_release(c, id), OK_OK);
    /* reload: refetch and replace */
    CHECK_EQ_INT(write_model(&js, "k", "A", NULL, model_a, sizeof model_a, 5,
                             &id),
                 OK_OK);
    CHECK_EQ_INT(ok_cache_count(c), 1);
    CHECK_EQ_INT(s.n_man, 1);
    CHECK_EQ_INT(s.n_chk, 11);
    /* clear keeps entries in use */
    hit_and_read(&js, "k", 6, &r);
    CHECK_EQ_INT(write_model(&js, "k2", "A", NULL, model_b, sizeof model_b, 7,
                             &id),
                 OK_OK);
    CHECK_EQ_INT(js_call(&js, ok_cache_clear(c)), OK_OK);
    CHECK_EQ_INT(ok_cache_count(c), 1);
    CHECK_EQ_INT(s.n_man, 1);
    CHECK_EQ_INT(ok_cache_release(c, r.entry), OK_OK);
    CHECK_EQ_INT(js_call(&js, ok_cache_clear(c)), OK_OK);
    CHECK_EQ_INT(s.n_man + s.n_chk, 0);
    ok_cache_close(c);
    js_drop_queue(&js);
    fs_free(&s);
}

int main(void) {
    fill_bytes(model_a, sizeof model_a, 1);
    fill_bytes(model_b, sizeof model_b, 2);
    test_write_then_hit();
    test_corrupt_chunk(0);
    test_corrupt_chunk(1);
    test_read_digest(0);
    test_read_digest(1);
    test_read_digest(2);
    test_read_digest(3);
    test_resume(0, 0);
    test_resume(1, 0);
    test_resume(1, 1);
    test_resume_integrity_still_checked();
    test_resume_validators_changed();
    test_integrity();
    test_model_update(0);
    test_model_update(1);
    test_modes();
    CHECK_EQ_INT(ok_cache_test_alloc_live(), 0);
    return CHECK_DONE();
}
