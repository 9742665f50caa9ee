/* The load machine: one whole `load(source)` as a sans-I/O event -> action
 * machine over the cache index (ok_cache.h).
 *
 * JS creates a load, calls ok_load_start(), then loops: copy the queued
 * actions out (ok_load_actions / ok_load_action_data, then
 * ok_load_actions_clear), carry them out IN ORDER, and report what happened
 * with the event calls below. The machine decides everything else: the
 * cache key, which tier serves, whether a response is acceptable, when a
 * chunk is complete and what to store, whether bytes are a model, whether a
 * broken download resumes, retries or falls back to an uncached load, when
 * a stored entry is dropped and refetched, and what the caller is told.
 *
 * The JS contract:
 *   - write actions (WRITE_MANIFEST, STORE_CHUNK, COMMIT) are acked with
 *     ok_load_written / ok_load_write_failed before the next action is
 *     carried out; the machine has at most one write outstanding, so a
 *     failed write never has a later write of the same load queued behind
 *     it;
 *   - network pieces are fed only when the queue is empty (storage applies
 *     back-pressure to the network); one piece may be handed in several
 *     calls back to back (complete chunks then wait in a backlog);
 *   - after DONE or FAIL, JS carries out what is left in the queue (LRU
 *     touch, drops; after a DONE with DONE_STORING, the model's last
 *     chunks and its COMMIT, acked as before) and then frees the load; the
 *     LOCK is held until then.
 *
 * Every event returns OK_OK, or an error when the event is not valid now
 * (OK_ERR_STATE: e.g. a late body piece after an abort -- JS ignores it).
 * OK_ERR_NOMEM from any event ends the load: JS releases a session it
 * created and did not serve, and the load fails with NOMEM (the machine
 * queues FAIL when it still can). */
#ifndef ORTKEEP_OK_LOAD_H
#define ORTKEEP_OK_LOAD_H

#include <stddef.h>
#include <stdint.h>

#include "ok_cache.h"

typedef struct ok_load ok_load;

/* Policy numbers, in one list so tests and JS read the same values. */
#define OK_LOAD_POLICY_LIST(X)                                                           \
    X(DEFAULT_CHUNK_SIZE, 4u << 20) /* bytes per stored chunk */                         \
    X(MAX_FETCHES, 4)               /* requests one load may send in all */              \
    X(MAX_RESUMES, 2)               /* of them, byte-range resumes */                    \
    X(BACKOFF_MS, 250)              /* wait before retry n: BACKOFF_MS * 4^(n-1) */      \
    X(MAX_REFETCHES, 2)             /* stored copies found corrupt / refused, then     \
                                fetched again, per load */ \
    X(MAX_REOPENS, 2)               /* database reopened after it closed under us */     \
    X(CACHE_OPEN_TIMEOUT_MS, 3000)  /* indexedDB.open slower than this: the      \
                                      load goes on uncached */       \
    X(PREFIX_CHECK_BYTES, 256)      /* body bytes checked before anything is kept */     \
    X(MAX_PARTS, 256)               /* external data files one model commits with */

/* What one onnxruntime-web session can hold (the wasm32 heap, ~4 GiB): a
 * model, or a model and its external data, past it fails early (LIMIT). */
#define OK_LOAD_MAX_SESSION_BYTES ((uint64_t)4 << 30)

enum {
#define OK_LOAD_POLICY_ENUM_(name, value) OK_LOAD_##name = value,
    OK_LOAD_POLICY_LIST(OK_LOAD_POLICY_ENUM_)
#undef OK_LOAD_POLICY_ENUM_
};

/* What the caller passed, as JS resolved it. */
#define OK_SOURCE_LIST(X)                                                        \
    X(URL, 1)   /* http(s): cached in IndexedDB */                               \
    X(BYTES, 2) /* Uint8Array / ArrayBuffer / Blob in memory: never stored */    \
    X(FORM, 3)  /* an optimized form captured from a served original: stored   \
                   under the original's key + form + context once a session    \
                   at 'disabled' gives the original's outputs (VERIFY_FORM);   \
                   bytes_len 0: the capture failed, record that */ \
    X(DATA, 4)  /* an external data file of a model (a PART of its entry),    \
                   while the model's load (`owner`) is CREATING: `url` the     \
                   file's, `part` its location, bytes_len the least size its  \
                   tensors need; the key, the model's SHA-256, the mode, the  \
                   flags and the chunk size come from the owner. No lock or   \
                   sync (the owner holds the key's lock), no reader. Served   \
                   from IndexedDB only if committed beside these very model   \
                   bytes; a download is staged (every chunk stored, pending:  \
                   DONE_STAGED) and commits with the model                    \
                   (ok_load_adopt_part), or by itself when the model is       \
                   stored already; nothing is stored when the model is not.   \
                   The files of one model are planned (created) before any   \
                   is started: one past what a session holds with the model  \
                   and the files before it is OK_ERR_LIMIT at ok_load_new */
