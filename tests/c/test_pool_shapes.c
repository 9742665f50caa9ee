/* Tensor pool shapes in C: fixed dims and byte sizes checked with a reason,
 * symbols bound per run from the inputs, outputs planned only when fully
 * known, a re-bind on a size change, inputs with no dims, and where small
 * inputs are placed; every action list applied by the shadow JS side
 * (support/pool_shadow.h). */
#include <stdint.h>

#include "check.h"
#include "pool_shadow.h"
#include "tensor_pool.h"

static void check_refusal(ok_pool *p, uint32_t reason, uint32_t index, uint32_t dim, int64_t expected,
                          int64_t got) {
    const uint32_t *r = ok_pool_refusal(p);
    CHECK_EQ_INT(r[0], reason);
    CHECK_EQ_INT(r[2], index);
    CHECK_EQ_INT(r[3], dim);
    CHECK_EQ_INT((int64_t)((uint64_t)r[4] | (uint64_t)r[5] << 32), expected);
    CHECK_EQ_INT((int64_t)((uint64_t)r[6] | (uint64_t)r[7] << 32), got);
}

static int slot_action(ok_pool *p) {
    uint32_t n;
    const uint32_t *a = ok_pool_actions(p, &n);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t op = a[i * OK_POOL_ACTION_WORDS];
        if (op == OK_POOL_CREATE || op == OK_POOL_REUSE || op == OK_POOL_TAKE) return (int)op;
    }
    return 0;
}

/* Shapes in C: fixed dims and byte sizes checked with a reason, symbols bound
 * per run from the inputs, outputs planned only when fully known. */
