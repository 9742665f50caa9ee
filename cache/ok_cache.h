/* The model cache core: index, write protocol, recovery, LRU eviction.
 *
 * Sans-I/O. JS feeds events (calls below) and then carries out the ACTIONS
 * the core queued, in order, against IndexedDB and the network. Time comes
 * in through events (`now`, any monotonic ms clock), so every decision is a
 * deterministic function of the event sequence. See cache/README.md for the
 * storage layout and the crash-safety argument.
 *
 * Contract with JS (the serial event loop):
 *   - after every event call, copy the queued actions out
 *     (ok_cache_actions + ok_cache_action_data), call
 *     ok_cache_actions_clear(), then apply them in order, each as ONE
 *     IndexedDB transaction, awaiting each write;
 *   - report each completed write (ok_cache_chunk_stored,
 *     ok_cache_manifest_written); if a write fails, report
 *     ok_cache_write_failed(), apply what it queued, then go on.
 *
 * Every call returns an ok_status. An error (OK_ERR_NOMEM, INVALID_ARG,
 * STATE, NOT_FOUND, IN_USE, LIMIT) means the call had no effect: state and
 * action queue are as they were. OK_ERR_CORRUPT, OK_ERR_INTEGRITY and
 * OK_ERR_QUOTA are outcomes: the call did act (see each function). */
#ifndef ORTKEEP_OK_CACHE_H
#define ORTKEEP_OK_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "ok_error.h"

typedef struct ok_cache ok_cache;

/* Limits. Strings are bytes without NUL inside (URL, ETag, ...). */
#define OK_CACHE_MAX_KEY 4096u
#define OK_CACHE_MAX_STR 8192u
#define OK_CACHE_MAX_CHUNK_SIZE (256u << 20)
#define OK_CACHE_MAX_CHUNKS (1u << 20)
#define OK_CACHE_MAX_ENTRIES 4096u
#define OK_CACHE_CHUNK_END 0xFFFFFFFFu  /* "to the end" in a chunk range */
#define OK_CACHE_MANIFEST 0xFFFFFFFFu   /* write_failed: the manifest write */

/* ---- entry state (persisted) ---- */
#define OK_ENTRY_STATE_LIST(X) X(PENDING, 1) X(COMMITTED, 2)
enum {
#define OK_ENTRY_STATE_ENUM_(name, value) OK_ENTRY_##name = value,
    OK_ENTRY_STATE_LIST(OK_ENTRY_STATE_ENUM_)
#undef OK_ENTRY_STATE_ENUM_
};

/* ---- actions ----
 * One record is 10 little-endian uint32 (40 bytes), read by JS straight from
 * wasm memory:
 *   [0] type       OK_ACT_*
 *   [1] entry      entry id (in-memory handle; 0 when none)
 *   [2] chunk      chunk index, or first chunk of a range
 *   [3] chunk_end  end of a range (exclusive; OK_CACHE_CHUNK_END = all)
 *   [4] name_off   storage name: offset into ok_cache_action_data()
 *   [5] name_len   its length in bytes (UTF-8, no NUL)
 *   [6] blob_off   manifest bytes (or URL, see type): offset in the data
 *   [7] blob_len
 *   [8] value_lo   a 64-bit value (byte offset, status): low word
 *   [9] value_hi   high word
 * Strings/blobs stay valid until ok_cache_actions_clear() or the next event.
 *
 * Storage: object store "index" (key = name, value = manifest bytes) and
 * "chunks" (key = [name, chunk], value = chunk bytes). */
/* What each action asks of JS:
 *   WRITE_MANIFEST: index.put(name, blob).
 *   STORE_CHUNK: ONE transaction: chunks.put([name, chunk], <the bytes JS passed to * ok_cache_chunk_arrived for this chunk>) and index.put(name, blob).
 *   DELETE_CHUNKS: chunks.delete(IDBKeyRange.bound([name, chunk], [name, chunk_end], * false, true)) (chunk_end = OK_CACHE_CHUNK_END: to the end).
 *   DROP_ENTRY: ONE transaction: index.delete(name) and all chunks [name, *].
 *   CLEAR_ALL: ONE transaction: clear both stores (the index was unreadable).
 *   READ_CHUNK: read chunks.get([name, chunk]) and feed ok_cache_chunk_rehash (resume) * or ok_cache_chunk_read (hit).
 *   FETCH: fetch the entry's URL (blob) from byte `value` on: 0 = plain GET, * else `Range: bytes=value-` with If-Range; feed chunks from `chunk`. * chunk == chunk_end (the chunk count): nothing left, call * ok_cache_download_done.
 *   COMMITTED: notification: the entry committed (now servable).
 *   LOAD_UNCACHED: the cache cannot hold this download: keep streaming the chunks through * ok_cache_chunk_arrived (integrity is still checked) but nothing is * stored; JS warns the user.
 *   REFETCH: a served entry was found corrupt and dropped: restart the load of the * key (name = key, blob = URL) from the network.
 *   ERROR: notification: an error for entry (value = ok_status).
 */
