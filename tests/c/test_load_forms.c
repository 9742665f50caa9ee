/* Optimized forms in the load machine, against the fake browser: a cold
 * load asks for a capture, a FORM load stores the form only once it
 * verified and creates faster than the original, the next load serves it
 * at 'disabled'; a form that differs, is slower, is not a model or is
 * refused escalates .onnx -> .ort -> the original (the sentinel), each
 * verdict persisted; forms made from other bytes are not trusted; the
 * reader's facts skip a doomed tier; a crash after any write of a FORM
 * load never leaves a form that serves wrong bytes. */
#include "check.h"
#include "form_tiers.h"
#include "load_driver.h"

#define CS 4096u
#define URL "https://models.test/m.onnx"
#define CTX "ort=1.30.0;ep=wasm;level=all"

static uint8_t *model_a, *model_c, *opt_a, *ort_a;
static size_t len_a, len_c, len_opt, len_ort;
static uint8_t sha_a[32], sha_c[32];

static ok_load_params url_params(void) {
    ok_load_params p;
    memset(&p, 0, sizeof p);
    p.source = OK_SOURCE_URL;
    p.raw = URL;
    p.url = URL;
    p.page_url = "https://models.test/app/";
    p.chunk_size = CS;
    p.now = 1000;
    p.form_ctx = CTX;
    return p;
}

static ok_load_params form_params(uint32_t form, const uint8_t *sha, size_t len) {
    ok_load_params p;
    memset(&p, 0, sizeof p);
    p.source = OK_SOURCE_FORM;
    p.raw = "url:" URL "|form:original";
    p.url = URL;
    p.chunk_size = CS;
    p.now = 2000;
    p.form_ctx = CTX;
    p.form = form;
    p.source_sha256 = sha;
    p.bytes_len = len;
    return p;
}

typedef struct {
    fx_db db;
    fx_server srv;
    fx_page pg;
} world;

static void world_init(world *w) {
    memset(w, 0, sizeof *w);
    w->db.crash_after = -1;
    w->srv.bytes = model_a;
    w->srv.len = len_a;
    w->srv.every.cut_at = -1;
    snprintf(w->srv.etag, sizeof w->srv.etag, "\"v1\"");
    fx_page_init(&w->pg, &w->db, &w->srv, 0x4321);
    w->pg.create_us[OK_FORM_ONNX] = 100;
    w->pg.create_us[OK_FORM_ORT] = 120;
    w->pg.orig_create_us = 300;
}

static void world_free(world *w) {
    fx_page_close(&w->pg);
    db_free(&w->db);
}

static int served(const fx_page *pg, const uint8_t *b, size_t n) {
    return pg->done && pg->served && pg->served_len == n && memcmp(pg->served, b, n) == 0;
}

/* The stored record of form `form` (decoded into *m, freed by the caller
 * with ok_manifest_free), or 0 when there is none. */
static int stored_form(fx_db *d, uint32_t form, ok_manifest *m) {
    size_t i;
    for (i = 0; i < d->index.n; i++) {
        if (ok_manifest_decode(d->index.v[i].bytes, d->index.v[i].len, m) != OK_OK) continue;
        if (m->form == form && m->state == OK_ENTRY_COMMITTED) return 1;
        ok_manifest_free(m);
    }
    return 0;
}

static uint32_t form_status(fx_db *d, uint32_t form, uint32_t *reason) {
    ok_manifest m;
    uint32_t st;
    if (!stored_form(d, form, &m)) return OK_FORM_NONE;
    st = m.form_status;
    if (reason) *reason = m.form_reason;
    ok_manifest_free(&m);
    return st;
}

/* Every committed form is whole: a verified form's chunks are all there
 * and hash to its sha256; a tombstone has none. */
static int forms_whole(fx_db *d) {
    size_t i;
    int ok = 1;
    for (i = 0; i < d->index.n && ok; i++) {
        ok_manifest m;
        if (ok_manifest_decode(d->index.v[i].bytes, d->index.v[i].len, &m) != OK_OK) return 0;
        if (m.form != OK_FORM_ORIGINAL && m.state == OK_ENTRY_COMMITTED) {
            if (m.form_status == OK_FORM_VERIFIED)
                ok = fx_chunks_hash_to(d, d->index.v[i].name, m.chunk_count, m.sha256);
            if (m.form_status == OK_FORM_FAILED)
                ok = m.chunk_count == 0 && !fs_find(&d->chunks, d->index.v[i].name, 0);
        }
        ok_manifest_free(&m);
    }
    return ok;
}

/* Cold load, capture of .onnx, stored, served warm at 'disabled'. */
static void test_converges_to_onnx(void) {
    world w;
    ok_load_params p = url_params(), f;
    ok_manifest m;
    world_init(&w);
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, model_a, len_a));
    CHECK_EQ_INT(w.pg.created_form, OK_FORM_ORIGINAL);
    CHECK_EQ_INT(w.pg.capture, OK_FORM_ONNX);
    /* the capture is stored, verified and timed */
    f = form_params(OK_FORM_ONNX, sha_a, len_opt);
    w.pg.form_bytes = opt_a;
    w.pg.form_len = len_opt;
    fx_run(&w.pg, &f);
    CHECK(w.pg.done);
    CHECK_EQ_INT(w.pg.verifies, 1);
    CHECK_EQ_INT(w.pg.created_form, OK_FORM_ONNX);
    CHECK_EQ_INT(w.pg.sessions, w.pg.released); /* the round trip is released */
    CHECK_EQ_INT(w.pg.n_notes, 0);
    CHECK(stored_form(&w.db, OK_FORM_ONNX, &m));
    CHECK_EQ_INT(m.form_status, OK_FORM_VERIFIED);
    CHECK_EQ_INT(m.create_us, 100);
    CHECK_EQ_INT(m.orig_create_us, 300);
    CHECK(memcmp(m.source_sha256, sha_a, 32) == 0);
    CHECK(strstr(m.key, "|form:onnx|" CTX) != NULL);
    CHECK_EQ_INT(m.total_size, len_opt);
    ok_manifest_free(&m);
    CHECK(forms_whole(&w.db));
    /* the second load serves the form, at 'disabled', with no request */
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, opt_a, len_opt));
    CHECK_EQ_INT(w.pg.created_form, OK_FORM_ONNX);
    CHECK_EQ_INT(w.pg.tier, OK_TIER_INDEXEDDB);
    CHECK_EQ_INT(w.srv.n_req, 1);
    CHECK_EQ_INT(w.pg.sessions - w.pg.released, 1);
    /* without a context (forms off) the original serves */
    p.form_ctx = NULL;
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, model_a, len_a));
    CHECK_EQ_INT(w.pg.capture, OK_FORM_ORIGINAL);
    /* another context has no form yet */
    p.form_ctx = "ort=1.30.0;ep=webgpu,wasm;level=all";
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, model_a, len_a));
    CHECK_EQ_INT(w.pg.capture, OK_FORM_ONNX);
    /* a second FORM load of the same form (another tab captured too)
     * finds it decided and stores nothing */
    {
        size_t writes = (size_t)w.db.writes;
        w.pg.form_bytes = opt_a;
        fx_run(&w.pg, &f);
        CHECK(w.pg.done);
        CHECK_EQ_INT(w.pg.verifies, 0);
        CHECK_EQ_INT((size_t)w.db.writes, writes);
    }
    world_free(&w);
}

