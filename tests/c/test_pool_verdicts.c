/* The pool's verdicts on facts JS reports (tensor_pool.h, VERDICTS): the
 * runtime's metadata reconciled with the model's declarations, a failed run
 * with preallocated outputs (retry once, adopt, settle), what becomes of a
 * result onnxruntime allocated, whether a run steps aside, and which device
 * a session's pool uses. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "tensor_pool.h"

#define F32 1
#define GPU OK_BACKEND_WEBGPU
#define CPU OK_BACKEND_CPU
#define SYM(s) OK_POOL_DIM_SYMBOL(s)
#define UNK OK_POOL_DIM_UNKNOWN

static uint32_t op_of(const ok_pool *p, uint32_t k) {
    return ok_pool_actions(p, NULL)[k * OK_POOL_ACTION_WORDS + OK_POOL_AW_OP];
}

/* Whether output 0 is preallocated in a run whose input 0 is [n]. */
static int planned(ok_pool *p, int64_t n) {
    int64_t d[1] = {n};
    CHECK_EQ_INT(ok_pool_run_begin(p), OK_OK);
    CHECK_EQ_INT(ok_pool_feed(p, 0, GPU, F32, d, 1, (uint64_t)n * 4), OK_OK);
    CHECK_EQ_INT(ok_pool_output_auto(p, 0, GPU), OK_OK);
    int yes = ok_pool_action_count(p) > 0;
    CHECK_EQ_INT(ok_pool_run_end(p), OK_OK);
    return yes;
}

static void test_runtime_declarations(void) {
    ok_pool *p = ok_pool_create(1 << 20, 1, 4);
    if (!p) {
        CHECK(0);
        return;
    }
    int64_t in[1] = {SYM(0)}, scalar_rt[1] = {0}, n[1] = {SYM(0)}, three[1] = {3}, four[1] = {4};
    int64_t unknown_rt[1] = {4294967295LL};
    CHECK_EQ_INT(ok_pool_declare(p, OK_SLOT_INPUT, 0, F32, 1, in), OK_OK);
    CHECK_EQ_INT(ok_pool_declare_runtime(p, OK_SLOT_INPUT, 0, F32, 1, in), OK_OK);
    /* output 0: no shape in the model; onnxruntime-web says [] */
    CHECK_EQ_INT(ok_pool_declare(p, OK_SLOT_OUTPUT, 0, F32, -1, NULL), OK_OK);
    CHECK_EQ_INT(ok_pool_declare_runtime(p, OK_SLOT_OUTPUT, 0, F32, 0, scalar_rt), OK_OK);
    CHECK(!ok_pool_output_declared(p, 0));
    CHECK(!planned(p, 5));
    /* output 1: a real scalar, [] both ways: planned */
    CHECK_EQ_INT(ok_pool_declare(p, OK_SLOT_OUTPUT, 1, F32, 0, NULL), OK_OK);
    CHECK_EQ_INT(ok_pool_declare_runtime(p, OK_SLOT_OUTPUT, 1, F32, 0, NULL), OK_OK);
    CHECK(ok_pool_output_declared(p, 1));
    /* output 2: [n] in the model, [3] at runtime: they disagree, unknown */
    CHECK_EQ_INT(ok_pool_declare(p, OK_SLOT_OUTPUT, 2, F32, 1, n), OK_OK);
    CHECK_EQ_INT(ok_pool_declare_runtime(p, OK_SLOT_OUTPUT, 2, F32, 1, three), OK_OK);
    CHECK(!ok_pool_output_declared(p, 2));
    /* output 3: [4] in the model, unknown at runtime: unknown */
    CHECK_EQ_INT(ok_pool_declare(p, OK_SLOT_OUTPUT, 3, F32, 1, four), OK_OK);
    CHECK_EQ_INT(ok_pool_declare_runtime(p, OK_SLOT_OUTPUT, 3, F32, 1, unknown_rt), OK_OK);
    CHECK(!ok_pool_output_declared(p, 3));
    CHECK_EQ_INT(ok_pool_check(p), OK_OK);
    CHECK_EQ_INT(ok_pool_destroy(p), OK_OK);
    ok_pool_free(p);

    /* Only the runtime spoke: its [] is no scalar, its [4] stands. */
    p = ok_pool_create(1 << 20, 0, 2);
    if (!p) {
        CHECK(0);
        return;
    }
    CHECK_EQ_INT(ok_pool_declare_runtime(p, OK_SLOT_OUTPUT, 0, F32, 0, NULL), OK_OK);
    CHECK(!ok_pool_output_declared(p, 0));
    CHECK_EQ_INT(ok_pool_declare_runtime(p, OK_SLOT_OUTPUT, 1, F32, 1, four), OK_OK);
    CHECK(ok_pool_output_declared(p, 1));
    /* rank mismatch, dtype mismatch: unknown */
    CHECK_EQ_INT(ok_pool_declare(p, OK_SLOT_OUTPUT, 1, F32, 1, four), OK_OK);
    CHECK_EQ_INT(ok_pool_declare_runtime(p, OK_SLOT_OUTPUT, 1, 7, 1, four), OK_OK);
    CHECK(!ok_pool_output_declared(p, 1));
    CHECK_EQ_INT(ok_pool_declare(p, OK_SLOT_OUTPUT, 0, F32, 2, NULL), OK_OK);
    CHECK_EQ_INT(ok_pool_declare_runtime(p, OK_SLOT_OUTPUT, 0, F32, 1, four), OK_OK);
    CHECK(!ok_pool_output_declared(p, 0));
    CHECK_EQ_INT(ok_pool_declare_runtime(p, OK_SLOT_OUTPUT, 0, F32, 1, NULL), OK_ERR_INVALID_ARG);
    CHECK_EQ_INT(ok_pool_declare_runtime(p, OK_SLOT_OUTPUT, 2, F32, 1, four), OK_ERR_INVALID_ARG);
    CHECK_EQ_INT(ok_pool_destroy(p), OK_OK);
    ok_pool_free(p);
}

