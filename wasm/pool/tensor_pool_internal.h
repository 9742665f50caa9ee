/* The tensor pool's private state, shared by its parts: tensor_pool.c (the
 * tensors, slots, the calls that bind them and the output dims they plan)
 * and, on top of it, pool_verdicts.c (the verdicts that take facts from JS:
 * the runtime's declarations, a failed run, what to do with a result, which
 * device), which calls tensor_pool.c's helpers below. Not for other layers. */
#ifndef ORTKEEP_TENSOR_POOL_INTERNAL_H
#define ORTKEEP_TENSOR_POOL_INTERNAL_H

#include "tensor_pool.h"

/* Byte sizes above 2^53 cannot round-trip through a JS number. */
#define MAX_BYTES ((uint64_t)1 << 53)
#define MAX_HANDLE 0x7FFFFFFFu

enum { T_PINNED = 1, T_KEPT = 2, T_FREE = 3 };

typedef struct tensor {
    uint32_t handle; /* 0: unused entry */
    uint8_t state;   /* T_* */
    uint8_t backend;
    uint8_t external;   /* caller-owned: never destroyed, never free-listed */
    uint8_t caller_ref; /* kept and not yet released */
    int32_t dtype;
    int32_t rank;
    uint32_t slot_kind; /* when T_PINNED */
    uint32_t slot_index;
    uint64_t cap;      /* bytes allocated on the device */
    uint64_t tick;     /* when it entered the free list (LRU order) */
    uint64_t run_used; /* run id it was last handed out / bound in */
    int64_t dims[OK_POOL_MAX_RANK];
} tensor;

typedef struct slot {
    uint32_t handle;         /* pinned tensor, 0 = none */
    uint32_t generation;     /* bumps whenever the binding or its dims change */
    int32_t decl_dtype;      /* -1 = any */
    int32_t decl_rank;       /* -1 = any */
    uint32_t last_handle;    /* the tensor last bound here, and with how many */
    uint64_t last_bytes;     /* bytes (what onnxruntime-web registered) */
    uint64_t planned_run;    /* run id in which ok_pool_output_auto preallocated it */
    uint8_t from_model;      /* declared by ok_pool_declare (the model's bytes) */
    uint8_t suspect;         /* a run with it preallocated failed: adopt until one shows the truth */
    uint8_t suspect_backend; /* where it was preallocated (the stats it counts in) */
    /* Per dim of an output, a symbol no input binds (a KV cache's past+1):
     * learned as "input rel_in-1's dim rel_dim + rel_off" from results;
     * rel_seen 1 = seen once, 2 = held on a second run (then it plans). */
    uint16_t rel_in[OK_POOL_MAX_RANK];
    uint8_t rel_dim[OK_POOL_MAX_RANK];
    uint8_t rel_seen[OK_POOL_MAX_RANK];
    int64_t rel_off[OK_POOL_MAX_RANK];
    int64_t rel_last_in[OK_POOL_MAX_RANK]; /* the input dim's value when last seen */
    int64_t decl[OK_POOL_MAX_RANK];        /* declared dims: size, UNKNOWN, SYMBOL(s) */
    /* An output kept on the device though the pool could not plan it
     * (ok_pool_output after onnxruntime returned it on the CPU): its dtype
     * and dims, and the run that kept it; whether this run's plan is that
     * guess, and whether a guess ever failed a run (then never again). */
    uint64_t kept_run;
    uint8_t guessed;
    uint8_t no_guess;
    int32_t kept_dtype;
    int32_t kept_rank;
    int64_t kept_dims[OK_POOL_MAX_RANK];
} slot;

enum { SYM_UNBOUND = 0, SYM_BOUND = 1, SYM_CONFLICT = 2 };

