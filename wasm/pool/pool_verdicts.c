/* The tensor pool's verdicts on facts JS reports (see tensor_pool.h,
 * VERDICTS): what onnxruntime-web's metadata adds to the model's own
 * declarations, what a failed run says about the outputs the pool
 * preallocated, what becomes of a result onnxruntime allocated, whether a
 * run needs the pool at all, and which device a session's pool uses. Pure
 * functions of the pool's state and the facts; the calls that bind tensors
 * are in tensor_pool.c, beneath: this file
 * calls its helpers, never the reverse (the dims learned from results and a
 * suspect slot's settling are there, beside the calls that use them). */
#include <stdint.h>
#include <string.h>

#include "tensor_pool.h"
#include "tensor_pool_internal.h"

/* ---- the runtime's declarations ---- */

static int64_t runtime_dim(int64_t d) {
    return d >= 0 && d <= OK_POOL_MAX_DIM ? d : d <= OK_POOL_DIM_SYMBOL(0) ? d : OK_POOL_DIM_UNKNOWN;
}

ok_status ok_pool_declare_runtime(ok_pool *p, int kind, uint32_t index, int32_t dtype, int32_t rank,
                                  const int64_t *dims) {
    ok_status rc = okp_begin_call(p);
    if (rc || (rc = okp_check_slot(p, kind, index))) return rc;
    if (dtype < -1 || rank < -1 || rank > OK_POOL_MAX_RANK || (rank > 0 && !dims)) return OK_ERR_INVALID_ARG;
    uint32_t n_sym = 0;
    for (int32_t i = 0; i < rank; i++) {
        if (dims[i] < OK_POOL_DIM_SYMBOL(OK_POOL_MAX_SYMBOLS - 1)) return OK_ERR_INVALID_ARG;
        if (dims[i] <= OK_POOL_DIM_SYMBOL(0) && (uint32_t)(OK_POOL_DIM_SYMBOL(0) - dims[i]) + 1 > n_sym)
            n_sym = (uint32_t)(OK_POOL_DIM_SYMBOL(0) - dims[i]) + 1;
    }
    if ((rc = okp_reserve_symbols(p, n_sym))) return rc;
    slot *s = &p->slots[kind][index];
    if (!s->from_model) {
        /* Only the runtime's word: onnxruntime-web reports a tensor declared
         * with no shape as [], like a scalar, so its [] says nothing. */
        s->decl_dtype = dtype;
        s->decl_rank = rank == 0 ? -1 : rank;
        for (int32_t i = 0; i < rank; i++) s->decl[i] = runtime_dim(dims[i]);
        return OK_OK;
    }
    /* Both spoke: what they agree on stands, anything else is unknown. */
    if (dtype >= 0 && s->decl_dtype >= 0 && dtype != s->decl_dtype) s->decl_dtype = -1;
    if (s->decl_rank < 0) return OK_OK;
    if (rank == 0 && s->decl_rank == 0) return OK_OK; /* a scalar both ways */
    if (rank != s->decl_rank) {
        s->decl_rank = -1;
        return OK_OK;
    }
    for (int32_t i = 0; i < rank; i++)
        if (runtime_dim(dims[i]) != s->decl[i]) s->decl[i] = OK_POOL_DIM_UNKNOWN;
    return OK_OK;
}

/* ---- a failed run ---- */

ok_status ok_pool_run_failed(ok_pool *p, int *retry) {
    ok_status rc = okp_begin_call(p);
    if (rc) return rc;
    if (!retry) return OK_ERR_INVALID_ARG;
    *retry = 0;
    if (!p->run_open) return OK_ERR_STATE;
    if ((rc = okp_reserve(p, 0))) return rc;
    for (uint32_t j = 0; j < p->n_slots[OK_SLOT_OUTPUT]; j++) {
        slot *s = &p->slots[OK_SLOT_OUTPUT][j];
        if (s->planned_run != p->run_id || s->suspect) continue;
        tensor *t = okp_find(p, s->handle);
        s->suspect = 1;
        s->no_guess |= s->guessed;
        s->planned_run = 0;
        if (t) {
            okp_st(p, t)[OK_STAT_RETRIES] += !*retry;
            s->suspect_backend = t->backend;
        }
        *retry = 1;
        /* Off the slot; bound in this run, so neither reused nor destroyed
         * before run_end (quarantined). */
        okp_unpin(p, OK_SLOT_OUTPUT, j);
    }
    return OK_OK;
}

ok_status ok_pool_device_failed(ok_pool *p) {
    ok_status rc = okp_begin_call(p);
    if (rc) return rc;
    if ((rc = okp_reserve(p, 0))) return rc;
    for (int k = 0; k < 2; k++)
        for (uint32_t i = 0; i < p->n_slots[k]; i++) okp_unpin(p, (uint32_t)k, i);
    for (uint32_t i = 0; i < p->n_t; i++)
        if (p->t[i].handle && p->t[i].state == T_FREE) okp_destroy(p, &p->t[i]);
    return OK_OK;
}