/* The model declares output 0 as [n] with n bound by input 0, but it lies
 * for runs where n = 7: onnxruntime refuses the preallocation. */
static void test_failed_run_retry(void) {
    ok_pool *p = ok_pool_create(1 << 20, 1, 2);
    if (!p) {
        CHECK(0);
        return;
    }
    int64_t sym[1] = {SYM(0)}, fixed3[1] = {3};
    CHECK_EQ_INT(ok_pool_declare(p, OK_SLOT_INPUT, 0, F32, 1, sym), OK_OK);
    CHECK_EQ_INT(ok_pool_declare(p, OK_SLOT_OUTPUT, 0, F32, 1, sym), OK_OK);
    CHECK_EQ_INT(ok_pool_declare(p, OK_SLOT_OUTPUT, 1, F32, 1, fixed3), OK_OK);
    int retry = -1;

    /* a failure with nothing preallocated: no retry */
    CHECK_EQ_INT(ok_pool_run_begin(p), OK_OK);
    CHECK_EQ_INT(ok_pool_run_failed(p, &retry), OK_OK);
    CHECK_EQ_INT(retry, 0);
    CHECK_EQ_INT(ok_pool_run_end(p), OK_OK);
    CHECK_EQ_INT(ok_pool_run_failed(p, &retry), OK_ERR_STATE); /* outside a run */
    CHECK_EQ_INT(ok_pool_run_begin(p), OK_OK);
    CHECK_EQ_INT(ok_pool_run_failed(p, NULL), OK_ERR_INVALID_ARG);
    CHECK_EQ_INT(ok_pool_run_end(p), OK_OK);

    /* run: both outputs preallocated, onnxruntime fails */
    int64_t seven[1] = {7};
    CHECK_EQ_INT(ok_pool_run_begin(p), OK_OK);
    CHECK_EQ_INT(ok_pool_feed(p, 0, GPU, F32, seven, 1, 28), OK_OK);
    CHECK_EQ_INT(ok_pool_output_auto(p, 0, GPU), OK_OK);
    CHECK_EQ_INT(op_of(p, 0), OK_POOL_CREATE);
    uint32_t h0 = ok_pool_pinned(p, OK_SLOT_OUTPUT, 0);
    CHECK_EQ_INT(ok_pool_output_auto(p, 1, GPU), OK_OK);
    CHECK_EQ_INT(op_of(p, 0), OK_POOL_CREATE);
    CHECK_EQ_INT(ok_pool_run_failed(p, &retry), OK_OK);
    CHECK_EQ_INT(retry, 1);
    CHECK_EQ_INT(ok_pool_action_count(p), 0); /* nothing destroyed inside the run */
    CHECK_EQ_INT(ok_pool_pinned(p, OK_SLOT_OUTPUT, 0), 0);
    CHECK_EQ_INT(ok_pool_pinned(p, OK_SLOT_OUTPUT, 1), 0);
    /* the retry: neither is planned; a second failure is the caller's */
    CHECK_EQ_INT(ok_pool_output_auto(p, 0, GPU), OK_OK);
    CHECK_EQ_INT(ok_pool_action_count(p), 0);
    CHECK_EQ_INT(ok_pool_output_auto(p, 1, GPU), OK_OK);
    CHECK_EQ_INT(ok_pool_action_count(p), 0);
    CHECK_EQ_INT(ok_pool_run_failed(p, &retry), OK_OK);
    CHECK_EQ_INT(retry, 0);
    /* onnxruntime's truth this time: output 0 is [7] as declared, output 1 is [5] */
    int64_t five[1] = {5};
    CHECK_EQ_INT(ok_pool_adopt(p, 0, GPU, F32, seven, 1, 0), OK_OK);
    CHECK_EQ_INT(op_of(p, 0), OK_POOL_ADOPT);
    CHECK_EQ_INT(ok_pool_adopt(p, 1, GPU, F32, five, 1, 0), OK_OK);
    CHECK_EQ_INT(ok_pool_run_end(p), OK_OK);
    CHECK(ok_pool_pinned(p, OK_SLOT_OUTPUT, 0) != h0);
    CHECK_EQ_INT(ok_pool_check(p), OK_OK);
    CHECK_EQ_INT((int)ok_pool_stats(p, GPU)[OK_STAT_RETRIES], 1);
    CHECK_EQ_INT((int)ok_pool_stats(p, GPU)[OK_STAT_DISTRUSTED], 1);

    /* settled: output 0 planned again, output 1 adopted from now on */
    CHECK(ok_pool_output_declared(p, 0));
    CHECK(!ok_pool_output_declared(p, 1));
    CHECK_EQ_INT(ok_pool_run_begin(p), OK_OK);
    CHECK_EQ_INT(ok_pool_feed(p, 0, GPU, F32, seven, 1, 28), OK_OK);
    CHECK_EQ_INT(ok_pool_output_auto(p, 0, GPU), OK_OK);
    CHECK_EQ_INT(ok_pool_action_count(p), 1);
    CHECK_EQ_INT(ok_pool_output_auto(p, 1, GPU), OK_OK);
    CHECK_EQ_INT(ok_pool_action_count(p), 0);
    CHECK_EQ_INT(ok_pool_run_end(p), OK_OK);
    CHECK_EQ_INT(ok_pool_check(p), OK_OK);
    CHECK_EQ_INT(ok_pool_destroy(p), OK_OK);
    ok_pool_free(p);
}

