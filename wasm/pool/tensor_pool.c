/* Tensor pool policy (see tensor_pool.h for the contract and action layout).
 *
 * State is one array of tensor entries plus one pin per slot. Sessions hold
 * tens of tensors, so every lookup is a linear scan: no hash tables, no
 * intrusive lists to keep consistent, and the free list is simply "entries
 * in state FREE" ordered by their tick.
 *
 * Failure atomicity: every mutating call first reserves what it may need (one
 * tensor entry, one action record per live entry + slack), and only then
 * mutates. So OK_ERR_NOMEM and every validation error leave the pool as it
 * was, with an empty action list.
 *
 * Size classes (CPU and WebGPU): 256, 512, 768, 1024, then four geometric
 * steps per power of two (1, 1.25, 1.5, 1.75) x 2^k. Why: waste is < 25%
 * where power-of-two classes waste up to 50%, yet a KV cache growing by one
 * token per step stays in one class for many steps; every class is a
 * multiple of 256, so WebGPU's multiple-of-4 size rule (and 256-byte copy
 * alignment) always holds. A free tensor fits a request of `need` bytes when
 * need <= capacity <= class(need): for pool-created tensors that is exactly
 * "same class"; adopted ORT buffers (arbitrary sizes) fit the same way.
 * WebNN: an MLTensor is created for one exact dtype+shape, so there a free
 * tensor fits only with identical dtype and dims, and capacity = exact bytes.
 *
 * This file holds the pool's state: entries, pins, placing a tensor, each
 * call's checks, the pool's lifecycle and queries. One run's calls
 * (pool_run.c) sit on it and the verdicts on facts JS reports
 * (pool_verdicts.c) on those; both call its okp_ helpers
 * (tensor_pool_internal.h), and nothing here calls them.
 */
#include "tensor_pool.h"
#include "tensor_pool_internal.h"

#include <stdlib.h>
#include <string.h>

/* ---- allocation, with a failure hook for tests ---- */
static int alloc_fail_after = -1;

void ok_pool_set_alloc_fail_after(int n) { alloc_fail_after = n < 0 ? -1 : n; }

static int alloc_allowed(void) {
    if (alloc_fail_after == 0) return 0;
    if (alloc_fail_after > 0) alloc_fail_after--;
    return 1;
}

static void *pool_calloc(size_t n, size_t size) { return alloc_allowed() ? calloc(n ? n : 1, size) : NULL; }

static void *pool_realloc(void *q, size_t size) { return alloc_allowed() ? realloc(q, size) : NULL; }

/* ---- sizes ---- */
/* ONNX TensorProto.DataType -> bits per element; 0 = no fixed size. */
int okp_dtype_bits(int32_t dtype) {
    switch (dtype) {
#define OK_DTYPE_BITS_(code, name, bits) \
    case code: return bits;
        OK_DTYPE_LIST(OK_DTYPE_BITS_)
#undef OK_DTYPE_BITS_
    default: return 0;
    }
}

ok_status ok_pool_tensor_bytes(int32_t dtype, const int64_t *dims, int32_t rank, uint64_t *out) {
    int bits = okp_dtype_bits(dtype);
    if (!bits || !out || rank < 0 || (rank > 0 && !dims)) return OK_ERR_INVALID_ARG;
    if (rank > OK_POOL_MAX_RANK) return OK_ERR_LIMIT;
    uint64_t elems = 1;
    int zero = 0;
    for (int32_t i = 0; i < rank; i++) {
        if (dims[i] < 0) return OK_ERR_INVALID_ARG; /* symbolic dims must be resolved */
        if (dims[i] == 0) zero = 1;
    }
    if (zero) {
        *out = 0;
        return OK_OK;
    }
    for (int32_t i = 0; i < rank; i++) {
        uint64_t d = (uint64_t)dims[i];
        if (d > MAX_BYTES || elems > MAX_BYTES / d) return OK_ERR_LIMIT;
        elems *= d;
    }
    uint64_t bytes = (elems * (uint64_t)bits + 7) / 8; /* <= 2^53 * 128: no overflow */
    if (bytes > MAX_BYTES) return OK_ERR_LIMIT;
    *out = bytes;
    return OK_OK;
}

