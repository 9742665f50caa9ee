/* Private structures of the cache core, shared by the cache sources only. */
#ifndef ORTKEEP_CACHE_INTERNAL_H
#define ORTKEEP_CACHE_INTERNAL_H

#include "ok_cache.h"
#include "sha256.h"

#define OK_CACHE_MAX_INTEGRITY 4u

/* One entry of the index: one stored artifact (one generation of a key). */
typedef struct ok_entry {
    uint32_t id;           /* in-memory handle, never reused */
    uint32_t state;        /* OK_ENTRY_PENDING / OK_ENTRY_COMMITTED */
    uint32_t form;
    uint32_t chunk_size, chunk_count;
    uint32_t stored_count; /* chunks [0, stored_count) are durable */
    uint32_t integrity_count;
    uint64_t gen, total_size, last_used, hit_count;
    uint8_t sha256[32];
    uint8_t integrity[OK_CACHE_MAX_INTEGRITY][32];
    char *key, *url, *etag, *lm, *name; /* name = key "#" gen */
    uint8_t *digests;      /* chunk_count * 32 */

    /* in memory only */
    uint32_t refcount;
    uint32_t superseded;   /* a newer generation committed: drop at release */
    uint32_t mark;         /* scratch flag for multi-entry decisions */
    /* writer: set while a download is in flight for this entry */
    uint32_t writing;
    uint32_t uncached;     /* LOAD_UNCACHED decided: hash only, store nothing */
    uint32_t rehashing;    /* resume: re-reading stored chunks */
    uint32_t rehash_next;  /* resume: next stored chunk to re-hash */
    uint32_t next_idx;     /* next chunk expected from the network */
    uint32_t commit_sent;  /* the COMMITTED manifest was queued */
    struct ok_sha256 hash; /* whole content, chunks 0..next_idx-1 */
} ok_entry;

struct ok_cache {
    ok_entry **entries;
    uint32_t n_entries, cap_entries;
    uint32_t next_id;
    uint64_t budget;       /* 0 = unlimited */
    /* action queue */
    ok_cache_action *acts;
    uint32_t n_acts, cap_acts;
    uint8_t *data;
    uint32_t n_data, cap_data;
};

/* allocation (cache_alloc.c): every allocation goes through these so tests
 * can fail the n-th one. */
void *ok_cache_malloc(size_t n);
void *ok_cache_calloc(size_t n, size_t size);
void ok_cache_free(void *p);
char *ok_cache_strndup(const char *s, size_t n);

/* action queue (cache_actions.c). A mark lets an event undo what it queued
 * when it fails half-way. */
typedef struct { uint32_t n_acts, n_data; } ok_act_mark;
ok_act_mark ok_act_mark_get(const ok_cache *c);
void ok_act_rollback(ok_cache *c, ok_act_mark m);
/* Queue an action; name and blob are copied. */
ok_status ok_act_push(ok_cache *c, uint32_t type, uint32_t entry,
                      uint32_t chunk, uint32_t chunk_end, const char *name,
                      const uint8_t *blob, size_t blob_len, uint64_t value);
/* Queue an action whose blob is the manifest of e as it is now. */
ok_status ok_act_push_manifest(ok_cache *c, uint32_t type, const ok_entry *e,
                               uint32_t chunk);
ok_status ok_act_push_drop(ok_cache *c, const ok_entry *e);

/* index (cache_index.c) */
ok_entry *ok_idx_find_id(const ok_cache *c, uint32_t id);
ok_entry *ok_idx_find_committed(const ok_cache *c, const char *key);
ok_entry *ok_idx_find_pending(const ok_cache *c, const char *key);
uint64_t ok_idx_max_gen(const ok_cache *c, const char *key);
ok_status ok_idx_reserve(ok_cache *c, uint32_t extra);
void ok_idx_insert(ok_cache *c, ok_entry *e); /* after ok_idx_reserve */
void ok_idx_remove(ok_cache *c, ok_entry *e); /* and free it */
/* Entries with `mark` set: queue DROP_ENTRY for each (all rolled back on
 * failure), then remove them from the index. */
ok_status ok_idx_push_drop_marked(ok_cache *c);
void ok_idx_remove_marked(ok_cache *c);
void ok_entry_free(ok_entry *e);
uint64_t ok_entry_stored_bytes(const ok_entry *e);
uint64_t ok_entry_chunk_len(const ok_entry *e, uint32_t idx);
int ok_entry_resumable(const ok_entry *e);
/* Chunk idx as read back (len bytes hashing to digest; digest NULL =
 * missing) is exactly the one recorded in the entry. */
int ok_entry_chunk_ok(const ok_entry *e, uint32_t idx, size_t len,
                      const uint8_t *digest);
ok_status ok_entry_set_name(ok_entry *e);
void ok_entry_to_manifest(const ok_entry *e, ok_manifest *m);

/* eviction (cache_evict.c), in three steps so a caller can queue more
 * actions before anything is removed:
 *   ok_evict_plan: mark LRU idle entries (never `keep`) until `need` fits
 *          budget and quota (min_one: at least one); OK_ERR_QUOTA, nothing
 *          marked, if it cannot fit;
 *   ok_idx_push_drop_marked, then ok_idx_remove_marked. */
ok_status ok_evict_plan(ok_cache *c, uint64_t need, uint64_t quota_free,
                        const ok_entry *keep, int min_one);

#endif