static void test_device_failed(void) {
    ok_pool *p = ok_pool_create(1 << 20, 2, 2);
    if (!p) {
        CHECK(0);
        return;
    }
    int64_t four[1] = {4};
    /* a run binds two inputs and two outputs; output 1 is kept */
    CHECK_EQ_INT(ok_pool_run_begin(p), OK_OK);
    CHECK_EQ_INT(ok_pool_feed(p, 0, GPU, F32, four, 1, 16), OK_OK);
    CHECK_EQ_INT(ok_pool_bind_external(p, OK_SLOT_INPUT, 1, GPU, F32, four, 1), OK_OK);
    CHECK_EQ_INT(ok_pool_output(p, 0, GPU, F32, four, 1), OK_OK);
    CHECK_EQ_INT(ok_pool_output(p, 1, GPU, F32, four, 1), OK_OK);
    uint32_t kept = ok_pool_pinned(p, OK_SLOT_OUTPUT, 1);
    CHECK_EQ_INT(ok_pool_keep(p, 1), OK_OK);
    CHECK_EQ_INT(ok_pool_run_end(p), OK_OK);
    /* the next run's device work fails */
    CHECK_EQ_INT(ok_pool_run_begin(p), OK_OK);
    CHECK_EQ_INT(ok_pool_feed(p, 0, GPU, F32, four, 1, 16), OK_OK);
    CHECK_EQ_INT(ok_pool_output(p, 0, GPU, F32, four, 1), OK_OK);
    CHECK_EQ_INT(ok_pool_device_failed(p), OK_OK);
    uint32_t n = ok_pool_action_count(p), destroys = 0, forgets = 0;
    for (uint32_t k = 0; k < n; k++) {
        destroys += op_of(p, k) == OK_POOL_DESTROY;
        forgets += op_of(p, k) == OK_POOL_FORGET;
    }
    CHECK_EQ_INT(destroys, 2); /* input 0, output 0; not the kept one */
    CHECK_EQ_INT(forgets, 1);  /* the caller's input */
    CHECK_EQ_INT(ok_pool_pinned(p, OK_SLOT_INPUT, 0), 0);
    CHECK_EQ_INT(ok_pool_run_end(p), OK_OK);
    CHECK_EQ_INT((int)ok_pool_stats(p, GPU)[OK_STAT_LIVE_TENSORS], 1);
    CHECK_EQ_INT(ok_pool_check(p), OK_OK);
    /* and the next run starts afresh */
    CHECK_EQ_INT(ok_pool_run_begin(p), OK_OK);
    CHECK_EQ_INT(ok_pool_feed(p, 0, GPU, F32, four, 1, 16), OK_OK);
    CHECK_EQ_INT(op_of(p, 0), OK_POOL_CREATE);
    CHECK_EQ_INT(ok_pool_run_end(p), OK_OK);
    CHECK_EQ_INT(ok_pool_release(p, kept), OK_OK);
    CHECK_EQ_INT(ok_pool_check(p), OK_OK);
    CHECK_EQ_INT(ok_pool_destroy(p), OK_OK);
    ok_pool_free(p);
}

/* A decoder step: past [1, T, 8] in, present [1, T1, 8] out, T1 bound by no
 * input. The pool learns T1 = T + 1 from two results, then preallocates it
 * with headroom: 64 tokens make only a handful of tensors. */