uint64_t ok_pool_size_class(uint64_t n) {
    if (n > MAX_BYTES) return 0;
    if (n <= 1024) return n <= 256 ? 256 : (n + 255) & ~(uint64_t)255;
    uint64_t pw = 1024;
    while (pw * 2 <= n) pw *= 2;
    uint64_t step = pw / 4;
    return (n + step - 1) / step * step;
}

/* ---- lookup and bookkeeping ---- */
tensor *okp_find(const ok_pool *p, uint32_t handle) {
    if (!handle) return NULL;
    for (uint32_t i = 0; i < p->n_t; i++)
        if (p->t[i].handle == handle) return &p->t[i];
    return NULL;
}

static uint32_t live_entries(const ok_pool *p) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < p->n_t; i++) n += p->t[i].handle != 0;
    return n;
}

int okp_quarantined(const ok_pool *p, const tensor *t) { return p->run_open && t->run_used == p->run_id; }

/* Reserve room so the mutation that follows cannot fail: one new entry if
 * want_entry, and enough action records for any eviction cascade. */
ok_status okp_reserve(ok_pool *p, int want_entry) {
    uint32_t live = live_entries(p);
    if (want_entry) {
        if (p->next_handle >= MAX_HANDLE) return OK_ERR_LIMIT;
        if (live == p->n_t && p->n_t == p->cap_t) {
            uint32_t nc = p->cap_t ? p->cap_t * 2 : 8;
            tensor *nt = pool_realloc(p->t, (size_t)nc * sizeof *nt);
            if (!nt) return OK_ERR_NOMEM;
            p->t = nt;
            p->cap_t = nc;
        }
    }
    uint32_t need = live + 4;
    if (need > p->cap_act) {
        uint32_t nc = p->cap_act ? p->cap_act : 16;
        while (nc < need) nc *= 2;
        uint32_t *na = pool_realloc(p->act, (size_t)nc * OK_POOL_ACTION_WORDS * sizeof *na);
        if (!na) return OK_ERR_NOMEM;
        p->act = na;
        p->cap_act = nc;
    }
    return OK_OK;
}

/* Only after okp_reserve(p, 1). */
tensor *okp_new_entry(ok_pool *p) {
    tensor *t = NULL;
    for (uint32_t i = 0; i < p->n_t && !t; i++)
        if (!p->t[i].handle) t = &p->t[i];
    if (!t) t = &p->t[p->n_t++];
    memset(t, 0, sizeof *t);
    t->handle = p->next_handle++;
    return t;
}

void okp_emit(ok_pool *p, uint32_t op, const tensor *t, uint32_t kind, uint32_t index) {
    uint32_t *r = p->act + (size_t)p->n_act++ * OK_POOL_ACTION_WORDS;
    uint32_t gen = 0;
    if (kind != OK_POOL_NONE) gen = p->slots[kind][index].generation;
    r[OK_POOL_AW_OP] = op;
    r[OK_POOL_AW_HANDLE] = t->handle;
    r[OK_POOL_AW_SLOT_KIND] = kind;
    r[OK_POOL_AW_SLOT_INDEX] = index;
    r[OK_POOL_AW_BACKEND] = t->backend;
    r[OK_POOL_AW_GENERATION] = gen;
    r[OK_POOL_AW_BYTES_LO] = (uint32_t)t->cap;
    r[OK_POOL_AW_BYTES_HI] = (uint32_t)(t->cap >> 32);
}

uint64_t *okp_st(ok_pool *p, const tensor *t) { return p->stats[t->backend]; }