/* .onnx differs -> tombstone, .ort next; .ort slower -> the sentinel. */
static void test_escalation_to_sentinel(void) {
    world w;
    ok_load_params p = url_params(), f;
    uint32_t reason = 0;
    world_init(&w);
    fx_run(&w.pg, &p);
    CHECK_EQ_INT(w.pg.capture, OK_FORM_ONNX);
    f = form_params(OK_FORM_ONNX, sha_a, len_opt);
    w.pg.form_bytes = opt_a;
    w.pg.form_len = len_opt;
    w.pg.verdict = OK_VERDICT_DIFFERS;
    fx_run(&w.pg, &f);
    CHECK(w.pg.done);
    CHECK_EQ_INT(form_status(&w.db, OK_FORM_ONNX, &reason), OK_FORM_FAILED);
    CHECK_EQ_INT(reason, OK_REASON_FORM_OUTPUTS);
    CHECK_EQ_INT(w.pg.n_notes, 1);
    CHECK_EQ_INT(w.pg.notes[0], OK_NOTE_FORM_ESCALATED);
    CHECK_EQ_INT(w.pg.note_reasons[0], OK_REASON_FORM_OUTPUTS);
    CHECK_EQ_INT(w.pg.note_values[0], OK_FORM_ONNX | OK_FORM_ORT << 8);
    CHECK_EQ_INT(w.pg.sessions, w.pg.released);
    CHECK(forms_whole(&w.db));
    /* the next load serves the original and asks for .ort */
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, model_a, len_a));
    CHECK_EQ_INT(w.pg.capture, OK_FORM_ORT);
    /* the .ort verifies but creates slower than the original */
    f = form_params(OK_FORM_ORT, sha_a, len_ort);
    w.pg.form_bytes = ort_a;
    w.pg.form_len = len_ort;
    w.pg.verdict = OK_VERDICT_EQUAL;
    w.pg.create_us[OK_FORM_ORT] = 400;
    fx_run(&w.pg, &f);
    CHECK_EQ_INT(form_status(&w.db, OK_FORM_ORT, &reason), OK_FORM_FAILED);
    CHECK_EQ_INT(reason, OK_REASON_FORM_SLOWER);
    CHECK_EQ_INT(w.pg.note_values[0], OK_FORM_ORT | OK_FORM_ORIGINAL << 8);
    CHECK(forms_whole(&w.db));

    /* every tier failed for these bytes: the original, no more captures,
     * in this tab and in another */
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, model_a, len_a));
    CHECK_EQ_INT(w.pg.capture, OK_FORM_ORIGINAL);
    {
        fx_page other;
        fx_page_init(&other, &w.db, &w.srv, 0x777);
        fx_run(&other, &p);
        CHECK(served(&other, model_a, len_a));
        CHECK_EQ_INT(other.capture, OK_FORM_ORIGINAL);
        fx_page_close(&other);
    }
    /* the model changes at its URL: the verdicts were for other bytes */
    w.srv.bytes = model_c;
    w.srv.len = len_c;
    p.mode = OK_MODE_RELOAD;
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, model_c, len_c));
    CHECK_EQ_INT(w.pg.capture, OK_FORM_ONNX);
    /* for these new bytes the .onnx capture fails, and the .ort creation is
     * slow once (the machine was busy) but fast when timed again: the best
     * sample counts */
    {
        ok_manifest m;
        f = form_params(OK_FORM_ONNX, sha_c, 0);
        fx_run(&w.pg, &f);
        f = form_params(OK_FORM_ORT, sha_c, len_ort);
        w.pg.form_resample_us = 90;
        fx_run(&w.pg, &f);
        w.pg.form_resample_us = 0;
        CHECK(stored_form(&w.db, OK_FORM_ORT, &m));
        CHECK_EQ_INT(m.form_status, OK_FORM_VERIFIED);
        CHECK_EQ_INT(m.create_us, 90);
        ok_manifest_free(&m);
    }
    world_free(&w);
}

/* A verified .ort serves when .onnx failed; a stored form onnxruntime
 * refuses, or that rots, falls back to the original and is made again. */
/* The FORM load that stores model_a's .ort form (ort_a), verified. */
static void store_verified_ort(world *w) {
    ok_load_params f = form_params(OK_FORM_ORT, sha_a, len_ort);
    w->pg.form_bytes = ort_a;
    w->pg.form_len = len_ort;
    fx_run(&w->pg, &f);
    CHECK_EQ_INT(form_status(&w->db, OK_FORM_ORT, NULL), OK_FORM_VERIFIED);
}

static void test_ort_serves_and_refusal(void) {
    world w;
    ok_load_params p = url_params(), f;
    world_init(&w);
    fx_run(&w.pg, &p);
    /* .onnx is not even a model (a capture gone wrong) */
    f = form_params(OK_FORM_ONNX, sha_a, 64);
    w.pg.form_bytes = model_c + 200; /* garbage */
    w.pg.form_len = 64;
    fx_run(&w.pg, &f);
    CHECK(w.pg.done);
    CHECK_EQ_INT(form_status(&w.db, OK_FORM_ONNX, NULL), OK_FORM_FAILED);
    CHECK_EQ_INT(w.pg.verifies, 0);
    store_verified_ort(&w);
    f = form_params(OK_FORM_ORT, sha_a, len_ort);
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, ort_a, len_ort));
    CHECK_EQ_INT(w.pg.created_form, OK_FORM_ORT);
    /* onnxruntime refuses the stored .ort now (another device, say) */
    w.pg.refuse_forms = 1u << OK_FORM_ORT;
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, model_a, len_a));
    CHECK_EQ_INT(w.pg.n_notes, 1);
    CHECK_EQ_INT(w.pg.notes[0], OK_NOTE_FORM_DROPPED);
    CHECK_EQ_INT(w.pg.capture, OK_FORM_ORT); /* made and verified again */
    CHECK_EQ_INT(form_status(&w.db, OK_FORM_ORT, NULL), OK_FORM_NONE);
    CHECK_EQ_INT(w.srv.n_req, 1);
    CHECK_EQ_INT(w.pg.sessions - w.pg.released, 1);
    /* the new capture fails its round trip here: tombstone, sentinel */
    fx_run(&w.pg, &f);
    CHECK_EQ_INT(form_status(&w.db, OK_FORM_ORT, NULL), OK_FORM_FAILED);
    CHECK_EQ_INT(w.pg.sessions, w.pg.released);
    w.pg.refuse_forms = 0;
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, model_a, len_a));
    CHECK_EQ_INT(w.pg.capture, OK_FORM_ORIGINAL);
    world_free(&w);
}

/* A verified form refused for the caller's options (onnxruntime-web
 * refuses the same options on a model of ortkeep's own: OK_SESSION_OPTIONS,
 * say logSeverityLevel 9): SESSION_CREATE, and the form and its original
 * stay as they were; the next load with good options is served from it. */
static void test_form_refused_for_options(void) {
    world w;
    ok_load_params p = url_params();
    world_init(&w);
    fx_run(&w.pg, &p);
    store_verified_ort(&w);
    w.pg.refuse_sessions = 1;
    w.pg.refuse_facts = OK_SESSION_OPTIONS;
    fx_run(&w.pg, &p);
    CHECK(w.pg.failed);
    CHECK_EQ_INT(w.pg.fail_code, OK_ERR_SESSION_CREATE);
    CHECK_EQ_INT(w.pg.n_notes, 0);
    CHECK_EQ_INT(form_status(&w.db, OK_FORM_ORT, NULL), OK_FORM_VERIFIED);
    CHECK_EQ_INT(w.srv.n_req, 1);
    w.pg.refuse_facts = 0;
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, ort_a, len_ort));
    CHECK_EQ_INT(w.pg.created_form, OK_FORM_ORT);
    CHECK_EQ_INT(w.pg.capture, OK_FORM_ORIGINAL); /* nothing captured again */
    CHECK_EQ_INT(w.srv.n_req, 1);
    /* without the fact (the form's own refusal) it is dropped, as before */
    w.pg.refuse_sessions = 1;
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, model_a, len_a));
    CHECK_EQ_INT(form_status(&w.db, OK_FORM_ORT, NULL), OK_FORM_NONE);
    world_free(&w);
}

