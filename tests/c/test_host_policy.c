/* The decisions the JS hands ask the core for (cache/host_policy.h): Blob or
 * ArrayBuffer records against the page's budget, read batches, a failed
 * delete's reopen, cache keys told from URLs, the memory tier's sharing
 * key and the memory-growth warning. */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "host_policy.h"
#include "ok_load.h"

#define MIB (1024ull * 1024ull)

static void test_records_as_blob(void) {
    /* the budget is 768 MiB of Blob records the page still holds */
    CHECK_EQ_INT(OK_HOST_BLOB_RECORD_BUDGET, 768 * MIB);
    CHECK(ok_store_records_as_blob(0, 40 * MIB));
    CHECK(ok_store_records_as_blob(0, 768 * MIB)); /* exactly the budget */
    CHECK(!ok_store_records_as_blob(0, 768 * MIB + 1));
    CHECK(ok_store_records_as_blob(700 * MIB, 68 * MIB));
    CHECK(!ok_store_records_as_blob(700 * MIB, 68 * MIB + 1));
    CHECK(!ok_store_records_as_blob(2500 * MIB, 0)); /* over already */
    CHECK(!ok_store_records_as_blob(UINT64_MAX, 1)); /* no wrap-around */
    CHECK(!ok_store_records_as_blob(1, UINT64_MAX));
    /* a size still unknown: decided chunk by chunk (4 MiB each) */
    CHECK(ok_store_records_as_blob(764 * MIB, 4 * MIB));
    CHECK(!ok_store_records_as_blob(765 * MIB, 4 * MIB));
}

static void test_store_beside(void) {
    /* the store worker takes bodies of a known size up to 256 MiB */
    CHECK_EQ_INT(OK_HOST_STORE_BESIDE_BYTES, 256 * MIB);
    CHECK(ok_store_beside(44 * MIB));
    CHECK(ok_store_beside(256 * MIB));
    CHECK(!ok_store_beside(256 * MIB + 1));
    CHECK(!ok_store_beside(0)); /* size unknown */
    CHECK(!ok_store_beside(UINT64_MAX));
}

static void test_read_beside(void) {
    /* onnxruntime-web still to start in the page: the worker reads */
    CHECK(ok_read_beside(47 * MIB, 0));
    CHECK(ok_read_beside(1, 0));
    CHECK(!ok_read_beside(0, 0)); /* nothing to read */
    /* its thread free: the page reads */
    CHECK(!ok_read_beside(47 * MIB, OK_READ_FACT_RUNTIME_UP));
    CHECK(!ok_read_beside(47 * MIB, OK_READ_FACT_RUNTIME_AWAY));
    CHECK(!ok_read_beside(UINT64_MAX, OK_READ_FACT_RUNTIME_UP | OK_READ_FACT_RUNTIME_AWAY));
    /* facts not known yet say nothing */
    CHECK(ok_read_beside(47 * MIB, 1u << 31));
}

static void test_read_batch(void) {
    CHECK_EQ_INT(OK_HOST_READ_BATCH_BYTES, 64 * MIB);
    CHECK_EQ_INT(ok_store_read_batch(4u << 20), 16);
    CHECK_EQ_INT(ok_store_read_batch(4096), 16384);
    CHECK_EQ_INT(ok_store_read_batch(3u << 20), 21); /* rounds down */
    CHECK_EQ_INT(ok_store_read_batch(64u << 20), 1);
    CHECK_EQ_INT(ok_store_read_batch(256u << 20), 1); /* never 0 */
    CHECK_EQ_INT(ok_store_read_batch(0), 1);
}

static void test_chunk_mid_download(void) {
    CHECK_EQ_INT(OK_HOST_FIRST_CHUNK_STORE_MS, 200);
    /* nothing measured yet: the first guess */
    CHECK(ok_store_chunk_mid_download(200, 5000, 0));
    CHECK(!ok_store_chunk_mid_download(199, 5000, 0));
    /* waited long enough, but the body ends before a store would */
    CHECK(!ok_store_chunk_mid_download(900, 150, 0));
    CHECK(!ok_store_chunk_mid_download(900, 200, 0));
    /* the measured cost decides once there is one */
    CHECK(ok_store_chunk_mid_download(60, 61, 50));
    CHECK(!ok_store_chunk_mid_download(60, 61, 70));
    /* a body of unknown size: the wait alone */
    CHECK(ok_store_chunk_mid_download(250, UINT32_MAX, 0));
    CHECK(!ok_store_chunk_mid_download(0, UINT32_MAX, 0));
}