static void test_kv_growth(void) {
    ok_pool *p = ok_pool_create(1 << 24, 1, 1);
    if (!p) {
        CHECK(0);
        return;
    }
    int64_t past[3] = {1, SYM(0), 8}, present[3] = {1, SYM(1), 8};
    CHECK_EQ_INT(ok_pool_declare(p, OK_SLOT_INPUT, 0, F32, 3, past), OK_OK);
    CHECK_EQ_INT(ok_pool_declare(p, OK_SLOT_OUTPUT, 0, F32, 3, present), OK_OK);
    int creates_after_warmup = 0, adopted = 0;
    for (int64_t t = 1; t <= 64; t++) {
        int64_t in[3] = {1, t, 8}, out[3] = {1, t + 1, 8};
        CHECK_EQ_INT(ok_pool_run_begin(p), OK_OK);
        CHECK_EQ_INT(ok_pool_feed(p, 0, GPU, F32, in, 3, (uint64_t)t * 32), OK_OK);
        CHECK_EQ_INT(ok_pool_output_auto(p, 0, GPU), OK_OK);
        if (ok_pool_action_count(p) == 0) {
            adopted++;
            CHECK_EQ_INT(ok_pool_adopt(p, 0, GPU, F32, out, 3, 0), OK_OK);
        } else {
            uint32_t h = ok_pool_pinned(p, OK_SLOT_OUTPUT, 0);
            int64_t got[3];
            CHECK_EQ_INT(ok_pool_tensor_dims(p, h, got, 3), 3);
            CHECK(got[1] == t + 1);
            for (uint32_t k = 0; k < ok_pool_action_count(p); k++)
                creates_after_warmup += t > 2 && op_of(p, k) == OK_POOL_CREATE;
        }
        CHECK_EQ_INT(ok_pool_run_end(p), OK_OK);
        CHECK_EQ_INT(ok_pool_check(p), OK_OK);
    }
    CHECK_EQ_INT(adopted, 2); /* seen once, held on the second: planned from the third */
    CHECK(creates_after_warmup <= 64 / 16);
    printf("# 64 KV steps: %d adopted, %d tensors created after warm-up\n", adopted, creates_after_warmup);
    /* a misprediction (T jumps) is the retry's: the relation is learned anew */
    int64_t in[3] = {1, 10, 8}, out[3] = {1, 20, 8};
    CHECK_EQ_INT(ok_pool_run_begin(p), OK_OK);
    CHECK_EQ_INT(ok_pool_feed(p, 0, GPU, F32, in, 3, 320), OK_OK);
    CHECK_EQ_INT(ok_pool_output_auto(p, 0, GPU), OK_OK);
    CHECK_EQ_INT(ok_pool_action_count(p) > 0, 1);
    int retry = 0;
    CHECK_EQ_INT(ok_pool_run_failed(p, &retry), OK_OK);
    CHECK_EQ_INT(retry, 1);
    CHECK_EQ_INT(ok_pool_output_auto(p, 0, GPU), OK_OK);
    CHECK_EQ_INT(ok_pool_action_count(p), 0);
    CHECK_EQ_INT(ok_pool_adopt(p, 0, GPU, F32, out, 3, 0), OK_OK);
    CHECK_EQ_INT(ok_pool_run_end(p), OK_OK);
    CHECK_EQ_INT((int)ok_pool_stats(p, GPU)[OK_STAT_DISTRUSTED],
                 0); /* a symbol: nothing declared was wrong */
    CHECK_EQ_INT(ok_pool_check(p), OK_OK);
    CHECK_EQ_INT(ok_pool_destroy(p), OK_OK);
    ok_pool_free(p);
}

/* A slot's input goes GPU [5], CPU (a placement trial), GPU [3]: the GPU
 * tensor onnxruntime-web registered at [5] must not come back at [3]. */
static void test_rebind_across_cpu(void) {
    ok_pool *p = ok_pool_create(1 << 20, 1, 0);
    if (!p) {
        CHECK(0);
        return;
    }
    int64_t five[1] = {5}, three[1] = {3};
    CHECK_EQ_INT(ok_pool_run_begin(p), OK_OK);
    CHECK_EQ_INT(ok_pool_feed(p, 0, GPU, F32, five, 1, 20), OK_OK);
    uint32_t gpu5 = ok_pool_pinned(p, OK_SLOT_INPUT, 0);
    CHECK_EQ_INT(ok_pool_run_end(p), OK_OK);
    CHECK_EQ_INT(ok_pool_run_begin(p), OK_OK);
    CHECK_EQ_INT(ok_pool_feed(p, 0, CPU, F32, five, 1, 20), OK_OK);
    CHECK_EQ_INT(ok_pool_run_end(p), OK_OK);
    CHECK_EQ_INT(ok_pool_run_begin(p), OK_OK);
    CHECK_EQ_INT(ok_pool_feed(p, 0, GPU, F32, three, 1, 12), OK_OK);
    CHECK(ok_pool_pinned(p, OK_SLOT_INPUT, 0) != gpu5);
    CHECK_EQ_INT(ok_pool_run_end(p), OK_OK);
    CHECK_EQ_INT(ok_pool_check(p), OK_OK);
    CHECK_EQ_INT(ok_pool_destroy(p), OK_OK);
    ok_pool_free(p);
}