void okp_to_free(ok_pool *p, tensor *t) {
    t->state = T_FREE;
    t->slot_kind = t->slot_index = OK_POOL_NONE;
    t->tick = ++p->clock;
    okp_st(p, t)[OK_STAT_BYTES_FREE] += t->cap;
}

void okp_destroy(ok_pool *p, tensor *t) {
    uint64_t *s = okp_st(p, t);
    okp_emit(p, OK_POOL_DESTROY, t, OK_POOL_NONE, OK_POOL_NONE);
    if (t->state == T_FREE) s[OK_STAT_BYTES_FREE] -= t->cap;
    s[OK_STAT_BYTES_HELD] -= t->cap;
    s[OK_STAT_LIVE_TENSORS]--;
    s[OK_STAT_DESTROYS]++;
    t->handle = 0;
}

static uint32_t max_free(const ok_pool *p) {
    return OK_POOL_FREE_PER_SLOT * (p->n_slots[0] + p->n_slots[1]) + OK_POOL_FREE_EXTRA;
}

/* Least recently freed first, down to the budget (bytes and count).
 * Tensors handed out in the open run are skipped: ORT may still hold them
 * for this run. */
void okp_evict(ok_pool *p) {
    uint64_t evictable = 0;
    uint32_t count = 0;
    for (uint32_t i = 0; i < p->n_t; i++) {
        tensor *t = &p->t[i];
        if (t->handle && t->state == T_FREE && !okp_quarantined(p, t)) {
            evictable += t->cap;
            count++;
        }
    }
    while (evictable > p->budget || count > max_free(p)) {
        tensor *old = NULL;
        for (uint32_t i = 0; i < p->n_t; i++) {
            tensor *t = &p->t[i];
            if (t->handle && t->state == T_FREE && !okp_quarantined(p, t) && (!old || t->tick < old->tick))
                old = t;
        }
        if (!old) break;
        evictable -= old->cap;
        count--;
        okp_destroy(p, old);
    }
}

/* Drop the slot's binding. The old tensor goes back to its owner: the free
 * list (pool tensor), the caller (kept), or nowhere (external: FORGET).
 * Returns 1 when a pool-pinned tensor was displaced (a re-pin). */
int okp_unpin(ok_pool *p, uint32_t kind, uint32_t index) {
    slot *s = &p->slots[kind][index];
    tensor *t = okp_find(p, s->handle);
    s->handle = 0;
    if (!t) return 0;
    s->generation++;
    if (t->external) {
        okp_emit(p, OK_POOL_FORGET, t, kind, index);
        t->handle = 0;
        return 0;
    }
    if (t->caller_ref) {
        t->state = T_KEPT;
        t->slot_kind = t->slot_index = OK_POOL_NONE;
        return 0;
    }
    okp_to_free(p, t);
    okp_st(p, t)[OK_STAT_REPINS]++;
    return 1;
}

void okp_pin(ok_pool *p, tensor *t, uint32_t kind, uint32_t index, int32_t dtype, const int64_t *dims,
             int32_t rank) {
    slot *s = &p->slots[kind][index];
    t->state = T_PINNED;
    t->slot_kind = kind;
    t->slot_index = index;
    t->run_used = p->run_id;
    t->dtype = dtype;
    t->rank = rank;
    if (rank > 0) memcpy(t->dims, dims, (size_t)rank * sizeof *dims);
    s->handle = t->handle;
    s->generation++;
    /* What onnxruntime-web registered for this index is the last *device*
     * buffer bound here: a CPU tensor in between (placement trials, a small
     * int64 input) registers nothing, so it must not clear the memory. */
    if (t->backend == OK_BACKEND_CPU) return;
    s->last_handle = t->handle;
    if (ok_pool_tensor_bytes(dtype, dims, rank, &s->last_bytes)) s->last_bytes = 0;
}

static int same_desc(const tensor *t, int32_t dtype, const int64_t *dims, int32_t rank) {
    if (t->dtype != dtype || t->rank != rank) return 0;
    for (int32_t i = 0; i < rank; i++)
        if (t->dims[i] != dims[i]) return 0;
    return 1;
}