static void test_rotten_form_falls_back(void) {
    world w;
    ok_load_params p = url_params(), f;
    size_t i;
    world_init(&w);
    fx_run(&w.pg, &p);
    f = form_params(OK_FORM_ONNX, sha_a, len_opt);
    w.pg.form_bytes = opt_a;
    w.pg.form_len = len_opt;
    fx_run(&w.pg, &f);
    /* flip a byte in one of the form's stored chunks */
    for (i = 0; i < w.db.index.n; i++) {
        ok_manifest m;
        if (ok_manifest_decode(w.db.index.v[i].bytes, w.db.index.v[i].len, &m) != OK_OK) continue;
        if (m.form == OK_FORM_ONNX) {
            fx_rec *r = fs_find(&w.db.chunks, w.db.index.v[i].name, 1);
            CHECK(r != NULL);
            if (r) r->bytes[7] ^= 1;
        }
        ok_manifest_free(&m);
    }
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, model_a, len_a));
    CHECK_EQ_INT(w.pg.notes[0], OK_NOTE_FORM_DROPPED);
    CHECK_EQ_INT(w.pg.note_reasons[0], OK_REASON_CHECKSUM);
    CHECK_EQ_INT(w.pg.capture, OK_FORM_ONNX);
    CHECK_EQ_INT(w.srv.n_req, 1);
    CHECK(forms_whole(&w.db));
    world_free(&w);
}

/* The reader's facts: a model with external data gets an .onnx form (it
 * reads the original's data files) and never an .ort (the format has no
 * external data); with subgraph initializers too, none; external data past
 * what verification can hold, none. A failed capture (no bytes) is a
 * tombstone too. */
static void test_facts_and_failed_capture(void) {
    world w;
    ok_load_params p = url_params(), f;
    world_init(&w);
    w.pg.facts = OK_FACT_SUBGRAPH_INITIALIZERS;
    fx_run(&w.pg, &p);
    CHECK_EQ_INT(w.pg.capture, OK_FORM_ONNX);
    w.pg.facts = OK_FACT_EXTERNAL_DATA | OK_FACT_SUBGRAPH_INITIALIZERS;
    fx_run(&w.pg, &p);
    CHECK_EQ_INT(w.pg.capture, OK_FORM_ORIGINAL);
    w.pg.facts = OK_FACT_EXTERNAL_DATA;
    fx_run(&w.pg, &p);
    CHECK_EQ_INT(w.pg.capture, OK_FORM_ONNX);
    /* the .onnx failed for these bytes: no .ort after it (the FORM load
     * names none next), the sentinel */
    f = form_params(OK_FORM_ONNX, sha_a, 0);
    f.facts = OK_FACT_EXTERNAL_DATA;
    fx_run(&w.pg, &f);
    CHECK_EQ_INT(form_status(&w.db, OK_FORM_ONNX, NULL), OK_FORM_FAILED);
    CHECK_EQ_INT(w.pg.n_notes, 1);
    CHECK_EQ_INT((int)(w.pg.note_values[0] >> 8), OK_FORM_ORIGINAL); /* escalated to none */
    fx_run(&w.pg, &p);
    CHECK_EQ_INT(w.pg.capture, OK_FORM_ORIGINAL);
    world_free(&w);
    world_init(&w);
    /* external data up to the bound gets a form; past it (and at the
     * largest size, no wrap-around) none */
    w.pg.facts = OK_FACT_EXTERNAL_DATA;
    w.pg.external_bytes = OK_FORM_MAX_DATA_BYTES;
    fx_run(&w.pg, &p);
    CHECK_EQ_INT(w.pg.capture, OK_FORM_ONNX);
    w.pg.external_bytes = OK_FORM_MAX_DATA_BYTES + 1;
    fx_run(&w.pg, &p);
    CHECK_EQ_INT(w.pg.capture, OK_FORM_ORIGINAL);
    w.pg.external_bytes = UINT64_MAX;
    fx_run(&w.pg, &p);
    CHECK_EQ_INT(w.pg.capture, OK_FORM_ORIGINAL);
    /* without the fact, the size of external data does not matter */
    w.pg.facts = 0;
    fx_run(&w.pg, &p);
    CHECK_EQ_INT(w.pg.capture, OK_FORM_ONNX);
    {
        /* a model past what one protobuf file holds: no .onnx can be written */
        uint32_t form = 99;
        CHECK_EQ_INT(ok_form_next_capture(w.pg.c, "url:" URL "|form:original", CTX, sha_a, 0, 0,
                                          OK_FORM_MAX_INLINE_BYTES, 0, 1000, &form),
                     OK_OK);
        CHECK_EQ_INT(form, OK_FORM_ORIGINAL);
        CHECK_EQ_INT(ok_form_next_capture(w.pg.c, "url:" URL "|form:original", CTX, sha_a, 0, 0,
                                          OK_FORM_MAX_INLINE_BYTES - 1, 0, 1000, &form),
                     OK_OK);
        CHECK_EQ_INT(form, OK_FORM_ONNX);
    }
    w.pg.external_bytes = 0;
    w.pg.facts = 0;
    f = form_params(OK_FORM_ONNX, sha_a, 0);
    fx_run(&w.pg, &f);
    CHECK(w.pg.done);
    CHECK_EQ_INT(form_status(&w.db, OK_FORM_ONNX, NULL), OK_FORM_FAILED);
    CHECK_EQ_INT(w.pg.note_reasons[0], OK_REASON_FORM_CAPTURE);
    fx_run(&w.pg, &p);
    CHECK_EQ_INT(w.pg.capture, OK_FORM_ORT);
    /* no IndexedDB: a FORM load is refused, a URL load captures nothing */
    p.flags = OK_LOAD_NO_IDB;
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, model_a, len_a));
    CHECK_EQ_INT(w.pg.capture, OK_FORM_ORIGINAL);
    f = form_params(OK_FORM_ORT, sha_a, len_ort);
    f.flags = OK_LOAD_NO_IDB;
    fx_run(&w.pg, &f);
    CHECK(w.pg.failed);
    world_free(&w);
}

/* A FORM load that captures under the key's lock (CAPTURE_LATER): the
 * capture is asked for only when no verdict stands for these bytes, so a
 * second tab takes the first one's verdict without capturing; a capture
 * that wrote nothing usable is a tombstone; an abort while capturing
 * stores nothing. */