static void test_result(void) {
    ok_pool *p = ok_pool_create(1 << 20, 0, 1);
    if (!p) {
        CHECK(0);
        return;
    }
    int64_t two[1] = {2};
    CHECK_EQ_INT(ok_pool_run_begin(p), OK_OK);
    CHECK_EQ_INT(ok_pool_result(p, 0, CPU, F32, two, 1, 8, 0), OK_OK);
    CHECK_EQ_INT(ok_pool_action_count(p), 0); /* the caller's as it is */
    CHECK_EQ_INT(ok_pool_result(p, 0, CPU, F32, two, 1, 8, 1), OK_OK);
    CHECK_EQ_INT(op_of(p, 0), OK_POOL_ADOPT); /* kept */
    CHECK_EQ_INT(ok_pool_result(p, 0, GPU, F32, two, 1, 256, 0), OK_OK);
    CHECK_EQ_INT(op_of(p, 0), OK_POOL_ADOPT); /* on the device */
    CHECK_EQ_INT(ok_pool_result(p, 1, GPU, F32, two, 1, 256, 0), OK_ERR_INVALID_ARG);
    CHECK_EQ_INT(ok_pool_run_end(p), OK_OK);
    CHECK_EQ_INT(ok_pool_check(p), OK_OK);
    CHECK_EQ_INT(ok_pool_destroy(p), OK_OK);
    ok_pool_free(p);
}

static void test_placement_verdict(void) {
    /* DEVICE slower: CPU wins; then it stays */
    ok_pool *p = ok_pool_create(0, 1, 1);
    if (!p) {
        CHECK(0);
        return;
    }
    CHECK_EQ_INT(ok_pool_placement_next(p), OK_PLACE_DEVICE);
    CHECK_EQ_INT(ok_pool_placement_report(p, OK_PLACE_DEVICE, 900000, 0), OK_OK); /* warm-up: not timed */
    CHECK_EQ_INT(ok_pool_placement_report(p, OK_PLACE_DEVICE, 900000, 0), OK_OK);
    uint32_t cpu_us[] = {1000, 1100, 1050}, dev_us[] = {1200, 900, 1300};
    for (int k = 0; k < 3; k++) {
        CHECK_EQ_INT(ok_pool_placement_next(p), OK_PLACE_CPU);
        CHECK_EQ_INT(ok_pool_placement_report(p, OK_PLACE_CPU, cpu_us[k], 0), OK_OK);
        CHECK_EQ_INT((int)ok_pool_stats(p, GPU)[OK_STAT_PLACEMENT], OK_PLACE_UNDECIDED);
        CHECK_EQ_INT(ok_pool_placement_next(p), OK_PLACE_DEVICE);
        CHECK_EQ_INT(ok_pool_placement_report(p, OK_PLACE_DEVICE, dev_us[k], 0), OK_OK);
    }
    CHECK_EQ_INT(ok_pool_placement_next(p), OK_PLACE_CPU); /* median 1200 vs 1050 */
    CHECK_EQ_INT((int)ok_pool_stats(p, GPU)[OK_STAT_PLACEMENT], OK_PLACE_CPU);
    CHECK_EQ_INT(ok_pool_placement_report(p, OK_PLACE_CPU, 1, 1), OK_OK); /* decided: stays */
    CHECK_EQ_INT(ok_pool_placement_next(p), OK_PLACE_CPU);
    CHECK_EQ_INT(ok_pool_placement_report(p, 7, 1, 0), OK_ERR_INVALID_ARG);
    CHECK_EQ_INT(ok_pool_destroy(p), OK_OK);
    ok_pool_free(p);
    /* a chained run decides DEVICE at once */
    p = ok_pool_create(0, 1, 1);
    if (!p) {
        CHECK(0);
        return;
    }
    CHECK_EQ_INT(ok_pool_placement_report(p, OK_PLACE_DEVICE, 5, 1), OK_OK);
    CHECK_EQ_INT(ok_pool_placement_next(p), OK_PLACE_DEVICE);
    CHECK_EQ_INT((int)ok_pool_stats(p, CPU)[OK_STAT_PLACEMENT], OK_PLACE_DEVICE);
    CHECK_EQ_INT(ok_pool_destroy(p), OK_OK);
    ok_pool_free(p);
    /* the caller's choice settles it too */
    p = ok_pool_create(0, 1, 1);
    if (!p) {
        CHECK(0);
        return;
    }
    CHECK_EQ_INT(ok_pool_placement_report(p, OK_PLACE_CPU, 0, 1), OK_OK);
    CHECK_EQ_INT(ok_pool_placement_next(p), OK_PLACE_CPU);
    CHECK_EQ_INT(ok_pool_destroy(p), OK_OK);
    ok_pool_free(p);
}

/* Reports a whole measurement: 2 warm-up runs, then 3 timed runs of each. */
static void measure(ok_pool *p, const uint32_t *cpu_us, const uint32_t *dev_us) {
    for (int k = 0; k < OK_PLACE_WARMUP; k++)
        CHECK_EQ_INT(ok_pool_placement_report(p, OK_PLACE_DEVICE, 1, 0), OK_OK);
    for (int k = 0; k < OK_PLACE_TRIALS; k++) {
        CHECK_EQ_INT(ok_pool_placement_report(p, OK_PLACE_CPU, cpu_us[k], 0), OK_OK);
        CHECK_EQ_INT(ok_pool_placement_report(p, OK_PLACE_DEVICE, dev_us[k], 0), OK_OK);
    }
}

