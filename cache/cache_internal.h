/* Private structures of the cache core, shared by the cache sources only. */
#ifndef ORTKEEP_CACHE_INTERNAL_H
#define ORTKEEP_CACHE_INTERNAL_H

#include "ok_cache.h"
#include "xxh3.h"

/* One entry of the index: one stored artifact (one generation of a key). */
typedef struct ok_entry {
    uint32_t id;    /* in-memory handle, never reused */
    uint32_t state; /* OK_ENTRY_PENDING / OK_ENTRY_COMMITTED */
    uint32_t form;
    uint32_t flags; /* OK_EF_* */
    uint32_t chunk_size;
    uint32_t chunk_count;  /* so far, while the size is unknown */
    uint32_t stored_count; /* chunks [0, stored_count) are durable */
    uint32_t integ_alg, integ_count;
    uint32_t report_len;
    uint64_t gen, total_size, last_used, hit_count, report_sum;
    uint8_t sha256[32];
    uint32_t form_status, form_reason, create_us, orig_create_us; /* forms */
    uint32_t rev_pairs, rev_form_us, rev_orig_us; /* forms: the revision under way (form_tiers.h) */
    uint8_t source_sha256[32];                    /* forms */
    uint8_t *integ;                               /* integ_count * ok_hash_bytes(integ_alg) */
    char *key, *url, *etag, *lm;
    char *name;     /* storage name, unique across tabs */
    uint64_t *sums; /* chunk checksums, sums_cap slots */
    uint32_t sums_cap;

    /* in memory only */
    uint32_t refcount;   /* loads reading it */
    uint32_t writing;    /* a load of this page is writing it */
    uint32_t superseded; /* a newer generation committed: drop at release */
    uint32_t mark;       /* scratch flag for multi-entry decisions */
    uint32_t seen;       /* id of the last sync that read its record */
    uint32_t born;       /* syncs begun before it was added */
} ok_entry;

struct ok_cache {
    ok_entry **entries;
    uint32_t n_entries, cap_entries;
    uint32_t next_id;
    uint64_t budget; /* 0 = unlimited */
    uint64_t name_seed, name_counter;
    ok_actq own; /* the cache's own queue (delete/clear/list) */
    ok_actq *q;  /* where actions go now: own, or a load's */
    /* sync */
    uint32_t sync_counter;
    int synced_once;
    char **tomb; /* names this page dropped (a ring): a sync that
                              read the store before the drop landed must
                              not bring them back */
    uint32_t n_tomb, next_tomb;
    /* keys another load holds the lock of */
    char **busy;
    uint32_t n_busy, cap_busy;
};

/* a name list (cache_index.c) */
typedef struct ok_names {
    char **v;
    uint32_t n, cap;
} ok_names;

struct ok_sync {
    uint32_t id;
    int with_chunk_names;
    ok_names chunk_names; /* names seen in "chunks" */
    ok_names foreign;     /* records of another format version */
};

#define OK_CACHE_TOMBS 256u

/* allocation (cache_alloc.c): every allocation goes through these so tests
 * can fail the n-th one. */
void *ok_cache_malloc(size_t n);
void *ok_cache_calloc(size_t n, size_t size);
void *ok_cache_realloc(void *p, size_t n);
void ok_cache_free(void *p);
char *ok_cache_strndup(const char *s, size_t n);
char *ok_cache_strdup(const char *s); /* NULL -> "" */

/* action queue (cache_actions.c). A mark lets an event undo what it queued
 * when it fails half-way. */
typedef struct {
    uint32_t n, n_data;
} ok_act_mark;
ok_act_mark ok_q_mark(const ok_actq *q);
void ok_q_rollback(ok_actq *q, ok_act_mark m);
void ok_q_clear(ok_actq *q);
void ok_q_free(ok_actq *q);
/* Queue an action; strings and blobs are copied into the arena. */
typedef struct ok_act_args {
    uint32_t type, entry, chunk, chunk_end, flags;
    uint64_t value, value2;
    const char *name; /* NUL-terminated or NULL */
    const uint8_t *blob;
    size_t blob_len;
    const uint8_t *aux;
    size_t aux_len;
} ok_act_args;
ok_status ok_q_push(ok_actq *q, const ok_act_args *a);
/* The manifest of e as it is now goes in the blob. */
ok_status ok_q_push_manifest(ok_actq *q, ok_act_args a, const ok_entry *e);
ok_status ok_q_push_drop(ok_actq *q, const ok_entry *e);