/* Best fit: smallest capacity that fits, newest on ties (so the tensor a
 * re-pin just released comes straight back when its class still fits). */
static tensor *pick_free(ok_pool *p, const slot *s, int backend, int32_t dtype, const int64_t *dims,
                         int32_t rank, uint64_t need) {
    uint64_t cls = ok_pool_size_class(need + p->headroom); /* headroom: a growing output's next steps */
    tensor *best = NULL;
    for (uint32_t i = 0; i < p->n_t; i++) {
        tensor *t = &p->t[i];
        if (!t->handle || t->state != T_FREE || t->backend != backend || okp_quarantined(p, t)) continue;
        if (backend == OK_BACKEND_WEBGPU && t->handle == s->last_handle && need != s->last_bytes)
            continue; /* see "Re-binding" in tensor_pool.h */
        if (backend == OK_BACKEND_WEBNN) {
            if (!same_desc(t, dtype, dims, rank)) continue;
        } else if (t->cap < need || t->cap > cls) {
            continue;
        }
        if (!best || t->cap < best->cap || (t->cap == best->cap && t->tick > best->tick)) best = t;
    }
    return best;
}

/* ---- validation ---- */
ok_status okp_begin_call(ok_pool *p) {
    if (!p) return OK_ERR_INVALID_ARG;
    p->n_act = 0;
    memset(p->refusal, 0, sizeof p->refusal);
    return p->disposed ? OK_ERR_STATE : OK_OK;
}

/* Records why a request was refused (see SHAPES in tensor_pool.h). */
ok_status okp_refuse(ok_pool *p, ok_status rc, uint32_t reason, uint32_t kind, uint32_t index, uint32_t dim,
                     int64_t expected, int64_t got) {
    uint32_t *r = p->refusal;
    r[OK_POOL_RW_REASON] = reason;
    r[OK_POOL_RW_SLOT_KIND] = kind;
    r[OK_POOL_RW_SLOT_INDEX] = index;
    r[OK_POOL_RW_DIM] = dim;
    r[OK_POOL_RW_EXPECTED_LO] = (uint32_t)(uint64_t)expected;
    r[OK_POOL_RW_EXPECTED_HI] = (uint32_t)((uint64_t)expected >> 32);
    r[OK_POOL_RW_GOT_LO] = (uint32_t)(uint64_t)got;
    r[OK_POOL_RW_GOT_HI] = (uint32_t)((uint64_t)got >> 32);
    return rc;
}

ok_status okp_check_slot(const ok_pool *p, int kind, uint32_t index) {
    if (kind != OK_SLOT_INPUT && kind != OK_SLOT_OUTPUT) return OK_ERR_INVALID_ARG;
    return index < p->n_slots[kind] ? OK_OK : OK_ERR_INVALID_ARG;
}

/* The declaration's verdict: dtype and rank for every slot, and for inputs
 * (whose dims the caller chose) every fixed dim too. */
ok_status okp_check_decl(ok_pool *p, int kind, uint32_t index, int32_t dtype, const int64_t *dims,
                         int32_t rank) {
    const slot *s = &p->slots[kind][index];
    uint32_t k = (uint32_t)kind;
    if (s->decl_dtype >= 0 && s->decl_dtype != dtype)
        return okp_refuse(p, OK_ERR_SHAPE, OK_REFUSE_DTYPE, k, index, OK_POOL_NONE, s->decl_dtype, dtype);
    /* onnxruntime checks no shape of an input declared with no dims: such an
     * input takes any shape there (vad-web feeds silero's scalar sr as [1]),
     * and the pool refuses nothing onnxruntime runs */
    if (kind == OK_SLOT_INPUT && s->decl_rank == 0) return OK_OK;
    if (s->decl_rank >= 0 && s->decl_rank != rank)
        return okp_refuse(p, OK_ERR_SHAPE, OK_REFUSE_RANK, k, index, OK_POOL_NONE, s->decl_rank, rank);
    if (kind != OK_SLOT_INPUT || s->decl_rank < 0) return OK_OK;
    for (int32_t i = 0; i < rank; i++)
        if (s->decl[i] >= 0 && s->decl[i] != dims[i])
            return okp_refuse(p, OK_ERR_SHAPE, OK_REFUSE_DIM, k, index, (uint32_t)i, s->decl[i], dims[i]);
    return OK_OK;
}