/* X(NAME, value): the actions JS carries out. */
#define OK_CACHE_ACTION_LIST(X) \
    X(WRITE_MANIFEST, 1) \
    X(STORE_CHUNK, 2) \
    X(DELETE_CHUNKS, 3) \
    X(DROP_ENTRY, 4) \
    X(CLEAR_ALL, 5) \
    X(READ_CHUNK, 6) \
    X(FETCH, 7) \
    X(COMMITTED, 8) \
    X(LOAD_UNCACHED, 9) \
    X(REFETCH, 10) \
    X(ERROR, 11)
enum ok_cache_action_type {
#define OK_CACHE_ACTION_ENUM_(name, value) OK_ACT_##name = value,
    OK_CACHE_ACTION_LIST(OK_CACHE_ACTION_ENUM_)
#undef OK_CACHE_ACTION_ENUM_
};

typedef struct ok_cache_action {
    uint32_t type, entry, chunk, chunk_end;
    uint32_t name_off, name_len, blob_off, blob_len;
    uint32_t value_lo, value_hi;
} ok_cache_action;

/* ---- lifecycle and recovery ---- */

/* A new empty cache with a byte budget (0 = unlimited). */
ok_status ok_cache_open(ok_cache **out, uint64_t budget_bytes);
void ok_cache_close(ok_cache *c);
ok_status ok_cache_set_budget(ok_cache *c, uint64_t budget_bytes);

/* Feed one record of the "index" store (its IDB key `name` and value). A
 * record that fails to parse or does not match its name queues DROP_ENTRY
 * for that name and returns OK_ERR_CORRUPT, OK_ERR_TRUNCATED or
 * OK_ERR_LIMIT (an outcome: the cache stays usable). Call for every record, then ok_cache_recover(). */
ok_status ok_cache_load_record(ok_cache *c, const char *name, size_t name_len,
                               const uint8_t *bytes, size_t len);
/* After loading: keeps the newest committed entry per key and drops older
 * ones; a PENDING entry that can be resumed (it has a validator or an
 * integrity digest, is newer than the committed one and has stored chunks)
 * is kept and chunks past its stored prefix are swept (DELETE_CHUNKS);
 * any other PENDING entry is dropped (DROP_ENTRY). JS must hold the
 * cache-wide exclusive Web Lock while opening so no live writer is swept. */
ok_status ok_cache_recover(ok_cache *c);
/* The "index" store could not be read at all: forget everything, queue
 * CLEAR_ALL. */
ok_status ok_cache_reset(ok_cache *c);

/* ---- actions ---- */
const ok_cache_action *ok_cache_actions(const ok_cache *c, uint32_t *count);
const uint8_t *ok_cache_action_data(const ok_cache *c);
void ok_cache_actions_clear(ok_cache *c);
/* Clear and give the queue's memory back (after a big batch). */
void ok_cache_actions_trim(ok_cache *c);

/* ---- lookups and reads ---- */
/* fetch()'s cache modes: X(NAME, value, "the name JS passes") */
#define OK_CACHE_MODE_LIST(X)                                                  \
    X(DEFAULT, 0, "default")               /* serve stored entry, else fetch */ \
    X(NO_CACHE, 1, "no-cache")             /* stored entry must be revalidated first */ \
    X(RELOAD, 2, "reload")                 /* refetch and replace */            \
    X(NO_STORE, 3, "no-store")             /* bypass the cache entirely */      \
    X(ONLY_IF_CACHED, 4, "only-if-cached") /* serve stored entry or fail NOT_FOUND */
enum ok_cache_mode {
#define OK_CACHE_MODE_ENUM_(name, value, js) OK_MODE_##name = value,
    OK_CACHE_MODE_LIST(OK_CACHE_MODE_ENUM_)
#undef OK_CACHE_MODE_ENUM_
};
#define OK_LOOKUP_LIST(X)                                                        \
    X(MISS, 0)       /* fetch, then ok_cache_begin_write */                     \
    X(HIT, 1)        /* read chunks 0..chunk_count-1 (entry held) */            \
    X(RESUME, 2)     /* a pending download can continue from resume_byte */     \
    X(REVALIDATE, 3) /* conditional request: 304 => revalidated, 200 => write */ \
    X(BYPASS, 4)     /* no-store: fetch, do not write */                        \
    X(NOT_FOUND, 5)  /* only-if-cached and nothing servable */
