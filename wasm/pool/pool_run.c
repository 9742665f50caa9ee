/* Tensor pool: one run's calls (tensor_pool.h): opening and closing a run, the
 * inputs, feeds and outputs placed for it, binding and adopting tensors, keeping
 * and releasing them, and the dims learned for outputs that grow. It sits on
 * tensor_pool.c's state and placement (okp_ helpers, tensor_pool_internal.h);
 * the verdicts (pool_verdicts.c) sit on it. */
#include "tensor_pool.h"
#include "tensor_pool_internal.h"

#include <string.h>

/* ---- outputs that grow: dims learned from results ---- */
/* Steps of growth a growing output's tensor is made to hold, so a decoder's
 * KV cache (one token per run) is re-created about once per this many
 * tokens; two tensors alternate per slot (see "Re-binding"). */
#define GROWTH_STEPS 32

/* Input `a`'s dims, when it is bound in the open run. */
static const tensor *input_now(const ok_pool *p, uint32_t a) {
    if (!p->run_open || a >= p->n_slots[OK_SLOT_INPUT]) return NULL;
    const tensor *t = okp_find(p, p->slots[OK_SLOT_INPUT][a].handle);
    return t && t->run_used == p->run_id ? t : NULL;
}

static int unbound_symbol(const ok_pool *p, int64_t d) {
    if (d > OK_POOL_DIM_SYMBOL(0)) return 0;
    return p->sym_state[(uint32_t)(OK_POOL_DIM_SYMBOL(0) - d)] != SYM_BOUND;
}

int okp_predict(const ok_pool *p, uint32_t index, int64_t *dims) {
    const slot *s = &p->slots[OK_SLOT_OUTPUT][index];
    if (s->decl_rank < 0) return 0;
    for (int32_t i = 0; i < s->decl_rank; i++) {
        int64_t d = s->decl[i];
        if (d >= 0) {
            dims[i] = d;
            continue;
        }
        if (d == OK_POOL_DIM_UNKNOWN) return 0; /* value-dependent: never a guess */
        if (!unbound_symbol(p, d)) {
            dims[i] = p->sym_value[(uint32_t)(OK_POOL_DIM_SYMBOL(0) - d)];
            continue;
        }
        const tensor *in = s->rel_seen[i] == 2 ? input_now(p, (uint32_t)s->rel_in[i] - 1) : NULL;
        if (!in || s->rel_dim[i] >= in->rank) return 0;
        d = in->dims[s->rel_dim[i]] + s->rel_off[i];
        if (d < 0 || d > OK_POOL_MAX_DIM) return 0;
        dims[i] = d;
    }
    return 1;
}

uint64_t okp_growth_headroom(const ok_pool *p, uint32_t index, int32_t dtype, const int64_t *dims,
                             int32_t rank) {
    const slot *s = &p->slots[OK_SLOT_OUTPUT][index];
    int learned = 0, symbolic = 0;
    for (int32_t i = 0; i < rank && i < s->decl_rank; i++) {
        learned |= unbound_symbol(p, s->decl[i]);
        symbolic |= s->decl[i] <= OK_POOL_DIM_SYMBOL(0);
    }
    uint64_t need;
    if (!symbolic || ok_pool_tensor_bytes(dtype, dims, rank, &need) || !s->last_bytes ||
        need <= s->last_bytes)
        return 0;
    uint64_t step = need - s->last_bytes;
    /* A jump is no step: a learned relation's (a prompt's prefill) gets at
     * most 4x what it needs now; a size an input binds that jumped is no
     * growing cache, and gets none. A small step, learned or bound (a KV
     * cache whose length the attention mask gives), room for more. */
    if (step > need / (GROWTH_STEPS / 4)) return learned ? 4 * need : 0;
    return step * GROWTH_STEPS;
}

