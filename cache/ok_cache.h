/* The model cache core: the index of stored entries, their manifests, the
 * action queue, SRI parsing and LRU eviction. The per-load policy (lookup,
 * read, download, resume, validate, commit, retry, fallback) is the load
 * machine in ok_load.h, which drives this index.
 *
 * Sans-I/O. Time, randomness and storage contents come in through calls;
 * what to do comes out as ACTIONS (records below) that JS carries out, in
 * order, against IndexedDB, the network and onnxruntime-web. Every decision
 * is a deterministic function of the calls. cache/README.md has the storage
 * layout and the crash-safety argument.
 *
 * Every call returns an ok_status. An error (NOMEM, INVALID_ARG, STATE,
 * NOT_FOUND, IN_USE, LIMIT) means the call had no effect. */
#ifndef ORTKEEP_OK_CACHE_H
#define ORTKEEP_OK_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "ok_error.h"

typedef struct ok_cache ok_cache;

/* Limits. Strings are bytes without NUL inside (URL, ETag, ...). */
#define OK_CACHE_MAX_KEY 4096u
#define OK_CACHE_MAX_STR 8192u
#define OK_CACHE_MAX_NAME 64u
#define OK_CACHE_MAX_CHUNK_SIZE (256u << 20)
#define OK_CACHE_MIN_CHUNK_SIZE 4096u
#define OK_CACHE_MAX_CHUNKS (1u << 20)
#define OK_CACHE_MAX_ENTRIES 4096u
#define OK_CACHE_MAX_INTEGRITY 8u       /* tokens of one algorithm kept */
#define OK_CACHE_MAX_REPORT (16u << 20) /* bytes of a stored reader report */
#define OK_CACHE_CHUNK_END 0xFFFFFFFFu  /* "to the end" in a chunk range */

/* ---- entry state (persisted) ---- */
#define OK_ENTRY_STATE_LIST(X) \
    X(PENDING, 1)              \
    X(COMMITTED, 2)
enum {
#define OK_ENTRY_STATE_ENUM_(name, value) OK_ENTRY_##name = value,
    OK_ENTRY_STATE_LIST(OK_ENTRY_STATE_ENUM_)
#undef OK_ENTRY_STATE_ENUM_
};

/* Entry flags (persisted). */
#define OK_ENTRY_FLAG_LIST(X)                                                  \
    X(SIZE_KNOWN, 1) /* total_size was exact before the body (identity       \
                        Content-Length, same origin); else known at the end */ \
    X(STRONG, 2)     /* the ETag is strong (not W/): byte ranges of this     \
                        resource can be trusted to be the same bytes */ \
    X(ENCODED, 4)    /* the response had a Content-Encoding: never resumed  \
                        by byte range (ranges count encoded bytes) */  \
    X(PART, 8)       /* an external data file of the model whose key is    \
                        this key up to "|data:" (source_sha256: that       \
                        model's SHA-256); committed with it in one         \
                        transaction, evicted and deleted with it, never    \
                        served without it */
enum {
#define OK_ENTRY_FLAG_ENUM_(name, value) OK_EF_##name = value,
    OK_ENTRY_FLAG_LIST(OK_ENTRY_FLAG_ENUM_)
#undef OK_ENTRY_FLAG_ENUM_
};

/* Artifact forms of a stored model (persisted in the manifest, named in
 * cache keys "…|form:<name>"): X(NAME, value, "name"), in tier order: a
 * model is served in the first verified form, else the original. ONNX is
 * onnxruntime's own optimized .onnx (inline initializers), ORT the same in
 * ORT format; both are keyed by the context that produced them
 * ("…|form:onnx|<ctx>": onnxruntime version, execution providers, level). */
#define OK_FORM_LIST(X)        \
    X(ORIGINAL, 0, "original") \
    X(ONNX, 1, "onnx")         \
    X(ORT, 2, "ort")
#define OK_FORM_COUNT 3u

/* The verdict stored with an optimized form (persisted): VERIFIED forms
 * serve; a FAILED form is a tombstone (no chunks) that makes the next load
 * produce the next tier, and when every tier failed the original is served
 * (the "no optimized cache" sentinel). */
#define OK_FORM_STATUS_LIST(X) \
    X(NONE, 0)                 \
    X(VERIFIED, 1)             \
    X(FAILED, 2)
