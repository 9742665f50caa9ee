/* A fake browser for the load machine: IndexedDB (three stores, one
 * transaction per action, quota, a database closed under the page, failing
 * writes, a crash after the n-th write), an HTTP server that misbehaves on
 * request (statuses, cuts, short and long bodies, chunked and compressed
 * responses, CORS-hidden headers, ignored and wrong ranges, failed
 * fetches), the real C reader for VALIDATE and an onnxruntime stand-in that
 * can refuse. It carries out actions exactly as js/cache/load-driver.js
 * does: in order, acking each write before the next action, feeding body
 * pieces only when the queue is empty. */
#ifndef ORTKEEP_TEST_LOAD_DRIVER_H
#define ORTKEEP_TEST_LOAD_DRIVER_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_http.h"
#include "fake_idb.h"
#include "fx_alloc.h"
#include "inspect_json.h"
#include "ok_cache.h"
#include "ok_load.h"
#include "onnx_reader.h"
#include "sha256.h"
#include "synth_model.h"

/* Every event goes through FX_EV: an event answering OK_ERR_NOMEM ends the
 * load (the JS contract: release what was created, reject with NOMEM). */
extern int fx_nomem;
#define FX_EV(fn, ...) fx_ev_(fn(__VA_ARGS__))
ok_status fx_ev_(ok_status st);

#define FX_MAX_PARTS 4
#define FX_MAX_GROUP 8

typedef struct {
    ok_cache *c;
    fx_db *db;
    fx_server *srv;
    int refuse_sessions; /* onnxruntime refuses the next n sessions */
    int abort_in_state;  /* abort when the load reaches this state (-1 off) */
    size_t piece;        /* body piece size */
    int split;           /* hand each piece in two calls back to back, as
                              JS does with pieces over 1 MiB */
    int fast_net;        /* the network never keeps JS waiting: no
                            ok_load_body_idle (else one after each piece) */
    int host_hashes;     /* a host with native SHA-256 (OK_LOAD_HOST_HASHES on
                            its loads): when STREAM asks, it hands the model
                            buffer's digest before ok_load_body_end */
    int host_sha_wrong;  /* ... a digest of other bytes (flips its first byte) */
    int host_sha_skip;   /* ... none at all */
    /* the load's model buffer */
    uint8_t *buf;
    size_t buf_len, buf_cap;
    /* outcome */
    int done, failed, crashed, stuck;
    uint32_t fail_code, fail_reason, tier, done_flags;
    size_t chunks_at_done; /* chunk records in the store when DONE came */
    uint64_t fail_number;
    uint32_t warns[64];
    int n_warns;
    int sessions, released;
    uint8_t served_sha[32]; /* the content hash the load reports at DONE */
    size_t served_len;
    uint8_t *served; /* copy of what the session was created from */
    /* optimized forms: what onnxruntime and the verification answer */
    uint32_t facts;                    /* OK_FACT_* the reader found */
    uint64_t external_bytes;           /* the model's external data */
    uint32_t create_us[OK_FORM_COUNT]; /* session creation time per form */
    uint32_t session_facts;            /* OK_SESSION_* beside OK_SESSION_OK for each creation */
    uint32_t orig_create_us;           /* the original's, measured at VERIFY_FORM */
    uint32_t form_resample_us;         /* the form timed again there (0: not) */
    uint32_t verdict;                  /* VERIFY_FORM's answer (0: EQUAL) */
    uint32_t refuse_forms;             /* bit per form: onnxruntime refuses it */
    uint32_t refuse_facts;             /* what JS says of a refusal (OK_SESSION_BAD_MODEL:
                                          the bytes are no model; 0: the options') */
    const uint8_t *form_bytes;         /* a FORM load's captured bytes */
    size_t form_len;
    /* outcome */
    uint32_t created_form; /* the form of the last session created */
    uint32_t capture;      /* ok_load_capture_form at the last original */
    int verifies;
    int captures;           /* CAPTURE_FORM actions answered */
    uint32_t captured_form; /* the form the last one named */
    uint32_t notes[16], note_reasons[16];
    uint64_t note_values[16];
    int n_notes;
    /* external data files (parts), loaded at an original's CREATE_SESSION
     * as JS does: one DATA load each, from its own server */
    int n_parts;
    const char *part_loc[FX_MAX_PARTS];
    const char *part_url[FX_MAX_PARTS];
    fx_server *part_srv[FX_MAX_PARTS];
    uint64_t part_min[FX_MAX_PARTS];
    /* outcome */
    uint32_t parts_mode; /* ok_load_parts_mode at the last original */
    int parts_intact;    /* every part's bytes arrived, equal */
    uint32_t part_tier[FX_MAX_PARTS], part_flags[FX_MAX_PARTS];
    uint32_t part_fail_code, part_fail_reason;
    uint32_t adopt_fail; /* the last ok_load_adopt_part refusal (0: none), as JS would throw it */
    /* COMMIT_MORE puts held for their transaction */
    struct {
        char name[128];
        uint8_t *bytes;
        size_t len;
    } group[FX_MAX_GROUP];
    int n_group;
    /* STORE_AHEAD stores carried out, not yet settled: how many, how many
     * landed before the first that failed, how that one failed (0: none) */
    uint32_t ahead_n, ahead_landed;
    int ahead_failed;
    int ahead_runs;         /* ok_load_ahead_settled calls */
    int sessions_at_settle; /* sessions created when the last run settled */
} fx_page;

void fx_group_clear(fx_page *pg);
int fx_warned(const fx_page *pg, uint32_t code);
void fx_page_init(fx_page *pg, fx_db *db, fx_server *srv, uint64_t seed);
void fx_page_close(fx_page *pg);
void fx_reset_outcome(fx_page *pg);
/* The model's data files, each a DATA load on the same index and store,
 * adopted by the model's load (what js/cache/load-driver.js does before it
 * creates the session). 0, or -1 when the store crashed meanwhile. */
int fx_load_parts(fx_page *pg, ok_load *l);
/* Run one load to its end (DONE/FAIL and nothing left to do), a crash, or
 * a stall (a test failure). Actions run in the order they were queued:
 * what an event queues goes behind what was queued before it. */
void fx_run(fx_page *pg, const ok_load_params *p);
/* fx_run; keep: the finished load is handed back, not freed. */
void fx_run_load(fx_page *pg, const ok_load_params *p, ok_load **keep);
/* Run load l (created from p) to its end; see fx_run. */
void fx_drive(fx_page *pg, ok_load *l, const ok_load_params *p, ok_load **keep);
/* Carry out the cache's own queue (cache.delete / clear / list syncs). */
void fx_apply_own(fx_page *pg);
/* A sync outside a load (what cache.list() does). */
void fx_sync(fx_page *pg, int chunk_names);
/* A URL load of `url` in chunks of chunk_size at clock 1000, nothing else set. */
ok_load_params fx_url_params(const char *url, uint32_t chunk_size);

#endif