static void test_capture_later(void) {
    world w;
    ok_load_params p = url_params(), f = form_params(OK_FORM_ONNX, sha_a, 0);
    ok_manifest m;
    f.flags = OK_LOAD_CAPTURE_LATER;
    world_init(&w);
    fx_run(&w.pg, &p);
    CHECK_EQ_INT(w.pg.capture, OK_FORM_ONNX);
    w.pg.form_bytes = opt_a;
    w.pg.form_len = len_opt;
    fx_run(&w.pg, &f);
    CHECK(w.pg.done);
    CHECK_EQ_INT(w.pg.captures, 1);
    CHECK_EQ_INT(w.pg.captured_form, OK_FORM_ONNX);
    CHECK_EQ_INT(w.pg.verifies, 1);
    CHECK(stored_form(&w.db, OK_FORM_ONNX, &m));
    CHECK_EQ_INT(m.form_status, OK_FORM_VERIFIED);
    CHECK_EQ_INT(m.total_size, len_opt);
    ok_manifest_free(&m);
    CHECK(forms_whole(&w.db));
    /* another tab's FORM load: the verdict stands, nothing is captured */
    {
        size_t writes = (size_t)w.db.writes;
        fx_run(&w.pg, &f);
        CHECK(w.pg.done);
        CHECK_EQ_INT(w.pg.captures, 0);
        CHECK_EQ_INT(w.pg.verifies, 0);
        CHECK_EQ_INT((size_t)w.db.writes, writes);
    }
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, opt_a, len_opt));
    world_free(&w);

    /* onnxruntime wrote nothing usable: a tombstone, the next tier named */
    world_init(&w);
    fx_run(&w.pg, &p);
    w.pg.form_bytes = NULL;
    fx_run(&w.pg, &f);
    CHECK(w.pg.done);
    CHECK_EQ_INT(w.pg.captures, 1);
    CHECK_EQ_INT(form_status(&w.db, OK_FORM_ONNX, NULL), OK_FORM_FAILED);
    CHECK_EQ_INT(w.pg.note_reasons[0], OK_REASON_FORM_CAPTURE);
    CHECK(forms_whole(&w.db));
    world_free(&w);

    /* aborted while capturing: nothing stored, the next try captures */
    world_init(&w);
    fx_run(&w.pg, &p);
    w.pg.form_bytes = opt_a;
    w.pg.form_len = len_opt;
    w.pg.abort_in_state = OK_LOAD_STATE_CAPTURING;
    fx_run(&w.pg, &f);
    CHECK(w.pg.failed);
    CHECK_EQ_INT(form_status(&w.db, OK_FORM_ONNX, NULL), OK_FORM_NONE);
    CHECK_EQ_INT(fx_orphans(&w.db), 0);
    fx_run(&w.pg, &f);
    CHECK(w.pg.done);
    CHECK_EQ_INT(w.pg.captures, 1);
    CHECK_EQ_INT(form_status(&w.db, OK_FORM_ONNX, NULL), OK_FORM_VERIFIED);
    world_free(&w);
}

/* Bad parameters are refused. */
static void test_params(void) {
    ok_cache *c = NULL;
    ok_load *l = NULL;
    ok_load_params f = form_params(OK_FORM_ONNX, sha_a, len_opt);
    CHECK_EQ_INT(ok_cache_open(&c, 0, 1), OK_OK);
    f.form = OK_FORM_ORIGINAL;
    CHECK_EQ_INT(ok_load_new(c, &f, &l), OK_ERR_INVALID_ARG);
    f.form = OK_FORM_ORT;
    f.form_ctx = "a|b";
    CHECK_EQ_INT(ok_load_new(c, &f, &l), OK_ERR_INVALID_ARG);
    f.form_ctx = CTX;
    f.source_sha256 = NULL;
    CHECK_EQ_INT(ok_load_new(c, &f, &l), OK_ERR_INVALID_ARG);
    f.source_sha256 = sha_a;
    CHECK_EQ_INT(ok_load_new(c, &f, &l), OK_OK);
    CHECK_EQ_INT(ok_load_form_verified(l, OK_VERDICT_EQUAL, 1, 0), OK_ERR_STATE);
    CHECK_EQ_INT(ok_load_capture_form(l, 0, 0), OK_FORM_ORIGINAL);
    CHECK_EQ_INT(ok_load_captured(l, 10), OK_ERR_STATE);
    ok_load_free(l);
    /* a capture later is a FORM load's, with no bytes yet */
    f.flags = OK_LOAD_CAPTURE_LATER;
    CHECK_EQ_INT(ok_load_new(c, &f, &l), OK_ERR_INVALID_ARG);
    f.bytes_len = 0;
    CHECK_EQ_INT(ok_load_new(c, &f, &l), OK_OK);
    ok_load_free(l);
    {
        ok_load_params u = url_params();
        u.flags = OK_LOAD_CAPTURE_LATER;
        CHECK_EQ_INT(ok_load_new(c, &u, &l), OK_ERR_INVALID_ARG);
    }
    ok_cache_close(c);
}

/* Manifests of forms: version 5 (3 still read), the record round-trips, tombstones hold
 * nothing, an original never carries a verdict. */
static void put_le32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

/* CRC-32 (IEEE), bit by bit: the manifest's trailer */
static uint32_t crc32_le(const uint8_t *p, size_t n) {
    uint32_t c = 0xFFFFFFFFu;
    size_t i;
    int k;
    for (i = 0; i < n; i++) {
        c ^= p[i];
        for (k = 0; k < 8; k++) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    }
    return c ^ 0xFFFFFFFFu;
}

static void test_form_manifests(void) {
    ok_manifest m, d;
    uint8_t buf[1024];
    uint64_t sum = 42;
    size_t n;
    memset(&m, 0, sizeof m);
    m.state = OK_ENTRY_COMMITTED;
    m.form = OK_FORM_ORT;
    m.chunk_size = CS;
    m.chunk_count = m.stored_count = 1;
    m.total_size = 100;
    m.report_len = 5;
    m.form_status = OK_FORM_VERIFIED;
    m.create_us = 7;
    m.orig_create_us = 9;
    memcpy(m.source_sha256, sha_a, 32);
    m.key = "k|form:ort|" CTX;
    m.key_len = (uint32_t)strlen(m.key);
    m.url = URL;
    m.url_len = (uint32_t)strlen(URL);
    m.etag = m.last_modified = "";
    m.sums = &sum;
    n = ok_manifest_size(&m);
    CHECK_EQ_INT(ok_manifest_encode(&m, buf, sizeof buf), OK_OK);
    m.rev_pairs = 2;
    m.rev_form_us = 11;
    m.rev_orig_us = 13;
    n = ok_manifest_size(&m);
    CHECK_EQ_INT(ok_manifest_encode(&m, buf, sizeof buf), OK_OK);
    CHECK_EQ_INT(buf[4], 5);
    CHECK_EQ_INT(ok_manifest_decode(buf, n, &d), OK_OK);
    CHECK_EQ_INT(d.form_status, OK_FORM_VERIFIED);
    CHECK_EQ_INT(d.create_us, 7);
    CHECK_EQ_INT(d.orig_create_us, 9);
    CHECK_EQ_INT(d.rev_pairs, 2);
    CHECK_EQ_INT(d.rev_form_us, 11);
    CHECK_EQ_INT(d.rev_orig_us, 13);
    CHECK(memcmp(d.source_sha256, sha_a, 32) == 0);
    CHECK(d.sums[0] == 42);
    ok_manifest_free(&d);
    {
        /* a form written before revisions (version 3: the record without
         * its last 12 bytes) still reads, with no revision under way */
        uint8_t old3[1024];
        size_t at = n - 4 - 8 - 12; /* the revision's 12 bytes, before the sums */
        memcpy(old3, buf, at);
        memcpy(old3 + at, buf + at + 12, 8);
        old3[4] = 3;
        put_le32(old3 + 8, (uint32_t)(n - 12));
        put_le32(old3 + 48, 48);
        put_le32(old3 + n - 16, crc32_le(old3, n - 16));
        CHECK_EQ_INT(ok_manifest_decode(old3, n - 12, &d), OK_OK);
        CHECK_EQ_INT(d.create_us, 7);
        CHECK_EQ_INT(d.rev_pairs, 0);
        CHECK(d.sums[0] == 42);
        ok_manifest_free(&d);
        /* version 3 with the revision's length is not one */
        put_le32(old3 + 48, 60);
        put_le32(old3 + n - 16, crc32_le(old3, n - 16));
        CHECK_EQ_INT(ok_manifest_decode(old3, n - 12, &d), OK_ERR_CORRUPT);
    }
    m.rev_pairs = m.rev_form_us = m.rev_orig_us = 0;
    /* a committed form must carry a verdict */
    m.form_status = OK_FORM_NONE;
    CHECK_EQ_INT(ok_manifest_encode(&m, buf, sizeof buf), OK_OK);
    CHECK_EQ_INT(ok_manifest_decode(buf, n, &d), OK_ERR_CORRUPT);
    /* a tombstone with chunks is corrupt; without, fine */
    m.form_status = OK_FORM_FAILED;
    CHECK_EQ_INT(ok_manifest_encode(&m, buf, sizeof buf), OK_OK);
    CHECK_EQ_INT(ok_manifest_decode(buf, n, &d), OK_ERR_CORRUPT);
    m.chunk_count = m.stored_count = 0;
    m.total_size = 0;
    m.report_len = 0;
    n = ok_manifest_size(&m);
    CHECK_EQ_INT(ok_manifest_encode(&m, buf, sizeof buf), OK_OK);
    CHECK_EQ_INT(ok_manifest_decode(buf, n, &d), OK_OK);
    CHECK_EQ_INT(d.form_status, OK_FORM_FAILED);
    ok_manifest_free(&d);
    /* version 2 must not be a form (an original has no record) */
    buf[4] = 2;
    CHECK(ok_manifest_decode(buf, n, &d) != OK_OK);
}

