/* IndexedDB as the load machine sees it: three stores of records (index,
 * meta, chunks), one transaction per action, a quota, a database closed
 * under the page, failing writes and a crash after the n-th write. */
#ifndef ORTKEEP_TEST_FAKE_IDB_H
#define ORTKEEP_TEST_FAKE_IDB_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    char *name;
    uint32_t idx;
    uint8_t *bytes;
    size_t len;
} fx_rec;

typedef struct {
    fx_rec *v;
    size_t n, cap;
} fx_store;

typedef struct {
    fx_store index, meta, chunks;
    uint64_t quota;          /* bytes of all values; 0 = unlimited */
    uint64_t estimate_slack; /* navigator.storage.estimate() says this much
                                more is free than is (its usage lags) */
    int crash_after;         /* write transactions applied before a crash; <0 off */
    int writes;              /* write transactions applied so far */
    int crashed;
    int closed;        /* every request fails CLOSED until REOPEN */
    int fail_writes;   /* the next n write transactions fail OTHER */
    int fail_write_at; /* the write transaction with this number (writes + 1)
                          fails OTHER; 0 off */
    int fail_from;     /* every write transaction that adds bytes, from
                          this number on (writes + 1), fails OTHER (the
                          deletes still land); 0 off */
    int fail_reads;    /* the next n read transactions fail OTHER */
    int reopens;
} fx_db;

fx_rec *fs_find(fx_store *s, const char *name, uint32_t idx);
void fs_put(fx_store *s, const char *name, uint32_t idx, const uint8_t *b, size_t len);
void fs_del_at(fx_store *s, size_t i);
void fs_del(fx_store *s, const char *name, uint32_t from, uint32_t to);
void fs_free(fx_store *s);
uint64_t fs_bytes(const fx_store *s);
uint64_t db_used(const fx_db *d);
void db_free(fx_db *d);
/* A write transaction: returns 0 ok, else the OK_IOFAIL_* kind; -1 crashed. */
int db_begin_write(fx_db *d, uint64_t adding);
/* Every committed entry in the store serves exactly `bytes`. */
int fx_store_serves(fx_db *d, const uint8_t *bytes, size_t len);
int fx_count_state(fx_db *d, uint32_t state);
/* Whether entry `name`'s stored chunks [0, count) are all there and hash to
 * sha256. */
int fx_chunks_hash_to(fx_db *d, const char *name, uint32_t count, const uint8_t *sha256);
/* Chunk records whose name no index record has. */
int fx_orphans(fx_db *d);

#endif