static void test_shapes(void) {
    /* inputs: x [batch, seq, 4] f32, mask [batch, seq] i64; outputs: y [batch, seq, 4]
     * (symbols), idx [2, ?] (NonZero-like), z [unknown rank], w [batch, k] (k unnamed) */
    shadow *s = sh_new(1 << 20, 2, 4);
    if (!s) {
        CHECK(0);
        return;
    }
    ok_pool *p = s->p;
    const int64_t B = OK_POOL_DIM_SYMBOL(0), S = OK_POOL_DIM_SYMBOL(1), K = OK_POOL_DIM_SYMBOL(2);
    int64_t x[] = {B, S, 4}, mask[] = {B, S}, y[] = {B, S, 4}, idx[] = {2, OK_POOL_DIM_UNKNOWN}, w[] = {B, K},
            ort_unknown[] = {4294967295LL, 3};
    CHECK_EQ_INT(ok_pool_declare(p, OK_SLOT_INPUT, 0, F32, 3, x), OK_OK);
    CHECK_EQ_INT(ok_pool_declare(p, OK_SLOT_INPUT, 1, I64, 2, mask), OK_OK);
    CHECK_EQ_INT(ok_pool_declare(p, OK_SLOT_OUTPUT, 0, F32, 3, y), OK_OK);
    CHECK_EQ_INT(ok_pool_declare(p, OK_SLOT_OUTPUT, 1, I64, 2, idx), OK_OK);
    CHECK_EQ_INT(ok_pool_declare(p, OK_SLOT_OUTPUT, 2, F32, -1, NULL), OK_OK);
    CHECK_EQ_INT(ok_pool_declare(p, OK_SLOT_OUTPUT, 3, F32, 2, w), OK_OK);
    CHECK_EQ_INT(ok_pool_output_declared(p, 0), 1);
    CHECK_EQ_INT(ok_pool_output_declared(p, 1), 0);
    CHECK_EQ_INT(ok_pool_output_declared(p, 2), 0);
    CHECK_EQ_INT(ok_pool_output_declared(p, 3), 1); /* declared, though no input names k */
    CHECK_EQ_INT(ok_pool_output_declared(p, 9), 0);
    /* onnxruntime-web's 4294967295 is an unknown dim, never a size */
    CHECK_EQ_INT(ok_pool_declare(p, OK_SLOT_OUTPUT, 3, F32, 2, ort_unknown), OK_OK);
    CHECK_EQ_INT(ok_pool_output_declared(p, 3), 0);
    CHECK_EQ_INT(ok_pool_declare(p, OK_SLOT_OUTPUT, 3, F32, 2, w), OK_OK);

    for (int64_t seq = 3; seq <= 5; seq++) {
        int64_t xd[] = {2, seq, 4}, md[] = {2, seq};
        CHECK_EQ_INT(ok_pool_run_begin(p), OK_OK);
        sh_apply(s);
        CHECK_EQ_INT(ok_pool_feed(p, 0, GPU, F32, xd, 3, (uint64_t)(2 * seq * 4 * 4)), OK_OK);
        sh_apply(s);
        CHECK_EQ_INT(ok_pool_input(p, 1, GPU, I64, md, 2), OK_OK);
        sh_apply(s);
        CHECK_EQ_INT(ok_pool_output_auto(p, 0, GPU), OK_OK);
        sh_apply(s);
        CHECK(slot_action(p) != 0); /* planned: [2, seq, 4] */
        int64_t got[OK_POOL_MAX_RANK];
        CHECK_EQ_INT(ok_pool_tensor_dims(p, ok_pool_pinned(p, OK_SLOT_OUTPUT, 0), got, OK_POOL_MAX_RANK), 3);
        CHECK_EQ_INT(got[0], 2);
        CHECK_EQ_INT(got[1], seq);
        CHECK_EQ_INT(got[2], 4);
        CHECK_EQ_INT(ok_pool_handle_bytes(p, ok_pool_pinned(p, OK_SLOT_OUTPUT, 0)), (uint64_t)(2 * seq * 16));
        CHECK_EQ_INT(ok_pool_handle_dtype(p, ok_pool_pinned(p, OK_SLOT_OUTPUT, 0)), F32);
        for (uint32_t j = 1; j < 4; j++) { /* not planned: no action, adopt */
            CHECK_EQ_INT(ok_pool_output_auto(p, j, GPU), OK_OK);
            CHECK_EQ_INT(ok_pool_action_count(p), 0);
        }
        int64_t nz[] = {2, seq + 1}; /* value-dependent: whatever onnxruntime made */
        CHECK_EQ_INT(ok_pool_adopt(p, 1, GPU, I64, nz, 2, 0), OK_OK);
        sh_apply(s);
        CHECK_EQ_INT(ok_pool_run_end(p), OK_OK);
        sh_apply(s);
        CHECK_EQ_INT(ok_pool_check(p), OK_OK);
    }
    /* the same shape again: everything in place */
    {
        int64_t xd[] = {2, 5, 4};
        CHECK_EQ_INT(ok_pool_run_begin(p), OK_OK);
        sh_apply(s);
        CHECK_EQ_INT(ok_pool_input(p, 0, GPU, F32, xd, 3), OK_OK);
        sh_apply(s);
        CHECK_EQ_INT(slot_action(p), OK_POOL_REUSE);
        CHECK_EQ_INT(ok_pool_output_auto(p, 0, GPU), OK_OK);
        sh_apply(s);
        CHECK_EQ_INT(slot_action(p), OK_POOL_REUSE);
        CHECK_EQ_INT(ok_pool_run_end(p), OK_OK);
        sh_apply(s);
    }
    /* symbols are per run: a run whose inputs bound nothing plans nothing */
    CHECK_EQ_INT(ok_pool_run_begin(p), OK_OK);
    sh_apply(s);
    CHECK_EQ_INT(ok_pool_output_auto(p, 0, GPU), OK_OK);
    CHECK_EQ_INT(ok_pool_action_count(p), 0);
    /* two inputs binding batch differently: unbound, adopt */
    {
        int64_t xd[] = {2, 5, 4}, md[] = {3, 5};
        CHECK_EQ_INT(ok_pool_input(p, 0, GPU, F32, xd, 3), OK_OK);
        sh_apply(s);
        CHECK_EQ_INT(ok_pool_input(p, 1, GPU, I64, md, 2), OK_OK);
        sh_apply(s);
        CHECK_EQ_INT(ok_pool_output_auto(p, 0, GPU), OK_OK);
        CHECK_EQ_INT(ok_pool_action_count(p), 0);
    }
    CHECK_EQ_INT(ok_pool_run_end(p), OK_OK);
    sh_apply(s);

    /* refusals say what was wrong; nothing changes */
    uint64_t creates = sh_stat_sum(p, OK_STAT_CREATES);
    uint32_t pinned = ok_pool_pinned(p, OK_SLOT_INPUT, 0);
    int64_t bad_dim[] = {2, 5, 3}, bad_rank[] = {2, 5}, huge[] = {2, 5, 4294967295LL}, neg[] = {2, -1, 4},
            ok3[] = {2, 5, 4};
    CHECK_EQ_INT(ok_pool_input(p, 0, GPU, F32, bad_dim, 3), OK_ERR_SHAPE);
    check_refusal(p, OK_REFUSE_DIM, 0, 2, 4, 3);
    CHECK_EQ_INT(ok_pool_input(p, 0, GPU, F32, bad_rank, 2), OK_ERR_SHAPE);
    check_refusal(p, OK_REFUSE_RANK, 0, OK_POOL_NONE, 3, 2);
    CHECK_EQ_INT(ok_pool_input(p, 0, GPU, I64, ok3, 3), OK_ERR_SHAPE);
    check_refusal(p, OK_REFUSE_DTYPE, 0, OK_POOL_NONE, F32, I64);
    CHECK_EQ_INT(ok_pool_input(p, 0, GPU, F32, huge, 3), OK_ERR_LIMIT);
    check_refusal(p, OK_REFUSE_TOO_BIG, 0, 2, OK_POOL_MAX_DIM, 4294967295LL);
    CHECK_EQ_INT(ok_pool_input(p, 0, GPU, F32, neg, 3), OK_ERR_INVALID_ARG);
    check_refusal(p, OK_REFUSE_NEGATIVE, 0, 1, 0, -1);
    CHECK_EQ_INT(ok_pool_feed(p, 0, GPU, F32, ok3, 3, 12), OK_ERR_SHAPE);
    check_refusal(p, OK_REFUSE_DATA, 0, OK_POOL_NONE, 160, 12);
    CHECK_EQ_INT(ok_pool_input(p, 0, GPU, 8, ok3, 3), OK_ERR_INVALID_ARG);
    check_refusal(p, OK_REFUSE_NO_SIZE, 0, OK_POOL_NONE, 0, 8);
    int64_t big_bytes[] = {OK_POOL_MAX_DIM, OK_POOL_MAX_DIM, OK_POOL_MAX_DIM};
    CHECK_EQ_INT(ok_pool_adopt(p, 2, GPU, F32, big_bytes, 3, 0), OK_ERR_LIMIT);
    CHECK_EQ_INT(ok_pool_refusal(p)[0], OK_REFUSE_TOO_BIG);
    CHECK_EQ_INT(ok_pool_action_count(p), 0);
    CHECK_EQ_INT(sh_stat_sum(p, OK_STAT_CREATES), creates);
    CHECK_EQ_INT(ok_pool_pinned(p, OK_SLOT_INPUT, 0), pinned);
    CHECK_EQ_INT(ok_pool_input(p, 0, GPU, F32, ok3, 3), OK_OK);
    CHECK_EQ_INT(ok_pool_refusal(p)[0], OK_REFUSE_NONE);
    sh_apply(s);
    /* adopted outputs are onnxruntime's truth: another rank than declared is taken */
    int64_t r3[] = {1, 2, 3};
    CHECK_EQ_INT(ok_pool_adopt(p, 1, GPU, I64, r3, 3, 0), OK_OK);
    sh_apply(s);
    /* declarations refused: symbol id past the limit */
    int64_t far[] = {OK_POOL_DIM_SYMBOL(OK_POOL_MAX_SYMBOLS)};
    CHECK_EQ_INT(ok_pool_declare(p, OK_SLOT_INPUT, 0, F32, 1, far), OK_ERR_INVALID_ARG);
    /* out of memory growing the symbol table: the declaration is as before */
    int64_t sym100[] = {OK_POOL_DIM_SYMBOL(100), 5};
    ok_pool_set_alloc_fail_after(0);
    CHECK_EQ_INT(ok_pool_declare(p, OK_SLOT_INPUT, 1, I64, 2, sym100), OK_ERR_NOMEM);
    ok_pool_set_alloc_fail_after(-1);
    int64_t md[] = {2, 7};
    CHECK_EQ_INT(ok_pool_input(p, 1, GPU, I64, md, 2), OK_OK);
    sh_apply(s);
    CHECK_EQ_INT(ok_pool_check(p), OK_OK);
    sh_dispose(s);
}

