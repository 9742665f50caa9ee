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
 * Re-binding (WebGPU): onnxruntime-web registers an external GPUBuffer per
 * (session, input/output index) and, when the same buffer object comes back
 * to that index, keeps the size it registered first. So a WebGPU tensor is
 * never handed back to the slot it was last bound to with another byte size
 * (the free list skips it); same dims reuse it in place as before.
 *
 * Budget: bytes of FREE tensors <= budget, and their count <=
 * OK_POOL_FREE_PER_SLOT per slot + OK_POOL_FREE_EXTRA, after every call made
 * outside a run. Tensors unpinned during an open run (run_begin..run_end) are neither
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
#define OK_BACKEND_LIST(X) \
    X(CPU, 0)              \
    X(WEBGPU, 1)           \
    X(WEBNN, 2)
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
/* The free list's byte budget a session's pool gets unless the caller sets one. */
#define OK_POOL_DEFAULT_BUDGET ((uint64_t)64 << 20)
/* The free list also holds at most OK_POOL_FREE_PER_SLOT tensors per slot
 * of the session, plus OK_POOL_FREE_EXTRA, the least recently freed going
 * first. A free tensor serves only a request of its size class, so past
 * that many the list is mostly outputs that grew out of their classes or
 * onnxruntime's own outputs adopted on the CPU (wasm EP), which are never
 * asked for again; and every lookup scans the list. Measured before the
 * cap: a KV decoder on wasm kept 128 more free tensors per 64 tokens, and
 * its time per token went from 1x to 2-6x plain onnxruntime-web's. */
#define OK_POOL_FREE_PER_SLOT 2u
#define OK_POOL_FREE_EXTRA 8u

/* X(FIELD, word): the uint32 word of each field of an action record (the
 * layout above); js/core-constants.js carries it as POOL_ACTION_WORD. */
#define OK_POOL_ACTION_WORD_LIST(X) \
    X(OP, 0)                        \
    X(HANDLE, 1)                    \
    X(SLOT_KIND, 2)                 \
    X(SLOT_INDEX, 3)                \
    X(BACKEND, 4)                   \
    X(GENERATION, 5)                \
    X(BYTES_LO, 6)                  \
    X(BYTES_HI, 7)
enum {
#define OK_POOL_AW_ENUM_(name, value) OK_POOL_AW_##name = value,
    OK_POOL_ACTION_WORD_LIST(OK_POOL_AW_ENUM_)
#undef OK_POOL_AW_ENUM_
};

#define OK_POOL_OP_LIST(X)                                                                       \
    X(CREATE, 1)   /* create tensor `handle` of `bytes` on backend, then write/bind it */        \
    X(REUSE, 2)    /* the slot's pinned tensor still fits: write in place, bind same object */   \
    X(TAKE, 3)     /* re-pin free tensor `handle` (capacity `bytes`) to the slot, write, bind */ \
    X(DESTROY, 4)  /* destroy `handle` and drop it from the map */                               \
    X(BIND, 5)     /* kept `handle` is now bound to the input slot (no device work) */           \
    X(EXTERNAL, 6) /* map `handle` -> the caller's tensor, bound to the slot */                  \
    X(FORGET, 7)   /* drop external `handle` from the map; do NOT destroy it */                  \
    X(ADOPT, 8)    /* map `handle` -> the tensor ORT allocated for the output slot */            \
    X(KEEP, 9)     /* `handle` left its output pin; the caller owns it until release */
enum ok_pool_op {
#define OK_POOL_OP_ENUM_(name, value) OK_POOL_##name = value,
    OK_POOL_OP_LIST(OK_POOL_OP_ENUM_)
#undef OK_POOL_OP_ENUM_
};

/* Stats, per backend: ok_pool_stats() returns OK_POOL_STAT_COUNT uint64. */
#define OK_POOL_STAT_LIST(X)                                                               \
    X(CREATES, 0)      /* CREATE actions */                                                \
    X(REUSES, 1)       /* REUSE actions (steady state) */                                  \
    X(REPINS, 2)       /* a slot's pool tensor moved off its pin for a new one */          \
    X(DESTROYS, 3)     /* DESTROY actions */                                               \
    X(TAKES, 4)        /* TAKE actions (served from the free list) */                      \
    X(ADOPTS, 5)       /* ADOPT actions */                                                 \
    X(BYTES_HELD, 6)   /* capacity of live pool tensors: pinned + kept + free */           \
    X(BYTES_FREE, 7)   /* capacity of free-list tensors */                                 \
    X(LIVE_TENSORS, 8) /* live pool tensors (external ones not counted) */                 \
    X(RETRIES, 9)      /* runs refused with preallocated outputs, run again adopting */    \
    X(DISTRUSTED, 10)  /* declared dims an adopted result proved wrong (now unknown) */    \
    X(PLACEMENT, 11)   /* OK_PLACE_*: where inputs and outputs are kept (see PLACEMENT) */ \
    X(PASSES, 12)      /* runs the pool stepped aside from (see PASS-THROUGH) */