/* A pool of one input and one output with no budget: placement only. */
static ok_pool *one_slot_pool(void) {
    ok_pool *p = ok_pool_create(0, 1, 1);
    CHECK(p != NULL);
    return p;
}

static void test_placement_adapter(void) {
    uint32_t slow[] = {1200, 900, 1300}, fast[] = {1000, 1100, 1050};
    /* a hardware adapter: DEVICE from the first run, whatever the first runs' times say */
    ok_pool *p = one_slot_pool();
    if (!p) return;
    CHECK_EQ_INT(ok_pool_placement_adapter(p, OK_ADAPTER_HARDWARE), OK_OK);
    CHECK_EQ_INT(ok_pool_placement_next(p), OK_PLACE_DEVICE);
    CHECK_EQ_INT((int)ok_pool_stats(p, GPU)[OK_STAT_PLACEMENT], OK_PLACE_DEVICE);
    measure(p, fast, slow); /* noisy first runs that favour the CPU: no flip */
    CHECK_EQ_INT(ok_pool_placement_next(p), OK_PLACE_DEVICE);
    CHECK_EQ_INT(ok_pool_placement_adapter(p, 9), OK_ERR_INVALID_ARG);
    ok_pool_free(p);
    /* a fallback adapter (SwiftShader): measured; the CPU faster: CPU */
    if (!(p = one_slot_pool())) return;
    CHECK_EQ_INT(ok_pool_placement_adapter(p, OK_ADAPTER_FALLBACK), OK_OK);
    CHECK_EQ_INT((int)ok_pool_stats(p, GPU)[OK_STAT_PLACEMENT], OK_PLACE_UNDECIDED);
    measure(p, fast, slow);
    CHECK_EQ_INT(ok_pool_placement_next(p), OK_PLACE_CPU);
    /* decided: later runs whose times say the opposite change nothing */
    measure(p, slow, fast);
    CHECK_EQ_INT(ok_pool_placement_next(p), OK_PLACE_CPU);
    ok_pool_free(p);
    /* a fallback adapter, the device faster: DEVICE */
    if (!(p = one_slot_pool())) return;
    CHECK_EQ_INT(ok_pool_placement_adapter(p, OK_ADAPTER_FALLBACK), OK_OK);
    measure(p, slow, fast);
    CHECK_EQ_INT(ok_pool_placement_next(p), OK_PLACE_DEVICE);
    ok_pool_free(p);
    /* the caller's CPU stands on a hardware adapter */
    if (!(p = one_slot_pool())) return;
    CHECK_EQ_INT(ok_pool_placement_report(p, OK_PLACE_CPU, 0, 1), OK_OK);
    CHECK_EQ_INT(ok_pool_placement_adapter(p, OK_ADAPTER_HARDWARE), OK_OK);
    CHECK_EQ_INT(ok_pool_placement_next(p), OK_PLACE_CPU);
    ok_pool_free(p);
    CHECK_EQ_INT(ok_pool_placement_adapter(NULL, OK_ADAPTER_HARDWARE), OK_ERR_INVALID_ARG);
}

/* One run of a model whose output 0 has no plannable dims, kept on the
 * device: planned by the pool (1), or returned on the CPU and moved to the
 * device by the caller (0). `fail`: onnxruntime refuses the planned output. */
static int kept_run(ok_pool *p, int fail, uint32_t *held) {
    int64_t state[3] = {2, 1, 128};
    CHECK_EQ_INT(ok_pool_run_begin(p), OK_OK);
    CHECK_EQ_INT(ok_pool_output_auto(p, 0, GPU), OK_OK);
    int plan = ok_pool_pinned(p, OK_SLOT_OUTPUT, 0) != 0 && ok_pool_action_count(p) > 0;
    if (plan && fail) {
        int retry = 0;
        CHECK_EQ_INT(ok_pool_run_failed(p, &retry), OK_OK);
        CHECK_EQ_INT(retry, 1);
        plan = 0;
    }
    if (!plan) CHECK_EQ_INT(ok_pool_output(p, 0, GPU, F32, state, 3), OK_OK); /* the CPU result moved */
    uint32_t h = ok_pool_pinned(p, OK_SLOT_OUTPUT, 0);
    CHECK(h != 0);
    CHECK_EQ_INT(ok_pool_keep(p, 0), OK_OK);
    CHECK_EQ_INT(ok_pool_run_end(p), OK_OK);
    if (*held) CHECK_EQ_INT(ok_pool_release(p, *held), OK_OK); /* the caller drops last run's */
    *held = h;
    return plan;
}

/* A pool of one output whose rank the model leaves unknown. */
static ok_pool *unknown_output_pool(void) {
    ok_pool *p = ok_pool_create(1 << 20, 0, 1);
    CHECK(p != NULL);
    if (p) CHECK_EQ_INT(ok_pool_declare(p, OK_SLOT_OUTPUT, 0, F32, -1, NULL), OK_OK);
    return p;
}