static void test_delete_reopen(void) {
    CHECK_EQ_INT(OK_HOST_DELETE_REOPENS, 1);
    /* a closed connection: reopened once, then left to the next sync */
    CHECK(ok_store_delete_reopen(OK_IOFAIL_CLOSED, 0));
    CHECK(!ok_store_delete_reopen(OK_IOFAIL_CLOSED, 1));
    CHECK(!ok_store_delete_reopen(OK_IOFAIL_CLOSED, 2));
    /* reopening does not help a full disk or anything else */
    CHECK(!ok_store_delete_reopen(OK_IOFAIL_QUOTA, 0));
    CHECK(!ok_store_delete_reopen(OK_IOFAIL_OTHER, 0));
    CHECK(!ok_store_delete_reopen(0, 0));
}

static void test_is_cache_key(void) {
    CHECK(ok_store_is_cache_key("url:https://example.com/m.onnx|form:original"));
    CHECK(ok_store_is_cache_key("sha256:e3b0c442|form:original"));
    CHECK(ok_store_is_cache_key("sha384:abc|form:ort"));
    CHECK(ok_store_is_cache_key("sha512:abc"));
    CHECK(!ok_store_is_cache_key("https://example.com/m.onnx"));
    CHECK(!ok_store_is_cache_key("models/m.onnx"));
    CHECK(!ok_store_is_cache_key("sha1:abc"));
    CHECK(!ok_store_is_cache_key("URL:https://example.com/")); /* keys are lowercase */
    CHECK(!ok_store_is_cache_key("url"));
    CHECK(!ok_store_is_cache_key(""));
    CHECK(!ok_store_is_cache_key(NULL));
}

static void test_share_key(void) {
    char out[256];
    size_t n;
    n = ok_session_share_key("url:https://a/m.onnx", NULL, NULL, NULL, out, sizeof out);
    CHECK_EQ_STR(out, "url:https://a/m.onnx|integrity:|ep:[\"wasm\"]|so:{}");
    CHECK_EQ_INT(n, strlen(out));
    /* the defaults written out share with the defaults left out */
    {
        char given[256];
        ok_session_share_key("url:https://a/m.onnx", "", "[\"wasm\"]", "{}", given, sizeof given);
        CHECK_EQ_STR(given, out);
    }
    n = ok_session_share_key("sha256:ab", "sha256-x", "[\"webgpu\",\"wasm\"]",
                             "{\"graphOptimizationLevel\":\"basic\"}", out, sizeof out);
    CHECK_EQ_STR(out, "sha256:ab|integrity:sha256-x|ep:[\"webgpu\",\"wasm\"]"
                      "|so:{\"graphOptimizationLevel\":\"basic\"}");
    /* each fact changes the key */
    {
        char a[128], b[128];
        ok_session_share_key("url:x", NULL, NULL, NULL, a, sizeof a);
        ok_session_share_key("url:y", NULL, NULL, NULL, b, sizeof b);
        CHECK(strcmp(a, b) != 0);
        ok_session_share_key("url:x", "sha256-q", NULL, NULL, b, sizeof b);
        CHECK(strcmp(a, b) != 0);
        ok_session_share_key("url:x", NULL, "[\"webgpu\"]", NULL, b, sizeof b);
        CHECK(strcmp(a, b) != 0);
        ok_session_share_key("url:x", NULL, NULL, "{\"a\":1}", b, sizeof b);
        CHECK(strcmp(a, b) != 0);
    }
    /* too small a buffer: the length it needs, the key cut and terminated */
    {
        char small[8];
        n = ok_session_share_key("url:https://a/m.onnx", NULL, NULL, NULL, small, sizeof small);
        CHECK_EQ_INT(n, strlen("url:https://a/m.onnx|integrity:|ep:[\"wasm\"]|so:{}"));
        CHECK_EQ_STR(small, "url:htt");
        CHECK_EQ_INT(ok_session_share_key("url:x", NULL, NULL, NULL, NULL, 0),
                     strlen("url:x|integrity:|ep:[\"wasm\"]|so:{}"));
    }
    CHECK_EQ_INT(ok_session_share_key(NULL, NULL, NULL, NULL, out, sizeof out), 0);
}

