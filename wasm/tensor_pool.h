/* Per-session tensor pool: the policy half of "keep device tensors bound to
 * graph inputs/outputs between runs". Sans-I/O: C never touches a device.
 * Tensors are integer handles the pool allocates; JS keeps a Map
 * handle -> GPUBuffer / MLTensor / TypedArray and carries out the ACTIONS
 * each call returns.
 *
 * One pool per session. Slots are the session's graph inputs (kind 0) and
 * outputs (kind 1), by index in inputNames / outputNames.
 *
 * Tensor states (pool-created unless "external"):
 *   PINNED  bound to one slot (the pin); reused in place while dtype+dims hold
 *   KEPT    an output the caller kept (run(..., {keep})) and may feed back as
 *           an input; never on the free list until ok_pool_release()
 *   FREE    on the free list, by size class, LRU-evicted over the byte budget
 * External (caller-owned) tensors are only ever PINNED; when unpinned the
 * pool FORGETs them (never DESTROY, never free list).
 *
 * ACTIONS. Every mutating call first empties the action list, then appends
 * what JS must do, in order; on error the list is empty and the pool is as
 * before the call. Read with ok_pool_actions(): a packed array of `count`
 * records, each OK_POOL_ACTION_WORDS (8) uint32 words, little-endian as in
 * wasm memory:
 *   word 0  op          OK_POOL_* below
 *   word 1  handle      nonzero; never reused within a pool's lifetime
 *   word 2  slot kind   0 input, 1 output, 0xFFFFFFFF none
 *   word 3  slot index  or 0xFFFFFFFF
 *   word 4  backend     OK_BACKEND_*
 *   word 5  generation  slot pin generation after the action (changes when the
 *                       slot's binding or dims change; equal => same binding)
 *   word 6  bytes lo    capacity of the tensor in bytes (CREATE: size to create)
 *   word 7  bytes hi
 * For CREATE on WebNN the descriptor is the dtype+dims JS passed in the call.
 *
 * Budget: bytes of FREE tensors <= budget after every call made outside a
 * run. Tensors unpinned during an open run (run_begin..run_end) are neither
 * reused nor destroyed until run_end, because ORT may still see them bound;
 * run_end then evicts down to the budget.
 */
#ifndef ORTKEEP_TENSOR_POOL_H
#define ORTKEEP_TENSOR_POOL_H

#include <stddef.h>
#include <stdint.h>

#include "ok_error.h"

/* X(NAME, value): the lists JS reads too (js/core-constants.js is generated
 * from them by wasm/gen_constants.c). */
#define OK_BACKEND_LIST(X) X(CPU, 0) X(WEBGPU, 1) X(WEBNN, 2)
enum {
#define OK_BACKEND_ENUM_(name, value) OK_BACKEND_##name = value,
    OK_BACKEND_LIST(OK_BACKEND_ENUM_)
#undef OK_BACKEND_ENUM_
    OK_BACKEND_COUNT = 3
};
enum { OK_SLOT_INPUT = 0, OK_SLOT_OUTPUT = 1 };
#define OK_POOL_NONE 0xFFFFFFFFu
#define OK_POOL_MAX_RANK 16
#define OK_POOL_ACTION_WORDS 8

#define OK_POOL_OP_LIST(X)                                                          \
    X(CREATE, 1)   /* create tensor `handle` of `bytes` on backend, then write/bind it */   \
    X(REUSE, 2)    /* the slot's pinned tensor still fits: write in place, bind same object */ \
    X(TAKE, 3)     /* re-pin free tensor `handle` (capacity `bytes`) to the slot, write, bind */ \
    X(DESTROY, 4)  /* destroy `handle` and drop it from the map */                        \
    X(BIND, 5)     /* kept `handle` is now bound to the input slot (no device work) */    \
    X(EXTERNAL, 6) /* map `handle` -> the caller's tensor, bound to the slot */           \
    X(FORGET, 7)   /* drop external `handle` from the map; do NOT destroy it */           \
    X(ADOPT, 8)    /* map `handle` -> the tensor ORT allocated for the output slot */     \
    X(KEEP, 9)     /* `handle` left its output pin; the caller owns it until release */
enum ok_pool_op {
#define OK_POOL_OP_ENUM_(name, value) OK_POOL_##name = value,
    OK_POOL_OP_LIST(OK_POOL_OP_ENUM_)
#undef OK_POOL_OP_ENUM_
};

/* Stats, per backend: ok_pool_stats() returns OK_POOL_STAT_COUNT uint64. */
#define OK_POOL_STAT_LIST(X)                                                        \
    X(CREATES, 0)      /* CREATE actions */                                              \
    X(REUSES, 1)       /* REUSE actions (steady state) */                                \
    X(REPINS, 2)       /* a slot's pool tensor moved off its pin for a new one */        \
    X(DESTROYS, 3)     /* DESTROY actions */                                             \
    X(TAKES, 4)        /* TAKE actions (served from the free list) */                    \
    X(ADOPTS, 5)       /* ADOPT actions */                                               \
    X(BYTES_HELD, 6)   /* capacity of live pool tensors: pinned + kept + free */         \
    X(BYTES_FREE, 7)   /* capacity of free-list tensors */                               \
    X(LIVE_TENSORS, 8) /* live pool tensors (external ones not counted) */