/* onnxruntime-web keeps the size it first registered for a GPUBuffer bound
 * again to the same input index: the pool never hands a WebGPU tensor back
 * to its last slot with another byte size (CPU may). */
static void test_rebind_size(void) {
    for (int backend = CPU; backend <= GPU; backend++) {
        shadow *s = sh_new(1 << 20, 1, 0);
        if (!s) {
            CHECK(0);
            return;
        }
        ok_pool *p = s->p;
        int64_t a[] = {1, 100}, b[] = {1, 90}; /* 400 and 360 bytes: one size class */
        CHECK_EQ_INT(ok_pool_input(p, 0, backend, F32, a, 2), OK_OK);
        sh_apply(s);
        uint32_t first = s->last_handle;
        CHECK_EQ_INT(ok_pool_input(p, 0, backend, F32, b, 2), OK_OK);
        sh_apply(s);
        if (backend == GPU) {
            CHECK(s->last_handle != first);
            CHECK_EQ_INT(s->last_op, OK_POOL_CREATE);
            /* and the first comes back on the next change: it was not the last one here */
            CHECK_EQ_INT(ok_pool_input(p, 0, backend, F32, a, 2), OK_OK);
            sh_apply(s);
            CHECK_EQ_INT(s->last_handle, first);
            CHECK_EQ_INT(s->last_op, OK_POOL_TAKE);
        } else {
            CHECK_EQ_INT(s->last_handle, first);
            CHECK_EQ_INT(s->last_op, OK_POOL_TAKE);
        }
        CHECK_EQ_INT(ok_pool_check(p), OK_OK);
        sh_dispose(s);
    }
}