enum {
#define OK_SOURCE_ENUM_(name, value) OK_SOURCE_##name = value,
    OK_SOURCE_LIST(OK_SOURCE_ENUM_)
#undef OK_SOURCE_ENUM_
};

/* Where the served bytes came from (ok_load_info.tier, DONE value). */
#define OK_TIER_LIST(X) \
    X(NETWORK, 1)       \
    X(INDEXEDDB, 2)     \
    X(FILE, 3)          \
    X(BYTES, 4)
enum {
#define OK_TIER_ENUM_(name, value) OK_TIER_##name = value,
    OK_TIER_LIST(OK_TIER_ENUM_)
#undef OK_TIER_ENUM_
};

/* Warnings: the load goes on. */
#define OK_WARN_LIST(X)                                                      \
    X(QUOTA, 1)             /* does not fit the quota: loaded uncached */    \
    X(CORRUPT, 2)           /* a stored copy failed its check: dropped */    \
    X(RESUMING, 3)          /* a broken download continues by byte range */  \
    X(RETRYING, 4)          /* a request failed; trying again */             \
    X(UNCACHED, 5)          /* this response cannot be stored */             \
    X(CACHE_UNAVAILABLE, 6) /* IndexedDB cannot be used: loaded uncached */  \
    X(CACHE_ERROR, 7)       /* IndexedDB failed mid-load: loaded uncached */ \
    X(REFUSED, 8)           /* onnxruntime refused a stored copy: dropped */ \
    X(FORMS_OFF, 9)         /* optimized forms cannot be captured here */
enum {
#define OK_WARN_ENUM_(name, value) OK_WARN_##name = value,
    OK_WARN_LIST(OK_WARN_ENUM_)
#undef OK_WARN_ENUM_
};

/* Why (the flags of WARN and FAIL), so JS words the message. */
#define OK_REASON_LIST(X)                                                          \
    X(NONE, 0)                                                                     \
    X(HTTP_STATUS, 1)        /* value2 = the HTTP status */                        \
    X(FETCH_FAILED, 2)       /* fetch() rejected: offline, DNS, CORS */            \
    X(BODY_BROKEN, 3)        /* the body broke off; value2 = bytes received */     \
    X(SHORT_BODY, 4)         /* fewer bytes than Content-Length; value2 = got */   \
    X(LONG_BODY, 5)          /* more bytes than Content-Length */                  \
    X(HTML, 6)               /* text/html: an SPA fallback or a missing file */    \
    X(NOT_A_MODEL, 7)        /* the C reader refused the bytes; value2 = offset */ \
    X(DIGEST, 8)             /* the bytes do not match `integrity` */              \
    X(BAD_RANGE, 9)          /* a 206 that does not continue what is stored */     \
    X(CHANGED, 10)           /* the resource changed under a resume */             \
    X(SESSION, 11)           /* onnxruntime-web refused the model */               \
    X(CHECKSUM, 12)          /* a stored chunk failed its checksum */              \
    X(MISSING, 13)           /* a stored record is missing */                      \
    X(IDB, 14)               /* an IndexedDB request failed */                     \
    X(NOT_CACHED, 15)        /* only-if-cached and nothing stored */               \
    X(EMPTY_SOURCE, 16)      /* load('') */                                        \
    X(PAGE_ITSELF, 17)       /* the URL is the page, not a model */                \
    X(SCHEME, 18)            /* a URL scheme that cannot hold a model */           \
    X(BAD_INTEGRITY, 19)     /* integrity is not SRI metadata */                   \
    X(NO_SIZE, 20)           /* the size is unknown before the body */             \
    X(ENCODED, 21)           /* a compressed response */                           \
    X(WEAK_VALIDATOR, 22)    /* no strong ETag or integrity: not resumable */      \
    X(TOO_BIG, 23)           /* over a size limit; value2 = bytes */               \
    X(FORM_OUTPUTS, 24)      /* the form's outputs differ from the original's */   \
    X(FORM_SLOWER, 25)       /* the form creates no faster than the original */    \
    X(FORM_CAPTURE, 26)      /* onnxruntime wrote no usable form */                \
    X(FORM_UNVERIFIABLE, 27) /* the probe inputs do not run on the original */     \
    X(FORM_DOOMED, 28)       /* the reader's facts rule the tier out */            \
    X(FORM_STALE, 29)        /* made from other bytes than the original now */     \
    X(DATA_SHORT, 30)        /* an external data file ends before the model's \
                               tensors in it; value2 = its size */    \
    X(FORM_INTERRUPTED, 31)  /* the check itself failed once (a transient    \
                               fault: another session on the device,      \
                               memory): the tier is tried once more */