/* A warm load served by the form: whether it asks to time the original
 * beside it (ok_load_info.revise); the served session is released. */
static int warm_asks_revision_with(world *w, uint32_t form_us, uint32_t facts) {
    ok_load_params p = url_params();
    ok_load *l = NULL;
    ok_load_info info;
    int revise;
    w->pg.create_us[OK_FORM_ONNX] = form_us;
    w->pg.session_facts = facts;
    fx_run_load(&w->pg, &p, &l);
    w->pg.session_facts = 0;
    CHECK(served(&w->pg, opt_a, len_opt));
    CHECK(l != NULL);
    if (!l) return -1;
    CHECK_EQ_INT(ok_load_info_get(l, &info), OK_OK);
    revise = (int)info.revise;
    ok_load_free(l);
    return revise;
}

static int warm_asks_revision(world *w, uint32_t form_us) { return warm_asks_revision_with(w, form_us, 0); }

/* One pair through a revising FORM load, as js/forms/revise.js runs it:
 * what the load made of it (OK_REVISION_*). */
static uint32_t revise_pair(world *w, const uint8_t *sha, uint32_t form_us, uint32_t orig_us) {
    ok_load_params f = form_params(OK_FORM_ONNX, sha, 0);
    ok_load *l = NULL;
    ok_load_info info;
    CHECK_EQ_INT(ok_load_new(w->pg.c, &f, &l), OK_OK);
    CHECK_EQ_INT(ok_load_revise(l, form_us, orig_us), OK_OK);
    w->pg.verifies = w->pg.captures = 0;
    fx_drive(&w->pg, l, &f, &l);
    CHECK(w->pg.done);
    CHECK_EQ_INT(w->pg.verifies, 0); /* no session, no capture: the pair is all */
    CHECK_EQ_INT(w->pg.captures, 0);
    CHECK_EQ_INT(ok_load_info_get(l, &info), OK_OK);
    ok_load_free(l);
    return info.revision;
}

static uint32_t stored_pairs(fx_db *d) {
    ok_manifest m;
    uint32_t n;
    if (!stored_form(d, OK_FORM_ONNX, &m)) return UINT32_MAX;
    n = m.rev_pairs;
    ok_manifest_free(&m);
    return n;
}

/* A verified form that warm loads find slower than the original, timed
 * beside it, is demoted after OK_FORM_REVISE_PAIRS pairs; one that is not
 * is kept and its tally restarts (issue: verdicts that hold). */
static void test_verdict_revision(void) {
    world w;
    ok_load_params p = url_params(), f = form_params(OK_FORM_ONNX, sha_a, len_opt);
    ok_load *l = NULL;
    uint32_t reason = 0;
    ok_manifest m;
    world_init(&w);
    fx_run(&w.pg, &p);
    w.pg.form_bytes = opt_a;
    w.pg.form_len = len_opt;
    fx_run(&w.pg, &f);
    CHECK_EQ_INT(form_status(&w.db, OK_FORM_ONNX, NULL), OK_FORM_VERIFIED); /* 100 us against 300 */
    /* clearly faster than the original's verified time: nothing to time */
    CHECK_EQ_INT(warm_asks_revision(&w, 100), 0);
    CHECK_EQ_INT(warm_asks_revision(&w, 269), 0);
    /* within 10% of it: the original is timed beside it */
    CHECK_EQ_INT(warm_asks_revision(&w, 270), 1);
    /* not when its time is no measure of the form: onnxruntime-web started
     * with it, or it read external data files */
    CHECK_EQ_INT(warm_asks_revision_with(&w, 400, OK_SESSION_FIRST), 0);
    CHECK_EQ_INT(warm_asks_revision_with(&w, 400, OK_SESSION_DATA_FILES), 0);
    CHECK_EQ_INT(warm_asks_revision_with(&w, 400, 0), 1);
    /* only a FORM load revises, only before it starts, only with both times */
    CHECK_EQ_INT(ok_load_new(w.pg.c, &p, &l), OK_OK);
    CHECK_EQ_INT(ok_load_revise(l, 300, 280), OK_ERR_STATE);
    ok_load_free(l);
    CHECK_EQ_INT(ok_load_new(w.pg.c, &f, &l), OK_OK);
    CHECK_EQ_INT(ok_load_revise(l, 0, 280), OK_ERR_INVALID_ARG);
    ok_load_free(l);
    /* a pair made on other bytes' form is not counted */
    CHECK_EQ_INT(revise_pair(&w, sha_c, 400, 100), OK_REVISION_NOT_COUNTED);
    CHECK_EQ_INT(stored_pairs(&w.db), 0);
    /* pairs tallied in the form's record; while one is under way every warm
     * load times the original too */
    CHECK_EQ_INT(revise_pair(&w, sha_a, 290, 280), OK_REVISION_TALLIED);
    CHECK_EQ_INT(stored_pairs(&w.db), 1);
    CHECK_EQ_INT(warm_asks_revision(&w, 100), 1);
    CHECK_EQ_INT(revise_pair(&w, sha_a, 300, 250), OK_REVISION_TALLIED);
    CHECK_EQ_INT(stored_pairs(&w.db), 2);
    CHECK_EQ_INT(form_status(&w.db, OK_FORM_ONNX, NULL), OK_FORM_VERIFIED);
    /* the third: 900 us of form against 790 of original (1.14x) is no
     * proof against a form verified at 100 us against 300: kept */
    CHECK_EQ_INT(revise_pair(&w, sha_a, 310, 260), OK_REVISION_KEPT);
    CHECK_EQ_INT(form_status(&w.db, OK_FORM_ONNX, NULL), OK_FORM_VERIFIED);
    /* three pairs of 3000 us against 900 (3.33x): with the verification's
     * 0.33x, 1.11x, past 1.05 squared -> demoted */
    CHECK_EQ_INT(revise_pair(&w, sha_a, 1000, 280), OK_REVISION_TALLIED);
    CHECK_EQ_INT(revise_pair(&w, sha_a, 1000, 300), OK_REVISION_TALLIED);
    CHECK_EQ_INT(revise_pair(&w, sha_a, 1000, 320), OK_REVISION_DEMOTED);
    CHECK_EQ_INT(form_status(&w.db, OK_FORM_ONNX, &reason), OK_FORM_FAILED);
    CHECK_EQ_INT(reason, OK_REASON_FORM_SLOWER);
    CHECK(stored_form(&w.db, OK_FORM_ONNX, &m));
    CHECK_EQ_INT(m.create_us, 1000); /* the pairs' means */
    CHECK_EQ_INT(m.orig_create_us, 300);
    ok_manifest_free(&m);
    CHECK(forms_whole(&w.db)); /* the form's chunks went with it */
    /* the original serves; the next tier is asked for */
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, model_a, len_a));
    CHECK_EQ_INT(w.pg.capture, OK_FORM_ORT);
    /* a week on, .onnx is tried again */
    p.now = 1000 + OK_FORM_RETRY_SLOWER_MS + 2000;
    fx_run(&w.pg, &p);
    CHECK_EQ_INT(w.pg.capture, OK_FORM_ONNX);
    world_free(&w);

    /* a form no slower than the original over its pairs and its
     * verification (here: just inside the margin) is kept; the tally restarts */
    world_init(&w);
    p = url_params();
    fx_run(&w.pg, &p);
    w.pg.form_bytes = opt_a;
    w.pg.form_len = len_opt;
    fx_run(&w.pg, &f);
    CHECK_EQ_INT(revise_pair(&w, sha_a, 441, 100), OK_REVISION_TALLIED);
    CHECK_EQ_INT(revise_pair(&w, sha_a, 441, 150), OK_REVISION_TALLIED);
    /* 1320 us against 400 (3.3x) times 100 against 300: 1.10, inside 1.05 squared */
    CHECK_EQ_INT(revise_pair(&w, sha_a, 438, 150), OK_REVISION_KEPT);
    CHECK_EQ_INT(form_status(&w.db, OK_FORM_ONNX, NULL), OK_FORM_VERIFIED);
    CHECK_EQ_INT(stored_pairs(&w.db), 0);
    CHECK_EQ_INT(warm_asks_revision(&w, 100), 0);
    CHECK(forms_whole(&w.db));
    world_free(&w);
}