/* Sizes any request must have, then its bytes. */
ok_status okp_check_sizes(ok_pool *p, uint32_t kind, uint32_t index, int32_t dtype, const int64_t *dims,
                          int32_t rank, uint64_t *need) {
    if (!okp_dtype_bits(dtype))
        return okp_refuse(p, OK_ERR_INVALID_ARG, OK_REFUSE_NO_SIZE, kind, index, OK_POOL_NONE, 0, dtype);
    if (rank < 0 || (rank > 0 && !dims)) return OK_ERR_INVALID_ARG;
    if (rank > OK_POOL_MAX_RANK)
        return okp_refuse(p, OK_ERR_LIMIT, OK_REFUSE_RANK, kind, index, OK_POOL_NONE, OK_POOL_MAX_RANK, rank);
    for (int32_t i = 0; i < rank; i++) {
        if (dims[i] < 0)
            return okp_refuse(p, OK_ERR_INVALID_ARG, OK_REFUSE_NEGATIVE, kind, index, (uint32_t)i, 0,
                              dims[i]);
        if (dims[i] > OK_POOL_MAX_DIM)
            return okp_refuse(p, OK_ERR_LIMIT, OK_REFUSE_TOO_BIG, kind, index, (uint32_t)i, OK_POOL_MAX_DIM,
                              dims[i]);
    }
    if (ok_pool_tensor_bytes(dtype, dims, rank, need))
        return okp_refuse(p, OK_ERR_LIMIT, OK_REFUSE_TOO_BIG, kind, index, OK_POOL_NONE, (int64_t)MAX_BYTES,
                          -1);
    return OK_OK;
}

ok_status okp_check_request(ok_pool *p, int kind, uint32_t index, int backend, int32_t dtype,
                            const int64_t *dims, int32_t rank, uint64_t *need) {
    ok_status rc = okp_check_slot(p, kind, index);
    if (rc) return rc;
    if (backend < 0 || backend >= OK_BACKEND_COUNT) return OK_ERR_INVALID_ARG;
    if ((rc = okp_check_sizes(p, (uint32_t)kind, index, dtype, dims, rank, need))) return rc;
    return okp_check_decl(p, kind, index, dtype, dims, rank);
}

/* An input's dims bind the symbols its declaration names, for this run. */
void okp_bind_symbols(ok_pool *p, uint32_t index, const int64_t *dims, int32_t rank) {
    const slot *s = &p->slots[OK_SLOT_INPUT][index];
    if (s->decl_rank != rank) return;
    for (int32_t i = 0; i < rank; i++) {
        if (s->decl[i] > OK_POOL_DIM_SYMBOL(0)) continue;
        uint32_t id = (uint32_t)(OK_POOL_DIM_SYMBOL(0) - s->decl[i]);
        if (p->sym_state[id] == SYM_UNBOUND) {
            p->sym_state[id] = SYM_BOUND;
            p->sym_value[id] = dims[i];
        } else if (p->sym_state[id] == SYM_BOUND && p->sym_value[id] != dims[i]) {
            p->sym_state[id] = SYM_CONFLICT;
        }
    }
}