/* ---- a result onnxruntime allocated ---- */

ok_status ok_pool_result(ok_pool *p, uint32_t index, int backend, int32_t dtype, const int64_t *dims,
                         int32_t rank, uint64_t capacity, int keep) {
    ok_status rc = okp_begin_call(p);
    if (rc || (rc = okp_check_slot(p, OK_SLOT_OUTPUT, index))) return rc;
    /* A CPU result nobody keeps is the caller's as it is: pinning it would
     * only add a copy. A device result (or a kept one) is the pool's. */
    if (backend == OK_BACKEND_CPU && !keep) {
        uint64_t need;
        if (backend < 0 || rank < 0 || rank > OK_POOL_MAX_RANK || (rank > 0 && !dims) ||
            ok_pool_tensor_bytes(dtype, dims, rank, &need))
            return OK_ERR_INVALID_ARG;
        okp_settle_suspect(p, index, dtype, dims, rank);
        okp_learn(p, index, dims, rank);
        return OK_OK;
    }
    return ok_pool_adopt(p, index, backend, dtype, dims, rank, capacity);
}

/* ---- placement: measured, like a form's verdict ---- */

int ok_pool_placement_next(const ok_pool *p) {
    if (!p) return OK_PLACE_DEVICE;
    if (p->placement != OK_PLACE_UNDECIDED) return p->placement;
    if (p->place_runs < OK_PLACE_WARMUP) return OK_PLACE_DEVICE;
    return (p->place_runs - OK_PLACE_WARMUP) % 2 ? OK_PLACE_DEVICE : OK_PLACE_CPU;
}

static uint32_t median3(const uint32_t *v) {
    uint32_t a = v[0], b = v[1], c = v[2];
    return a > b ? (b > c ? b : a > c ? c : a) : (a > c ? a : b > c ? c : b);
}

static void decide(ok_pool *p, int placement) {
    p->placement = placement;
    for (int b = 0; b < OK_BACKEND_COUNT; b++) p->stats[b][OK_STAT_PLACEMENT] = (uint64_t)placement;
}

ok_status ok_pool_placement_adapter(ok_pool *p, int adapter) {
    if (!p) return OK_ERR_INVALID_ARG;
    if (adapter != OK_ADAPTER_UNKNOWN && adapter != OK_ADAPTER_FALLBACK && adapter != OK_ADAPTER_HARDWARE)
        return OK_ERR_INVALID_ARG;
    /* a verdict already made (the caller's, a chained run) stands */
    if (p->placement == OK_PLACE_UNDECIDED && adapter == OK_ADAPTER_HARDWARE) decide(p, OK_PLACE_DEVICE);
    return OK_OK;
}

ok_status ok_pool_placement_report(ok_pool *p, int placement, uint32_t micros, int settled) {
    if (!p) return OK_ERR_INVALID_ARG;
    if (placement != OK_PLACE_DEVICE && placement != OK_PLACE_CPU) return OK_ERR_INVALID_ARG;
    if (p->placement != OK_PLACE_UNDECIDED) return OK_OK;
    if (settled) {
        decide(p, placement);
        return OK_OK;
    }
    int k = placement == OK_PLACE_DEVICE;
    if (p->place_runs++ < OK_PLACE_WARMUP || p->place_n[k] >= OK_PLACE_TRIALS) return OK_OK;
    p->place_us[k][p->place_n[k]++] = micros;
    if (p->place_n[0] == OK_PLACE_TRIALS && p->place_n[1] == OK_PLACE_TRIALS)
        decide(p, median3(p->place_us[1]) < median3(p->place_us[0]) ? OK_PLACE_DEVICE : OK_PLACE_CPU);
    return OK_OK;
}

/* ---- stepping aside: see PASS-THROUGH in tensor_pool.h ---- */

int ok_pool_pass_through(ok_pool *p, int backend, uint32_t keeps, uint32_t device_bound,
                         uint32_t inputs_taken) {
    if (!p || p->disposed || backend != OK_BACKEND_CPU || device_bound) return 0;
    if (keeps && !inputs_taken) return 0;
    p->stats[backend][OK_STAT_PASSES]++;
    return 1;
}

/* ---- which device ---- */

int ok_pool_device_verdict(int wanted, int available, int chosen_by_caller, int cpu_fallback) {
    if (wanted < 0 || wanted >= OK_BACKEND_COUNT) return -1;
    if (wanted == OK_BACKEND_CPU || available) return wanted;
    /* No such device here. onnxruntime-web runs a fallback list on wasm, so
     * the pool does too; a device the caller named (or no fallback) is
     * refused rather than quietly changed. */
    return !chosen_by_caller && cpu_fallback ? OK_BACKEND_CPU : -1;
}