static void test_kept_unknown_dims(void) {
    ok_pool *p = unknown_output_pool();
    if (!p) return;
    uint32_t held = 0;
    CHECK_EQ_INT(kept_run(p, 0, &held), 0); /* nothing known yet */
    CHECK_EQ_INT(kept_run(p, 0, &held), 1); /* last run's dims */
    CHECK_EQ_INT(kept_run(p, 0, &held), 1); /* a guess that held holds on */
    CHECK_EQ_INT(kept_run(p, 1, &held), 0); /* refused once ... */
    CHECK_EQ_INT(kept_run(p, 0, &held), 0); /* ... never guessed again */
    CHECK_EQ_INT(kept_run(p, 0, &held), 0);
    CHECK_EQ_INT(ok_pool_check(p), OK_OK);
    ok_pool_free(p);
    /* a run that did not keep it breaks the chain */
    if (!(p = unknown_output_pool())) return;
    held = 0;
    CHECK_EQ_INT(kept_run(p, 0, &held), 0);
    CHECK_EQ_INT(ok_pool_run_begin(p), OK_OK);
    CHECK_EQ_INT(ok_pool_run_end(p), OK_OK);
    CHECK_EQ_INT(kept_run(p, 0, &held), 0);
    CHECK_EQ_INT(kept_run(p, 0, &held), 1);
    ok_pool_free(p);
    /* a result that contradicts the declaration (rank 3, came back rank 2):
     * moved to the device all the same, the declaration distrusted */
    p = ok_pool_create(1 << 20, 0, 1);
    if (!p) {
        CHECK(0);
        return;
    }
    int64_t decl[3] = {2, 1, UNK}, got[2] = {2, 128};
    CHECK_EQ_INT(ok_pool_declare(p, OK_SLOT_OUTPUT, 0, F32, 3, decl), OK_OK);
    CHECK_EQ_INT(ok_pool_run_begin(p), OK_OK);
    CHECK_EQ_INT(ok_pool_output_auto(p, 0, GPU), OK_OK);
    CHECK_EQ_INT(ok_pool_output(p, 0, GPU, F32, got, 2), OK_OK);
    CHECK_EQ_INT(ok_pool_keep(p, 0), OK_OK);
    CHECK_EQ_INT(ok_pool_run_end(p), OK_OK);
    CHECK_EQ_INT((int)ok_pool_stats(p, GPU)[OK_STAT_DISTRUSTED], 1);
    ok_pool_free(p);
}

/* A run on the CPU backend that keeps nothing and binds nothing on a
 * device steps aside (counted, no action, no tensor); the feed check makes
 * ok_pool_feed's refusals with nothing placed. */