enum {
#define OK_FORM_STATUS_ENUM_(name, value) OK_FORM_##name = value,
    OK_FORM_STATUS_LIST(OK_FORM_STATUS_ENUM_)
#undef OK_FORM_STATUS_ENUM_
};
#define OK_CACHE_MAX_FORM_CTX 512u
enum {
#define OK_FORM_ENUM_(name, value, js) OK_FORM_##name = value,
    OK_FORM_LIST(OK_FORM_ENUM_)
#undef OK_FORM_ENUM_
};

/* Integrity algorithms (SRI), weakest first: the strongest present wins. */
#define OK_HASH_ALG_LIST(X) \
    X(NONE, 0, 0)           \
    X(SHA256, 1, 32)        \
    X(SHA384, 2, 48)        \
    X(SHA512, 3, 64)
enum {
#define OK_HASH_ALG_ENUM_(name, value, bytes) OK_HASH_##name = value,
    OK_HASH_ALG_LIST(OK_HASH_ALG_ENUM_)
#undef OK_HASH_ALG_ENUM_
};
#define OK_HASH_MAX_BYTES 64u

/* ---- actions ----
 * X(NAME, value). What each asks of JS (fields in ok_action below); "ack"
 * means JS reports the outcome with ok_load_written / ok_load_write_failed
 * (or the call named), in the order the actions were queued.
 *
 *   LOCK            take the Web Lock `name` (exclusive) for the rest of the
 *                   load, then ok_load_locked(); JS releases it once the
 *                   load's queue has run dry after DONE/FAIL.
 *   SYNC_INDEX      one read-only transaction over "index" (+ the names in
 *                   "chunks" when flags has OK_SYNC_CHUNK_NAMES): feed them
 *                   to ok_cache_sync_*, then ok_load_synced().
 *   ESTIMATE_QUOTA  navigator.storage.estimate() -> ok_load_quota(free).
 *   FETCH           request URL `blob` (GET). flags OK_FETCH_RANGE: header
 *                   `Range: bytes=<value>-`; OK_FETCH_CONDITIONAL: headers
 *                   If-None-Match: `name` and If-Modified-Since: `aux` (each
 *                   when non-empty). -> ok_load_response() or
 *                   ok_load_fetch_failed(). Node file: URLs are read from
 *                   the file system the same way (status 200).
 *   STREAM          the response was accepted: read its body, calling
 *                   ok_load_body() per piece (each piece ends up in the
 *                   model buffer at the offset the core tracks) and
 *                   ok_load_body_end() / ok_load_body_error(). flags
 *                   STREAM_HOST_SHA256: ok_load_body_sha256() first.
 *   CANCEL_FETCH    cancel the response body (not read any further).
 *   WAIT            wait `value` ms (a retry back-off), then ok_load_waited().
 *   ALLOC           the model buffer: `value` bytes when known (reads, exact
 *                   Content-Length), else 0 and grow as the body arrives;
 *                   value2 = a capacity hint. Replaces any earlier buffer.
 *   READ_CHUNKS     read chunks [chunk, chunk_end) of entry `name` into the
 *                   model buffer at chunk * `value` (the chunk size), then
 *                   ok_load_chunk_read() for each, in order (NULL when a
 *                   record is missing), or ok_load_io_failed().
 *   READ_META       read "meta" record `name` -> ok_load_meta_read().
 *   WRITE_MANIFEST  "index".put(name, blob). ack.
 *   STORE_CHUNK     ONE transaction: "chunks".put([name, chunk], model
 *                   buffer [value, value + value2)) and "index".put(name,
 *                   blob). ack. flags STORE_AHEAD: no ack (see the flag).
 *   COMMIT          ONE transaction: "index".put(name, blob) and
 *                   "meta".put(name, aux) (no aux: a part, no meta). ack.
 *                   flags COMMIT_MORE: a group (a model and its parts):
 *                   every put up to the COMMIT without it in ONE
 *                   transaction, one ack.
 *   DELETE_CHUNKS   "chunks" [name, chunk] .. [name, chunk_end) deleted.
 *   DROP_ENTRY      ONE transaction: "index", "meta" and "chunks" records
 *                   of `name` deleted.
 *   CLEAR_ALL       ONE transaction: every store cleared.
 *   REOPEN          the database was closed under the page: open it again.
 *   VALIDATE        run the C reader over the model buffer [0, value)
 *                   (`name`: its SHA-256, hex, already computed) ->
 *                   ok_load_validated().
 *   CREATE_SESSION  create the onnxruntime-web session from the model buffer
 *                   [0, value) -> ok_load_session().
 *   RELEASE_SESSION release that session (it must not be served).
 *   WARN            a warning: value = OK_WARN_*, flags = OK_REASON_*,
 *                   value2 = a number for the message, name = detail.
 *   VERIFY_FORM     (storing a form) the session just created from the form
 *                   at level 'disabled' must give the original's outputs:
 *                   run probe inputs through it and through a session of the
 *                   original, time the original's creation (and the
 *                   form's again) -> ok_load_form_verified(). value = the
 *                   form (OK_FORM_*).
 *   CAPTURE_FORM    (a FORM load, OK_LOAD_CAPTURE_LATER) no verdict stands
 *                   for these bytes: capture form `value` (OK_FORM_*) from
 *                   the original -> ok_load_captured() with its bytes.
 *   NOTE            an event for the caller, not a warning: value =
 *                   OK_NOTE_*, flags = OK_REASON_*, value2 = a number (for
 *                   FORM_ESCALATED: from | to << 8).
 *   DONE            the load succeeded: serve the session. value = OK_TIER_*,
 *                   flags = OK_DONE_*, value2 = the byte a resume started
 *                   from. Actions after it run in the background.
 *   FAIL            the load failed: value = the error status, flags =
 *                   OK_REASON_*, value2 = a number for the message (HTTP
 *                   status, byte offset, size), name = detail. */