/* ---- public API ---- */
ok_pool *ok_pool_create(uint64_t budget, uint32_t n_inputs, uint32_t n_outputs) {
    if (n_inputs > 65536 || n_outputs > 65536) return NULL;
    ok_pool *p = pool_calloc(1, sizeof *p);
    if (!p) return NULL;
    p->slots[0] = pool_calloc(n_inputs, sizeof(slot));
    p->slots[1] = pool_calloc(n_outputs, sizeof(slot));
    if (!p->slots[0] || !p->slots[1]) {
        free(p->slots[0]);
        free(p->slots[1]);
        free(p);
        return NULL;
    }
    p->n_slots[0] = n_inputs;
    p->n_slots[1] = n_outputs;
    for (int k = 0; k < 2; k++)
        for (uint32_t i = 0; i < p->n_slots[k]; i++)
            p->slots[k][i].decl_dtype = p->slots[k][i].decl_rank = -1;
    p->budget = budget;
    p->next_handle = 1;
    return p;
}

ok_status ok_pool_destroy(ok_pool *p) {
    ok_status rc = okp_begin_call(p);
    if (rc) return rc;
    if ((rc = okp_reserve(p, 0))) return rc;
    for (uint32_t i = 0; i < p->n_t; i++) {
        tensor *t = &p->t[i];
        if (!t->handle) continue;
        if (t->external) {
            okp_emit(p, OK_POOL_FORGET, t, OK_POOL_NONE, OK_POOL_NONE);
            t->handle = 0;
        } else {
            okp_destroy(p, t);
        }
    }
    for (int k = 0; k < 2; k++)
        for (uint32_t i = 0; i < p->n_slots[k]; i++) p->slots[k][i].handle = 0;
    p->disposed = 1;
    p->run_open = 0;
    return OK_OK;
}

void ok_pool_free(ok_pool *p) {
    if (!p) return;
    free(p->sym_value);
    free(p->sym_state);
    free(p->t);
    free(p->act);
    free(p->slots[0]);
    free(p->slots[1]);
    free(p);
}

const uint32_t *ok_pool_actions(const ok_pool *p, uint32_t *count) {
    if (count) *count = p ? p->n_act : 0;
    return p ? p->act : NULL;
}

uint32_t ok_pool_action_count(const ok_pool *p) { return p ? p->n_act : 0; }

const uint64_t *ok_pool_stats(const ok_pool *p, int backend) {
    if (!p || backend < 0 || backend >= OK_BACKEND_COUNT) return NULL;
    return p->stats[backend];
}

uint64_t ok_pool_budget(const ok_pool *p) { return p ? p->budget : 0; }

ok_status ok_pool_set_budget(ok_pool *p, uint64_t budget) {
    ok_status rc = okp_begin_call(p);
    if (rc || (rc = okp_reserve(p, 0))) return rc;
    p->budget = budget;
    okp_evict(p);
    return OK_OK;
}

/* Room for symbol ids < n; the tables only grow. */
ok_status okp_reserve_symbols(ok_pool *p, uint32_t n) {
    if (n <= p->n_sym) return OK_OK;
    int64_t *v = pool_realloc(p->sym_value, (size_t)n * sizeof *v);
    if (!v) return OK_ERR_NOMEM;
    p->sym_value = v;
    uint8_t *st8 = pool_realloc(p->sym_state, n);
    if (!st8) return OK_ERR_NOMEM; /* sym_value grew: harmless */
    p->sym_state = st8;
    memset(p->sym_state + p->n_sym, SYM_UNBOUND, n - p->n_sym);
    p->n_sym = n;
    return OK_OK;
}

