/* Which loads share a live session, and when a session's memory growth is
 * worth a warning (host_policy.h). */
#include <stdio.h>

#include "host_policy.h"

size_t ok_session_share_key(const char *source_key, const char *integrity, const char *eps_json,
                            const char *options_json, char *out, size_t cap) {
    int n;
    char none[1];
    if (!source_key) return 0;
    /* what changes the session: the bytes (the source), the integrity they
     * must match, where they run and how onnxruntime builds the session;
     * cache modes, chunk sizes and callbacks do not */
    n = snprintf(out && cap ? out : none, out && cap ? cap : sizeof none, "%s|integrity:%s|ep:%s|so:%s",
                 source_key, integrity ? integrity : "", eps_json ? eps_json : "[\"wasm\"]",
                 options_json ? options_json : "{}");
    return n < 0 ? 0 : (size_t)n;
}

int ok_session_growth_warns(uint64_t growth, uint64_t initializer_bytes, uint32_t shared_initializers) {
    if (!shared_initializers) return 0;
    /* growth > PERCENT/100 * initializer_bytes, in integers; a product past
     * 2^64 cannot happen for byte counts of a 4 GiB heap, but is kept exact */
    if (initializer_bytes > UINT64_MAX / OK_HOST_GROWTH_WARN_PERCENT) return 0;
    if (growth > UINT64_MAX / 100) return 1;
    return growth * 100 > initializer_bytes * OK_HOST_GROWTH_WARN_PERCENT;
}
