/* Crash the write protocol after every store transaction and prove that
 * recovery never serves a torn entry, sweeps what a dead write left, and
 * that the next write succeeds and hits.
 *
 * The crash model: IndexedDB transactions are atomic, so a crash lands
 * between two of them; everything the page had in memory (the ok_cache,
 * queued actions, downloaded bytes) is lost; the store stays. */
#include "check.h"
#include "test_cache_store.h"

#define CS 512u

static uint8_t model_new[9 * CS + 77];
static uint8_t model_old[5 * CS];
static uint8_t model_bad[sizeof model_new]; /* fails sri_new */
static char sri_new[64];

enum { SC_FRESH, SC_UPDATE, SC_RESUME, SC_COUNT };

/* The store before the write under test. */
static void setup(fstore *s, int scenario) {
    fs_js js;
    ok_cache *c;
    uint32_t id;
    ok_cache_open(&c, 0);
    js_init(&js, s, c);
    if (scenario == SC_UPDATE) {
        ok_cache_begin_write(c, "k", "u", "old", NULL, NULL, sizeof model_old,
                             CS, 0, 1, &id);
        js_set_source(&js, id, model_old, sizeof model_old);
        js_run(&js);
        CHECK_EQ_INT(js_download(&js, id), OK_OK);
    } else if (scenario == SC_RESUME) {
        uint32_t i;
        ok_cache_begin_write(c, "k", "u", "new", NULL, sri_new,
                             sizeof model_new, CS, 0, 1, &id);
        js_set_source(&js, id, model_new, sizeof model_new);
        js_run(&js);
        for (i = 0; i < 4; i++)
            js_call(&js, ok_cache_chunk_arrived(c, id, i,
                                                model_new + (size_t)i * CS,
                                                CS));
        /* the tab dies mid-download: no abort event */
    }
    ok_cache_close(c);
    js_drop_queue(&js);
}

/* The write under test; returns 1 if it crashed. */
static const uint8_t *write_src = model_new;
static int do_write(fs_js *js, long crash_at) {
    uint32_t id;
    ok_status st;
    js->applied = 0;
    js->crash_at = crash_at;
    js->fetch_from = -1;
    st = ok_cache_begin_write(js->c, "k", "u", "new", NULL, sri_new,
                              sizeof model_new, CS, 0, 10, &id);
    CHECK_EQ_INT(st, OK_OK);
    js_set_source(js, id, write_src, sizeof model_new);
    js_run(js);
    if (!js->crashed) {
        st = js_download(js, id);
        if (!js->crashed)
            CHECK_EQ_INT(st, write_src == model_new ? OK_OK : OK_ERR_INTEGRITY);
    }
    return js->crashed;
}

static int committed_manifests(fstore *s, const char *key) {
    size_t i;
    int n = 0;
    for (i = 0; i < s->n_man; i++) {
        ok_manifest m;
        if (ok_manifest_decode(s->man[i].bytes, s->man[i].len, &m)) continue;
        n += m.state == OK_ENTRY_COMMITTED && strcmp(m.key, key) == 0;
        ok_manifest_free(&m);
    }
    return n;
}

/* After recovery: a HIT is a whole, verified entry (old or new bytes). */
static void check_after(fs_js *js, int scenario, long k, int *saw_new) {
    ok_cache_lookup_result r;
    ok_cache_entry_info info;
    int bad = fs_check_no_orphans(js->s);
    if (bad) fprintf(stderr, "scenario %d crash %ld: %d orphans\n", scenario,
                     k, bad);
    CHECK_EQ_INT(bad, 0);
    CHECK(committed_manifests(js->s, "k") <= 1);
    js->corrupt_reads = 0;
    CHECK_EQ_INT(js_call(js, ok_cache_lookup(js->c, "k", OK_MODE_DEFAULT, 20,
                                             &r)),
                 OK_OK);
    CHECK_EQ_INT(js->corrupt_reads, 0);
    if (r.kind == OK_LOOKUP_HIT) {
        ok_cache_entry_info_get(js->c, r.entry, &info);
        if (strcmp(info.etag, "new") == 0) {
            CHECK(fs_hit_matches(js->s, info.name, model_new,
                                 sizeof model_new));
            *saw_new = 1;
        } else {
            CHECK_EQ_INT(scenario, SC_UPDATE);
            CHECK(fs_hit_matches(js->s, info.name, model_old,
                                 sizeof model_old));
        }
        CHECK_EQ_INT(ok_cache_release(js->c, r.entry), OK_OK);
    } else {
        CHECK(r.kind == OK_LOOKUP_MISS || r.kind == OK_LOOKUP_RESUME);
        /* nothing committed may be left for the key unless it's the old */
        CHECK(committed_manifests(js->s, "k") == 0);
    }
}