enum {
#define OK_REASON_ENUM_(name, value) OK_REASON_##name = value,
    OK_REASON_LIST(OK_REASON_ENUM_)
#undef OK_REASON_ENUM_
};

/* How an I/O request failed (ok_load_write_failed, ok_load_io_failed). */
#define OK_IOFAIL_LIST(X)                                                    \
    X(QUOTA, 1)  /* QuotaExceededError */                                    \
    X(CLOSED, 2) /* InvalidStateError: the database closed under the page */ \
    X(OTHER, 3)  /* anything else (AbortError, UnknownError, ...) */
enum {
#define OK_IOFAIL_ENUM_(name, value) OK_IOFAIL_##name = value,
    OK_IOFAIL_LIST(OK_IOFAIL_ENUM_)
#undef OK_IOFAIL_ENUM_
};

/* Response.type, as fetch reports it. */
#define OK_RESP_TYPE_LIST(X) \
    X(BASIC, 1)              \
    X(CORS, 2)               \
    X(OTHER, 3)
enum {
#define OK_RESP_TYPE_ENUM_(name, value) OK_RESP_##name = value,
    OK_RESP_TYPE_LIST(OK_RESP_TYPE_ENUM_)
#undef OK_RESP_TYPE_ENUM_
};

/* ok_load_params.flags */
#define OK_LOAD_FLAG_LIST(X)                                                         \
    X(NO_IDB, 1)         /* no IndexedDB here (Node): nothing is stored, silently */ \
    X(NO_VERIFY, 2)      /* benchmarks only: skip the chunk checksums on a hit */    \
    X(NODE, 4)           /* Node: file: URLs are read from the file system */        \
    X(IDB_FAILED, 8)     /* IndexedDB exists but did not open (in time): nothing   \
                            is stored, with a CACHE_UNAVAILABLE warning */ \
    X(CAPTURE_LATER, 16) /* FORM: no bytes yet; after the sync, when no verdict \
                            stands for them, CAPTURE_FORM asks JS to capture  \
                            the form (ok_load_captured) */    \
    X(HOST_HASHES, 32)   /* the host hashes a whole body with native SHA-256  \
                            (WebCrypto): a URL load's STREAM may ask it to    \
                            (OK_STREAM_HOST_SHA256) */      \
    X(GIVEN_DATA, 64)    /* BYTES: source_sha256 names the model and the data \
                            files handed as bytes beside it                   \
                            (ok_form_given_source_id): a form of a model with \
                            external data is bound to all it was made from */      \
    X(DATA_UNNAMED, 128) /* BYTES: data files handed beside them that the host \
                            cannot name (a URL, a Blob, past                  \
                            ok_form_names_given_data): not content-keyed, so  \
                            no form of the model alone (made beside other     \
                            data) serves them */     \
    X(ORT_IN_PLACE, 256) /* the page creates an .ort form in place, in        \
                            onnxruntime-web's heap: that tier comes first     \
                            (form_tiers.h) */
enum {
#define OK_LOAD_FLAG_ENUM_(name, value) OK_LOAD_##name = value,
    OK_LOAD_FLAG_LIST(OK_LOAD_FLAG_ENUM_)
#undef OK_LOAD_FLAG_ENUM_
};