/* int64/bool inputs fed with CPU data stay on the CPU backend on WebGPU,
 * whatever their size (onnxruntime-web reads most with CPU kernels, and one
 * on the GPU costs a download per run); other dtypes go to the GPU. */
static void test_placement(void) {
    shadow *s = sh_new(1 << 20, 3, 0);
    if (!s) {
        CHECK(0);
        return;
    }
    ok_pool *p = s->p;
    int64_t scalar[1] = {0}, eight[] = {8}, nine[] = {9};
    CHECK_EQ_INT(ok_pool_feed(p, 0, GPU, I64, scalar, 0, 8), OK_OK);
    sh_apply(s);
    CHECK_EQ_INT(ok_pool_actions(p, NULL)[4], CPU);
    CHECK_EQ_INT(ok_pool_feed(p, 1, GPU, I64, eight, 1, 64), OK_OK);
    sh_apply(s);
    CHECK_EQ_INT(ok_pool_actions(p, NULL)[4], CPU);
    CHECK_EQ_INT(ok_pool_feed(p, 1, GPU, I64, nine, 1, 72), OK_OK);
    sh_apply(s);
    CHECK_EQ_INT(ok_pool_actions(p, NULL)[4 + 8 * (ok_pool_action_count(p) - 1)], CPU);
    int64_t mask[] = {1, 4096};
    CHECK_EQ_INT(ok_pool_feed(p, 1, GPU, 9, mask, 2, 4096), OK_OK); /* bool, any size */
    sh_apply(s);
    CHECK_EQ_INT(ok_pool_actions(p, NULL)[4 + 8 * (ok_pool_action_count(p) - 1)], CPU);
    CHECK_EQ_INT(ok_pool_feed(p, 2, GPU, F32, scalar, 0, 4), OK_OK);
    sh_apply(s);
    CHECK_EQ_INT(ok_pool_actions(p, NULL)[4], GPU);
    CHECK_EQ_INT(ok_pool_feed(p, 0, NN, I64, scalar, 0, 8), OK_OK);
    sh_apply(s); /* WebNN takes int64 */
    CHECK_EQ_INT(ok_pool_actions(p, NULL)[4 + 8 * (ok_pool_action_count(p) - 1)], NN);
    CHECK_EQ_INT(ok_pool_check(p), OK_OK);
    sh_dispose(s);
}

/* An input declared with no dims takes any shape, as onnxruntime runs it
 * (vad-web feeds silero's scalar sr as [1]); its dtype is still checked. */
static void test_scalar_input_any_shape(void) {
    shadow *s = sh_new(1 << 20, 1, 0);
    if (!s) {
        CHECK(0);
        return;
    }
    ok_pool *p = s->p;
    int64_t one[] = {1}, two[] = {1, 1};
    CHECK_EQ_INT(ok_pool_declare(p, OK_SLOT_INPUT, 0, I64, 0, NULL), OK_OK);
    CHECK_EQ_INT(ok_pool_run_begin(p), OK_OK);
    sh_apply(s);
    CHECK_EQ_INT(ok_pool_feed(p, 0, CPU, I64, one, 1, 8), OK_OK);
    sh_apply(s);
    CHECK_EQ_INT(ok_pool_feed(p, 0, CPU, I64, two, 2, 8), OK_OK);
    sh_apply(s);
    CHECK_EQ_INT(ok_pool_feed(p, 0, CPU, F32, one, 1, 4), OK_ERR_SHAPE);
    check_refusal(p, OK_REFUSE_DTYPE, 0, OK_POOL_NONE, I64, F32);
    CHECK_EQ_INT(ok_pool_run_end(p), OK_OK);
    sh_apply(s);
    CHECK_EQ_INT(ok_pool_check(p), OK_OK);
    sh_dispose(s);
}

int main(void) {
    test_shapes();
    test_rebind_size();
    test_placement();
    test_scalar_input_any_shape();
    CHECK_EQ_INT(sh_violations(), 0);
    return CHECK_DONE();
}