void okp_learn(ok_pool *p, uint32_t index, const int64_t *dims, int32_t rank) {
    slot *s = &p->slots[OK_SLOT_OUTPUT][index];
    if (!p->run_open || s->decl_rank != rank) return;
    for (int32_t i = 0; i < rank; i++) {
        if (!unbound_symbol(p, s->decl[i])) continue;
        const tensor *in = s->rel_seen[i] ? input_now(p, (uint32_t)s->rel_in[i] - 1) : NULL;
        if (in && s->rel_dim[i] < in->rank && in->dims[s->rel_dim[i]] + s->rel_off[i] == dims[i]) {
            /* held again; evidence only when the input dim moved (M = 2N
             * looks like N + N while N stays put) */
            if (in->dims[s->rel_dim[i]] != s->rel_last_in[i]) s->rel_seen[i] = 2;
            s->rel_last_in[i] = in->dims[s->rel_dim[i]];
            continue;
        }
        /* A new candidate: among the input dims, those declared as symbols
         * (the ones that vary) first, then the closest to the result's. */
        s->rel_seen[i] = 0;
        int64_t best = INT64_MAX;
        for (uint32_t a = 0; a < p->n_slots[OK_SLOT_INPUT] && a < UINT16_MAX; a++) {
            const tensor *t = input_now(p, a);
            const slot *in_decl = &p->slots[OK_SLOT_INPUT][a];
            for (int32_t b = 0; t && b < t->rank; b++) {
                int64_t off = dims[i] - t->dims[b];
                int fixed = in_decl->decl_rank != t->rank || in_decl->decl[b] > OK_POOL_DIM_SYMBOL(0);
                int64_t score = (off < 0 ? -off : off) + (fixed ? (int64_t)1 << 40 : 0);
                if (score >= best) continue;
                best = score;
                s->rel_in[i] = (uint16_t)(a + 1);
                s->rel_dim[i] = (uint8_t)b;
                s->rel_off[i] = off;
                s->rel_last_in[i] = t->dims[b];
                s->rel_seen[i] = 1;
            }
        }
    }
}

/* ---- a suspect slot, settled by a result ---- */
/* A result of a suspect slot (adopted or passed to the caller) settles it:
 * dims that disagree with the declaration (as this run's symbols resolve
 * it) become unknown. */
void okp_settle_suspect(ok_pool *p, uint32_t index, int32_t dtype, const int64_t *dims, int32_t rank) {
    slot *s = &p->slots[OK_SLOT_OUTPUT][index];
    if (!s->suspect) return;
    s->suspect = 0;
    int wrong = 0;
    if (s->decl_dtype >= 0 && s->decl_dtype != dtype) {
        s->decl_dtype = -1;
        wrong = 1;
    }
    if (s->decl_rank >= 0 && s->decl_rank != rank) {
        s->decl_rank = -1;
        wrong = 1;
    }
    for (int32_t i = 0; i < s->decl_rank; i++) {
        int64_t d = s->decl[i];
        if (d <= OK_POOL_DIM_SYMBOL(0)) {
            uint32_t id = (uint32_t)(OK_POOL_DIM_SYMBOL(0) - d);
            d = p->sym_state[id] == SYM_BOUND ? p->sym_value[id] : dims[i];
        }
        if (d >= 0 && d != dims[i]) {
            s->decl[i] = OK_POOL_DIM_UNKNOWN;
            wrong = 1;
        }
    }
    if (wrong) p->stats[s->suspect_backend][OK_STAT_DISTRUSTED]++;
}

/* ---- one run's calls ---- */

/* The slot's declared dims resolved with this run's symbols; 0 if any is
 * unknown, unbound or bound twice to different sizes. */
int okp_resolve(const ok_pool *p, const slot *s, int64_t *dims) {
    if (s->decl_rank < 0) return 0;
    for (int32_t i = 0; i < s->decl_rank; i++) {
        int64_t d = s->decl[i];
        if (d <= OK_POOL_DIM_SYMBOL(0)) {
            uint32_t id = (uint32_t)(OK_POOL_DIM_SYMBOL(0) - d);
            if (p->sym_state[id] != SYM_BOUND) return 0;
            d = p->sym_value[id];
        }
        if (d < 0) return 0;
        dims[i] = d;
    }
    return 1;
}