/* index (cache_index.c) */
ok_entry *ok_idx_find_id(const ok_cache *c, uint32_t id);
/* The servable entry of key: committed, not superseded. */
ok_entry *ok_idx_find_committed(const ok_cache *c, const char *key);
ok_entry *ok_idx_find_pending(const ok_cache *c, const char *key);
uint64_t ok_idx_max_gen(const ok_cache *c, const char *key);
ok_status ok_idx_reserve(ok_cache *c, uint32_t extra);
void ok_idx_insert(ok_cache *c, ok_entry *e); /* after ok_idx_reserve */
/* Out of the index and freed; its name is remembered as dropped. */
void ok_idx_remove(ok_cache *c, ok_entry *e);
void ok_idx_forget(ok_cache *c, ok_entry *e); /* no tombstone */
/* Entries with `mark` set: queue DROP_ENTRY for each (all rolled back on
 * failure), then ok_idx_remove_marked removes them. */
ok_status ok_idx_push_drop_marked(ok_cache *c);
void ok_idx_remove_marked(ok_cache *c);
/* A key's lock is held by another load (a part's: its model's). */
int ok_idx_busy(const ok_cache *c, const char *key);
/* Parts (OK_EF_PART): an external data file is keyed by its model's key
 * (always "...|form:original") + OK_PART_SEP + its location. */
#define OK_PART_SEP "|data:"
/* The length of the model's key at the start of a part's key (0: none). */
size_t ok_part_owner_len(const char *key);
/* The committed model a part serves beside (its key and SHA-256), or NULL. */
ok_entry *ok_idx_owner(const ok_cache *c, const ok_entry *part);
/* e is a part of the model keyed owner_key (any generation). */
int ok_part_of(const ok_entry *e, const char *owner_key);
/* Mark the parts of every marked entry (eviction, delete: a model goes with
 * its data files); the bytes they hold are added to *bytes when given.
 * Returns 0 when one of them is in use here (then nothing is marked). */
int ok_idx_mark_parts(ok_cache *c, uint64_t *bytes);
/* A new PENDING entry (not inserted) with a fresh unique storage name. */
ok_status ok_idx_new_entry(ok_cache *c, const char *key, const char *url, uint32_t form, uint32_t chunk_size,
                           uint64_t now, ok_entry **out);
void ok_entry_free(ok_entry *e);
uint64_t ok_entry_stored_bytes(const ok_entry *e);
uint64_t ok_entry_chunk_len(const ok_entry *e, uint32_t idx);
/* Room for checksum slot idx. */
ok_status ok_entry_reserve_sums(ok_entry *e, uint32_t idx);
/* The bytes of this pending entry can be continued later by a byte range:
 * nothing was seen compressed, and the resource is provably the same: an
 * integrity digest the end must match (any origin, any size), or a strong
 * ETag with an exact size. */
int ok_entry_resumable(const ok_entry *e);
/* cache_manifest.c: the entry's manifest as it is now (pointers into e). */
void ok_entry_to_manifest(const ok_entry *e, ok_manifest *m);
ok_status ok_entry_set_str(char **slot, const char *s);

/* eviction (cache_evict.c), in steps so a caller can queue more actions
 * before anything is removed: ok_evict_plan marks LRU idle entries (never
 * `keep`, never busy) until `need` fits budget and quota (min_one: at least
 * one); OK_ERR_QUOTA with nothing marked if it cannot fit; then
 * ok_idx_push_drop_marked, ok_idx_remove_marked. */
ok_status ok_evict_plan(ok_cache *c, uint64_t need, uint64_t quota_free, const ok_entry *keep, int min_one);
/* The same for a write of `key` (NULL: keep's key): when it is a form's,
 * the original it is made from (and so its data files) is never evicted. */
ok_status ok_evict_plan_for(ok_cache *c, const char *key, uint64_t need, uint64_t quota_free,
                            const ok_entry *keep, int min_one);

/* Chunk checksums: XXH3-64, seed 0. What protects stored chunks at rest,
 * where the threat is a torn or rotten record (a crash, a disk error, a
 * browser bug), not an adversary -- script of the page's origin can rewrite
 * IndexedDB and the page itself -- so a fast non-cryptographic hash is
 * enough; the whole model's SHA-256 (and `integrity`) is checked when it is
 * downloaded. */
static inline uint64_t ok_chunk_sum(const uint8_t *p, size_t n) { return ok_xxh3_64(p, n, 0); }

#endif