ok_status ok_pool_declare(ok_pool *p, int kind, uint32_t index, int32_t dtype, int32_t rank,
                          const int64_t *dims) {
    ok_status rc = okp_begin_call(p);
    if (rc || (rc = okp_check_slot(p, kind, index))) return rc;
    if (dtype < -1 || rank < -1 || rank > OK_POOL_MAX_RANK) return OK_ERR_INVALID_ARG;
    int64_t decl[OK_POOL_MAX_RANK];
    uint32_t n_sym = 0;
    for (int32_t i = 0; i < rank; i++) {
        int64_t d = dims ? dims[i] : OK_POOL_DIM_UNKNOWN;
        if (d > OK_POOL_MAX_DIM) d = OK_POOL_DIM_UNKNOWN; /* onnxruntime-web's unknown */
        if (d < OK_POOL_DIM_SYMBOL(OK_POOL_MAX_SYMBOLS - 1)) return OK_ERR_INVALID_ARG;
        if (d <= OK_POOL_DIM_SYMBOL(0) && (uint32_t)(OK_POOL_DIM_SYMBOL(0) - d) + 1 > n_sym)
            n_sym = (uint32_t)(OK_POOL_DIM_SYMBOL(0) - d) + 1;
        decl[i] = d;
    }
    if ((rc = okp_reserve_symbols(p, n_sym))) return rc;
    slot *s = &p->slots[kind][index];
    s->decl_dtype = dtype;
    s->decl_rank = rank;
    s->from_model = 1;
    s->suspect = 0;
    if (rank > 0) memcpy(s->decl, decl, (size_t)rank * sizeof *decl);
    return OK_OK;
}

int ok_pool_output_declared(const ok_pool *p, uint32_t index) {
    if (!p || okp_check_slot(p, OK_SLOT_OUTPUT, index)) return 0;
    const slot *s = &p->slots[OK_SLOT_OUTPUT][index];
    if (s->decl_rank < 0 || !okp_dtype_bits(s->decl_dtype)) return 0;
    for (int32_t i = 0; i < s->decl_rank; i++)
        if (s->decl[i] == OK_POOL_DIM_UNKNOWN) return 0;
    return 1;
}

const uint32_t *ok_pool_refusal(const ok_pool *p) { return p ? p->refusal : NULL; }

/* A checked request of `need` bytes: reuse, take or create. */
ok_status okp_place(ok_pool *p, uint32_t kind, uint32_t index, int backend, int32_t dtype,
                    const int64_t *dims, int32_t rank, uint64_t need) {
    ok_status rc = okp_reserve(p, 1);
    if (rc) return rc;

    tensor *cur = okp_find(p, p->slots[kind][index].handle);
    if (cur && !cur->external && !cur->caller_ref && cur->backend == backend &&
        same_desc(cur, dtype, dims, rank)) {
        cur->run_used = p->run_id;
        okp_st(p, cur)[OK_STAT_REUSES]++;
        okp_emit(p, OK_POOL_REUSE, cur, kind, index);
        return OK_OK;
    }
    okp_unpin(p, kind, index);
    tensor *t = pick_free(p, &p->slots[kind][index], backend, dtype, dims, rank, need);
    if (t) {
        okp_st(p, t)[OK_STAT_BYTES_FREE] -= t->cap;
        okp_pin(p, t, kind, index, dtype, dims, rank);
        okp_st(p, t)[OK_STAT_TAKES]++;
        okp_emit(p, OK_POOL_TAKE, t, kind, index);
    } else {
        t = okp_new_entry(p);
        t->backend = (uint8_t)backend;
        t->cap = backend == OK_BACKEND_WEBNN ? need : ok_pool_size_class(need + p->headroom);
        okp_pin(p, t, kind, index, dtype, dims, rank);
        uint64_t *s = okp_st(p, t);
        s[OK_STAT_CREATES]++;
        s[OK_STAT_LIVE_TENSORS]++;
        s[OK_STAT_BYTES_HELD] += t->cap;
        okp_emit(p, OK_POOL_CREATE, t, kind, index);
    }
    okp_evict(p);
    return OK_OK;
}

ok_status okp_request(ok_pool *p, uint32_t kind, uint32_t index, int backend, int32_t dtype,
                      const int64_t *dims, int32_t rank) {
    uint64_t need;
    ok_status rc = okp_begin_call(p);
    if (rc) return rc;
    if ((rc = okp_check_request(p, (int)kind, index, backend, dtype, dims, rank, &need))) return rc;
    return okp_place(p, kind, index, backend, dtype, dims, rank, need);
}