#define OK_CACHE_ACTION_LIST(X) \
    X(LOCK, 1)                  \
    X(SYNC_INDEX, 2)            \
    X(ESTIMATE_QUOTA, 3)        \
    X(FETCH, 4)                 \
    X(STREAM, 5)                \
    X(CANCEL_FETCH, 6)          \
    X(WAIT, 7)                  \
    X(ALLOC, 8)                 \
    X(READ_CHUNKS, 9)           \
    X(READ_META, 10)            \
    X(WRITE_MANIFEST, 11)       \
    X(STORE_CHUNK, 12)          \
    X(COMMIT, 13)               \
    X(DELETE_CHUNKS, 14)        \
    X(DROP_ENTRY, 15)           \
    X(CLEAR_ALL, 16)            \
    X(REOPEN, 17)               \
    X(VALIDATE, 18)             \
    X(CREATE_SESSION, 19)       \
    X(RELEASE_SESSION, 20)      \
    X(WARN, 21)                 \
    X(DONE, 22)                 \
    X(FAIL, 23)                 \
    X(VERIFY_FORM, 24)          \
    X(NOTE, 25)                 \
    X(CAPTURE_FORM, 26)
enum ok_cache_action_type {
#define OK_CACHE_ACTION_ENUM_(name, value) OK_ACT_##name = value,
    OK_CACHE_ACTION_LIST(OK_CACHE_ACTION_ENUM_)
#undef OK_CACHE_ACTION_ENUM_
        OK_ACT_END_
};

/* Action flags. */
#define OK_ACTION_FLAG_LIST(X)                                                      \
    X(FETCH_RANGE, 1)          /* FETCH: Range: bytes=<value>- */                   \
    X(FETCH_CONDITIONAL, 2)    /* FETCH: If-None-Match / If-Modified-Since */       \
    X(SYNC_CHUNK_NAMES, 4)     /* SYNC_INDEX: also list the names in "chunks" */    \
    X(READ_REHASH, 8)          /* READ_CHUNKS: a resume re-reading its prefix */    \
    X(DONE_STORED, 16)         /* DONE: the model is (now) stored */                \
    X(DONE_VERIFIED, 32)       /* DONE: every stored chunk passed its checksum */   \
    X(COMMIT_MORE, 64)         /* COMMIT: not the last put of its transaction:    \
                               JS holds it, carries it out in ONE transaction  \
                               with the COMMITs up to one without this flag,   \
                               and acks that one only */ \
    X(DONE_STAGED, 128)        /* DONE (a part): every chunk is stored, pending;  \
                               it commits with its model (ok_load_adopt_part) */ \
    X(DONE_STORING, 256)       /* DONE (a URL load): served before its store: the \
                               chunks left and the COMMIT follow DONE (the     \
                               LOCK held); ok_load_info's `stored` says at the \
                               end whether it landed */ \
    X(STREAM_HOST_SHA256, 512) /* STREAM: the core does not hash this body:    \
                               before ok_load_body_end, JS hands the SHA-256   \
                               of the whole model buffer [0, end) with          \
                               ok_load_body_sha256() */    \
    X(STORE_AHEAD, 1024)       /* STORE_CHUNK: one of a run sent together      \
                               before the session: begin (and commit) its     \
                               transaction at once, ack nothing; when the page \
                               has nothing else to do, ok_load_ahead_settled() \
                               with how many of the run landed, in order,    \
                               and how the first that failed failed */