enum ok_cache_lookup_kind {
#define OK_LOOKUP_ENUM_(name, value) OK_LOOKUP_##name = value,
    OK_LOOKUP_LIST(OK_LOOKUP_ENUM_)
#undef OK_LOOKUP_ENUM_
};
typedef struct ok_cache_lookup_result {
    uint32_t kind;          /* OK_LOOKUP_* */
    uint32_t entry;         /* id, 0 for MISS/BYPASS/NOT_FOUND */
    uint32_t chunk_count;
    uint32_t resume_chunk;
    uint64_t resume_byte;
    uint64_t total_size;
} ok_cache_lookup_result;

/* A HIT takes a reference (the entry cannot be evicted while read), bumps
 * hit_count and last_used, and queues WRITE_MANIFEST (persist the LRU
 * clock) and READ_CHUNK for every chunk. Release with ok_cache_release.
 * ONLY_IF_CACHED with nothing servable returns OK_ERR_NOT_FOUND. */
ok_status ok_cache_lookup(ok_cache *c, const char *key, uint32_t mode,
                          uint64_t now, ok_cache_lookup_result *out);
/* 304 after REVALIDATE: becomes a HIT (same effects). */
ok_status ok_cache_revalidated(ok_cache *c, uint32_t entry, uint64_t now,
                               ok_cache_lookup_result *out);
/* Verify a chunk read for a HIT. bytes == NULL means the chunk is missing.
 * A mismatch drops the entry (DROP_ENTRY, ERROR, REFETCH) and returns
 * OK_ERR_CORRUPT: never serve those bytes. */
ok_status ok_cache_chunk_read(ok_cache *c, uint32_t entry, uint32_t idx,
                              const uint8_t *bytes, size_t len);
/* The same decision with the chunk's SHA-256 computed by the caller (JS
 * hashes with WebCrypto on the read path); len is the length of the bytes
 * hashed; digest == NULL means the chunk is missing. Same effects and
 * returns as ok_cache_chunk_read. */
ok_status ok_cache_chunk_read_digest(ok_cache *c, uint32_t entry, uint32_t idx,
                                     size_t len, const uint8_t *digest);
ok_status ok_cache_acquire(ok_cache *c, uint32_t entry);
ok_status ok_cache_release(ok_cache *c, uint32_t entry);

/* ---- the write protocol ----
 * begin_write: strings are NUL-terminated, NULL or "" for none; integrity
 * is SRI ("sha256-<base64>", several tokens allowed, one sha256 must match).
 * Queues WRITE_MANIFEST (the PENDING marker) then FETCH from 0 -- or, when
 * a resumable pending entry for the key has the same url, validators, size,
 * chunk size, form and integrity, READ_CHUNK for its stored chunks (feed
 * them to ok_cache_chunk_rehash; the whole-content hash is rebuilt from
 * them) and then FETCH from the first missing chunk. A pending entry that
 * does not match is dropped. One active write per key (else OK_ERR_IN_USE).
 * The committed entry of the key (if any) keeps serving until the new one
 * commits, then it is dropped (model update). */
ok_status ok_cache_begin_write(ok_cache *c, const char *key, const char *url,
                               const char *etag, const char *last_modified,
                               const char *integrity, uint64_t total_size,
                               uint32_t chunk_size, uint32_t form,
                               uint64_t now, uint32_t *out_entry);
ok_status ok_cache_chunk_rehash(ok_cache *c, uint32_t entry, uint32_t idx,
                                const uint8_t *bytes, size_t len);
/* Chunks in order, each exactly chunk_size bytes but the last. Queues
 * STORE_CHUNK (none once LOAD_UNCACHED was decided). */
ok_status ok_cache_chunk_arrived(ok_cache *c, uint32_t entry, uint32_t idx,
                                 const uint8_t *bytes, size_t len);
ok_status ok_cache_chunk_stored(ok_cache *c, uint32_t entry, uint32_t idx);
/* All chunks arrived (and stored). Checks integrity: mismatch queues ERROR
 * and DROP_ENTRY (nothing is kept) and returns OK_ERR_INTEGRITY; else queues
 * WRITE_MANIFEST (COMMITTED). For an uncached download returns OK and the
 * entry is gone. */
ok_status ok_cache_download_done(ok_cache *c, uint32_t entry);
/* The last WRITE_MANIFEST of the entry is durable. After the commit
 * manifest: the entry is COMMITTED (queues COMMITTED) and older entries of
 * the key are dropped. */