static void test_growth_warns(void) {
    CHECK_EQ_INT(OK_HOST_GROWTH_WARN_PERCENT, 150);
    /* past 1.5x the initializer bytes, with shared initializers */
    CHECK(ok_session_growth_warns(151 * MIB, 100 * MIB, 1));
    CHECK(!ok_session_growth_warns(150 * MIB, 100 * MIB, 1)); /* exactly 1.5x: no */
    CHECK(ok_session_growth_warns(150 * MIB + 1, 100 * MIB, 2));
    CHECK(!ok_session_growth_warns(3, 2, 1)); /* 1.5x of 2 bytes */
    CHECK(ok_session_growth_warns(4, 2, 1));
    /* nothing shared: never */
    CHECK(!ok_session_growth_warns(1000 * MIB, 1 * MIB, 0));
    /* no initializers: any growth */
    CHECK(ok_session_growth_warns(1, 0, 1));
    CHECK(!ok_session_growth_warns(0, 0, 1));
    /* extremes stay exact */
    CHECK(ok_session_growth_warns(UINT64_MAX, 1, 1));
    CHECK(!ok_session_growth_warns(1, UINT64_MAX, 1));
}

static void test_runtime_flavour(void) {
    const uint32_t found = OK_RUNTIME_FACT_PLAIN_FOUND;
    /* nothing asks for more than wasm: the plain build, whatever the entry */
    CHECK_EQ_INT(ok_runtime_flavour(OK_RUNTIME_JSEP, found), OK_RUNTIME_WASM);
    CHECK_EQ_INT(ok_runtime_flavour(OK_RUNTIME_ASYNCIFY, found), OK_RUNTIME_WASM);
    CHECK_EQ_INT(ok_runtime_flavour(OK_RUNTIME_JSPI, found), OK_RUNTIME_WASM);
    CHECK_EQ_INT(ok_runtime_flavour(OK_RUNTIME_WASM, 0), OK_RUNTIME_WASM);
    /* each reason for the entry's own build keeps it */
    CHECK_EQ_INT(ok_runtime_flavour(OK_RUNTIME_JSEP, found | OK_RUNTIME_FACT_DEVICE_EP), OK_RUNTIME_JSEP);
    CHECK_EQ_INT(ok_runtime_flavour(OK_RUNTIME_JSEP, found | OK_RUNTIME_FACT_DEVICE_SEEN), OK_RUNTIME_JSEP);
    CHECK_EQ_INT(ok_runtime_flavour(OK_RUNTIME_ASYNCIFY, found | OK_RUNTIME_FACT_FULL), OK_RUNTIME_ASYNCIFY);
    CHECK_EQ_INT(ok_runtime_flavour(OK_RUNTIME_JSEP, found | OK_RUNTIME_FACT_APP_CHOSE), OK_RUNTIME_JSEP);
    CHECK_EQ_INT(ok_runtime_flavour(OK_RUNTIME_JSEP, 0), OK_RUNTIME_JSEP); /* no plain files found */
    /* the drop-in: plain only once an earlier visit showed wasm is all */
    CHECK_EQ_INT(ok_runtime_flavour(OK_RUNTIME_JSEP, found | OK_RUNTIME_FACT_UNKNOWN_FUTURE),
                 OK_RUNTIME_JSEP);
    CHECK_EQ_INT(ok_runtime_flavour(OK_RUNTIME_JSEP,
                                    found | OK_RUNTIME_FACT_UNKNOWN_FUTURE | OK_RUNTIME_FACT_WASM_SEEN),
                 OK_RUNTIME_WASM);
    /* earlier visits made wasm and device sessions: plain for the wasm
     * loads, the entry's beside it at once (ok_runtime_beside_early) */
    CHECK_EQ_INT(ok_runtime_flavour(OK_RUNTIME_JSEP, found | OK_RUNTIME_FACT_UNKNOWN_FUTURE |
                                                         OK_RUNTIME_FACT_WASM_SEEN |
                                                         OK_RUNTIME_FACT_DEVICE_SEEN),
                 OK_RUNTIME_WASM);
    CHECK_EQ_INT(
        ok_runtime_flavour(OK_RUNTIME_JSEP, found | OK_RUNTIME_FACT_WASM_SEEN | OK_RUNTIME_FACT_DEVICE_SEEN),
        OK_RUNTIME_WASM);
    /* ... but this load lists a device EP, or the app chose: the entry's */
    CHECK_EQ_INT(ok_runtime_flavour(OK_RUNTIME_JSEP, found | OK_RUNTIME_FACT_WASM_SEEN |
                                                         OK_RUNTIME_FACT_DEVICE_SEEN |
                                                         OK_RUNTIME_FACT_DEVICE_EP),
                 OK_RUNTIME_JSEP);
    CHECK_EQ_INT(ok_runtime_flavour(OK_RUNTIME_JSEP, found | OK_RUNTIME_FACT_WASM_SEEN |
                                                         OK_RUNTIME_FACT_DEVICE_SEEN |
                                                         OK_RUNTIME_FACT_APP_CHOSE),
                 OK_RUNTIME_JSEP);
    /* an entry not known */
    CHECK_EQ_INT(ok_runtime_flavour(0, found), 0);
    CHECK_EQ_INT(ok_runtime_flavour(9, found), 0);
}

