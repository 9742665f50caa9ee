/* The small decisions the JS hands of a load ask the core for, with the
 * facts only JS can see: how IndexedDB records are written and read, what
 * a failed delete does next, which loads share a live session, when a
 * session's memory growth is worth a warning, and whether a string the
 * caller passed is a cache key. No I/O; each answer is a pure function of
 * its arguments (tests/c/test_host_policy.c). */
#ifndef ORTKEEP_HOST_POLICY_H
#define ORTKEEP_HOST_POLICY_H

#include <stddef.h>
#include <stdint.h>

/* X(NAME, value): the numbers behind the answers, generated into
 * js/core-constants.js as HOST_POLICY. */
#define OK_HOST_POLICY_LIST(X)                                                             \
    X(PIECE_BYTES, 1u << 20)          /* most bytes handed to the core per call (body    \
                                pieces, inspections): V8 tiers wasm up only     \
                                between calls, and the scratch area that takes  \
                                them (the heap never shrinks) stays this size */ \
    X(BLOB_RECORD_BUDGET, 768u << 20) /* Blob-record bytes a page may hold      \
                                         uncollected (ok_store_records_as_blob) */          \
    X(READ_BATCH_BYTES, 64u << 20)    /* most chunk bytes one read transaction     \
                                      takes (ok_store_read_batch) */       \
    X(DELETE_REOPENS, 1)              /* reopens a failed delete may ask for */            \
    X(FIRST_CHUNK_STORE_MS, 200)      /* a chunk store's cost before one is measured   \
                                         (ok_store_chunk_mid_download) */   \
    X(GROWTH_WARN_PERCENT, 150)       /* memory growth past this share of the        \
                                   initializer bytes is warned about */     \
    X(HASH_IN_PAGE_BYTES, 64u << 20)  /* a downloaded body the host hashes on the    \
                                         page's thread in one call (WebCrypto: 70-80 ms \
                                         for 44 MB); past it, in a worker */

enum {
#define OK_HOST_POLICY_ENUM_(name, value) OK_HOST_##name = value,
    OK_HOST_POLICY_LIST(OK_HOST_POLICY_ENUM_)
#undef OK_HOST_POLICY_ENUM_
};

/* ---- IndexedDB records (store_policy.c) ---- */

/* Whether a file's chunks are written as Blob records (1) or as ArrayBuffer
 * ones (0). `bytes`: the file's size, or one chunk's while the size is
 * unknown; `held`: the Blob-record bytes this page wrote that its garbage
 * collector has not freed yet. Blobs write and read about twice as fast,
 * but their bytes stay in the browser's blob store until the page collects
 * the Blob objects, which the store's pressure does not prompt: past the
 * budget Chromium fails writes ("Failed to write blobs (InvalidBlob)"). */
int ok_store_records_as_blob(uint64_t held, uint64_t bytes);

/* Chunks of `chunk_size` bytes one read transaction takes (at least 1): a
 * transaction hands its values over materialized, so a batch bounds the
 * bytes held at once. */
uint32_t ok_store_read_batch(uint32_t chunk_size);

/* A delete (DELETE_CHUNKS, DROP_ENTRY, CLEAR_ALL: never acked) failed with
 * `io_fail` (OK_IOFAIL_*) after `reopens` reopens: 1 asks JS to reopen the
 * database and run it again, 0 to log it and go on (the next sync sweeps
 * what it left). */
int ok_store_delete_reopen(uint32_t io_fail, uint32_t reopens);

/* Whether a complete chunk may be stored while the body still streams
 * (JS then reports ok_load_body_idle): the network has kept JS waiting
 * `waited_ms` since it last asked, the rest of the body will take about
 * `remaining_ms` at the pace so far (UINT32_MAX: size unknown), and a chunk
 * store took `store_ms` last time in this page (0: none measured yet, the
 * first guess is FIRST_CHUNK_STORE_MS). Only when both exceed a store's
 * cost: a store started that near the body's end would land after it and
 * put the store back on the caller's path (a loopback download under a
 * busy renderer measured 0.3-1.1 s of it). */
int ok_store_chunk_mid_download(uint32_t waited_ms, uint32_t remaining_ms, uint32_t store_ms);

/* Whether `s` is a cache key as the load machine makes them ("url:...",
 * "sha256:...", "sha384:...", "sha512:...") rather than a URL the caller
 * wrote (resolved against the page before it is looked up). */
int ok_store_is_cache_key(const char *s);

/* ---- sessions (session_policy.c) ---- */

/* The memory tier's key: loads whose keys are equal share one live
 * session. The facts, canonical as JS has them: the source's key ("url:<url>"
 * or "sha256:<hex>" of bytes), the integrity option (NULL: none), and the
 * execution providers and session options as JSON (NULL: the defaults,
 * ["wasm"] and {}). Writes the NUL-terminated key into `out` when it fits
 * `cap`; returns its length (without the NUL), as snprintf does, or 0 when
 * `source_key` is NULL. */
size_t ok_session_share_key(const char *source_key, const char *integrity, const char *eps_json,
                            const char *options_json, char *out, size_t cap);

/* Whether creating a session that grew the runtime's memory by `growth`
 * bytes is warned about: only for a model with `shared_initializers`
 * initializers used by several subgraphs (onnxruntime's optimizer can
 * duplicate them) and growth past GROWTH_WARN_PERCENT of its
 * `initializer_bytes`. */
int ok_session_growth_warns(uint64_t growth, uint64_t initializer_bytes, uint32_t shared_initializers);

#endif