enum ok_pool_stat {
#define OK_POOL_STAT_ENUM_(name, value) OK_STAT_##name = value,
    OK_POOL_STAT_LIST(OK_POOL_STAT_ENUM_)
#undef OK_POOL_STAT_ENUM_
    OK_POOL_STAT_COUNT = 9
};

typedef struct ok_pool ok_pool;

/* NULL when out of memory. budget caps the free list's bytes. */
ok_pool *ok_pool_create(uint64_t budget, uint32_t n_inputs, uint32_t n_outputs);
/* Dispose: one DESTROY per pool-created tensor (pinned, kept or free), never
 * for external ones; the pool then refuses everything (OK_ERR_STATE) but
 * ok_pool_actions/stats/free. OK_ERR_NOMEM leaves it undisposed. */
ok_status ok_pool_destroy(ok_pool *p);
void ok_pool_free(ok_pool *p); /* releases C memory only; call after destroy */

const uint32_t *ok_pool_actions(const ok_pool *p, uint32_t *count /* may be NULL */);
uint32_t ok_pool_action_count(const ok_pool *p);
const uint64_t *ok_pool_stats(const ok_pool *p, int backend); /* NULL if backend invalid */
uint64_t ok_pool_budget(const ok_pool *p);
ok_status ok_pool_set_budget(ok_pool *p, uint64_t budget); /* may DESTROY */

/* Declared dtype (ONNX TensorProto code) and rank of a slot; -1 = any. A
 * request that disagrees fails with OK_ERR_SHAPE and changes nothing. */
ok_status ok_pool_declare(ok_pool *p, int kind, uint32_t index, int32_t dtype, int32_t rank);

ok_status ok_pool_run_begin(ok_pool *p);
ok_status ok_pool_run_end(ok_pool *p); /* may DESTROY (deferred eviction) */

/* Ask for a pool tensor for a slot with these dtype+dims: one REUSE, TAKE or
 * CREATE for the slot (plus FORGET/DESTROY as the old binding requires). The
 * same call serves outputs whose shape is known (preallocation). */
ok_status ok_pool_input(ok_pool *p, uint32_t index, int backend, int32_t dtype,
                        const int64_t *dims, int32_t rank);
ok_status ok_pool_output(ok_pool *p, uint32_t index, int backend, int32_t dtype,
                         const int64_t *dims, int32_t rank);
/* Bind a KEPT handle to an input slot (chaining, no CPU round trip): BIND.
 * OK_ERR_IN_USE if it is pinned to another slot, OK_ERR_STATE if free,
 * OK_ERR_SHAPE if it disagrees with the slot's declaration. */
ok_status ok_pool_input_bind(ok_pool *p, uint32_t index, uint32_t handle);
/* Bind a caller-owned tensor to a slot: EXTERNAL with a new handle. */
ok_status ok_pool_bind_external(ok_pool *p, int kind, uint32_t index, int backend,
                                int32_t dtype, const int64_t *dims, int32_t rank);
/* After ORT allocated an output itself: pin it, ADOPT with a new handle.
 * capacity = the buffer's real size in bytes, 0 = the exact tensor bytes. */
ok_status ok_pool_adopt(ok_pool *p, uint32_t index, int backend, int32_t dtype,
                        const int64_t *dims, int32_t rank, uint64_t capacity);
/* The output slot's tensor becomes KEPT (KEEP); the slot is left unpinned. */
ok_status ok_pool_keep(ok_pool *p, uint32_t out_index);
/* The caller is done with a KEPT handle: once no slot binds it, it goes to
 * the free list (maybe DESTROY by budget). */
ok_status ok_pool_release(ok_pool *p, uint32_t handle);

/* Queries (no actions). Handle bound to a slot, 0 if none. */
uint32_t ok_pool_pinned(const ok_pool *p, int kind, uint32_t index);
/* rank of handle's current dims (written to dims[0..cap)), or -1 if unknown. */
int32_t ok_pool_tensor_dims(const ok_pool *p, uint32_t handle, int64_t *dims, int32_t cap);

/* Integrity check (tests, debug builds of the JS side): stats equal a
 * recount, every pin points at a tensor pinned to exactly that slot, no
 * tensor is both free and bound, kept => caller-referenced, external =>
 * pinned, and free bytes (those evictable now) <= budget. OK_ERR_CORRUPT
 * on the first violation. */
ok_status ok_pool_check(const ok_pool *p);

/* Size class for `bytes` on CPU/WebGPU (see tensor_pool.c); 0 if too big. */
uint64_t ok_pool_size_class(uint64_t bytes);
/* Bytes of a dtype+dims tensor; OK_ERR_INVALID_ARG / OK_ERR_LIMIT. */
ok_status ok_pool_tensor_bytes(int32_t dtype, const int64_t *dims, int32_t rank, uint64_t *out);

/* Test hook: the next n allocations succeed, then every one fails; n < 0
 * turns failures off. Process-wide (one thread in wasm). */
void ok_pool_set_alloc_fail_after(int n);

#endif