ok_status ok_pool_run_begin(ok_pool *p) {
    ok_status rc = okp_begin_call(p);
    if (rc) return rc;
    if (p->run_open) return OK_ERR_STATE;
    p->run_id++;
    p->run_open = 1;
    if (p->n_sym) memset(p->sym_state, SYM_UNBOUND, p->n_sym);
    return OK_OK;
}

ok_status ok_pool_run_end(ok_pool *p) {
    ok_status rc = okp_begin_call(p);
    if (rc) return rc;
    if (!p->run_open) return OK_ERR_STATE;
    if ((rc = okp_reserve(p, 0))) return rc;
    p->run_open = 0;
    okp_evict(p); /* what the run kept from eviction */
    return OK_OK;
}

ok_status ok_pool_input(ok_pool *p, uint32_t index, int backend, int32_t dtype, const int64_t *dims,
                        int32_t rank) {
    ok_status rc = okp_request(p, OK_SLOT_INPUT, index, backend, dtype, dims, rank);
    if (!rc) okp_bind_symbols(p, index, dims, rank);
    return rc;
}

/* An input's request and its data size: the verdict ok_pool_feed and
 * ok_pool_check_feed share (the caller began the call). */
static ok_status check_feed(ok_pool *p, uint32_t index, int backend, int32_t dtype, const int64_t *dims,
                            int32_t rank, uint64_t data_bytes, uint64_t *need) {
    ok_status rc = okp_check_request(p, OK_SLOT_INPUT, index, backend, dtype, dims, rank, need);
    if (rc) return rc;
    if (*need != data_bytes)
        return okp_refuse(p, OK_ERR_SHAPE, OK_REFUSE_DATA, OK_SLOT_INPUT, index, OK_POOL_NONE, (int64_t)*need,
                          (int64_t)data_bytes);
    return OK_OK;
}

ok_status ok_pool_check_feed(ok_pool *p, uint32_t index, int32_t dtype, const int64_t *dims, int32_t rank,
                             uint64_t data_bytes) {
    uint64_t need;
    ok_status rc = okp_begin_call(p);
    if (rc) return rc;
    return check_feed(p, index, OK_BACKEND_CPU, dtype, dims, rank, data_bytes, &need);
}

ok_status ok_pool_feed(ok_pool *p, uint32_t index, int backend, int32_t dtype, const int64_t *dims,
                       int32_t rank, uint64_t data_bytes) {
    uint64_t need;
    ok_status rc = okp_begin_call(p);
    if (rc) return rc;
    if ((rc = check_feed(p, index, backend, dtype, dims, rank, data_bytes, &need))) return rc;
    if (backend == OK_BACKEND_WEBGPU && (dtype == 7 || dtype == 9))
        backend = OK_BACKEND_CPU; /* see ok_pool_feed in tensor_pool.h */
    if ((rc = okp_place(p, OK_SLOT_INPUT, index, backend, dtype, dims, rank, need))) return rc;
    okp_bind_symbols(p, index, dims, rank);
    return OK_OK;
}

/* No dims to plan from, ever: unknown rank, or a dim the model leaves to
 * the values (a symbol is learned from results instead: see okp_learn). */
static int dims_unknown(const slot *s) {
    if (s->decl_rank < 0 || !okp_dtype_bits(s->decl_dtype)) return 1;
    for (int32_t i = 0; i < s->decl_rank; i++)
        if (s->decl[i] == OK_POOL_DIM_UNKNOWN) return 1;
    return 0;
}