enum ok_pool_stat {
#define OK_POOL_STAT_ENUM_(name, value) OK_STAT_##name = value,
    OK_POOL_STAT_LIST(OK_POOL_STAT_ENUM_)
#undef OK_POOL_STAT_ENUM_
        OK_POOL_STAT_COUNT = 13
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

/* SHAPES. Each slot is declared with the model's dtype (ONNX TensorProto
 * code, -1 = any) and dims (rank -1 = any). A declared dim is
 *   d >= 0                 a fixed size (> OK_POOL_MAX_DIM: unknown; that is
 *                          how onnxruntime-web reports one, 4294967295)
 *   OK_POOL_DIM_UNKNOWN    unknown (value-dependent, or not declared)
 *   OK_POOL_DIM_SYMBOL(s)  the named symbol s (ids 0..OK_POOL_MAX_SYMBOLS-1;
 *                          JS interns the names)
 * dims NULL = every dim unknown. Inputs are checked against it: dtype, rank,
 * every fixed dim, each dim <= OK_POOL_MAX_DIM, and the data's byte length
 * (ok_pool_feed). Each input pinned during a run binds the symbols its
 * declaration names; a symbol two inputs bind to different sizes is unbound
 * (onnxruntime does not check it either), so it plans nothing.
 *
 * An output is PLANNED for a run (preallocated, pinned, written in place)
 * when its dtype has a size and every dim is fixed or a symbol this run's
 * inputs bound; otherwise onnxruntime allocates it and the caller ADOPTs the
 * result. Never a guess from an earlier run. Adopted outputs are onnxruntime's
 * truth: only their sizes are checked, not the declaration.
 *
 * Refusals: a call refused for its request leaves a REFUSAL record
 * (ok_pool_refusal, OK_POOL_REFUSAL_WORDS uint32): reason, slot kind, slot
 * index, dim index (or NONE), expected (int64 lo, hi), got (int64 lo, hi).
 * JS only formats it. */
#define OK_POOL_MAX_DIM 0x7FFFFFFF
#define OK_POOL_MAX_SYMBOLS 65536
#define OK_POOL_DIM_UNKNOWN (-1)
#define OK_POOL_DIM_SYMBOL(s) (-2 - (int64_t)(s))
#define OK_POOL_REFUSAL_WORDS 8
/* X(FIELD, word): the uint32 word of each field of the refusal record;
 * generated for JS as POOL_REFUSAL_WORD. */
#define OK_POOL_REFUSAL_WORD_LIST(X) \
    X(REASON, 0)                     \
    X(SLOT_KIND, 1)                  \
    X(SLOT_INDEX, 2)                 \
    X(DIM, 3)                        \
    X(EXPECTED_LO, 4)                \
    X(EXPECTED_HI, 5)                \
    X(GOT_LO, 6)                     \
    X(GOT_HI, 7)
enum {
#define OK_POOL_RW_ENUM_(name, value) OK_POOL_RW_##name = value,
    OK_POOL_REFUSAL_WORD_LIST(OK_POOL_RW_ENUM_)
#undef OK_POOL_RW_ENUM_
};
#define OK_POOL_REFUSAL_LIST(X)                                                  \
    X(NONE, 0)                                                                   \
    X(DTYPE, 1)    /* expected dtype, got dtype (OK_ERR_SHAPE) */                \
    X(RANK, 2)     /* expected rank, got rank (OK_ERR_SHAPE) */                  \
    X(DIM, 3)      /* at dim: expected size, got size (OK_ERR_SHAPE) */          \
    X(DATA, 4)     /* expected data bytes, got bytes (OK_ERR_SHAPE) */           \
    X(TOO_BIG, 5)  /* at dim (NONE: the byte size): limit, got (OK_ERR_LIMIT) */ \
    X(NEGATIVE, 6) /* at dim: got a negative size (OK_ERR_INVALID_ARG) */        \
    X(NO_SIZE, 7)  /* got a dtype with no fixed size, e.g. string (OK_ERR_INVALID_ARG) */
enum ok_pool_refusal_reason {
#define OK_POOL_REFUSAL_ENUM_(name, value) OK_REFUSE_##name = value,
    OK_POOL_REFUSAL_LIST(OK_POOL_REFUSAL_ENUM_)
#undef OK_POOL_REFUSAL_ENUM_
};

/* The one dtype table: X(ONNX TensorProto code, onnxruntime-web name, bits per
 * element); bits 0 = no fixed size. js/core-constants.js carries it as DTYPE. */
#define OK_DTYPE_LIST(X)     \
    X(1, float32, 32)        \
    X(2, uint8, 8)           \
    X(3, int8, 8)            \
    X(4, uint16, 16)         \
    X(5, int16, 16)          \
    X(6, int32, 32)          \
    X(7, int64, 64)          \
    X(8, string, 0)          \
    X(9, bool, 8)            \
    X(10, float16, 16)       \
    X(11, float64, 64)       \
    X(12, uint32, 32)        \
    X(13, uint64, 64)        \
    X(14, complex64, 64)     \
    X(15, complex128, 128)   \
    X(16, bfloat16, 16)      \
    X(17, float8e4m3fn, 8)   \
    X(18, float8e4m3fnuz, 8) \
    X(19, float8e5m2, 8)     \
    X(20, float8e5m2fnuz, 8) \
    X(21, uint4, 4)          \
    X(22, int4, 4)           \
    X(23, float4e2m1, 4)

ok_status ok_pool_declare(ok_pool *p, int kind, uint32_t index, int32_t dtype, int32_t rank,
                          const int64_t *dims);
/* Whether output `index` has a declared shape: a sized dtype, a known rank,
 * every dim a size or a named symbol. onnxruntime computes such outputs where
 * the graph runs, so they stay on the device (planned when this run's inputs
 * bind their symbols, adopted otherwise, e.g. a KV cache's past+1). An
 * unknown dim marks a value-dependent output (NonZero, a detector's boxes),
 * which onnxruntime computes on the CPU: it comes back there. */
int ok_pool_output_declared(const ok_pool *p, uint32_t index);
/* The refusal of the last call, OK_POOL_REFUSAL_WORDS words (reason NONE
 * when the last call was not refused for its request). */
const uint32_t *ok_pool_refusal(const ok_pool *p);

ok_status ok_pool_run_begin(ok_pool *p);
ok_status ok_pool_run_end(ok_pool *p); /* may DESTROY (deferred eviction) */

/* Ask for a pool tensor for a slot with these dtype+dims: one REUSE, TAKE or
 * CREATE for the slot (plus FORGET/DESTROY as the old binding requires). The
 * same call serves outputs whose shape is known (preallocation). */
ok_status ok_pool_input(ok_pool *p, uint32_t index, int backend, int32_t dtype, const int64_t *dims,
                        int32_t rank);
/* ok_pool_input for CPU data of data_bytes bytes: refused (DATA) unless it
 * is exactly the tensor's size. Placement: on WebGPU, an int64 or bool input
 * (a sample rate, a step counter, an attention mask, token ids) is pinned on
 * the CPU backend instead (the action says so): onnxruntime-web reads most
 * such inputs with CPU kernels, and one pinned on the GPU then costs it a
 * download per run (a staging GPUBuffer and a sync: transformers.js's
 * attention mask, [batch, total], one more token each step), where a CPU
 * tensor a GPU kernel reads costs an upload, as onnxruntime-web alone does. */
ok_status ok_pool_feed(ok_pool *p, uint32_t index, int backend, int32_t dtype, const int64_t *dims,
                       int32_t rank, uint64_t data_bytes);
/* Output `index` for this run: when planned (see SHAPES), one REUSE, TAKE
 * or CREATE with the declared dtype and the resolved dims; otherwise OK_OK
 * with no action, and the caller adopts what onnxruntime allocates. An
 * output the model gives no plannable dims, kept on the device last run
 * through ok_pool_output, is planned with last run's dtype and dims: a
 * guess, made until one fails a run (ok_pool_run_failed). ok_pool_output:
 * a tensor for output `index` with the dims the caller gives (JS: a kept
 * output onnxruntime returned on the CPU, moved to the device). */
ok_status ok_pool_output_auto(ok_pool *p, uint32_t index, int backend);
ok_status ok_pool_output(ok_pool *p, uint32_t index, int backend, int32_t dtype, const int64_t *dims,
                         int32_t rank);
/* Bind a KEPT handle to an input slot (chaining, no CPU round trip): BIND.
 * OK_ERR_IN_USE if it is pinned to another slot, OK_ERR_STATE if free,
 * OK_ERR_SHAPE if it disagrees with the slot's declaration. */
ok_status ok_pool_input_bind(ok_pool *p, uint32_t index, uint32_t handle);
/* Bind a caller-owned tensor to a slot: EXTERNAL with a new handle. */
ok_status ok_pool_bind_external(ok_pool *p, int kind, uint32_t index, int backend, int32_t dtype,
                                const int64_t *dims, int32_t rank);
/* After ORT allocated an output itself: pin it, ADOPT with a new handle.
 * capacity = the buffer's real size in bytes, 0 = the exact tensor bytes. */
ok_status ok_pool_adopt(ok_pool *p, uint32_t index, int backend, int32_t dtype, const int64_t *dims,
                        int32_t rank, uint64_t capacity);
/* The output slot's tensor becomes KEPT (KEEP); the slot is left unpinned. */
ok_status ok_pool_keep(ok_pool *p, uint32_t out_index);
/* The caller is done with a KEPT handle: once no slot binds it, it goes to
 * the free list (maybe DESTROY by budget). */
ok_status ok_pool_release(ok_pool *p, uint32_t handle);

/* VERDICTS on facts JS reports (pool_verdicts.c).
 *
 * ok_pool_declare_runtime: onnxruntime-web's metadata of a slot, after the
 * model's own declaration (ok_pool_declare, from ortkeep's reader). Where
 * both spoke, what they agree on stands and anything else becomes unknown
 * (a dtype -1, a dim UNKNOWN, a rank -1), so nothing is preallocated on a
 * guess. Where only the runtime spoke, its [] is an unknown rank, never a
 * scalar: onnxruntime-web reports a tensor declared with no shape as [].
 *
 * ok_pool_run_failed: onnxruntime's run failed (between run_begin and
 * run_end). The outputs preallocated for this run (planned by
 * ok_pool_output_auto) may be why: a model may declare a wrong fixed dim.
 * Each leaves its slot (freed at run_end) and turns suspect: planned no
 * more until an adopted result settles it. *retry = 1 when there was one:
 * run once more, letting onnxruntime allocate those outputs. An adopted
 * result settles a suspect slot: declared dims it contradicts become unknown
 * for good (DISTRUSTED), the others stand and are planned again.
 *
 * ok_pool_device_failed: the device refused this run's work (a GPUBuffer
 * destroyed under the pool, a lost device), reported once onnxruntime's run
 * has settled. No pool tensor can be trusted: every slot is unpinned
 * (external tensors FORGET) and every pool tensor not kept by the caller is
 * DESTROYed now, so the next run creates fresh ones. Kept tensors stay the
 * caller's.
 *
 * ok_pool_result: a result onnxruntime allocated for output `index`: ADOPT
 * when it is on a device or the caller keeps it; no action for a CPU result
 * nobody keeps (the caller returns onnxruntime's tensor as it is).
 *
 * ok_pool_device_verdict: the backend a session's pool uses, from facts JS
 * reads: the one wanted (named by the caller or implied by the first
 * execution provider), whether such a device is available here, whether the
 * caller named it, whether the provider list falls back to a CPU one.
 * -1: refused (the device is missing and nothing falls back). */
ok_status ok_pool_declare_runtime(ok_pool *p, int kind, uint32_t index, int32_t dtype, int32_t rank,
                                  const int64_t *dims);
ok_status ok_pool_run_failed(ok_pool *p, int *retry);
ok_status ok_pool_device_failed(ok_pool *p);
ok_status ok_pool_result(ok_pool *p, uint32_t index, int backend, int32_t dtype, const int64_t *dims,
                         int32_t rank, uint64_t capacity, int keep);
int ok_pool_device_verdict(int wanted, int available, int chosen_by_caller, int cpu_fallback);

/* PLACEMENT (device sessions): whether a run keeps its inputs and outputs
 * pinned on the device (DEVICE) or hands onnxruntime CPU tensors and lets it
 * allocate the outputs on the CPU (CPU: what plain onnxruntime-web does).
 * Which is faster depends on the model and the device: a model whose ops
 * run partly on onnxruntime's CPU kernels (silero's If/LSTM) pays a transfer
 * per pinned tensor. So it is measured, like a form's verdict: after
 * OK_PLACE_WARMUP untimed runs, OK_PLACE_TRIALS timed runs of each, CPU and
 * DEVICE alternating; DEVICE stays only if its median run is faster. A run
 * that chains device tensors (kept outputs fed back, the caller's GPUBuffers)
 * decides DEVICE at once: on the CPU they would travel every run.
 * ok_pool_placement_next: the placement of the next run. report: JS timed
 * a run made with `placement` (micros from its first binding to its last
 * readback); settled: that placement is the verdict now, untimed (the run
 * fed or kept device tensors: DEVICE; or the caller chose one). */
#define OK_PLACE_LIST(X) \
    X(UNDECIDED, 0)      \
    X(DEVICE, 1)         \
    X(CPU, 2)
enum {
#define OK_PLACE_ENUM_(name, value) OK_PLACE_##name = value,
    OK_PLACE_LIST(OK_PLACE_ENUM_)
#undef OK_PLACE_ENUM_
};
#define OK_PLACE_WARMUP 2
#define OK_PLACE_TRIALS 3
int ok_pool_placement_next(const ok_pool *p);
ok_status ok_pool_placement_report(ok_pool *p, int placement, uint32_t micros, int settled);

/* PASS-THROUGH: whether a run steps aside from the pool. On the CPU backend
 * (the wasm EP) onnxruntime-web copies every CPU input into its own heap and
 * allocates every output afresh, so a pinned array buys nothing there and
 * costs a copy per input and the pool's bookkeeping per run (docs/pool.md:
 * the layer alone 5.5-10.6 us per run on silero v5 that way, 3.4-6.5 us
 * stepping aside). So a run on the CPU backend that keeps no output
 * (`keeps` 0) and binds nothing on a device (`device_bound` 0: no kept
 * output or device tensor fed, no output the caller bound to a device)
 * hands onnxruntime the caller's feeds and returns onnxruntime's outputs as
 * they are: 1, counted as PASSES on that backend. Any other run is the
 * pool's: 0 (a kept output is a pool tensor the caller feeds back, so the
 * pool path stays whole for chains), except where the runtime takes every
 * CPU input's buffer (`inputs_taken`: onnxruntime-web in its proxy worker
 * transfers them there): no tensor of the pool's could outlive the run it is
 * bound to, so a CPU run steps aside whatever it keeps, and a kept output is
 * the runtime's own. No action either way.
 *
 * ok_pool_check_feed: ok_pool_feed's verdict on input `index` (dtype, rank,
 * fixed dims, sizes, data bytes), the same refusals, with no tensor placed,
 * no symbol bound and no action: the check a pass-through run makes. */
int ok_pool_pass_through(ok_pool *p, int backend, uint32_t keeps, uint32_t device_bound,
                         uint32_t inputs_taken);
ok_status ok_pool_check_feed(ok_pool *p, uint32_t index, int32_t dtype, const int64_t *dims, int32_t rank,
                             uint64_t data_bytes);

/* What the page knows of the GPU adapter, before the first run. The trials
 * above were tuned on a software adapter (SwiftShader runs "GPU" kernels on
 * the same CPU cores as onnxruntime's wasm kernels, so either can win). On a
 * hardware adapter they measured the wrong thing: first-run shader compiles
 * and readback waits made the CPU look faster for hey_rhasspy, whose device
 * placement is 0.65-0.70x plain on a real GPU. So a hardware adapter decides
 * DEVICE at once; a fallback adapter, or none known, is measured. */
#define OK_ADAPTER_LIST(X) \
    X(UNKNOWN, 0)          \
    X(FALLBACK, 1)         \
    X(HARDWARE, 2)
enum {
#define OK_ADAPTER_ENUM_(name, value) OK_ADAPTER_##name = value,
    OK_ADAPTER_LIST(OK_ADAPTER_ENUM_)
#undef OK_ADAPTER_ENUM_
};
ok_status ok_pool_placement_adapter(ok_pool *p, int adapter);

/* Queries (no actions). Handle bound to a slot, 0 if none. */
uint32_t ok_pool_pinned(const ok_pool *p, int kind, uint32_t index);
/* rank of handle's current dims (written to dims[0..cap)), or -1 if unknown. */
int32_t ok_pool_tensor_dims(const ok_pool *p, uint32_t handle, int64_t *dims, int32_t cap);
/* Exact bytes of handle's dtype+dims (what a readback copies), 0 if none. */
uint64_t ok_pool_handle_bytes(const ok_pool *p, uint32_t handle);
/* ONNX dtype of the handle, -1 if none. */
int32_t ok_pool_handle_dtype(const ok_pool *p, uint32_t handle);

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