static void test_pass_through(void) {
    ok_pool *p = ok_pool_create(1 << 20, 2, 1);
    if (!p) {
        CHECK(0);
        return;
    }
    int64_t decl[2] = {1, SYM(0)}, ok_dims[2] = {1, 5}, bad_dim[2] = {2, 5}, neg[2] = {1, -1};
    CHECK_EQ_INT(ok_pool_declare(p, OK_SLOT_INPUT, 0, F32, 2, decl), OK_OK);
    CHECK_EQ_INT(ok_pool_pass_through(p, CPU, 0, 0, 0), 1);
    CHECK_EQ_INT(ok_pool_pass_through(p, CPU, 0, 0, 0), 1);
    CHECK_EQ_INT(ok_pool_pass_through(p, CPU, 1, 0, 0), 0); /* keeps an output */
    CHECK_EQ_INT(ok_pool_pass_through(p, CPU, 0, 1, 0), 0); /* a device tensor fed */
    CHECK_EQ_INT(ok_pool_pass_through(p, GPU, 0, 0, 0), 0); /* a device session */
    CHECK_EQ_INT(ok_pool_pass_through(p, OK_BACKEND_WEBNN, 0, 0, 0), 0);
    CHECK_EQ_INT(ok_pool_pass_through(NULL, CPU, 0, 0, 0), 0);
    /* the runtime takes the CPU inputs' buffers (a proxy worker): nothing kept is the pool's */
    CHECK_EQ_INT(ok_pool_pass_through(p, CPU, 1, 0, 1), 1);
    CHECK_EQ_INT(ok_pool_pass_through(p, CPU, 0, 1, 1), 0); /* a device tensor fed */
    CHECK_EQ_INT(ok_pool_pass_through(p, GPU, 1, 0, 1), 0);
    CHECK_EQ_INT((int)ok_pool_stats(p, CPU)[OK_STAT_PASSES], 3);
    CHECK_EQ_INT((int)ok_pool_stats(p, GPU)[OK_STAT_PASSES], 0);

    CHECK_EQ_INT(ok_pool_check_feed(p, 0, F32, ok_dims, 2, 20), OK_OK);
    CHECK_EQ_INT(ok_pool_refusal(p)[OK_POOL_RW_REASON], OK_REFUSE_NONE);
    CHECK_EQ_INT(ok_pool_check_feed(p, 0, F32, bad_dim, 2, 40), OK_ERR_SHAPE);
    CHECK_EQ_INT(ok_pool_refusal(p)[OK_POOL_RW_REASON], OK_REFUSE_DIM);
    CHECK_EQ_INT(ok_pool_refusal(p)[OK_POOL_RW_DIM], 0);
    CHECK_EQ_INT(ok_pool_check_feed(p, 0, F32, ok_dims, 2, 16), OK_ERR_SHAPE);
    CHECK_EQ_INT(ok_pool_refusal(p)[OK_POOL_RW_REASON], OK_REFUSE_DATA);
    CHECK_EQ_INT(ok_pool_refusal(p)[OK_POOL_RW_EXPECTED_LO], 20);
    CHECK_EQ_INT(ok_pool_check_feed(p, 0, 7, ok_dims, 2, 40), OK_ERR_SHAPE);
    CHECK_EQ_INT(ok_pool_refusal(p)[OK_POOL_RW_REASON], OK_REFUSE_DTYPE);
    CHECK_EQ_INT(ok_pool_check_feed(p, 0, F32, ok_dims, 1, 4), OK_ERR_SHAPE);
    CHECK_EQ_INT(ok_pool_refusal(p)[OK_POOL_RW_REASON], OK_REFUSE_RANK);
    CHECK_EQ_INT(ok_pool_check_feed(p, 0, F32, neg, 2, 0), OK_ERR_INVALID_ARG);
    CHECK_EQ_INT(ok_pool_refusal(p)[OK_POOL_RW_REASON], OK_REFUSE_NEGATIVE);
    CHECK_EQ_INT(ok_pool_check_feed(p, 2, F32, ok_dims, 2, 20), OK_ERR_INVALID_ARG);
    /* input 1 is undeclared: any dtype and dims of the right size */
    CHECK_EQ_INT(ok_pool_check_feed(p, 1, 7, ok_dims, 2, 40), OK_OK);
    CHECK_EQ_INT(ok_pool_check_feed(p, 1, 8, ok_dims, 2, 0), OK_ERR_INVALID_ARG); /* string: no size */

    /* nothing placed, nothing to do */
    CHECK_EQ_INT(ok_pool_action_count(p), 0);
    CHECK_EQ_INT((int)ok_pool_stats(p, CPU)[OK_STAT_CREATES], 0);
    CHECK_EQ_INT((int)ok_pool_stats(p, CPU)[OK_STAT_LIVE_TENSORS], 0);
    CHECK_EQ_INT(ok_pool_pinned(p, OK_SLOT_INPUT, 0), 0);
    CHECK_EQ_INT(ok_pool_check(p), OK_OK);

    /* the same refusals as ok_pool_feed */
    CHECK_EQ_INT(ok_pool_run_begin(p), OK_OK);
    CHECK_EQ_INT(ok_pool_feed(p, 0, CPU, F32, bad_dim, 2, 40), OK_ERR_SHAPE);
    CHECK_EQ_INT(ok_pool_refusal(p)[OK_POOL_RW_REASON], OK_REFUSE_DIM);
    CHECK_EQ_INT(ok_pool_feed(p, 0, CPU, F32, ok_dims, 2, 16), OK_ERR_SHAPE);
    CHECK_EQ_INT(ok_pool_refusal(p)[OK_POOL_RW_REASON], OK_REFUSE_DATA);
    CHECK_EQ_INT(ok_pool_run_end(p), OK_OK);

    CHECK_EQ_INT(ok_pool_destroy(p), OK_OK);
    CHECK_EQ_INT(ok_pool_pass_through(p, CPU, 0, 0, 0), 0); /* disposed */
    CHECK_EQ_INT(ok_pool_check_feed(p, 0, F32, ok_dims, 2, 20), OK_ERR_STATE);
    ok_pool_free(p);
}

static void test_device_verdict(void) {
    /* wanted, available, named by the caller, falls back to a CPU provider */
    CHECK_EQ_INT(ok_pool_device_verdict(CPU, 0, 0, 0), CPU);
    CHECK_EQ_INT(ok_pool_device_verdict(GPU, 1, 0, 0), GPU);
    CHECK_EQ_INT(ok_pool_device_verdict(GPU, 0, 0, 1), CPU);
    CHECK_EQ_INT(ok_pool_device_verdict(GPU, 0, 1, 1), -1);
    CHECK_EQ_INT(ok_pool_device_verdict(GPU, 0, 0, 0), -1);
    CHECK_EQ_INT(ok_pool_device_verdict(OK_BACKEND_WEBNN, 0, 0, 1), CPU);
    CHECK_EQ_INT(ok_pool_device_verdict(OK_BACKEND_WEBNN, 1, 1, 0), OK_BACKEND_WEBNN);
    CHECK_EQ_INT(ok_pool_device_verdict(3, 1, 0, 0), -1);
    CHECK_EQ_INT(ok_pool_device_verdict(-1, 1, 0, 0), -1);
}

int main(void) {
    test_runtime_declarations();
    test_failed_run_retry();
    test_device_failed();
    test_kv_growth();
    test_rebind_across_cpu();
    test_result();
    test_placement_verdict();
    test_placement_adapter();
    test_kept_unknown_dims();
    test_device_verdict();
    test_pass_through();
    return CHECK_DONE();
}
