/* The load machine (ok_load.h): one load() from source to served session.
 *
 * Paths, each a sequence of states:
 *   hit       LOCKING SYNCING READING CREATING DONE
 *   network   LOCKING SYNCING [QUOTA] FETCHING STREAMING VALIDATING CREATING
 *             COMMITTING DONE
 *   resume    LOCKING SYNCING READING (re-hash the stored prefix) FETCHING
 *             (Range) STREAMING ...
 *   direct    FETCHING STREAMING VALIDATING CREATING DONE (nothing stored:
 *             blob:, data:, file:, no-store, no IndexedDB)
 *   bytes     VALIDATING CREATING DONE
 *   form hit  (a URL load with a form context whose original is stored and
 *             has a verified optimized form) LOCKING SYNCING READING (the
 *             form's entry) CREATING (at 'disabled') DONE; a form that fails
 *             its checks is dropped and the original read instead
 *   FORM      (storing a captured form) LOCKING SYNCING [CAPTURING] QUOTA
 *             STREAMING VALIDATING CREATING VERIFYING COMMITTING DONE, or
 *             straight to COMMITTING a tombstone when the form fails; DONE
 *             after SYNCING when a verdict stands for these bytes
 *   DATA      (an external data file, while its model's load is CREATING)
 *             READING DONE (stored beside these model bytes), or [QUOTA]
 *             FETCHING STREAMING DONE (staged: committed by the model's load
 *             in one transaction with the model) / COMMITTING DONE (the
 *             model is stored already)
 * with WAITING (back-off) between a failed request and the next, and
 * FAILED at any point.
 *
 * Invariants the JS side relies on:
 *   - at most one write (WRITE_MANIFEST / STORE_CHUNK / COMMIT) is
 *     outstanding; complete chunks wait in a backlog until the write before
 *     them is acked, so no write is ever queued behind one that may fail;
 *   - an entry commits only when the transport delivered the whole body, the
 *     integrity (if any) matched, the C reader accepted the bytes and
 *     onnxruntime-web created a session from them;
 *   - a stored copy that fails a checksum, is missing a record or is refused
 *     by onnxruntime is dropped before anything else is decided. */

/* Private to the load machine's parts (cache/load_*.c): the state of one
 * load and the steps one part takes in another (prefixed ok_ld_). */
#ifndef OK_LOAD_INTERNAL_H
#define OK_LOAD_INTERNAL_H

#include "cache_internal.h"
#include "ok_load.h"
#include "sha256.h"
#include "sha512.h"

enum { SCHEME_BAD = 0, SCHEME_HTTP, SCHEME_FILE, SCHEME_DIRECT };

struct ok_load {
    ok_cache *c;
    ok_actq q;
    uint32_t state;
    uint32_t source, mode, flags;
    uint64_t now;
    char *raw, *url, *page_url;
    uint32_t scheme;
    int storable;  /* may use IndexedDB at all */
    int integ_bad; /* integrity failed to parse: FAIL at start */
    ok_status integ_status;
    ok_integrity integ;
    char *keys[OK_CACHE_MAX_INTEGRITY];
    uint32_t n_keys;
    char *lock_name;
    uint32_t chunk_size;
    uint64_t bytes_len; /* OK_SOURCE_BYTES */
    int content;        /* BYTES: keyed by source_sha (forms; ok_load.h) */
    int sha_given;      /* BYTES: source_sha is their SHA-256: not hashed again */
    int sha_host;       /* URL: this body's SHA-256 comes from the host (host_sha) */
    int host_sha_set;   /* ... and has come */
    ok_sync *sync;

    /* counters (policy limits in ok_load.h) */
    uint32_t fetches, resumes, refetches, reopens;

    /* the stored entry read (hit / revalidated / resume) or written */
    uint32_t hit_id;    /* holds a reference */
    uint32_t write_id;  /* writing = 1 */
    int rehash;         /* reading a pending entry's prefix to resume */
    uint32_t read_next; /* next chunk expected by chunk_read */

    /* the request in flight */
    uint32_t req_flags;
    uint64_t req_from;