typedef struct ok_load_params {
    uint32_t source;       /* OK_SOURCE_* */
    const char *raw;       /* the string the caller passed (URL sources) */
    const char *url;       /* it, resolved to an absolute URL by JS */
    const char *page_url;  /* the document's URL, NULL outside a page */
    const char *integrity; /* SRI metadata or NULL */
    uint32_t mode;         /* OK_MODE_* */
    uint32_t chunk_size;   /* 0: OK_LOAD_DEFAULT_CHUNK_SIZE */
    uint32_t flags;        /* OK_LOAD_* flags */
    uint64_t now;          /* ms since the epoch (LRU clock) */
    uint64_t bytes_len;    /* OK_SOURCE_BYTES / FORM: the size */
    /* Optimized forms. form_ctx names what produces a form here (JS:
     * "ort=<version>;ep=<providers>;level=<level>"; no '|'); NULL: forms
     * are off. URL loads then serve a verified form of this context and
     * say which form to capture (ok_load_capture_form). FORM loads: `raw`
     * is the original's cache key (ok_load_info.key of its load), `url` its
     * URL, `form` what is stored, source_sha256 the original's SHA-256.
     * BYTES loads given source_sha256 (the host's SHA-256 of the bytes,
     * WebCrypto's: ~3x the core's speed) and no integrity do not hash them
     * again. With a form_ctx, in mode DEFAULT and with IndexedDB they are
     * content-keyed: under the lock of "sha256:<hex>|form:original" a
     * verified form made from these very bytes serves, else the bytes do
     * (not hashed again) and say which form to capture; the bytes
     * themselves are never stored. */
    const char *form_ctx;
    uint32_t form;
    const uint8_t *source_sha256;
    const char *part; /* OK_SOURCE_DATA: the file's location */
    ok_load *owner;   /* OK_SOURCE_DATA: the model's load (CREATING) */
    uint32_t facts;   /* FORM: the original's OK_FACT_* (the tier
                               after a failed form is one they allow) */
} ok_load_params;

/* fetch()'s cache modes: X(NAME, value, "the name JS passes") */
#define OK_CACHE_MODE_LIST(X)                                                    \
    X(DEFAULT, 0, "default")               /* stored copy, else network */       \
    X(NO_CACHE, 1, "no-cache")             /* revalidate the stored copy */      \
    X(RELOAD, 2, "reload")                 /* network, replace what is stored */ \
    X(NO_STORE, 3, "no-store")             /* network, store nothing */          \
    X(ONLY_IF_CACHED, 4, "only-if-cached") /* stored copy or NOT_FOUND */
enum ok_cache_mode {
#define OK_CACHE_MODE_ENUM_(name, value, js) OK_MODE_##name = value,
    OK_CACHE_MODE_LIST(OK_CACHE_MODE_ENUM_)
#undef OK_CACHE_MODE_ENUM_
};

/* A new load. Bad parameters (an unparsable integrity, load('')) are not
 * errors here: ok_load_start() queues the FAIL that says so. */
ok_status ok_load_new(ok_cache *c, const ok_load_params *p, ok_load **out);
/* Frees the load. A load freed mid-flight lets go of what it held in the
 * index (a read reference, a download in progress: its pending entry is
 * kept only if resumable), queuing nothing. */
void ok_load_free(ok_load *l);

const ok_action *ok_load_actions(const ok_load *l, uint32_t *count);
const uint8_t *ok_load_action_data(const ok_load *l);
void ok_load_actions_clear(ok_load *l);

/* Events for the caller (NOTE actions). */
#define OK_NOTE_LIST(X)                                                          \
    X(FORM_ESCALATED, 1) /* a form failed: the next tier is produced;          \
                            value2 = from | to << 8, flags = the reason */ \
    X(FORM_DROPPED, 2)   /* a stored form was refused or corrupt: served the   \
                            original, the form is made again */
enum {
#define OK_NOTE_ENUM_(name, value) OK_NOTE_##name = value,
    OK_NOTE_LIST(OK_NOTE_ENUM_)
#undef OK_NOTE_ENUM_
};

/* ok_load_form_verified verdicts. */
#define OK_VERDICT_LIST(X)                                          \
    X(EQUAL, 1)        /* outputs equal within the tolerance */     \
    X(DIFFERS, 2)      /* outputs differ */                         \
    X(UNVERIFIABLE, 3) /* the probes fail on the original itself */ \
    X(FAILED, 4)       /* the check itself failed (the form session ran not) */