/* A tab killed after any write of a FORM load: the store never serves a
 * form that is not whole, and the next loads still converge. */
static void test_crash_anywhere(void) {
    int k;
    for (k = 0; k < 12; k++) {
        world w;
        ok_load_params p = url_params(), f;
        int crashed;
        world_init(&w);
        fx_run(&w.pg, &p);
        w.db.crash_after = w.db.writes + k;
        f = form_params(OK_FORM_ONNX, sha_a, len_opt);
        w.pg.form_bytes = opt_a;
        w.pg.form_len = len_opt;
        w.pg.verdict = k % 2 ? OK_VERDICT_DIFFERS : OK_VERDICT_EQUAL;
        fx_run(&w.pg, &f);
        crashed = w.pg.crashed;
        CHECK(forms_whole(&w.db));
        /* a new page */
        w.db.crash_after = -1;
        w.db.crashed = 0;
        fx_page_close(&w.pg);
        fx_page_init(&w.pg, &w.db, &w.srv, 0x5000 + (uint64_t)k);
        w.pg.create_us[OK_FORM_ONNX] = 100;
        w.pg.orig_create_us = 300;
        fx_run(&w.pg, &p);
        CHECK(!w.pg.stuck);
        if (w.pg.created_form == OK_FORM_ONNX) CHECK(served(&w.pg, opt_a, len_opt));
        else CHECK(served(&w.pg, model_a, len_a));
        if (!crashed) {
            CHECK_EQ_INT(w.pg.created_form, k % 2 ? OK_FORM_ORIGINAL : OK_FORM_ONNX);
        } else if (w.pg.created_form == OK_FORM_ORIGINAL) {
            /* nothing decided, or .onnx failed: a capture is asked for */
            CHECK(w.pg.capture == OK_FORM_ONNX || w.pg.capture == OK_FORM_ORT);
        }
        CHECK_EQ_INT(fx_orphans(&w.db), 0);
        world_free(&w);
    }
}

/* Bytes in memory, keyed by their content: the first load serves the
 * bytes (never stored, never fetched) and names a capture; the form
 * stored under "sha256:<hex>" serves the next load of the same bytes;
 * a refused form falls back to the caller's bytes; other bytes, no
 * context, no IndexedDB, another mode or external data: no form. */
static ok_load_params bytes_params(const uint8_t *sha, size_t len) {
    ok_load_params p;
    memset(&p, 0, sizeof p);
    p.source = OK_SOURCE_BYTES;
    p.bytes_len = len;
    p.chunk_size = CS;
    p.now = 3000;
    p.form_ctx = CTX;
    p.source_sha256 = sha;
    return p;
}

static void test_content_keyed_bytes(void) {
    world w;
    ok_load_params p = bytes_params(sha_a, len_a), f;
    char key[128];
    int i, n;
    ok_manifest m;
    /* the rule JS asks before it opens IndexedDB, and the load keys by */
    CHECK(ok_load_bytes_content_keyed(0, 1, OK_MODE_DEFAULT, 0));
    CHECK(!ok_load_bytes_content_keyed(1, 1, OK_MODE_DEFAULT, 0));
    CHECK(!ok_load_bytes_content_keyed(0, 0, OK_MODE_DEFAULT, 0));
    CHECK(!ok_load_bytes_content_keyed(0, 1, OK_MODE_RELOAD, 0));
    CHECK(!ok_load_bytes_content_keyed(0, 1, OK_MODE_NO_CACHE, 0));
    CHECK(!ok_load_bytes_content_keyed(0, 1, OK_MODE_DEFAULT, OK_LOAD_NO_IDB));
    CHECK(!ok_load_bytes_content_keyed(0, 1, OK_MODE_DEFAULT, OK_LOAD_IDB_FAILED));
    CHECK(!ok_load_bytes_content_keyed(0, 1, OK_MODE_DEFAULT, OK_LOAD_DATA_UNNAMED));
    world_init(&w);
    n = snprintf(key, sizeof key, "sha256:");
    for (i = 0; i < 32; i++) n += snprintf(key + n, sizeof key - (size_t)n, "%02x", sha_a[i]);
    snprintf(key + n, sizeof key - (size_t)n, "|form:original");
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, model_a, len_a));
    CHECK_EQ_INT(w.pg.tier, OK_TIER_BYTES);
    CHECK_EQ_INT(w.pg.capture, OK_FORM_ONNX);
    CHECK_EQ_INT(w.db.index.n, 0); /* the bytes are not stored */
    CHECK_EQ_INT(w.srv.n_req, 0);
    /* the capture is stored under the bytes' content key */
    f = form_params(OK_FORM_ONNX, sha_a, len_opt);
    f.raw = key;
    f.url = "(bytes)";
    w.pg.form_bytes = opt_a;
    w.pg.form_len = len_opt;
    fx_run(&w.pg, &f);
    CHECK(w.pg.done);
    CHECK(stored_form(&w.db, OK_FORM_ONNX, &m));
    CHECK_EQ_INT(m.form_status, OK_FORM_VERIFIED);
    CHECK(strncmp(m.key, key, 71) == 0);
    ok_manifest_free(&m);
    /* the same bytes again: the form serves, from IndexedDB */
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, opt_a, len_opt));
    CHECK_EQ_INT(w.pg.created_form, OK_FORM_ONNX);
    CHECK_EQ_INT(w.pg.tier, OK_TIER_INDEXEDDB);
    CHECK(memcmp(w.pg.served_sha, sha_a, 32) == 0); /* the source: the caller's bytes */
    /* onnxruntime refuses the form: the caller's bytes serve, and the
     * form is dropped (captured anew) */
    w.pg.refuse_forms = 1u << OK_FORM_ONNX;
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, model_a, len_a));
    CHECK_EQ_INT(w.pg.tier, OK_TIER_BYTES);
    CHECK_EQ_INT(w.pg.created_form, OK_FORM_ORIGINAL);
    CHECK_EQ_INT(w.pg.n_notes, 1);
    CHECK_EQ_INT(w.pg.notes[0], OK_NOTE_FORM_DROPPED);
    CHECK_EQ_INT(form_status(&w.db, OK_FORM_ONNX, NULL), OK_FORM_NONE);
    CHECK_EQ_INT(w.pg.capture, OK_FORM_ONNX);
    w.pg.refuse_forms = 0;
    /* other bytes have no form (their hash names another key) */
    w.srv.bytes = model_c;
    w.srv.len = len_c;
    p = bytes_params(sha_c, len_c);
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, model_c, len_c));
    CHECK_EQ_INT(w.pg.capture, OK_FORM_ONNX);
    /* not content-keyed: no context, no IndexedDB, another mode */
    p.form_ctx = NULL;
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, model_c, len_c));
    CHECK_EQ_INT(w.pg.capture, OK_FORM_ORIGINAL);
    CHECK(memcmp(w.pg.served_sha, sha_c, 32) == 0); /* the host's hash, taken as given */
    /* with integrity the core hashes them itself, whatever hash is given */
    {
        static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        char sri[64] = "sha256-";
        size_t o = 7;
        for (i = 0; i < 33; i += 3) {
            uint32_t v = (uint32_t)sha_c[i] << 16 | (uint32_t)(i + 1 < 32 ? sha_c[i + 1] : 0) << 8 |
                         (uint32_t)(i + 2 < 32 ? sha_c[i + 2] : 0);
            sri[o++] = b64[v >> 18 & 63];
            sri[o++] = b64[v >> 12 & 63];
            sri[o++] = i + 1 < 32 ? b64[v >> 6 & 63] : '=';
            sri[o++] = i + 2 < 32 ? b64[v & 63] : '=';
        }
        sri[o] = 0;
        p.integrity = sri;
        p.source_sha256 = sha_a; /* wrong: not taken */
        fx_run(&w.pg, &p);
        CHECK(served(&w.pg, model_c, len_c));
        CHECK(memcmp(w.pg.served_sha, sha_c, 32) == 0);
        p.integrity = NULL;
        p.source_sha256 = sha_c;
    }
    p = bytes_params(sha_c, len_c);
    p.flags = OK_LOAD_NO_IDB;
    fx_run(&w.pg, &p);
    CHECK_EQ_INT(w.pg.capture, OK_FORM_ORIGINAL);
    p = bytes_params(sha_c, len_c);
    p.mode = OK_MODE_NO_STORE;
    fx_run(&w.pg, &p);
    CHECK_EQ_INT(w.pg.capture, OK_FORM_ORIGINAL);
    /* a model with external data: its data files are not stored beside
     * bytes, so no form could be bound to them, unless the hash given
     * names them too (the host handed them as bytes and hashed them) */
    p = bytes_params(sha_c, len_c);
    w.pg.facts = OK_FACT_EXTERNAL_DATA;
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, model_c, len_c));
    CHECK_EQ_INT(w.pg.capture, OK_FORM_ORIGINAL);
    p.flags = OK_LOAD_GIVEN_DATA;
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, model_c, len_c));
    CHECK_EQ_INT(w.pg.capture, OK_FORM_ONNX);
    /* data the host could not name: not content-keyed, nothing captured */
    p.flags = OK_LOAD_DATA_UNNAMED;
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, model_c, len_c));
    CHECK_EQ_INT(w.pg.capture, OK_FORM_ORIGINAL);
    w.pg.facts = 0;
    CHECK(forms_whole(&w.db));
    world_free(&w);
}