ok_status ok_pool_output_auto(ok_pool *p, uint32_t index, int backend) {
    ok_status rc = okp_begin_call(p);
    if (rc || (rc = okp_check_slot(p, OK_SLOT_OUTPUT, index))) return rc;
    slot *s = &p->slots[OK_SLOT_OUTPUT][index];
    int64_t dims[OK_POOL_MAX_RANK];
    int32_t dtype = s->decl_dtype, rank = s->decl_rank;
    int guess = 0;
    if (s->suspect) return OK_OK; /* adopt */
    if (!okp_dtype_bits(dtype) || (!okp_resolve(p, s, dims) && !okp_predict(p, index, dims))) {
        /* Dims the model leaves unknown, of an output the caller kept on the
         * device last run: planned as last run's, so onnxruntime writes it
         * in place rather than reading it back to the CPU for the pool to
         * upload (the one guess the pool makes: a wrong one fails this run
         * once, and ok_pool_run_failed makes the slot suspect for good). */
        if (s->no_guess || !s->kept_run || s->kept_run + 1 != p->run_id || !dims_unknown(s))
            return OK_OK; /* adopt */
        guess = 1;
        dtype = s->kept_dtype;
        rank = s->kept_rank;
        memcpy(dims, s->kept_dims, sizeof dims);
    }
    p->headroom = okp_growth_headroom(p, index, dtype, dims, rank);
    rc = okp_request(p, OK_SLOT_OUTPUT, index, backend, dtype, dims, rank);
    p->headroom = 0;
    if (rc) return rc;
    s->planned_run = p->run_id;
    s->guessed = (uint8_t)guess;
    return OK_OK;
}

ok_status ok_pool_output(ok_pool *p, uint32_t index, int backend, int32_t dtype, const int64_t *dims,
                         int32_t rank) {
    ok_status rc = okp_begin_call(p);
    if (rc || (rc = okp_check_slot(p, OK_SLOT_OUTPUT, index))) return rc;
    slot *s = &p->slots[OK_SLOT_OUTPUT][index];
    if (p->run_open && backend != OK_BACKEND_CPU && rank >= 0 && rank <= OK_POOL_MAX_RANK &&
        (!rank || dims)) {
        /* During a run it is a result onnxruntime allocated: the truth about
         * the slot, as ok_pool_result takes one (a declaration it
         * contradicts is distrusted, not a refusal of the result). */
        s->suspect = 1;
        s->suspect_backend = (uint8_t)backend;
        okp_settle_suspect(p, index, dtype, dims, rank);
    }
    if ((rc = okp_request(p, OK_SLOT_OUTPUT, index, backend, dtype, dims, rank))) return rc;
    if (!p->run_open || backend == OK_BACKEND_CPU) return OK_OK;
    okp_learn(p, index, dims, rank);
    s->kept_run = p->run_id;
    s->kept_dtype = dtype;
    s->kept_rank = rank;
    if (rank) memcpy(s->kept_dims, dims, (size_t)rank * sizeof *dims);
    return OK_OK;
}

ok_status ok_pool_input_bind(ok_pool *p, uint32_t index, uint32_t handle) {
    ok_status rc = okp_begin_call(p);
    if (rc || (rc = okp_check_slot(p, OK_SLOT_INPUT, index))) return rc;
    tensor *t = okp_find(p, handle);
    if (!t) return OK_ERR_NOT_FOUND;
    if (t->state == T_PINNED) {
        if (t->slot_kind == OK_SLOT_INPUT && t->slot_index == index && t->caller_ref) {
            t->run_used = p->run_id; /* already bound here: same binding */
            okp_emit(p, OK_POOL_BIND, t, OK_SLOT_INPUT, index);
            return OK_OK;
        }
        return OK_ERR_IN_USE; /* bound elsewhere, or an output pin not kept */
    }
    if (t->state != T_KEPT) return OK_ERR_STATE;
    /* Kept during this very run (it was this run's output): ORT cannot read
     * an input it is writing. Bind it in the next run. */
    if (okp_quarantined(p, t)) return OK_ERR_IN_USE;
    if ((rc = okp_check_decl(p, OK_SLOT_INPUT, index, t->dtype, t->dims, t->rank))) return rc;
    if ((rc = okp_reserve(p, 0))) return rc;
    okp_unpin(p, OK_SLOT_INPUT, index);
    int64_t dims[OK_POOL_MAX_RANK];
    memcpy(dims, t->dims, sizeof dims);
    okp_pin(p, t, OK_SLOT_INPUT, index, t->dtype, dims, t->rank);
    okp_emit(p, OK_POOL_BIND, t, OK_SLOT_INPUT, index);
    okp_bind_symbols(p, index, dims, t->rank);
    okp_evict(p);
    return OK_OK;
}