uint32_t ok_pool_pinned(const ok_pool *p, int kind, uint32_t index) {
    if (!p || okp_check_slot(p, kind, index)) return 0;
    return p->slots[kind][index].handle;
}

int32_t ok_pool_tensor_dims(const ok_pool *p, uint32_t handle, int64_t *dims, int32_t cap) {
    const tensor *t = p ? okp_find(p, handle) : NULL;
    if (!t) return -1;
    for (int32_t i = 0; i < t->rank && i < cap; i++) dims[i] = t->dims[i];
    return t->rank;
}

uint64_t ok_pool_handle_bytes(const ok_pool *p, uint32_t handle) {
    const tensor *t = p ? okp_find(p, handle) : NULL;
    uint64_t n = 0;
    if (!t || ok_pool_tensor_bytes(t->dtype, t->dims, t->rank, &n)) return 0;
    return n;
}

int32_t ok_pool_handle_dtype(const ok_pool *p, uint32_t handle) {
    const tensor *t = p ? okp_find(p, handle) : NULL;
    return t ? t->dtype : -1;
}

ok_status ok_pool_check(const ok_pool *p) {
    if (!p) return OK_ERR_INVALID_ARG;
    uint64_t held[OK_BACKEND_COUNT] = {0}, fr[OK_BACKEND_COUNT] = {0};
    uint64_t live[OK_BACKEND_COUNT] = {0}, evictable = 0;
    uint32_t free_count = 0;
    if (p->n_t > p->cap_t || p->n_act > p->cap_act) return OK_ERR_CORRUPT;
    for (uint32_t i = 0; i < p->n_t; i++) {
        const tensor *t = &p->t[i];
        if (!t->handle) continue;
        if (t->handle >= p->next_handle || t->backend >= OK_BACKEND_COUNT) return OK_ERR_CORRUPT;
        for (uint32_t j = i + 1; j < p->n_t; j++)
            if (p->t[j].handle == t->handle) return OK_ERR_CORRUPT;
        if (t->external) {
            if (t->state != T_PINNED || t->caller_ref) return OK_ERR_CORRUPT;
        } else {
            held[t->backend] += t->cap;
            live[t->backend]++;
        }
        switch (t->state) {
        case T_PINNED:
            if (t->slot_kind > 1 || t->slot_index >= p->n_slots[t->slot_kind] ||
                p->slots[t->slot_kind][t->slot_index].handle != t->handle)
                return OK_ERR_CORRUPT;
            break;
        case T_KEPT:
            if (!t->caller_ref) return OK_ERR_CORRUPT;
            break;
        case T_FREE:
            if (t->caller_ref || t->external) return OK_ERR_CORRUPT;
            fr[t->backend] += t->cap;
            if (!okp_quarantined(p, t)) {
                evictable += t->cap;
                free_count++;
            }
            break;
        default: return OK_ERR_CORRUPT;
        }
        if (t->state != T_PINNED && t->slot_kind != OK_POOL_NONE) return OK_ERR_CORRUPT;
    }
    for (int k = 0; k < 2; k++)
        for (uint32_t i = 0; i < p->n_slots[k]; i++) {
            const tensor *t = okp_find(p, p->slots[k][i].handle);
            if (p->slots[k][i].handle &&
                (!t || t->state != T_PINNED || t->slot_kind != (uint32_t)k || t->slot_index != i))
                return OK_ERR_CORRUPT;
        }
    for (int b = 0; b < OK_BACKEND_COUNT; b++)
        if (p->stats[b][OK_STAT_BYTES_HELD] != held[b] || p->stats[b][OK_STAT_BYTES_FREE] != fr[b] ||
            p->stats[b][OK_STAT_LIVE_TENSORS] != live[b])
            return OK_ERR_CORRUPT;
    if (evictable > p->budget || free_count > max_free(p)) return OK_ERR_CORRUPT;
    if (p->disposed && live_entries(p)) return OK_ERR_CORRUPT;
    return OK_OK;
}