enum {
#define OK_VERDICT_ENUM_(name, value) OK_VERDICT_##name = value,
    OK_VERDICT_LIST(OK_VERDICT_ENUM_)
#undef OK_VERDICT_ENUM_
};

/* What the reader found that rules a tier out (ok_load_capture_form). */
#define OK_FACT_LIST(X)                                              \
    X(EXTERNAL_DATA, 1)         /* weights in external data files */ \
    X(SUBGRAPH_INITIALIZERS, 2) /* If/Loop/Scan bodies hold initializers */
enum {
#define OK_FACT_ENUM_(name, value) OK_FACT_##name = value,
    OK_FACT_LIST(OK_FACT_ENUM_)
#undef OK_FACT_ENUM_
};

/* ---- events ---- */
ok_status ok_load_start(ok_load *l);
ok_status ok_load_locked(ok_load *l);
/* SYNC_INDEX's records and chunk names (ok_cache_sync_* for this load),
 * then ok_load_synced(). */
ok_status ok_load_sync_record(ok_load *l, const char *name, size_t name_len, const uint8_t *bytes,
                              size_t len);
ok_status ok_load_sync_chunk_name(ok_load *l, const char *name, size_t name_len);
ok_status ok_load_synced(ok_load *l);
ok_status ok_load_quota(ok_load *l, uint64_t free_bytes); /* UINT64_MAX: unknown */
/* Response headers (NULL = absent or not visible to script). */
ok_status ok_load_response(ok_load *l, uint32_t status, uint32_t resp_type, const char *content_length,
                           const char *content_encoding, const char *content_range, const char *content_type,
                           const char *etag, const char *last_modified);
ok_status ok_load_fetch_failed(ok_load *l);
ok_status ok_load_body(ok_load *l, const uint8_t *p, size_t n);
ok_status ok_load_body_end(ok_load *l);
/* The SHA-256 of the whole body (model buffer [0, end)), from the host, when
 * STREAM asked for it (OK_STREAM_HOST_SHA256): the core's own hash of a
 * 44 MB model took ~300 ms of the main thread as the body came, WebCrypto's
 * at its end 70-80 ms. Only while streaming such a body, before
 * ok_load_body_end (else STATE). */
ok_status ok_load_body_sha256(ok_load *l, const uint8_t sha[32]);
ok_status ok_load_body_error(ok_load *l);
/* The network keeps JS waiting (it has waited about as long as a chunk
 * store takes, and the rest of the body will take longer): a chunk complete
 * now may be stored while the body streams. Without it a
 * URL load keeps complete chunks in its backlog and stores them after DONE
 * (a fast link: the store is off the caller's path); with it a slow link
 * stores them as they arrive (a tab killed mid-download resumes from
 * them). */
ok_status ok_load_body_idle(ok_load *l);
ok_status ok_load_waited(ok_load *l);
/* A chunk of READ_CHUNKS as read back (p NULL: the record is missing). */
ok_status ok_load_chunk_read(ok_load *l, uint32_t idx, const uint8_t *p, size_t n);
ok_status ok_load_meta_read(ok_load *l, const uint8_t *p, size_t n);
/* A SYNC_INDEX, READ_CHUNKS or READ_META transaction failed (OK_IOFAIL_*). */
ok_status ok_load_io_failed(ok_load *l, uint32_t kind);
ok_status ok_load_written(ok_load *l);
ok_status ok_load_write_failed(ok_load *l, uint32_t kind);
/* The STORE_AHEAD run settled: `landed` of its transactions, counted from
 * its first, committed before the first that failed (all: none failed),
 * and how that one failed (OK_IOFAIL_*; 0 when none did). It is handled as
 * that one write's failure (ok_load_write_failed); the ones after it go
 * again. JS tells it when it has nothing else to carry out (the session's
 * creation, the DONE and the body come first). */
ok_status ok_load_ahead_settled(ok_load *l, uint32_t landed, uint32_t kind);
/* The C reader's verdict on the model buffer: status OK with its report
 * (stored with the entry), or the reader's error and the byte offset. */
ok_status ok_load_validated(ok_load *l, uint32_t status, uint64_t offset, const uint8_t *report, size_t n);
/* What JS knows of a CREATE_SESSION's creation (ok_load_session_timed's
 * facts): whether it succeeded, and what makes its time no measure of the
 * form it created (the verdict revision, form_tiers.h, weighs them). */