/* The content key of bytes whose SHA-256 is sha. */
static void bytes_key(const uint8_t *sha, char key[128]) {
    int i, n = snprintf(key, 128, "sha256:");
    for (i = 0; i < 32; i++) n += snprintf(key + n, 128 - (size_t)n, "%02x", sha[i]);
    snprintf(key + n, 128 - (size_t)n, "|form:original");
}

/* A verified .onnx form of the bytes whose SHA-256 is sha, stored at now. */
static void store_bytes_form(world *w, const uint8_t *sha, uint64_t now) {
    char key[128];
    ok_load_params f = form_params(OK_FORM_ONNX, sha, len_opt);
    bytes_key(sha, key);
    f.raw = key;
    f.url = "(bytes)";
    f.now = now;
    w->pg.form_bytes = opt_a;
    w->pg.form_len = len_opt;
    fx_run(&w->pg, &f);
    CHECK(w->pg.done);
}

/* The committed form of the bytes whose SHA-256 is sha: its hits and
 * clock as stored (0: none stored). */
static int bytes_form_use(fx_db *d, const uint8_t *sha, uint64_t *hits, uint64_t *last_used) {
    char key[128];
    size_t i;
    bytes_key(sha, key);
    for (i = 0; i < d->index.n; i++) {
        ok_manifest m;
        int found;
        if (ok_manifest_decode(d->index.v[i].bytes, d->index.v[i].len, &m) != OK_OK) continue;
        found = m.form == OK_FORM_ONNX && m.state == OK_ENTRY_COMMITTED && strncmp(m.key, key, 71) == 0;
        if (found) {
            *hits = m.hit_count;
            *last_used = m.last_used;
        }
        ok_manifest_free(&m);
        if (found) return 1;
    }
    return 0;
}

/* Every serve counts for the entry that served: a form serving bytes
 * (which have no stored original) keeps its own hits and clock, stored,
 * so least-recently-used eviction takes the form nobody uses, not the one
 * a library serves every day; a form serving a URL counts beside its
 * original, and evicting then takes the form before its original. */
static void test_forms_count_their_use(void) {
    world w;
    ok_load_params p;
    ok_manifest m;
    uint64_t hits = 0, last = 0;
    world_init(&w);
    store_bytes_form(&w, sha_a, 2000);
    store_bytes_form(&w, sha_c, 2000);
    CHECK(bytes_form_use(&w.db, sha_a, &hits, &last));
    CHECK_EQ_INT(hits, 0);
    CHECK_EQ_INT(last, 2000);
    p = bytes_params(sha_a, len_a);
    p.now = 5000;
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, opt_a, len_opt));
    CHECK_EQ_INT(w.pg.tier, OK_TIER_INDEXEDDB);
    p.now = 6000;
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, opt_a, len_opt));
    CHECK(bytes_form_use(&w.db, sha_a, &hits, &last));
    CHECK_EQ_INT(hits, 2);
    CHECK_EQ_INT(last, 6000);
    CHECK(bytes_form_use(&w.db, sha_c, &hits, &last));
    CHECK_EQ_INT(hits, 0);
    CHECK_EQ_INT(last, 2000);
    /* another page, a budget with room for one form beside a new model:
     * the form used lately stays, the unused one goes */
    fx_page_close(&w.pg);
    fx_page_init(&w.pg, &w.db, &w.srv, 0x5678);
    fx_sync(&w.pg, 0);
    CHECK_EQ_INT(ok_cache_set_budget(w.pg.c, len_opt + len_a), OK_OK);
    p = url_params();
    p.now = 7000;
    fx_run(&w.pg, &p);
    CHECK(w.pg.done_flags & OK_DONE_STORED);
    CHECK(bytes_form_use(&w.db, sha_a, &hits, &last));
    CHECK(!bytes_form_use(&w.db, sha_c, &hits, &last));
    world_free(&w);

    /* a URL: the form served counts, and so does its original; the two
     * tie, and eviction takes the form first (it serves only beside it) */
    world_init(&w);
    p = url_params();
    fx_run(&w.pg, &p);
    CHECK(w.pg.done_flags & OK_DONE_STORED);
    {
        ok_load_params f = form_params(OK_FORM_ONNX, sha_a, len_opt);
        w.pg.form_bytes = opt_a;
        w.pg.form_len = len_opt;
        fx_run(&w.pg, &f);
    }
    p.now = 5000;
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, opt_a, len_opt));
    CHECK(stored_form(&w.db, OK_FORM_ONNX, &m));
    CHECK_EQ_INT(m.hit_count, 1);
    CHECK_EQ_INT(m.last_used, 5000);
    ok_manifest_free(&m);
    CHECK(stored_form(&w.db, OK_FORM_ORIGINAL, &m));
    CHECK_EQ_INT(m.hit_count, 1);
    CHECK_EQ_INT(m.last_used, 5000);
    ok_manifest_free(&m);
    fx_page_close(&w.pg);
    fx_page_init(&w.pg, &w.db, &w.srv, 0x5679);
    fx_sync(&w.pg, 0);
    CHECK_EQ_INT(ok_cache_set_budget(w.pg.c, len_a + len_c), OK_OK);
    w.srv.bytes = model_c;
    w.srv.len = len_c;
    p.raw = p.url = "https://models.test/c.onnx";
    p.now = 7000;
    fx_run(&w.pg, &p);
    CHECK(w.pg.done_flags & OK_DONE_STORED);
    CHECK_EQ_INT(form_status(&w.db, OK_FORM_ONNX, NULL), OK_FORM_NONE);
    CHECK_EQ_INT(fx_count_state(&w.db, OK_ENTRY_COMMITTED), 2); /* both originals */
    world_free(&w);
}