ok_status ok_pool_bind_external(ok_pool *p, int kind, uint32_t index, int backend, int32_t dtype,
                                const int64_t *dims, int32_t rank) {
    uint64_t need;
    ok_status rc = okp_begin_call(p);
    if (rc) return rc;
    if ((rc = okp_check_request(p, kind, index, backend, dtype, dims, rank, &need))) return rc;
    if ((rc = okp_reserve(p, 1))) return rc;
    okp_unpin(p, (uint32_t)kind, index);
    tensor *t = okp_new_entry(p);
    t->backend = (uint8_t)backend;
    t->external = 1;
    t->cap = need; /* informational: not the pool's bytes */
    okp_pin(p, t, (uint32_t)kind, index, dtype, dims, rank);
    okp_emit(p, OK_POOL_EXTERNAL, t, (uint32_t)kind, index);
    if (kind == OK_SLOT_INPUT) okp_bind_symbols(p, index, dims, rank);
    okp_evict(p);
    return OK_OK;
}

ok_status ok_pool_adopt(ok_pool *p, uint32_t index, int backend, int32_t dtype, const int64_t *dims,
                        int32_t rank, uint64_t capacity) {
    uint64_t need;
    ok_status rc = okp_begin_call(p);
    if (rc) return rc;
    /* onnxruntime's truth: sizes checked, the declaration not */
    if ((rc = okp_check_slot(p, OK_SLOT_OUTPUT, index))) return rc;
    if (backend < 0 || backend >= OK_BACKEND_COUNT) return OK_ERR_INVALID_ARG;
    if ((rc = okp_check_sizes(p, OK_SLOT_OUTPUT, index, dtype, dims, rank, &need))) return rc;
    if (capacity && (capacity < need || capacity > MAX_BYTES)) return OK_ERR_INVALID_ARG;
    if ((rc = okp_reserve(p, 1))) return rc;
    okp_unpin(p, OK_SLOT_OUTPUT, index);
    tensor *t = okp_new_entry(p);
    t->backend = (uint8_t)backend;
    t->cap = capacity ? capacity : need;
    okp_pin(p, t, OK_SLOT_OUTPUT, index, dtype, dims, rank);
    uint64_t *s = okp_st(p, t);
    s[OK_STAT_ADOPTS]++;
    s[OK_STAT_LIVE_TENSORS]++;
    s[OK_STAT_BYTES_HELD] += t->cap;
    okp_emit(p, OK_POOL_ADOPT, t, OK_SLOT_OUTPUT, index);
    okp_settle_suspect(p, index, dtype, dims, rank);
    okp_learn(p, index, dims, rank);
    okp_evict(p);
    return OK_OK;
}

ok_status ok_pool_keep(ok_pool *p, uint32_t out_index) {
    ok_status rc = okp_begin_call(p);
    if (rc || (rc = okp_check_slot(p, OK_SLOT_OUTPUT, out_index))) return rc;
    slot *s = &p->slots[OK_SLOT_OUTPUT][out_index];
    tensor *t = okp_find(p, s->handle);
    if (!t) return OK_ERR_NOT_FOUND;
    if (t->external) return OK_ERR_STATE; /* the caller owns it already */
    if ((rc = okp_reserve(p, 0))) return rc;
    /* a guess that held (see ok_pool_output_auto) holds for the next run too */
    if (s->guessed && s->planned_run == p->run_id) s->kept_run = p->run_id;
    s->handle = 0;
    s->generation++;
    t->state = T_KEPT;
    t->caller_ref = 1;
    t->slot_kind = t->slot_index = OK_POOL_NONE;
    okp_emit(p, OK_POOL_KEEP, t, OK_SLOT_OUTPUT, out_index);
    return OK_OK;
}

ok_status ok_pool_release(ok_pool *p, uint32_t handle) {
    ok_status rc = okp_begin_call(p);
    if (rc) return rc;
    tensor *t = okp_find(p, handle);
    if (!t) return OK_ERR_NOT_FOUND;
    if (t->external || !t->caller_ref) return OK_ERR_STATE;
    if ((rc = okp_reserve(p, 0))) return rc;
    t->caller_ref = 0;
    if (t->state == T_KEPT) okp_to_free(p, t); /* still bound: freed when unpinned */
    okp_evict(p);
    return OK_OK;
}