#define OK_SESSION_FACT_LIST(X)                                                       \
    X(OK, 1)         /* the session was created */                                    \
    X(FIRST, 2)      /* the page's first model session: onnxruntime-web started     \
                        with it or just before, its code still cold */ \
    X(DATA_FILES, 4) /* it read external data files (so would the original) */        \
    X(BAD_MODEL, 8)  /* it failed, and onnxruntime-web said the bytes are no      \
                        valid model (a parse error): a failure without it is   \
                        taken for the options' or the backend's */   \
    X(OPTIONS, 16)   /* it failed, and the same options fail on a model of     \
                        ortkeep's own too: the caller's options are refused,   \
                        not these bytes, so nothing stored is dropped */
enum {
#define OK_SESSION_FACT_ENUM_(name, value) OK_SESSION_##name = value,
    OK_SESSION_FACT_LIST(OK_SESSION_FACT_ENUM_)
#undef OK_SESSION_FACT_ENUM_
};
/* ok: nonzero when the session was created. _timed: facts (OK_SESSION_*;
 * 0 or 1 are "failed" and "created") and how long the creation took
 * (forms are timed). */
ok_status ok_load_session(ok_load *l, int ok);
ok_status ok_load_session_timed(ok_load *l, uint32_t facts, uint32_t create_us);
/* VERIFY_FORM's answer (OK_VERDICT_*), with the original's creation time
 * measured beside the form's and, when JS timed the form again, that time
 * (0: none). Each side counts at its best sample: one creation on a shared
 * machine can be slowed by anything. */
ok_status ok_load_form_verified(ok_load *l, uint32_t verdict, uint32_t orig_create_us,
                                uint32_t form_create_us);
/* Before ok_load_start, on a FORM load of the tier a URL or BYTES load
 * was served by (its info said `revise`): instead of capturing, tally
 * that load's form creation time and the original's, timed beside it (us),
 * into the form's verdict; a form no faster over OK_FORM_REVISE_PAIRS such
 * pairs is demoted to a "slower" tombstone (form_tiers.h). */
ok_status ok_load_revise(ok_load *l, uint32_t form_us, uint32_t orig_us);
/* CAPTURE_FORM's answer (a FORM load with OK_LOAD_CAPTURE_LATER, holding
 * the key's lock): the captured form's size, its bytes now being the
 * load's; 0: onnxruntime wrote nothing usable (a tombstone is committed). */
ok_status ok_load_captured(ok_load *l, uint64_t bytes_len);
/* Whether a BYTES load given its SHA-256 is content-keyed: its forms kept
 * and served under "sha256:<hex>|form:original" (ok_load_params). Only with
 * no integrity, forms on (a form context), mode DEFAULT and IndexedDB here
 * (flags without NO_IDB, IDB_FAILED). JS asks before it opens IndexedDB
 * for bytes or glances at them; ok_load_new keys by the same answer. */
int ok_load_bytes_content_keyed(int has_integrity, int forms_on, uint32_t mode, uint32_t flags);
/* Asked at CREATE_SESSION of a URL load serving the original: which form
 * to capture after it (OK_FORM_ONNX / ORT; a FORM load with
 * OK_LOAD_CAPTURE_LATER captures it), or OK_FORM_ORIGINAL
 * for none (forms off, one already verified, every tier failed for these
 * bytes: the sentinel, or the facts and sizes rule every tier out; see
 * form_tiers.h). facts: OK_FACT_* of the model; external_bytes: its
 * external data (a form of it reads the original's data files). */
uint32_t ok_load_capture_form(const ok_load *l, uint32_t facts, uint64_t external_bytes);
/* External data files (parts). While a load is CREATING (before
 * ok_load_session), JS loads the model's data files as DATA loads owned by
 * it; how they are kept (OK_PARTS_*) this says. UNSTORED: the model is not
 * being stored, neither are they; STAGE: the model is being stored, each
 * staged file is handed over with ok_load_adopt_part and all commit in one
 * transaction with the model; OWNER_STORED: the model came from IndexedDB,
 * the files are read (or fetched and committed by themselves). */
#define OK_PARTS_LIST(X) \
    X(UNSTORED, 0)       \
    X(STAGE, 1)          \
    X(OWNER_STORED, 2)