/* The FORM load of `form` (the .onnx or .ort capture of model_a) with
 * these load flags, its round trip judged `verdict`. */
static void run_form_load(world *w, uint32_t form, uint32_t flags, uint32_t verdict) {
    int ort = form == OK_FORM_ORT;
    ok_load_params f = form_params(form, sha_a, ort ? len_ort : len_opt);
    f.flags = flags;
    w->pg.form_bytes = ort ? ort_a : opt_a;
    w->pg.form_len = ort ? len_ort : len_opt;
    w->pg.verdict = verdict;
    fx_run(&w->pg, &f);
}

/* A page that creates an .ort form in place (OK_LOAD_ORT_IN_PLACE) tries
 * and serves the .ort tier first; a page without it keeps the .onnx first
 * and serves whatever is verified, so both kinds of page share one cache. */
static void test_in_place_order(void) {
    world w;
    ok_load_params p = url_params(), q = url_params();
    q.flags = OK_LOAD_ORT_IN_PLACE;
    /* the order itself */
    CHECK_EQ_INT(ok_form_after(OK_FORM_ONNX, 0, 0), OK_FORM_ORT);
    CHECK_EQ_INT(ok_form_after(OK_FORM_ORT, 0, 0), OK_FORM_ORIGINAL);
    CHECK_EQ_INT(ok_form_after(OK_FORM_ORT, 0, OK_LOAD_ORT_IN_PLACE), OK_FORM_ONNX);
    CHECK_EQ_INT(ok_form_after(OK_FORM_ONNX, 0, OK_LOAD_ORT_IN_PLACE), OK_FORM_ORIGINAL);
    /* external data rules the .ort out in either order */
    CHECK_EQ_INT(ok_form_after(OK_FORM_ORT, OK_FACT_EXTERNAL_DATA, OK_LOAD_ORT_IN_PLACE), OK_FORM_ONNX);
    CHECK_EQ_INT(ok_form_after(OK_FORM_ONNX, OK_FACT_EXTERNAL_DATA, 0), OK_FORM_ORIGINAL);
    CHECK_EQ_INT(ok_form_after(OK_FORM_ORIGINAL, 0, OK_LOAD_ORT_IN_PLACE), OK_FORM_ORIGINAL);

    /* in place from the start: the .ort is captured first and serves */
    world_init(&w);
    fx_run(&w.pg, &q);
    CHECK(served(&w.pg, model_a, len_a));
    CHECK_EQ_INT(w.pg.capture, OK_FORM_ORT);
    run_form_load(&w, OK_FORM_ORT, OK_LOAD_ORT_IN_PLACE, OK_VERDICT_EQUAL);
    CHECK_EQ_INT(form_status(&w.db, OK_FORM_ORT, NULL), OK_FORM_VERIFIED);
    CHECK_EQ_INT(form_status(&w.db, OK_FORM_ONNX, NULL), OK_FORM_NONE);
    fx_run(&w.pg, &q);
    CHECK(served(&w.pg, ort_a, len_ort));
    CHECK_EQ_INT(w.pg.created_form, OK_FORM_ORT);
    CHECK_EQ_INT(w.pg.capture, OK_FORM_ORIGINAL);
    /* a page without it serves the verified .ort too, and asks for nothing */
    fx_run(&w.pg, &p);
    CHECK(served(&w.pg, ort_a, len_ort));
    CHECK_EQ_INT(w.pg.capture, OK_FORM_ORIGINAL);
    world_free(&w);

    /* an .onnx verified by a page without it serves a page with it too: a
     * load served by a form has no original in hand to capture from, so
     * the cache stays as it converged */
    world_init(&w);
    fx_run(&w.pg, &p);
    CHECK_EQ_INT(w.pg.capture, OK_FORM_ONNX);
    run_form_load(&w, OK_FORM_ONNX, 0, OK_VERDICT_EQUAL);
    CHECK_EQ_INT(form_status(&w.db, OK_FORM_ONNX, NULL), OK_FORM_VERIFIED);
    fx_run(&w.pg, &q);
    CHECK(served(&w.pg, opt_a, len_opt));
    CHECK_EQ_INT(w.pg.capture, OK_FORM_ORIGINAL);
    world_free(&w);

    /* the .ort fails its round trip in place: the .onnx is next, then none */
    world_init(&w);
    fx_run(&w.pg, &q);
    run_form_load(&w, OK_FORM_ORT, OK_LOAD_ORT_IN_PLACE, OK_VERDICT_DIFFERS);
    CHECK_EQ_INT(form_status(&w.db, OK_FORM_ORT, NULL), OK_FORM_FAILED);
    CHECK_EQ_INT(w.pg.n_notes, 1);
    CHECK_EQ_INT(w.pg.note_values[0], OK_FORM_ORT | OK_FORM_ONNX << 8);
    fx_run(&w.pg, &q);
    CHECK(served(&w.pg, model_a, len_a));
    CHECK_EQ_INT(w.pg.capture, OK_FORM_ONNX);
    run_form_load(&w, OK_FORM_ONNX, OK_LOAD_ORT_IN_PLACE, OK_VERDICT_DIFFERS);
    CHECK_EQ_INT(form_status(&w.db, OK_FORM_ONNX, NULL), OK_FORM_FAILED);
    CHECK_EQ_INT(w.pg.note_values[0], OK_FORM_ONNX | OK_FORM_ORIGINAL << 8);
    fx_run(&w.pg, &q);
    CHECK(served(&w.pg, model_a, len_a));
    CHECK_EQ_INT(w.pg.capture, OK_FORM_ORIGINAL);
    CHECK(forms_whole(&w.db));
    world_free(&w);
}

int main(void) {
    struct ok_sha256 h;
    model_a = fx_model(10 * CS + 123, 1, &len_a);
    model_c = fx_model(10 * CS + 123, 3, &len_c);
    opt_a = fx_model(6 * CS + 77, 4, &len_opt); /* "optimized": another model */
    len_ort = 5 * CS + 9;
    ort_a = fx_malloc(len_ort);
    memset(ort_a, 0x11, len_ort);
    memcpy(ort_a + 4, "ORTM", 4);
    ok_sha256_init(&h);
    ok_sha256_update(&h, model_a, len_a);
    ok_sha256_final(&h, sha_a);
    ok_sha256_init(&h);
    ok_sha256_update(&h, model_c, len_c);
    ok_sha256_final(&h, sha_c);
    test_converges_to_onnx();
    test_escalation_to_sentinel();
    test_ort_serves_and_refusal();
    test_form_refused_for_options();
    test_rotten_form_falls_back();
    test_facts_and_failed_capture();
    test_capture_later();
    test_params();
    test_form_manifests();
    test_crash_anywhere();
    test_content_keyed_bytes();
    test_forms_count_their_use();
    test_verdict_revision();
    test_in_place_order();
    free(model_a);
    free(model_c);
    free(opt_a);
    free(ort_a);
    return CHECK_DONE();
}