    /* the accepted response */
    int storing; /* chunks go to IndexedDB */
    int size_exact;
    uint64_t total; /* exact total, or (after the end) the size */
    int encoded, html;
    char *resp_etag, *resp_lm;
    int strong;

    /* streaming */
    uint64_t received;              /* bytes in the model buffer */
    int ended;                      /* body_end seen */
    struct ok_sha256 sha, sha_mark; /* whole content; at the last chunk boundary */
    ok_sha512_ctx sha5, sha5_mark;  /* when integrity is sha384/512 */
    ok_xxh3_state sum;              /* the chunk being filled */
    uint32_t cut;                   /* complete chunks so far */
    uint32_t queued;                /* chunks whose STORE_CHUNK was emitted */
    uint8_t prefix[OK_LOAD_PREFIX_CHECK_BYTES];
    uint32_t prefix_len;
    int prefix_done;

    int resuming;        /* broken: storing the backlog, then Range */
    int defer;           /* URL loads: complete chunks wait for an idle
                            network, else for DONE (served before the store) */
    int idle_write;      /* inside ok_load_body_idle: a complete chunk may go */
    int session_pending; /* CREATE_SESSION sent, no answer yet */
    uint32_t key_index;  /* the key whose integrity digest matched */

    /* the one outstanding write */
    uint32_t w_type, w_chunk;
    int w_pending;
    /* the stores sent ahead of the session (STORE_AHEAD): how many, from
     * which chunk, of which entry; 0 when none is unsettled */
    uint32_t ahead, ahead_from, ahead_entry;
    int marker_pending; /* STREAM waits for the PENDING marker's ack */

    /* result */
    uint32_t tier;
    int stored, verified, has_sha, served;
    uint64_t resumed_from;
    uint8_t sha256[32];
    uint64_t report_sum;
    uint32_t report_len;
    uint8_t *report;  /* copy kept for COMMIT */
    int session_live; /* created, not yet served or released */

    /* optimized forms (OK_SOURCE_FORM, and URL loads with a context) */
    char *form_ctx;         /* NULL: forms off */
    uint32_t form;          /* the form served (URL) or stored (FORM) */
    uint8_t source_sha[32]; /* FORM: the original's SHA-256; content BYTES: theirs */
    uint8_t host_sha[32];   /* URL, sha_host: the body's SHA-256, from the host */
    uint32_t orig_id;       /* URL: the original behind a form being read */
    uint32_t create_us, orig_create_us;
    uint32_t form_status, form_reason, next_form;
    uint32_t prior_reason; /* FORM: why the stored verdict for these bytes
                               failed, when it is tried again */
    uint32_t facts;        /* FORM: the original's OK_FACT_* */
    /* revisions of a verified form's verdict (form_tiers.h): a URL or BYTES
     * load served by one says whether to time the original beside it
     * (revise); a FORM load given that pair (revising) tallies it */
    int revise, revising;
    uint32_t rev_form_us, rev_orig_us;
    uint32_t revision; /* what the revising load made of its pair (OK_REVISION_*) */

    /* external data files (parts) */
    char *part;                        /* DATA: the file's location */
    int owner_stored;                  /* DATA: the model is committed already */
    uint64_t data_planned;             /* URL/BYTES: the data files' least sizes so far */
    int staged;                        /* DATA: every chunk stored, the entry pending */
    uint32_t parts[OK_LOAD_MAX_PARTS]; /* URL: staged entries adopted */
    uint32_t n_parts;
    int parts_lost; /* URL: a data file could not be stored */
};

/* The parts in layers, each calling only the ones listed above it. */

/* load_keys.c: schemes, keys, the pending entry they name */
int ok_ld_lower_prefix(const char *s, const char *p);
uint32_t ok_ld_scheme_of(const char *url);
char *ok_ld_strip_fragment(const char *url);
ok_status ok_ld_make_keys(ok_load *l);
ok_entry *ok_ld_pending_for(ok_load *l);

