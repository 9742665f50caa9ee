/* libFuzzer: arbitrary "index" records, then an arbitrary event program
 * against the cache core. Nothing may crash, leak or trip a sanitizer, and
 * any HIT the core grants must be of a committed entry. */
#include <stdint.h>
#include <string.h>

#include "ok_cache.h"

typedef struct {
    const uint8_t *p;
    size_t n;
} cur;

static uint32_t take(cur *c, uint32_t bytes) {
    uint32_t v = 0;
    while (bytes--) {
        v = v << 8 | (c->n ? *c->p : 0);
        if (c->n) {
            c->p++;
            c->n--;
        }
    }
    return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const char *keys[3] = {"a", "b", "c"};
    static const char *names[3] = {"a#1", "b#1", "a#2"};
    static uint8_t blob[4096];
    cur c = {data, size};
    ok_cache *k;
    uint32_t nrec, i, ids[8] = {0};
    if (ok_cache_open(&k, take(&c, 1) * 64u) != OK_OK) return 0;
    nrec = take(&c, 1) % 4;
    for (i = 0; i < nrec; i++) {
        uint32_t len = take(&c, 2) % 2048;
        if (len > c.n) len = (uint32_t)c.n;
        ok_cache_load_record(k, names[i % 3], strlen(names[i % 3]), c.p, len);
        c.p += len;
        c.n -= len;
    }
    ok_cache_recover(k);
    memset(blob, 0x5A, sizeof blob);
    while (c.n) {
        uint32_t op = take(&c, 1) % 14, who = take(&c, 1);
        uint32_t id = ids[who % 8] ? ids[who % 8] : who % 16;
        uint32_t idx = take(&c, 1) % 8;
        uint32_t len = take(&c, 2) % sizeof blob;
        ok_cache_lookup_result r;
        ok_cache_entry_info info;
        switch (op) {
        case 0:
            ok_cache_begin_write(k, keys[who % 3], "u", (who & 8) ? "e" : NULL,
                                 NULL, NULL, 1 + len, 1 + idx * 100, 0, who,
                                 &ids[who % 8]);
            break;
        case 1: ok_cache_chunk_arrived(k, id, idx, blob, len); break;
        case 2: ok_cache_chunk_stored(k, id, idx); break;
        case 3: ok_cache_download_done(k, id); break;
        case 4: ok_cache_manifest_written(k, id); break;
        case 5:
            if (ok_cache_lookup(k, keys[who % 3], idx % 5, len, &r) == OK_OK &&
                r.kind == OK_LOOKUP_HIT) {
                if (ok_cache_entry_info_get(k, r.entry, &info) != OK_OK ||
                    info.state != OK_ENTRY_COMMITTED)
                    __builtin_trap();
            }
            break;
        case 6: ok_cache_chunk_read(k, id, idx, blob, len); break;
        case 7: ok_cache_chunk_rehash(k, id, idx, (who & 1) ? blob : NULL, len);
            break;
        case 8: ok_cache_release(k, id); break;
        case 9: ok_cache_write_failed(k, id, (who & 1) ? idx : OK_CACHE_MANIFEST,
                                      who & 2);
            break;
        case 10: ok_cache_abort_write(k, id, who & 1); break;
        case 11: ok_cache_plan_space(k, len, (who & 1) ? UINT64_MAX : idx);
            break;
        case 12: ok_cache_delete(k, keys[who % 3]); break;
        default: ok_cache_clear(k); break;
        }
        if (who & 0x80) ok_cache_actions_clear(k);
    }
    ok_cache_close(k);
    return 0;
}
