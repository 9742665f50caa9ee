/* How the JS hands use IndexedDB: Blob or ArrayBuffer records, read batch
 * sizes, a failed delete's next step, cache keys told from URLs
 * (host_policy.h). */
#include <string.h>

#include "host_policy.h"
#include "ok_load.h"

int ok_store_records_as_blob(uint64_t held, uint64_t bytes) {
    /* a sum past 2^64 is past any budget */
    if (bytes > UINT64_MAX - held) return 0;
    return held + bytes <= OK_HOST_BLOB_RECORD_BUDGET;
}

int ok_store_beside(uint64_t total) { return total > 0 && total <= OK_HOST_STORE_BESIDE_BYTES; }

int ok_read_beside(uint64_t bytes, uint32_t facts) {
    const uint32_t page_reads = OK_READ_FACT_RUNTIME_UP | OK_READ_FACT_RUNTIME_AWAY;
    return bytes > 0 && !(facts & page_reads);
}

uint32_t ok_store_read_batch(uint32_t chunk_size) {
    uint32_t n;
    if (chunk_size == 0) return 1;
    n = (uint32_t)OK_HOST_READ_BATCH_BYTES / chunk_size;
    return n ? n : 1;
}

int ok_store_delete_reopen(uint32_t io_fail, uint32_t reopens) {
    /* only a connection closed under the page (another tab deleted or
     * upgraded the database) is helped by opening it again */
    return io_fail == OK_IOFAIL_CLOSED && reopens < OK_HOST_DELETE_REOPENS;
}

int ok_store_is_cache_key(const char *s) {
    /* the prefixes of the keys load_keys.c makes */
    static const char *const prefixes[] = {"url:", "sha256:", "sha384:", "sha512:"};
    size_t i;
    if (!s) return 0;
    for (i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (strncmp(s, prefixes[i], strlen(prefixes[i])) == 0) return 1;
    return 0;
}

int ok_store_chunk_mid_download(uint32_t waited_ms, uint32_t remaining_ms, uint32_t store_ms) {
    uint32_t cost = store_ms ? store_ms : OK_HOST_FIRST_CHUNK_STORE_MS;
    return waited_ms >= cost && remaining_ms > cost;
}