/* load_base.c: actions, FAIL, warnings, entering and leaving an event */
void ok_ld_sri_init(ok_load *l);
void ok_ld_sri_final(ok_load *l, uint8_t *d);
void ok_ld_args0(ok_act_args *a, uint32_t type);
ok_status ok_ld_push(ok_load *l, const ok_act_args *a);
ok_status ok_ld_push_simple(ok_load *l, uint32_t type, uint64_t value, uint64_t value2, uint32_t flags,
                            const char *name);
ok_entry *ok_ld_entry_of(const ok_load *l, uint32_t id);
void ok_ld_bind_queue(ok_load *l);
void ok_ld_unbind_queue(ok_load *l);
int ok_ld_finished(const ok_load *l);
ok_status ok_ld_release_hit(ok_load *l);
ok_status ok_ld_end_parts(ok_load *l, int keep);
ok_status ok_ld_end_write(ok_load *l, int keep);
ok_status ok_ld_fail(ok_load *l, ok_status code, uint32_t reason, uint64_t number);
ok_status ok_ld_nomem(ok_load *l);
ok_status ok_ld_warn(ok_load *l, uint32_t code, uint32_t reason, uint64_t number);
ok_status ok_ld_note(ok_load *l, uint32_t code, uint32_t reason, uint64_t number);
ok_status ok_ld_guard(ok_load *l, uint32_t state);
ok_status ok_ld_leave(ok_load *l, ok_status st);

/* load_fetch.c: requests and a fresh entry */
ok_status ok_ld_send_fetch(ok_load *l, uint64_t from, uint32_t flags);
ok_status ok_ld_retry_later(ok_load *l, uint32_t reason, uint64_t number);
void ok_ld_reset_stream(ok_load *l);
ok_status ok_ld_refetch_plain(ok_load *l);
ok_status ok_ld_begin_entry(ok_load *l);
ok_status ok_ld_stream(ok_load *l);
/* Whether this load's body SHA-256 is the host's (a URL, a host that says
 * it hashes natively): the core then hashes none of it, the stored prefix
 * a resume re-reads included. */
int ok_ld_host_hashes(const ok_load *l);
ok_status ok_ld_accept_fresh(ok_load *l);

/* load_commit.c: session and commit */
ok_status ok_ld_create_session(ok_load *l);
ok_status ok_ld_done(ok_load *l);
ok_status ok_ld_push_commit(ok_load *l, ok_entry *e, const uint8_t *report, uint32_t report_len);
/* WRITE_MANIFEST of e: the load's one outstanding write. */
ok_status ok_ld_push_manifest(ok_load *l, ok_entry *e);
ok_status ok_ld_commit(ok_load *l);

/* load_forms.c: optimized forms */
ok_status ok_ld_lookup_form_store(ok_load *l);
ok_status ok_ld_form_commit(ok_load *l, uint32_t status, uint32_t reason);

/* load_lookup.c: the lookup after the sync, falling back to uncached */
ok_status ok_ld_push_reads(ok_load *l, const ok_entry *e, uint32_t from);
ok_status ok_ld_start_hit(ok_load *l, ok_entry *e);
ok_status ok_ld_lookup(ok_load *l);
ok_status ok_ld_admit_fetched(ok_load *l, int *refused);
ok_status ok_ld_go_uncached(ok_load *l, uint32_t warning, uint32_t reason);
ok_status ok_ld_io_trouble(ok_load *l, uint32_t kind, int *redo);

/* load_parts.c: data files */
ok_status ok_ld_part_of_owner(ok_load *l, const ok_load_params *p);
ok_status ok_ld_start_part(ok_load *l);
ok_status ok_ld_part_complete(ok_load *l);

/* load_read.c: reading stored bytes */
ok_status ok_ld_drop_and_refetch(ok_load *l, uint32_t warning, uint32_t reason, uint64_t number);

/* load_stream.c: the body */
ok_status ok_ld_pump(ok_load *l);

/* The events (ok_load_* in ok_load.h) live beside the steps they start; the
 * parts that hold only events sit above all of these and no part calls them:
 * load_sync.c (start, lock, sync, I/O failed), load_response.c (response,
 * quota, fetch failed, waited), load_session.c (validated, session),
 * load_writes.c (written, write failed), load_machine.c (new, free, abort,
 * actions, info). */

#endif