enum {
#define OK_PARTS_ENUM_(name, value) OK_PARTS_##name = value,
    OK_PARTS_LIST(OK_PARTS_ENUM_)
#undef OK_PARTS_ENUM_
};
uint32_t ok_load_parts_mode(const ok_load *l);
/* A finished DATA load joins this load's commit: its staged entry commits
 * with the model or, if it is dropped, with nothing. A file that could not
 * be stored (quota, uncached) makes the whole model load uncached: nothing
 * of it is stored. Call before ok_load_session; `part` may be freed after. */
ok_status ok_load_adopt_part(ok_load *l, ok_load *part);
/* Every data file of a load at CREATE_SESSION is loaded and adopted, before
 * the session is created (a form's load too: an .onnx form reads its
 * original's files). A form whose data files were fetched again since it
 * was chosen and are not the bytes it was made from is retired: FORM_DROPPED
 * (FORM_STALE) is noted and the original read, CREATE_SESSION comes again;
 * ok_load_info's `form` then no longer names the form asked for. OK_OK
 * either way; OK_ERR_STATE outside CREATE_SESSION. */
ok_status ok_load_parts_loaded(ok_load *l);

/* The caller gave up (its AbortSignal). */
ok_status ok_load_abort(ok_load *l);

/* ---- what the load knows ---- */
typedef struct ok_load_info {
    uint32_t state;      /* OK_LOAD_STATE_* */
    uint32_t tier;       /* OK_TIER_*, once DONE */
    uint32_t stored;     /* the served model is stored in IndexedDB */
    uint32_t has_sha256; /* sha256 below is the served bytes' hash */
    uint64_t total;      /* model bytes, once known */
    uint64_t received;   /* bytes in the model buffer so far */
    uint64_t resumed_from;
    uint32_t fetches, resumes, refetches;
    uint8_t sha256[32];
    const char *key;                    /* the cache key (final once stored) */
    const char *lock_name;              /* "" when the load takes no lock */
    uint32_t form;                      /* the form served (URL) or stored (FORM) */
    uint32_t form_status;               /* FORM loads: OK_FORM_VERIFIED / FAILED / NONE */
    uint32_t form_reason;               /* why FAILED (OK_REASON_*) */
    uint32_t next_form;                 /* FORM loads, once DONE: the tier to capture
                              next (ORIGINAL: none) */
    uint32_t create_us, orig_create_us; /* the served or stored form's */
    uint64_t source_total;              /* the original's size (a served form's source) */
    uint32_t revise;                    /* served by a form, once DONE: time the original's
                              creation beside it and hand both to a FORM load
                              (ok_load_revise) */
    uint32_t revision;                  /* a revising FORM load, once DONE: OK_REVISION_* */
} ok_load_info;

/* What a revising FORM load made of its pair (ok_load_info.revision). */
#define OK_REVISION_LIST(X)                                                                 \
    X(NONE, 0)        /* no pair was handed to this load */                                 \
    X(TALLIED, 1)     /* counted; fewer than OK_FORM_REVISE_PAIRS pairs so far */           \
    X(KEPT, 2)        /* no slower over its pairs: the form stays, the tally restarts */    \
    X(DEMOTED, 3)     /* slower over its pairs: a "slower" tombstone supersedes the form */ \
    X(NOT_COUNTED, 4) /* another verdict took the form's place: the pair was not its */
enum {
#define OK_REVISION_ENUM_(name, value) OK_REVISION_##name = value,
    OK_REVISION_LIST(OK_REVISION_ENUM_)
#undef OK_REVISION_ENUM_
};

#define OK_LOAD_STATE_LIST(X) \
    X(NEW, 0)                 \
    X(LOCKING, 1)             \
    X(SYNCING, 2)             \
    X(READING, 3)             \
    X(QUOTA, 4)               \
    X(FETCHING, 5)            \
    X(STREAMING, 6)           \
    X(WAITING, 7)             \
    X(VALIDATING, 8)          \
    X(CREATING, 9)            \
    X(COMMITTING, 10)         \
    X(DONE, 11)               \
    X(FAILED, 12)             \
    X(VERIFYING, 13)          \
    X(CAPTURING, 14)
enum {
#define OK_LOAD_STATE_ENUM_(name, value) OK_LOAD_STATE_##name = value,
    OK_LOAD_STATE_LIST(OK_LOAD_STATE_ENUM_)
#undef OK_LOAD_STATE_ENUM_
};

ok_status ok_load_info_get(const ok_load *l, ok_load_info *out);

#endif
