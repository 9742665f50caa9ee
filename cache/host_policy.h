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
                                         for 44 MB); past it, in a worker */     \
    X(STORE_BESIDE_BYTES, 256u << 20) /* the largest download whose pieces a store  \
                                         worker keeps to write its chunks beside the \
                                         page (a second copy until the load ends) */

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

/* 1 when a download of `total` bytes (0: size unknown) hands its body's
 * pieces to the store worker, which then writes its STORE_AHEAD chunks
 * beside the page; 0 when the page stores them. The worker holds the
 * pieces not yet stored, so only sizes known and up to STORE_BESIDE_BYTES. */
int ok_store_beside(uint64_t total);

/* What JS knows when a warm load reads its Blob records:
 *   RUNTIME_UP     onnxruntime-web has started in this page (ortkeep
 *                  started it or made a session with it, or its capturing
 *                  loader runs; where the app's own session started it,
 *                  ortkeep's 65-byte start is over at once)
 *   RUNTIME_AWAY   onnxruntime-web runs in its proxy worker
 *                  (env.wasm.proxy): its start never holds the page's thread
 * (Where no read worker can run, JS reads on the page whatever the answer.) */
#define OK_READ_FACT_LIST(X) \
    X(RUNTIME_UP, 1u << 0)   \
    X(RUNTIME_AWAY, 1u << 1)

enum {
#define OK_READ_FACT_ENUM_(name, value) OK_READ_FACT_##name = value,
    OK_READ_FACT_LIST(OK_READ_FACT_ENUM_)
#undef OK_READ_FACT_ENUM_
};

/* 1 when a warm load's Blob records (`bytes`, 0: none) are read in the
 * page's read worker, 0 when the page reads them. The browser hands a
 * Blob's bytes to the reading thread a piece at a time (~300 ms of it for
 * 47 MB here), so the worker reads only while onnxruntime-web's start is
 * still to hold the page's thread; once it is up, or away in its proxy
 * worker, the thread is free and the worker's start and hop cost more than
 * they save (ppocr_v4_det's read 105-130 ms against 58-76). */
int ok_read_beside(uint64_t bytes, uint32_t facts);

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

/* ---- which onnxruntime-web build a page starts (runtime_policy.c) ---- */

/* onnxruntime-web's builds, by the Emscripten loader each runs: the plain
 * one has the wasm EP only (a 14 MB .wasm in 1.30); JSEP adds WebGPU and
 * WebNN (28 MB), ASYNCIFY the native WebGPU EP (1.23+ /webgpu), JSPI the
 * same with JSPI. The wasm and V8's compile of it are most of a second
 * visit: the plain build started a tiny model's session in 304 ms where
 * the JSEP one took 675-743 ms (a second visit, Debian's Chromium). */
#define OK_RUNTIME_LIST(X) \
    X(WASM, 1)             \
    X(JSEP, 2)             \
    X(ASYNCIFY, 3)         \
    X(JSPI, 4)

enum {
#define OK_RUNTIME_ENUM_(name, value) OK_RUNTIME_##name = value,
    OK_RUNTIME_LIST(OK_RUNTIME_ENUM_)
#undef OK_RUNTIME_ENUM_
};

/* What JS knows when the page's first load starts onnxruntime-web:
 *   DEVICE_EP       this load lists an EP the plain build lacks (webgpu,
 *                   webnn, a name not known)
 *   DEVICE_SEEN     an earlier load at this origin listed one (the page's
 *                   record)
 *   FULL            the caller asked for the entry's build (runtime: 'full')
 *   APP_CHOSE       the app set env.wasm.wasmPaths or wasmBinary itself, or
 *                   started onnxruntime-web already
 *   UNKNOWN_FUTURE  the drop-in: the app's later sessions are its own
 *   WASM_SEEN       an earlier load at this origin listed no device EP (the
 *                   page's record; with DEVICE_SEEN: both kinds came)
 *   PLAIN_FOUND     the plain build's files of this version were found */
#define OK_RUNTIME_FACT_LIST(X) \
    X(DEVICE_EP, 1u << 0)       \
    X(DEVICE_SEEN, 1u << 1)     \
    X(FULL, 1u << 2)            \
    X(APP_CHOSE, 1u << 3)       \
    X(UNKNOWN_FUTURE, 1u << 4)  \
    X(WASM_SEEN, 1u << 5)       \
    X(PLAIN_FOUND, 1u << 6)

enum {
#define OK_RUNTIME_FACT_ENUM_(name, value) OK_RUNTIME_FACT_##name = value,
    OK_RUNTIME_FACT_LIST(OK_RUNTIME_FACT_ENUM_)
#undef OK_RUNTIME_FACT_ENUM_
};

/* What a later load gets from the build that started: AS_ASKED (onnxruntime-
 * web's own answer: the build has what the load lists, or the app chose the
 * build and onnxruntime-web answers as it would without ortkeep), BESIDE
 * (ortkeep started the plain build in place of the entry's, and the load
 * lists an EP only the entry's build has: that build is started beside the
 * first, for this load and the page's later ones of its kind). Never a
 * refusal and never a silent downgrade: plain onnxruntime-web creates such
 * a session, so ortkeep does. */
#define OK_RUNTIME_SERVE_LIST(X) \
    X(AS_ASKED, 0)               \
    X(BESIDE, 1)

enum {
#define OK_RUNTIME_SERVE_ENUM_(name, value) OK_RUNTIME_SERVE_##name = value,
    OK_RUNTIME_SERVE_LIST(OK_RUNTIME_SERVE_ENUM_)
#undef OK_RUNTIME_SERVE_ENUM_
};

/* What an execution provider named `name` (NUL-terminated) needs of the
 * build: 0 the plain build has it ("wasm", "cpu"), or it is a backend of
 * its own that runs on any build ("webgl"); 1 it needs more (WebGPU,
 * WebNN, and any name not known: the entry's own build is the safe side). */
int ok_runtime_ep_needs_more(const char *name);

/* The build the page's first load starts, given the build the page's
 * onnxruntime-web entry would start itself (`entry`, OK_RUNTIME_*) and the
 * facts (OK_RUNTIME_FACT_*): the plain one where nothing asks for more,
 * else the entry's own. 0 for an entry not known. */
uint32_t ok_runtime_flavour(uint32_t entry, uint32_t facts);

/* Whether the entry's build starts beside the `started` one at the page's
 * first load, ahead of any load that needs it: 1 where the plain build
 * started in place of the entry's and the page's record says device loads
 * came here before (DEVICE_SEEN) as well as wasm ones; the app's own build
 * choice (APP_CHOSE) stands. A head start only: what a session runs on is
 * ok_runtime_serves's answer either way. */
int ok_runtime_beside_early(uint32_t started, uint32_t entry, uint32_t facts);

/* A load after the start: the build `started`, the entry's `entry`; the
 * load lists a device EP (`device_ep`); the app chose the build itself
 * (`app_chose`: its own files, or onnxruntime-web started by its own
 * session). An OK_RUNTIME_SERVE_*. */
uint32_t ok_runtime_serves(uint32_t started, uint32_t entry, int device_ep, int app_chose);

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