enum {
#define OK_ACTION_FLAG_ENUM_(name, value) OK_##name = value,
    OK_ACTION_FLAG_LIST(OK_ACTION_FLAG_ENUM_)
#undef OK_ACTION_FLAG_ENUM_
};

/* One action: 15 little-endian uint32 (60 bytes), read by JS straight from
 * wasm memory (layout generated into js/core-constants.js). Strings and
 * blobs are byte spans of the queue's arena, valid until the queue is
 * cleared. */
typedef struct ok_action {
    uint32_t type, entry, chunk, chunk_end, flags;
    uint32_t value_lo, value_hi, value2_lo, value2_hi;
    uint32_t name_off, name_len, blob_off, blob_len, aux_off, aux_len;
} ok_action;

/* A growable queue of actions plus one byte arena for their strings. */
typedef struct ok_actq {
    ok_action *acts;
    uint32_t n, cap;
    uint8_t *data;
    uint32_t n_data, cap_data;
} ok_actq;

/* ---- lifecycle ---- */

/* A new empty index. budget_bytes caps what it stores (0 = unlimited);
 * name_seed makes the storage names of this page's new entries unique
 * across tabs and page loads (JS passes 64 random bits). */
ok_status ok_cache_open(ok_cache **out, uint64_t budget_bytes, uint64_t name_seed);
void ok_cache_close(ok_cache *c);
ok_status ok_cache_set_budget(ok_cache *c, uint64_t budget_bytes);

/* ---- syncing with the stores ----
 * Other tabs write the same stores, so a load (SYNC_INDEX) or cache.list()
 * first reads every "index" record in one read-only transaction and feeds
 * them through a sync:
 *   ok_cache_sync_begin       with_chunk_names: the same transaction also
 *                             lists the distinct names in "chunks" (the
 *                             first sync of a page, to sweep orphans);
 *   ok_cache_sync_record      each record (name, manifest bytes);
 *   ok_cache_sync_chunk_name  each distinct chunk name;
 *   ok_cache_sync_end         reconciles and frees the sync: entries no
 *                             record names any more are forgotten (unless in
 *                             use here), stale generations and unreadable
 *                             records are dropped, orphan chunks swept --
 *                             actions go to the current queue.
 * Several syncs may be open at once (loads interleave); each only forgets
 * what existed before it began. */
typedef struct ok_sync ok_sync;
ok_status ok_cache_sync_begin(ok_cache *c, int with_chunk_names, ok_sync **out);
ok_status ok_cache_sync_record(ok_cache *c, ok_sync *s, const char *name, size_t name_len,
                               const uint8_t *bytes, size_t len);
ok_status ok_cache_sync_chunk_name(ok_cache *c, ok_sync *s, const char *name, size_t name_len);
ok_status ok_cache_sync_end(ok_cache *c, ok_sync *s);
void ok_cache_sync_abandon(ok_cache *c, ok_sync *s);

/* The Web Lock of a key is OK_CACHE_LOCK_PREFIX + key. */
#define OK_CACHE_LOCK_PREFIX "ortkeep-cache:key:"
/* Keys whose Web Lock a load holds (navigator.locks.query()): their entries
 * are not evicted or cleared now. Takes a key or its lock name (other lock
 * names are ignored). Reset with ok_cache_busy_clear. */
ok_status ok_cache_busy_key(ok_cache *c, const char *key);
void ok_cache_busy_clear(ok_cache *c);

/* ---- the cache's own queue (cache.delete/clear) ----
 * Loads queue into their own ok_actq (ok_load.h); these calls queue into
 * the cache's. */
const ok_action *ok_cache_actions(const ok_cache *c, uint32_t *count);
const uint8_t *ok_cache_action_data(const ok_cache *c);
void ok_cache_actions_clear(ok_cache *c);

/* Drop every entry whose key or URL is `key_or_url` (cache.delete): every
 * generation and form of a model. OK_ERR_IN_USE while one is read or
 * written here or its key is busy; OK_ERR_NOT_FOUND when none. */
ok_status ok_cache_delete(ok_cache *c, const char *key_or_url);
/* Drop every idle entry (cache.clear); entries in use or busy stay. */
ok_status ok_cache_clear(ok_cache *c);
/* The stores could not be read at all: forget everything, queue CLEAR_ALL. */
ok_status ok_cache_reset(ok_cache *c);