static void test_runtime_beside_early(void) {
    const uint32_t both = OK_RUNTIME_FACT_WASM_SEEN | OK_RUNTIME_FACT_DEVICE_SEEN;
    /* plain started where the record says device loads came too: the entry's beside, now */
    CHECK(ok_runtime_beside_early(OK_RUNTIME_WASM, OK_RUNTIME_JSEP, both));
    CHECK(ok_runtime_beside_early(OK_RUNTIME_WASM, OK_RUNTIME_ASYNCIFY, both | OK_RUNTIME_FACT_PLAIN_FOUND));
    /* no device load recorded, the entry's build started, the app's choice, a plain entry: nothing early */
    CHECK(!ok_runtime_beside_early(OK_RUNTIME_WASM, OK_RUNTIME_JSEP, OK_RUNTIME_FACT_WASM_SEEN));
    CHECK(!ok_runtime_beside_early(OK_RUNTIME_JSEP, OK_RUNTIME_JSEP, both));
    CHECK(!ok_runtime_beside_early(OK_RUNTIME_WASM, OK_RUNTIME_JSEP, both | OK_RUNTIME_FACT_APP_CHOSE));
    CHECK(!ok_runtime_beside_early(OK_RUNTIME_WASM, OK_RUNTIME_WASM, both));
}

static void test_runtime_ep_needs_more(void) {
    CHECK(!ok_runtime_ep_needs_more("wasm"));
    CHECK(!ok_runtime_ep_needs_more("cpu"));
    CHECK(!ok_runtime_ep_needs_more("webgl")); /* a backend of its own */
    CHECK(ok_runtime_ep_needs_more("webgpu"));
    CHECK(ok_runtime_ep_needs_more("webnn"));
    CHECK(ok_runtime_ep_needs_more("xnnpack")); /* not known: the entry's build */
    CHECK(ok_runtime_ep_needs_more(""));
    CHECK(ok_runtime_ep_needs_more(NULL));
}

static void test_runtime_serves(void) {
    /* started plain (ortkeep's head start) from a JSEP entry: a device EP gets the entry's build beside,
     * whether or not the list names wasm too (never a refusal, never a silent downgrade) */
    CHECK_EQ_INT(ok_runtime_serves(OK_RUNTIME_WASM, OK_RUNTIME_JSEP, 0, 0), OK_RUNTIME_SERVE_AS_ASKED);
    CHECK_EQ_INT(ok_runtime_serves(OK_RUNTIME_WASM, OK_RUNTIME_JSEP, 1, 0), OK_RUNTIME_SERVE_BESIDE);
    CHECK_EQ_INT(ok_runtime_serves(OK_RUNTIME_WASM, OK_RUNTIME_ASYNCIFY, 1, 0), OK_RUNTIME_SERVE_BESIDE);
    CHECK_EQ_INT(ok_runtime_serves(OK_RUNTIME_WASM, OK_RUNTIME_JSPI, 1, 0), OK_RUNTIME_SERVE_BESIDE);
    /* the app chose the plain build itself: onnxruntime-web answers, as without ortkeep */
    CHECK_EQ_INT(ok_runtime_serves(OK_RUNTIME_WASM, OK_RUNTIME_JSEP, 1, 1), OK_RUNTIME_SERVE_AS_ASKED);
    /* the entry's own build, or a wasm-only entry: as plain onnxruntime-web answers */
    CHECK_EQ_INT(ok_runtime_serves(OK_RUNTIME_JSEP, OK_RUNTIME_JSEP, 1, 0), OK_RUNTIME_SERVE_AS_ASKED);
    CHECK_EQ_INT(ok_runtime_serves(OK_RUNTIME_WASM, OK_RUNTIME_WASM, 1, 0), OK_RUNTIME_SERVE_AS_ASKED);
}

int main(void) {
    test_records_as_blob();
    test_store_beside();
    test_read_beside();
    test_read_batch();
    test_chunk_mid_download();
    test_delete_reopen();
    test_is_cache_key();
    test_share_key();
    test_growth_warns();
    test_runtime_flavour();
    test_runtime_beside_early();
    test_runtime_ep_needs_more();
    test_runtime_serves();
    return CHECK_DONE();
}
