/* Which onnxruntime-web build a page starts, and what a later load gets
 * from it (host_policy.h). onnxruntime-web picks its Emscripten loader and
 * .wasm once per instance, at its first session: started plain, a later
 * WebGPU session needs the entry's build started beside it (a second
 * instance of the same onnxruntime-web: js/runtime-beside.js). */
#include <string.h>

#include "host_policy.h"

int ok_runtime_ep_needs_more(const char *name) {
    static const char *const plain[] = {"wasm", "cpu", "webgl"};
    size_t i;
    if (!name) return 1;
    for (i = 0; i < sizeof plain / sizeof plain[0]; i++)
        if (strcmp(name, plain[i]) == 0) return 0;
    return 1;
}

uint32_t ok_runtime_flavour(uint32_t entry, uint32_t facts) {
    if (entry < OK_RUNTIME_WASM || entry > OK_RUNTIME_JSPI) return 0;
    if (entry == OK_RUNTIME_WASM) return entry;
    /* the app's own files, an explicit ask, a device EP now: the entry's
     * build, as plain onnxruntime-web starts */
    if (facts & (OK_RUNTIME_FACT_APP_CHOSE | OK_RUNTIME_FACT_FULL | OK_RUNTIME_FACT_DEVICE_EP)) return entry;
    /* nothing to start the plain build from */
    if (!(facts & OK_RUNTIME_FACT_PLAIN_FOUND)) return entry;
    /* earlier visits' loads all listed a device EP: the entry's build; where
     * wasm-only loads came too, the plain build serves those and the
     * entry's starts beside it at once (ok_runtime_beside_early) */
    if ((facts & OK_RUNTIME_FACT_DEVICE_SEEN) && !(facts & OK_RUNTIME_FACT_WASM_SEEN)) return entry;
    /* the drop-in promises onnxruntime-web's API: a later WebGPU session of
     * the app's must not find the plain build, so it waits for a visit that
     * showed the page needs no more */
    if ((facts & OK_RUNTIME_FACT_UNKNOWN_FUTURE) && !(facts & OK_RUNTIME_FACT_WASM_SEEN)) return entry;
    return OK_RUNTIME_WASM;
}

int ok_runtime_beside_early(uint32_t started, uint32_t entry, uint32_t facts) {
    /* the plain build took the wasm loads of a page whose earlier visits
     * also made device sessions: the entry's build starts beside it now,
     * not at the first device load, which then finds it started (a
     * wasm-then-WebGPU page's second visit); the app's own choice stands */
    return started == OK_RUNTIME_WASM && entry != OK_RUNTIME_WASM && (facts & OK_RUNTIME_FACT_DEVICE_SEEN) &&
           !(facts & OK_RUNTIME_FACT_APP_CHOSE);
}

uint32_t ok_runtime_serves(uint32_t started, uint32_t entry, int device_ep, int app_chose) {
    /* the entry's own build, a load the plain build serves, or a build the
     * app chose: onnxruntime-web answers as it would without ortkeep */
    if (started == entry || !device_ep || app_chose) return OK_RUNTIME_SERVE_AS_ASKED;
    if (started != OK_RUNTIME_WASM) return OK_RUNTIME_SERVE_AS_ASKED;
    /* ortkeep's head start took the plain build: the entry's starts beside */
    return OK_RUNTIME_SERVE_BESIDE;
}