struct ok_pool {
    tensor *t;
    uint32_t n_t, cap_t; /* entries in use (incl. holes) / allocated */
    uint32_t *act;
    uint32_t n_act, cap_act; /* in records */
    slot *slots[2];
    uint32_t n_slots[2];
    uint64_t budget;
    uint64_t clock; /* free-list ticks */
    uint64_t run_id;
    int run_open;
    int disposed;
    uint32_t next_handle;
    uint64_t stats[OK_BACKEND_COUNT][OK_POOL_STAT_COUNT];
    int64_t *sym_value; /* per symbol id: its size in this run */
    uint8_t *sym_state; /* SYM_* */
    uint32_t n_sym;     /* ids < n_sym are allocated */
    uint32_t refusal[OK_POOL_REFUSAL_WORDS];
    uint64_t headroom;                     /* extra bytes the request being placed may grow into */
    int placement;                         /* OK_PLACE_*: the verdict, UNDECIDED while measuring */
    uint32_t place_runs;                   /* runs reported */
    uint32_t place_us[2][OK_PLACE_TRIALS]; /* [0] CPU, [1] DEVICE timed runs */
    uint32_t place_n[2];
};

/* Helpers of tensor_pool.c the other parts call (see there). */
tensor *okp_find(const ok_pool *p, uint32_t handle);
void okp_emit(ok_pool *p, uint32_t op, const tensor *t, uint32_t kind, uint32_t index);
uint64_t *okp_st(ok_pool *p, const tensor *t);
int okp_unpin(ok_pool *p, uint32_t kind, uint32_t index);
ok_status okp_reserve(ok_pool *p, int want_entry);
ok_status okp_begin_call(ok_pool *p);
ok_status okp_check_slot(const ok_pool *p, int kind, uint32_t index);
int okp_resolve(const ok_pool *p, const slot *s, int64_t *dims);
int okp_dtype_bits(int32_t dtype);
void okp_evict(ok_pool *p);
void okp_destroy(ok_pool *p, tensor *t);
ok_status okp_reserve_symbols(ok_pool *p, uint32_t n); /* symbol ids < n usable */
/* Placing a tensor, its entries and pins, and a call's checks (tensor_pool.c),
 * which one run's calls (pool_run.c) build on. */
tensor *okp_new_entry(ok_pool *p);
void okp_to_free(ok_pool *p, tensor *t);
void okp_pin(ok_pool *p, tensor *t, uint32_t kind, uint32_t index, int32_t dtype, const int64_t *dims,
             int32_t rank);
int okp_quarantined(const ok_pool *p, const tensor *t);
ok_status okp_refuse(ok_pool *p, ok_status rc, uint32_t reason, uint32_t kind, uint32_t index, uint32_t dim,
                     int64_t expected, int64_t got);
ok_status okp_check_decl(ok_pool *p, int kind, uint32_t index, int32_t dtype, const int64_t *dims,
                         int32_t rank);
ok_status okp_check_sizes(ok_pool *p, uint32_t kind, uint32_t index, int32_t dtype, const int64_t *dims,
                          int32_t rank, uint64_t *need);
ok_status okp_check_request(ok_pool *p, int kind, uint32_t index, int backend, int32_t dtype,
                            const int64_t *dims, int32_t rank, uint64_t *need);
void okp_bind_symbols(ok_pool *p, uint32_t index, const int64_t *dims, int32_t rank);
ok_status okp_place(ok_pool *p, uint32_t kind, uint32_t index, int backend, int32_t dtype,
                    const int64_t *dims, int32_t rank, uint64_t need);
ok_status okp_request(ok_pool *p, uint32_t kind, uint32_t index, int backend, int32_t dtype,
                      const int64_t *dims, int32_t rank);
/* pool_run.c: output dims from learned relations (0: cannot), the headroom a
 * growing output gets, and learning from a result. */
int okp_predict(const ok_pool *p, uint32_t index, int64_t *dims);
uint64_t okp_growth_headroom(const ok_pool *p, uint32_t index, int32_t dtype, const int64_t *dims,
                             int32_t rank);
void okp_learn(ok_pool *p, uint32_t index, const int64_t *dims, int32_t rank);
/* A result settles a suspect output slot. */
void okp_settle_suspect(ok_pool *p, uint32_t index, int32_t dtype, const int64_t *dims, int32_t rank);

#endif
