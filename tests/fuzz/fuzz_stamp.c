/* libFuzzer harness for the normalization stamp: any bytes as a model give a
 * verdict in range, and the streaming tracker (fed in three pieces) agrees
 * with the whole-model check; any bytes that parse as a stamp value encode,
 * and the encoded tail is found and parses back to the same stamp. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stamp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    ok_stamp s;
    int v = ok_stamp_check(data, size, "1.30.0", "wasm", "extended", &s);
    if (v < OK_STAMP_NONE || v > OK_STAMP_MALFORMED) abort();
    ok_stamp_tracker t;
    struct ok_sha256 sha;
    ok_stamp_tracker_init(&t);
    ok_sha256_init(&sha);
    size_t cut1 = size / 3, cut2 = size - size / 4;
    const size_t cuts[] = {0, cut1, cut2, size};
    for (int i = 0; i < 3; i++) {
        ok_stamp_tracker_feed(&t, data + cuts[i], cuts[i + 1] - cuts[i], &sha);
        ok_sha256_update(&sha, data + cuts[i], cuts[i + 1] - cuts[i]);
    }
    int tv = ok_stamp_tracker_end(&t, NULL);
    /* the check also judges version/EP/level (FOREIGN); the tracker only integrity */
    if ((v == OK_STAMP_FOREIGN ? OK_STAMP_VALID : v) != tv) abort();
    ok_stamp p, q;
    if (ok_stamp_parse((const char *)data, size, &p) != OK_OK) return 0;
    uint8_t tail[OK_STAMP_MAX_TAIL];
    size_t n, start, vn;
    const char *value;
    if (ok_stamp_encode(&p, tail, sizeof tail, &n) != OK_OK) abort();
    if (!ok_stamp_find(tail, n, &start, &value, &vn) || start != 0) abort();
    if (ok_stamp_parse(value, vn, &q) != OK_OK || memcmp(&p, &q, sizeof p) != 0) abort();
    return 0;
}