static void run_scenario(int scenario) {
    long total, k;
    int saw_new_after_crash = 0, resumed = 0;

    /* a clean run counts the transactions */
    {
        fstore s = {0};
        fs_js js;
        setup(&s, scenario);
        js_init(&js, &s, NULL);
        js_reopen(&js, 0);
        CHECK_EQ_INT(do_write(&js, -1), 0);
        total = js.applied;
        CHECK(total >= 5);
        ok_cache_close(js.c);
        js_drop_queue(&js);
        fs_free(&s);
    }
    for (k = 0; k <= total; k++) {
        fstore s = {0};
        fs_js js;
        ok_cache_lookup_result r;
        ok_cache_entry_info info;
        int crashed;
        setup(&s, scenario);
        js_init(&js, &s, NULL);
        js_reopen(&js, 0);
        crashed = do_write(&js, k);
        CHECK_EQ_INT(crashed, k < total);
        ok_cache_close(js.c); /* the tab is gone */
        js_drop_queue(&js);

        js_reopen(&js, 0);
        check_after(&js, scenario, k, &saw_new_after_crash);

        /* the next load: lookup, then (re)write if needed, then HIT */
        CHECK_EQ_INT(ok_cache_lookup(js.c, "k", OK_MODE_DEFAULT, 30, &r),
                     OK_OK);
        if (r.kind == OK_LOOKUP_HIT) {
            ok_cache_actions_clear(js.c);
            ok_cache_release(js.c, r.entry);
            ok_cache_entry_info_get(js.c, r.entry, &info);
        }
        if (r.kind != OK_LOOKUP_HIT || strcmp(info.etag, "new") != 0) {
            CHECK_EQ_INT(do_write(&js, -1), 0);
            /* the fetch that finished the rewrite started past chunk 0 */
            if (js.fetch_from > 0) resumed++;
        }
        CHECK_EQ_INT(js_call(&js, ok_cache_lookup(js.c, "k", OK_MODE_DEFAULT,
                                                  40, &r)),
                     OK_OK);
        CHECK_EQ_INT(r.kind, OK_LOOKUP_HIT);
        CHECK_EQ_INT(js.corrupt_reads, 0);
        ok_cache_entry_info_get(js.c, r.entry, &info);
        CHECK_EQ_STR(info.etag, "new");
        CHECK(fs_hit_matches(&s, info.name, model_new, sizeof model_new));
        CHECK_EQ_INT(ok_cache_count(js.c), 1);
        CHECK_EQ_INT(fs_check_no_orphans(&s), 0);
        CHECK_EQ_INT(committed_manifests(&s, "k"), 1);
        CHECK_EQ_INT(s.n_man, 1);
        CHECK_EQ_INT(s.n_chk, 10);
        ok_cache_release(js.c, r.entry);
        ok_cache_close(js.c);
        js_drop_queue(&js);
        fs_free(&s);
    }
    /* a crash right after the commit transaction keeps the new entry, and
     * crashes mid-download resume from what was stored */
    CHECK(saw_new_after_crash);
    CHECK(resumed > 0);
    printf("scenario %d: %ld crash points, %d resumed\n", scenario, total,
           resumed);
}

/* The server sends bytes that fail the page's integrity: at no crash point
 * may they become servable, and a later genuine download still lands (a
 * resume over the bad prefix fails integrity once, then a clean refetch). */
static void run_bad_integrity(void) {
    long total, k;
    {
        fstore s = {0};
        fs_js js;
        js_init(&js, &s, NULL);
        js_reopen(&js, 0);
        write_src = model_bad;
        CHECK_EQ_INT(do_write(&js, -1), 0);
        total = js.applied;
        CHECK_EQ_INT(s.n_man + s.n_chk, 0);
        ok_cache_close(js.c);
        js_drop_queue(&js);
        fs_free(&s);
    }
    for (k = 0; k <= total; k++) {
        fstore s = {0};
        fs_js js;
        ok_cache_lookup_result r;
        int attempt;
        js_init(&js, &s, NULL);
        js_reopen(&js, 0);
        write_src = model_bad;
        do_write(&js, k);
        ok_cache_close(js.c);
        js_drop_queue(&js);
        js_reopen(&js, 0);
        CHECK_EQ_INT(committed_manifests(&s, "k"), 0);
        CHECK_EQ_INT(fs_check_no_orphans(&s), 0);
        CHECK_EQ_INT(ok_cache_lookup(js.c, "k", OK_MODE_DEFAULT, 5, &r), OK_OK);
        CHECK(r.kind != OK_LOOKUP_HIT);
        write_src = model_new;
        for (attempt = 0; attempt < 2; attempt++) {
            ok_status st;
            uint32_t id;
            js.fetch_from = -1;
            js.applied = 0;
            st = ok_cache_begin_write(js.c, "k", "u", "new", NULL, sri_new,
                                      sizeof model_new, CS, 0, 10, &id);
            CHECK_EQ_INT(st, OK_OK);
            js_set_source(&js, id, model_new, sizeof model_new);
            js_run(&js);
            if (js_download(&js, id) == OK_OK) break;
            CHECK_EQ_INT(committed_manifests(&s, "k"), 0);
        }
        CHECK(attempt < 2);
        CHECK_EQ_INT(js_call(&js, ok_cache_lookup(js.c, "k", OK_MODE_DEFAULT,
                                                  6, &r)),
                     OK_OK);
        CHECK_EQ_INT(r.kind, OK_LOOKUP_HIT);
        CHECK_EQ_INT(js.corrupt_reads, 0);
        CHECK_EQ_INT(s.n_man, 1);
        CHECK_EQ_INT(fs_check_no_orphans(&s), 0);
        ok_cache_release(js.c, r.entry);
        ok_cache_close(js.c);
        js_drop_queue(&js);
        fs_free(&s);
    }
    write_src = model_new;
    printf("bad integrity: %ld crash points\n", total);
}

int main(void) {
    int sc;
    fill_bytes(model_new, sizeof model_new, 7);
    fill_bytes(model_old, sizeof model_old, 8);
    sri_of(model_new, sizeof model_new, sri_new);
    memcpy(model_bad, model_new, sizeof model_bad);
    model_bad[sizeof model_bad - 1] ^= 1; /* in the last chunk */
    for (sc = 0; sc < SC_COUNT; sc++) run_scenario(sc);
    run_bad_integrity();
    CHECK_EQ_INT(ok_cache_test_alloc_live(), 0);
    return CHECK_DONE();
}