/* ---- inspection (cache.list) ---- */
typedef struct ok_cache_entry_info {
    uint32_t id, state, form, flags, chunk_size, chunk_count, stored_count;
    uint32_t refcount, writing, integrity_alg, report_len;
    uint32_t form_status, form_reason, create_us, orig_create_us;
    uint32_t rev_pairs, rev_form_us, rev_orig_us; /* a verified form's revision under way */
    uint64_t gen, total_size, stored_bytes, last_used, hit_count;
    const char *key, *url, *etag, *last_modified, *name;
    const uint8_t *sha256;        /* 32 bytes, content hash (committed) */
    const uint8_t *source_sha256; /* forms: the original they came from */
    uint32_t owner;               /* a part: the id of the committed model it serves
                             beside (0: none, it goes at the next sync) */
    const char *location;         /* a part with an owner: its file's location */
} ok_cache_entry_info;
uint32_t ok_cache_count(const ok_cache *c);
/* i-th entry, 0 <= i < count; order is stable between calls that change
 * nothing. */
ok_status ok_cache_entry_at(const ok_cache *c, uint32_t i, ok_cache_entry_info *out);
ok_status ok_cache_entry_info_get(const ok_cache *c, uint32_t entry, ok_cache_entry_info *out);
uint64_t ok_cache_bytes_stored(const ok_cache *c);

/* ---- manifests (one per entry, the value of an "index" record) ----
 * Versioned little-endian binary ending in a CRC-32; see cache_manifest.c. */
typedef struct ok_manifest {
    uint32_t state, form, flags, chunk_size, chunk_count, stored_count;
    uint32_t integrity_alg, integrity_count, report_len;
    uint64_t gen, total_size, last_used, hit_count, report_sum;
    uint8_t sha256[32];
    /* optimized forms only (form != ORIGINAL; manifest version 5, 3 before revisions): the
     * verdict, why, session creation times (us) of the form at 'disabled'
     * and of the original at the caller's level, measured together, and the
     * SHA-256 of the original the form was made from; (version 5) the
     * revision of that verdict under way: paired samples taken on warm
     * loads and the sums of their creation times (form_tiers.h) */
    uint32_t form_status, form_reason, create_us, orig_create_us;
    uint32_t rev_pairs, rev_form_us, rev_orig_us;
    uint8_t source_sha256[32];
    const uint8_t *integrity;                     /* integrity_count * digest bytes of the alg */
    const char *key, *url, *etag, *last_modified; /* NUL-terminated */
    uint32_t key_len, url_len, etag_len, lm_len;
    const uint64_t *sums; /* stored_count chunk checksums */
} ok_manifest;
size_t ok_manifest_size(const ok_manifest *m);
ok_status ok_manifest_encode(const ok_manifest *m, uint8_t *out, size_t cap);
/* Decode; on success the pointers of *m point into one block the caller
 * frees with ok_manifest_free(m). Typed errors: OK_ERR_TRUNCATED,
 * OK_ERR_CORRUPT (magic, CRC, field), OK_ERR_STATE (another format
 * version: written by another ortkeep, left alone), OK_ERR_LIMIT,
 * OK_ERR_NOMEM. */
ok_status ok_manifest_decode(const uint8_t *bytes, size_t len, ok_manifest *m);
void ok_manifest_free(ok_manifest *m);

/* ---- integrity (SRI) ---- */
typedef struct ok_integrity {
    uint32_t alg;   /* OK_HASH_*: the strongest algorithm present */
    uint32_t count; /* its tokens */
    uint8_t digest[OK_CACHE_MAX_INTEGRITY][OK_HASH_MAX_BYTES];
} ok_integrity;
/* Parse SRI metadata ("sha256-<b64> sha512-<b64>?opt ..."): tokens of
 * sha256/384/512 are read (base64 or base64url, padding optional); the
 * strongest algorithm present is kept with all its tokens, weaker ones are
 * ignored, unknown algorithms are skipped. NULL/"" -> alg NONE. A non-empty
 * string with no usable token, or a malformed token of a known algorithm,
 * is OK_ERR_INVALID_ARG; more than OK_CACHE_MAX_INTEGRITY tokens of the
 * strongest algorithm is OK_ERR_LIMIT. */
ok_status ok_integrity_parse(const char *sri, ok_integrity *out);
/* Digest bytes of an algorithm (0 for NONE or unknown). */
uint32_t ok_hash_bytes(uint32_t alg);

/* ---- test hooks ---- */
/* Fail the n-th allocation from now (1 = the next one); 0 disables. */
void ok_cache_test_fail_alloc(uint64_t n);
uint64_t ok_cache_test_alloc_count(void);
int64_t ok_cache_test_alloc_live(void);

#endif