ok_status ok_cache_manifest_written(ok_cache *c, uint32_t entry);
/* A STORE_CHUNK (chunk idx) or WRITE_MANIFEST (idx = OK_CACHE_MANIFEST)
 * failed. quota != 0: QuotaExceededError -- evict LRU entries and queue the
 * same write again; when nothing more can be evicted, or on any other
 * failure, the entry goes uncached (DROP_ENTRY + LOAD_UNCACHED, returns
 * OK_ERR_QUOTA). */
ok_status ok_cache_write_failed(ok_cache *c, uint32_t entry, uint32_t idx,
                                int quota);
/* Network failure or cancel. keep != 0 leaves a resumable pending entry;
 * else (or if not resumable) it is dropped. */
ok_status ok_cache_abort_write(ok_cache *c, uint32_t entry, int keep);

/* ---- space ---- */
/* Before a write of need_bytes, with quota_free from storage.estimate()
 * (UINT64_MAX if unknown): queue DROP_ENTRY for least-recently-used idle
 * entries until need fits both the budget and the free quota. If it cannot
 * fit even after evicting every idle entry, evict nothing and return
 * OK_ERR_QUOTA (load uncached). */
ok_status ok_cache_plan_space(ok_cache *c, uint64_t need_bytes,
                              uint64_t quota_free);
/* Drop one entry (cache.delete); OK_ERR_IN_USE while referenced or written. */
ok_status ok_cache_delete(ok_cache *c, const char *key);
/* Drop every idle entry (cache.clear); entries in use stay. */
ok_status ok_cache_clear(ok_cache *c);

/* ---- inspection (cache.list) ---- */
typedef struct ok_cache_entry_info {
    uint32_t id, state, form, chunk_size, chunk_count, stored_count;
    uint32_t refcount, writing;
    uint64_t gen, total_size, stored_bytes, last_used, hit_count;
    const char *key, *url, *etag, *last_modified, *name;
    const uint8_t *sha256; /* 32 bytes, content hash (committed) */
} ok_cache_entry_info;
uint32_t ok_cache_count(const ok_cache *c);
/* i-th entry, 0 <= i < count; order is unspecified but stable between
 * calls that change nothing. */
ok_status ok_cache_entry_at(const ok_cache *c, uint32_t i,
                            ok_cache_entry_info *out);
ok_status ok_cache_entry_info_get(const ok_cache *c, uint32_t entry,
                                  ok_cache_entry_info *out);
uint64_t ok_cache_bytes_stored(const ok_cache *c);

/* ---- manifests (one per entry, the value of an "index" record) ----
 * Versioned little-endian binary ending in a CRC-32; see cache/README.md. */
typedef struct ok_manifest {
    uint32_t state, form, chunk_size, chunk_count, stored_count;
    uint32_t integrity_count; /* sha256 digests an SRI string allowed */
    uint64_t gen, total_size, last_used, hit_count;
    uint8_t sha256[32];
    const uint8_t *integrity; /* integrity_count * 32 bytes */
    const char *key, *url, *etag, *last_modified; /* NUL-terminated */
    uint32_t key_len, url_len, etag_len, lm_len;
    const uint8_t *digests; /* stored_count * 32 bytes */
} ok_manifest;
/* Size of the encoding of m. */
size_t ok_manifest_size(const ok_manifest *m);
/* Encode into out (cap >= ok_manifest_size(m)). */
ok_status ok_manifest_encode(const ok_manifest *m, uint8_t *out, size_t cap);
/* Decode; on success the string/digest pointers of *m point into a copy the
 * caller frees with ok_manifest_free(m). Typed errors: OK_ERR_TRUNCATED,
 * OK_ERR_CORRUPT (magic, CRC, field), OK_ERR_LIMIT, OK_ERR_NOMEM. */
ok_status ok_manifest_decode(const uint8_t *bytes, size_t len, ok_manifest *m);
void ok_manifest_free(ok_manifest *m);

/* Parse SRI ("sha256-<b64> sha384-<b64>?opt ..."): the digests of the
 * sha256 tokens go to out[] (at most max, else OK_ERR_LIMIT). Other
 * algorithms are ignored; a non-empty string with no sha256 token, or a bad
 * sha256 token, => OK_ERR_INVALID_ARG. NULL/"" => *count = 0, OK. */
ok_status ok_cache_parse_integrity(const char *sri, uint8_t out[][32],
                                   uint32_t max, uint32_t *count);

/* ---- test hooks ---- */
/* Fail the n-th allocation from now (1 = the next one); 0 disables. */
void ok_cache_test_fail_alloc(uint64_t n);
/* Allocations made by the cache so far (to size fault-injection loops). */
uint64_t ok_cache_test_alloc_count(void);
/* Allocations currently live (leak checks under wasm, where ASan is absent). */
int64_t ok_cache_test_alloc_live(void);

#endif
