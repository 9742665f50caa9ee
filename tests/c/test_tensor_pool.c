/* Tensor pool policy: a fake "JS side" (support/pool_shadow.h) applies every
 * action list, so each test checks both the pool's own invariants
 * (ok_pool_check) and that the action stream is one JS can follow. Shapes,
 * refusals and placement are in test_pool_shapes.c. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "pool_shadow.h"
#include "tensor_pool.h"

static void test_sizes(void) {
    CHECK_EQ_INT(ok_pool_size_class(0), 256);
    CHECK_EQ_INT(ok_pool_size_class(1), 256);
    CHECK_EQ_INT(ok_pool_size_class(257), 512);
    CHECK_EQ_INT(ok_pool_size_class(1024), 1024);
    CHECK_EQ_INT(ok_pool_size_class(1025), 1280);
    CHECK_EQ_INT(ok_pool_size_class(2048), 2048);
    CHECK_EQ_INT(ok_pool_size_class(2049), 2560);
    CHECK_EQ_INT(ok_pool_size_class(3585), 4096);
    CHECK_EQ_INT(ok_pool_size_class((uint64_t)1 << 54), 0);
    for (uint64_t n = 0; n < 300000; n += 37) { /* monotone, >= n, < 1.25n + 256, x256 */
        uint64_t c = ok_pool_size_class(n);
        CHECK(c >= n && c % 256 == 0 && c <= n + n / 4 + 256);
        CHECK(ok_pool_size_class(n + 1) >= c);
    }
    uint64_t b = 0;
    int64_t d[] = {2, 3, 5};
    CHECK_EQ_INT(ok_pool_tensor_bytes(F32, d, 3, &b), OK_OK);
    CHECK_EQ_INT(b, 120);
    CHECK_EQ_INT(ok_pool_tensor_bytes(22 /* int4 */, d, 3, &b), OK_OK);
    CHECK_EQ_INT(b, 15);
    CHECK_EQ_INT(ok_pool_tensor_bytes(F32, NULL, 0, &b), OK_OK); /* scalar */
    CHECK_EQ_INT(b, 4);
    int64_t z[] = {4, 0, 9};
    CHECK_EQ_INT(ok_pool_tensor_bytes(F32, z, 3, &b), OK_OK);
    CHECK_EQ_INT(b, 0);
    int64_t neg[] = {1, -1};
    CHECK_EQ_INT(ok_pool_tensor_bytes(F32, neg, 2, &b), OK_ERR_INVALID_ARG);
    int64_t big[] = {1 << 30, 1 << 30, 1 << 30};
    CHECK_EQ_INT(ok_pool_tensor_bytes(F32, big, 3, &b), OK_ERR_LIMIT);
    CHECK_EQ_INT(ok_pool_tensor_bytes(8 /* string */, d, 3, &b), OK_ERR_INVALID_ARG);
    CHECK_EQ_INT(ok_pool_tensor_bytes(F32, d, OK_POOL_MAX_RANK + 1, &b), OK_ERR_LIMIT);
}

static void test_steady_state(void) {
    shadow *s = sh_new(1 << 20, 1, 1);
    CHECK(s != NULL);
    if (!s) return;
    int64_t in[] = {1, 128}, out[] = {1, 10};
    uint32_t hin = 0, hout = 0;
    for (int r = 0; r < 200; r++) {
        sh_run_begin(s);
        CHECK_EQ_INT(ok_pool_input(s->p, 0, GPU, F32, in, 2), OK_OK);
        sh_apply(s);
        CHECK_EQ_INT(s->last_op, r == 0 ? OK_POOL_CREATE : OK_POOL_REUSE);
        if (r == 0) hin = s->last_handle;
        CHECK_EQ_INT(s->last_handle, hin);
        CHECK_EQ_INT(ok_pool_output(s->p, 0, GPU, F32, out, 2), OK_OK);
        sh_apply(s);
        if (r == 0) hout = s->last_handle;
        CHECK_EQ_INT(s->last_handle, hout);
        CHECK_EQ_INT(ok_pool_action_count(s->p), 1);
        sh_run_end(s);
    }
    CHECK(hin != hout);
    const uint64_t *g = ok_pool_stats(s->p, GPU);
    CHECK_EQ_INT(g[OK_STAT_CREATES], 2);
    CHECK_EQ_INT(g[OK_STAT_REUSES], 398);
    CHECK_EQ_INT(g[OK_STAT_REPINS], 0);
    CHECK_EQ_INT(g[OK_STAT_LIVE_TENSORS], 2);
    CHECK_EQ_INT(g[OK_STAT_BYTES_HELD], 512 + 256);
    CHECK_EQ_INT(g[OK_STAT_BYTES_FREE], 0);
    CHECK_EQ_INT(ok_pool_stats(s->p, CPU)[OK_STAT_CREATES], 0);
    CHECK(ok_pool_stats(s->p, 3) == NULL);
    sh_dispose(s);
}

static void test_repin(void) {
    shadow *s = sh_new(1 << 20, 1, 0);
    if (!s) {
        CHECK(0);
        return;
    }
    const uint64_t *g = ok_pool_stats(s->p, CPU);
    int64_t a[] = {1, 128}, b[] = {1, 100}, c[] = {1, 1000};
    ok_pool_input(s->p, 0, CPU, F32, a, 2);
    sh_apply(s);
    uint32_t h1 = s->last_handle;
    uint32_t gen1 = ok_pool_actions(s->p, NULL)[5];
    /* dims change, same class (512): the same buffer comes straight back
     * (on CPU; WebGPU: test_rebind_size) */
    ok_pool_input(s->p, 0, CPU, F32, b, 2);
    sh_apply(s);
    CHECK_EQ_INT(s->last_op, OK_POOL_TAKE);
    CHECK_EQ_INT(s->last_handle, h1);
    CHECK(ok_pool_actions(s->p, NULL)[5] != gen1); /* new binding generation */
    CHECK_EQ_INT(g[OK_STAT_REPINS], 1);
    CHECK_EQ_INT(g[OK_STAT_CREATES], 1);
    /* bigger class: create, old one to the free list */
    ok_pool_input(s->p, 0, CPU, F32, c, 2);
    sh_apply(s);
    CHECK_EQ_INT(s->last_op, OK_POOL_CREATE);
    uint32_t h2 = s->last_handle;
    CHECK(h2 != h1);
    CHECK_EQ_INT(ok_pool_actions(s->p, NULL)[6], 4096);
    CHECK_EQ_INT(g[OK_STAT_BYTES_FREE], 512);
    CHECK_EQ_INT(g[OK_STAT_BYTES_HELD], 512 + 4096);
    /* back: served from the free list */
    ok_pool_input(s->p, 0, CPU, F32, a, 2);
    sh_apply(s);
    CHECK_EQ_INT(s->last_op, OK_POOL_TAKE);
    CHECK_EQ_INT(s->last_handle, h1);
    CHECK_EQ_INT(g[OK_STAT_BYTES_FREE], 4096);
    CHECK_EQ_INT(g[OK_STAT_TAKES], 2);
    CHECK_EQ_INT(g[OK_STAT_REPINS], 3);
    int64_t d[4];
    CHECK_EQ_INT(ok_pool_tensor_dims(s->p, h1, d, 4), 2);
    CHECK_EQ_INT(d[1], 128);
    /* another backend never takes a CPU buffer */
    ok_pool_input(s->p, 0, GPU, F32, c, 2);
    sh_apply(s);
    CHECK_EQ_INT(s->last_op, OK_POOL_CREATE);
    sh_dispose(s);

    /* WebNN: exact dtype+dims, exact bytes */
    s = sh_new(1 << 20, 1, 0);
    if (!s) {
        CHECK(0);
        return;
    }
    int64_t x[] = {1, 128}, y[] = {2, 64};
    ok_pool_input(s->p, 0, NN, F32, x, 2);
    sh_apply(s);
    uint32_t n1 = s->last_handle;
    CHECK_EQ_INT(ok_pool_actions(s->p, NULL)[6], 512);
    ok_pool_input(s->p, 0, NN, F32, y, 2);
    sh_apply(s); /* same bytes, other shape */
    CHECK_EQ_INT(s->last_op, OK_POOL_CREATE);
    ok_pool_input(s->p, 0, NN, I64, x, 2);
    sh_apply(s); /* other dtype */
    CHECK_EQ_INT(s->last_op, OK_POOL_CREATE);
    ok_pool_input(s->p, 0, NN, F32, x, 2);
    sh_apply(s);
    CHECK_EQ_INT(s->last_op, OK_POOL_TAKE);
    CHECK_EQ_INT(s->last_handle, n1);
    sh_dispose(s);
}

static void test_budget_lru(void) {
    shadow *s = sh_new(3 * 1024, 5, 0);
    if (!s) {
        CHECK(0);
        return;
    }
    int64_t small[] = {256}, big[] = {1024};
    uint32_t h[5];
    for (uint32_t i = 0; i < 5; i++) {
        ok_pool_input(s->p, i, CPU, F32, small, 1);
        sh_apply(s);
        h[i] = s->last_handle;
    }
    /* Move slots to a bigger class one by one: h0..h4 enter the free list
     * in that order; at most 3 KiB may stay, least recently freed out first. */
    for (uint32_t i = 0; i < 5; i++) {
        CHECK_EQ_INT(ok_pool_input(s->p, i, CPU, F32, big, 1), OK_OK);
        sh_apply(s);
        uint32_t n;
        const uint32_t *a = ok_pool_actions(s->p, &n);
        if (i < 3) {
            CHECK_EQ_INT(n, 1);
        } else {
            CHECK_EQ_INT(n, 2);
            CHECK_EQ_INT(a[OK_POOL_ACTION_WORDS], OK_POOL_DESTROY);
            CHECK_EQ_INT(a[OK_POOL_ACTION_WORDS + 1], h[i - 3]);
        }
        CHECK(ok_pool_stats(s->p, CPU)[OK_STAT_BYTES_FREE] <= 3 * 1024);
    }
    CHECK_EQ_INT(ok_pool_set_budget(s->p, 8192), OK_OK); /* raising evicts nothing */
    sh_apply(s);
    CHECK_EQ_INT(ok_pool_action_count(s->p), 0);
    /* A take removes a tensor from the free list: slot 0 back to small
     * takes h4 (newest of its class). */
    ok_pool_input(s->p, 0, CPU, F32, small, 1);
    sh_apply(s);
    CHECK_EQ_INT(s->last_op, OK_POOL_TAKE);
    CHECK_EQ_INT(s->last_handle, h[4]);
    /* slot 0's big tensor is now the newest free; lowering the budget
     * evicts h2, h3 (oldest) before it */
    CHECK_EQ_INT(ok_pool_set_budget(s->p, 4096), OK_OK);
    sh_apply(s);
    uint32_t n;
    const uint32_t *a = ok_pool_actions(s->p, &n);
    CHECK_EQ_INT(n, 2);
    CHECK_EQ_INT(a[1], h[2]);
    CHECK_EQ_INT(a[OK_POOL_ACTION_WORDS + 1], h[3]);
    CHECK_EQ_INT(ok_pool_stats(s->p, CPU)[OK_STAT_BYTES_FREE], 4096);
    CHECK_EQ_INT(ok_pool_stats(s->p, CPU)[OK_STAT_DESTROYS], 4);
    /* budget 0: the free list is always empty */
    ok_pool_set_budget(s->p, 0);
    sh_apply(s);
    CHECK_EQ_INT(ok_pool_stats(s->p, CPU)[OK_STAT_BYTES_FREE], 0);
    /* Inside a run, a tensor handed out in the run is not evicted until
     * run_end (ORT may hold it), nor handed out again. */
    sh_run_begin(s);
    ok_pool_input(s->p, 1, CPU, F32, small, 1);
    sh_apply(s); /* h(1) big -> free, created small */
    uint32_t hs = s->last_handle;
    CHECK_EQ_INT(s->n_ops[OK_POOL_DESTROY], 1); /* the old one was not used this run */
    ok_pool_input(s->p, 1, CPU, F32, big, 1);
    sh_apply(s); /* hs was used this run */
    CHECK_EQ_INT(s->n_ops[OK_POOL_DESTROY], 0);
    CHECK_EQ_INT(ok_pool_stats(s->p, CPU)[OK_STAT_BYTES_FREE], 1024); /* hs, quarantined */
    ok_pool_input(s->p, 2, CPU, F32, small, 1);
    sh_apply(s);
    CHECK(s->last_handle != hs);
    sh_run_end(s);
    CHECK_EQ_INT(s->n_ops[OK_POOL_DESTROY], 1);
    CHECK_EQ_INT(s->h[hs], H_DESTROYED);
    sh_dispose(s);
}

static void test_interleaved(void) {
    shadow *a = sh_new(1 << 16, 1, 1), *b = sh_new(0, 1, 1);
    CHECK(a && b);
    if (!a || !b) return;
    for (int r = 0; r < 60; r++) {
        int64_t da[] = {1, 16 + (r % 3) * 300}, db[] = {2, 8};
        sh_run_begin(a);
        sh_run_begin(b);
        CHECK_EQ_INT(ok_pool_input(a->p, 0, GPU, F32, da, 2), OK_OK);
        sh_apply(a);
        CHECK_EQ_INT(ok_pool_input(b->p, 0, CPU, F32, db, 2), OK_OK);
        sh_apply(b);
        CHECK_EQ_INT(ok_pool_output(b->p, 0, CPU, F32, db, 2), OK_OK);
        sh_apply(b);
        CHECK_EQ_INT(ok_pool_output(a->p, 0, GPU, F32, da, 2), OK_OK);
        sh_apply(a);
        sh_run_end(b);
        sh_run_end(a);
    }
    /* a cycles through 3 classes per slot: 6 creates, then all from the free list */
    CHECK_EQ_INT(ok_pool_stats(a->p, GPU)[OK_STAT_CREATES], 6);
    CHECK_EQ_INT(ok_pool_stats(a->p, GPU)[OK_STAT_DESTROYS], 0);
    CHECK_EQ_INT(ok_pool_stats(b->p, CPU)[OK_STAT_CREATES], 2);
    CHECK_EQ_INT(ok_pool_stats(b->p, CPU)[OK_STAT_REUSES], 118);
    CHECK_EQ_INT(ok_pool_stats(a->p, CPU)[OK_STAT_CREATES], 0);
    sh_dispose(a); /* b unaffected */
    int64_t db[] = {2, 8};
    CHECK_EQ_INT(ok_pool_input(b->p, 0, CPU, F32, db, 2), OK_OK);
    sh_apply(b);
    CHECK_EQ_INT(b->last_op, OK_POOL_REUSE);
    sh_dispose(b);
}

static void test_dispose(void) {
    shadow *s = sh_new(1 << 20, 3, 3);
    if (!s) {
        CHECK(0);
        return;
    }
    int64_t d1[] = {4, 4}, d2[] = {64, 64}, d3[] = {7};
    ok_pool_input(s->p, 0, GPU, F32, d1, 2);
    sh_apply(s); /* pinned */
    ok_pool_input(s->p, 1, GPU, F32, d2, 2);
    sh_apply(s);
    ok_pool_input(s->p, 1, GPU, F32, d1, 2);
    sh_apply(s); /* d2 -> free */
    ok_pool_bind_external(s->p, OK_SLOT_INPUT, 2, GPU, F32, d3, 1);
    sh_apply(s);
    uint32_t ext = s->last_handle;
    CHECK_EQ_INT(s->last_op, OK_POOL_EXTERNAL);
    ok_pool_output(s->p, 0, NN, F32, d2, 2);
    sh_apply(s);
    ok_pool_keep(s->p, 0);
    sh_apply(s); /* kept */
    ok_pool_adopt(s->p, 1, CPU, I64, d3, 1, 100);
    sh_apply(s); /* adopted */
    CHECK_EQ_INT(ok_pool_actions(s->p, NULL)[6], 100);
    ok_pool_bind_external(s->p, OK_SLOT_OUTPUT, 2, CPU, F32, d3, 1);
    sh_apply(s);
    /* rebinding an external slot forgets the handle, never destroys it */
    ok_pool_bind_external(s->p, OK_SLOT_OUTPUT, 2, CPU, F32, d3, 1);
    sh_apply(s);
    CHECK_EQ_INT(s->n_ops[OK_POOL_FORGET], 1);
    CHECK_EQ_INT(sh_stat_sum(s->p, OK_STAT_LIVE_TENSORS), 5);
    CHECK_EQ_INT(sh_live_owned(s), 5);
    CHECK_EQ_INT(ok_pool_destroy(s->p), OK_OK);
    sh_apply(s);
    CHECK_EQ_INT(s->n_ops[OK_POOL_DESTROY], 5);
    CHECK_EQ_INT(s->n_ops[OK_POOL_FORGET], 2);
    CHECK_EQ_INT(s->h[ext], H_FORGOTTEN);
    CHECK_EQ_INT(sh_live_owned(s), 0);
    CHECK_EQ_INT(ok_pool_destroy(s->p), OK_ERR_STATE);
    CHECK_EQ_INT(ok_pool_input(s->p, 0, GPU, F32, d1, 2), OK_ERR_STATE);
    CHECK_EQ_INT(ok_pool_action_count(s->p), 0);
    ok_pool_free(s->p);
    free(s);
    ok_pool_free(NULL);
}

/* Decoder loop: input 0 ids [1,1], input 1 past [1,4,t,16]; output 0
 * logits [1,1,50] (shape known: preallocated), output 1 present
 * [1,4,t+1,16], kept and fed back as the next past. */
static void test_chaining(void) {
    shadow *s = sh_new(64 * 1024, 2, 2);
    if (!s) {
        CHECK(0);
        return;
    }
    ok_pool_declare(s->p, OK_SLOT_INPUT, 1, F32, 4, NULL);
    uint32_t prev_kept = 0;
    uint64_t classes = 0, last_class = 0;
    for (int step = 0; step < 50; step++) {
        int64_t ids[] = {1, 1}, past[] = {1, 4, step + 1, 16}, logits[] = {1, 1, 50};
        int64_t present[] = {1, 4, step + 2, 16};
        uint64_t cls = ok_pool_size_class((uint64_t)(step + 2) * 256);
        classes += cls != last_class;
        last_class = cls;
        CHECK_EQ_INT(sh_run_begin(s), OK_OK);
        CHECK_EQ_INT(ok_pool_input(s->p, 0, GPU, I64, ids, 2), OK_OK);
        sh_apply(s);
        if (step == 0) {
            CHECK_EQ_INT(ok_pool_input(s->p, 1, GPU, F32, past, 4), OK_OK);
        } else {
            CHECK_EQ_INT(ok_pool_input_bind(s->p, 1, prev_kept), OK_OK);
        }
        sh_apply(s);
        uint32_t past_h = s->last_handle;
        if (step > 0) CHECK_EQ_INT(past_h, prev_kept);
        CHECK_EQ_INT(ok_pool_output(s->p, 0, GPU, F32, logits, 3), OK_OK);
        sh_apply(s);
        if (step == 0) { /* shape unknown the first time: ORT allocates, we adopt */
            CHECK_EQ_INT(ok_pool_adopt(s->p, 1, GPU, F32, present, 4, 0), OK_OK);
        } else {
            CHECK_EQ_INT(ok_pool_output(s->p, 1, GPU, F32, present, 4), OK_OK);
        }
        sh_apply(s);
        uint32_t present_h = s->last_handle;
        CHECK(present_h != past_h);
        CHECK_EQ_INT(ok_pool_keep(s->p, 1), OK_OK);
        sh_apply(s);
        CHECK_EQ_INT(ok_pool_pinned(s->p, OK_SLOT_OUTPUT, 1), 0);
        /* kept this run: cannot be this run's input */
        CHECK_EQ_INT(ok_pool_input_bind(s->p, 1, present_h), OK_ERR_IN_USE);
        if (step > 0) { /* done with the old past: still bound, so not freed yet */
            CHECK_EQ_INT(ok_pool_release(s->p, prev_kept), OK_OK);
            sh_apply(s);
            CHECK_EQ_INT(s->h[prev_kept], H_OWNED);
            CHECK_EQ_INT(ok_pool_pinned(s->p, OK_SLOT_INPUT, 1), prev_kept);
        }
        CHECK_EQ_INT(sh_run_end(s), OK_OK);
        prev_kept = present_h;
    }
    const uint64_t *g = ok_pool_stats(s->p, GPU);
    /* Growing KV: past and present are both alive each step, so each class
     * the cache grows into costs at most two creates (+ ids + logits); the
     * 1.25x classes keep that well under one create per step. */
    CHECK(g[OK_STAT_CREATES] <= 2 * classes + 2);
    CHECK(g[OK_STAT_CREATES] < 45);
    CHECK(g[OK_STAT_TAKES] > 10);
    CHECK(g[OK_STAT_REUSES] >= 98); /* ids and logits every step after the first */
    CHECK(g[OK_STAT_BYTES_FREE] <= 64 * 1024);
    /* the last kept tensor stays alive across budget 0 until released */
    ok_pool_set_budget(s->p, 0);
    sh_apply(s);
    CHECK_EQ_INT(s->h[prev_kept], H_OWNED);
    CHECK_EQ_INT(ok_pool_release(s->p, prev_kept), OK_OK);
    sh_apply(s);
    CHECK_EQ_INT(s->h[prev_kept], H_DESTROYED);
    CHECK_EQ_INT(ok_pool_release(s->p, prev_kept), OK_ERR_NOT_FOUND);
    sh_dispose(s);
}

/* The wasm EP's decoder loop: onnxruntime allocates every output on the
 * CPU, the pool adopts them, the caller keeps two and releases the last
 * ones. Released outputs are never asked for again (CPU outputs are not
 * preallocated), so the free list is capped by count, not only by bytes:
 * its length is what every lookup scans. */
static void test_free_count_cap(void) {
    shadow *s = sh_new(64u << 20, 3, 3);
    if (!s) {
        CHECK(0);
        return;
    }
    const uint32_t cap = OK_POOL_FREE_PER_SLOT * 6 + OK_POOL_FREE_EXTRA;
    uint32_t kept[2] = {0, 0};
    for (int step = 0; step < 300; step++) {
        int64_t x[] = {1, 8}, past[] = {1, step + 1, 8}, y[] = {1, 8}, present[] = {1, step + 2, 8};
        CHECK_EQ_INT(sh_run_begin(s), OK_OK);
        CHECK_EQ_INT(ok_pool_input(s->p, 0, CPU, F32, x, 2), OK_OK);
        sh_apply(s);
        if (step == 0) {
            CHECK_EQ_INT(ok_pool_input(s->p, 1, CPU, F32, y, 2), OK_OK);
            sh_apply(s);
            CHECK_EQ_INT(ok_pool_input(s->p, 2, CPU, F32, past, 3), OK_OK);
        } else {
            CHECK_EQ_INT(ok_pool_input_bind(s->p, 1, kept[0]), OK_OK);
            sh_apply(s);
            CHECK_EQ_INT(ok_pool_input_bind(s->p, 2, kept[1]), OK_OK);
        }
        sh_apply(s);
        CHECK_EQ_INT(ok_pool_adopt(s->p, 0, CPU, F32, y, 2, 0), OK_OK);
        sh_apply(s);
        CHECK_EQ_INT(ok_pool_adopt(s->p, 1, CPU, F32, y, 2, 0), OK_OK);
        sh_apply(s);
        CHECK_EQ_INT(ok_pool_keep(s->p, 1), OK_OK);
        sh_apply(s);
        uint32_t state_h = s->last_handle;
        CHECK_EQ_INT(ok_pool_adopt(s->p, 2, CPU, F32, present, 3, 0), OK_OK);
        sh_apply(s);
        CHECK_EQ_INT(ok_pool_keep(s->p, 2), OK_OK);
        sh_apply(s);
        uint32_t present_h = s->last_handle;
        if (step > 0) {
            CHECK_EQ_INT(ok_pool_release(s->p, kept[0]), OK_OK);
            sh_apply(s);
            CHECK_EQ_INT(ok_pool_release(s->p, kept[1]), OK_OK);
            sh_apply(s);
        }
        CHECK_EQ_INT(sh_run_end(s), OK_OK);
        CHECK_EQ_INT(ok_pool_check(s->p), OK_OK);
        kept[0] = state_h;
        kept[1] = present_h;
    }
    const uint64_t *c = ok_pool_stats(s->p, CPU);
    /* far under the byte budget, yet the list stays short */
    CHECK(c[OK_STAT_BYTES_FREE] < (1u << 20));
    CHECK(c[OK_STAT_LIVE_TENSORS] <= cap + 6 + 2);
    CHECK(c[OK_STAT_DESTROYS] > 500);
    sh_dispose(s);
}

/* A decoder whose cache length the attention mask gives (transformers.js's
 * decoders: mask [batch, total]; present [batch, 4, total, 16], total bound
 * by the mask): present grows one token per run, kept and fed back; it is
 * made with room for the next steps, so after the prompt it is re-made
 * about once per 32 tokens, not at every size class. */
static void test_bound_growth(void) {
    shadow *s = sh_new(1 << 20, 3, 1);
    if (!s) {
        CHECK(0);
        return;
    }
    const int64_t B = OK_POOL_DIM_SYMBOL(0), S = OK_POOL_DIM_SYMBOL(1), P = OK_POOL_DIM_SYMBOL(2),
                  T = OK_POOL_DIM_SYMBOL(3);
    int64_t ids_decl[] = {B, S}, mask_decl[] = {B, T}, past_decl[] = {B, 4, P, 16},
            present_decl[] = {B, 4, T, 16};
    CHECK_EQ_INT(ok_pool_declare(s->p, OK_SLOT_INPUT, 0, I64, 2, ids_decl), OK_OK);
    CHECK_EQ_INT(ok_pool_declare(s->p, OK_SLOT_INPUT, 1, I64, 2, mask_decl), OK_OK);
    CHECK_EQ_INT(ok_pool_declare(s->p, OK_SLOT_INPUT, 2, F32, 4, past_decl), OK_OK);
    CHECK_EQ_INT(ok_pool_declare(s->p, OK_SLOT_OUTPUT, 0, F32, 4, present_decl), OK_OK);
    uint32_t prev_kept = 0;
    uint64_t creates_at_16 = 0;
    for (int step = 0; step < 64; step++) {
        int64_t ids[] = {1, 1}, mask[] = {1, step + 2}, past[] = {1, 4, step + 1, 16};
        if (step == 16) creates_at_16 = sh_stat_sum(s->p, OK_STAT_CREATES);
        CHECK_EQ_INT(sh_run_begin(s), OK_OK);
        CHECK_EQ_INT(ok_pool_input(s->p, 0, GPU, I64, ids, 2), OK_OK);
        sh_apply(s);
        CHECK_EQ_INT(ok_pool_input(s->p, 1, GPU, I64, mask, 2), OK_OK);
        sh_apply(s);
        CHECK_EQ_INT(
            step ? ok_pool_input_bind(s->p, 2, prev_kept) : ok_pool_input(s->p, 2, GPU, F32, past, 4), OK_OK);
        sh_apply(s);
        CHECK_EQ_INT(ok_pool_output_auto(s->p, 0, GPU), OK_OK);
        sh_apply(s);
        uint32_t present_h = ok_pool_pinned(s->p, OK_SLOT_OUTPUT, 0);
        CHECK(present_h != 0);
        int64_t got[OK_POOL_MAX_RANK];
        CHECK_EQ_INT(ok_pool_tensor_dims(s->p, present_h, got, OK_POOL_MAX_RANK), 4);
        CHECK_EQ_INT(got[2], step + 2);
        CHECK_EQ_INT(ok_pool_keep(s->p, 0), OK_OK);
        sh_apply(s);
        if (step) {
            CHECK_EQ_INT(ok_pool_release(s->p, prev_kept), OK_OK);
            sh_apply(s);
        }
        CHECK_EQ_INT(sh_run_end(s), OK_OK);
        prev_kept = present_h;
    }
    /* 48 tokens from 17 to 65 (4.3 to 16.6 KiB): nine size classes, so 18
     * creates without room to grow; with it, two re-makes of the pair */
    CHECK(sh_stat_sum(s->p, OK_STAT_CREATES) - creates_at_16 <= 4);
    CHECK_EQ_INT(ok_pool_release(s->p, prev_kept), OK_OK);
    sh_apply(s);
    CHECK_EQ_INT(ok_pool_check(s->p), OK_OK);
    sh_dispose(s);
}

static void test_errors(void) {
    shadow *s = sh_new(1 << 20, 2, 1);
    if (!s) {
        CHECK(0);
        return;
    }
    ok_pool *p = s->p;
    int64_t d2[] = {1, 8}, d3[] = {1, 8, 2}, neg[] = {1, -8};
    CHECK_EQ_INT(ok_pool_declare(p, OK_SLOT_INPUT, 0, F32, 2, NULL), OK_OK);
    CHECK_EQ_INT(ok_pool_declare(p, OK_SLOT_INPUT, 5, F32, 2, NULL), OK_ERR_INVALID_ARG);
    CHECK_EQ_INT(ok_pool_declare(p, OK_SLOT_INPUT, 0, F32, 17, NULL), OK_ERR_INVALID_ARG);
    CHECK_EQ_INT(ok_pool_input(p, 0, GPU, F32, d2, 2), OK_OK);
    sh_apply(s);
    uint32_t h = s->last_handle;
    uint64_t creates = sh_stat_sum(p, OK_STAT_CREATES), reuses = sh_stat_sum(p, OK_STAT_REUSES);
    CHECK_EQ_INT(ok_pool_input(p, 0, GPU, I64, d2, 2), OK_ERR_SHAPE);
    sh_apply(s);
    CHECK_EQ_INT(ok_pool_action_count(p), 0);
    CHECK_EQ_INT(ok_pool_input(p, 0, GPU, F32, d3, 3), OK_ERR_SHAPE);
    sh_apply(s);
    CHECK_EQ_INT(ok_pool_input(p, 0, GPU, F32, neg, 2), OK_ERR_INVALID_ARG);
    sh_apply(s);
    CHECK_EQ_INT(ok_pool_input(p, 0, 3, F32, d2, 2), OK_ERR_INVALID_ARG);
    sh_apply(s);
    CHECK_EQ_INT(ok_pool_input(p, 0, -1, F32, d2, 2), OK_ERR_INVALID_ARG);
    sh_apply(s);
    CHECK_EQ_INT(ok_pool_input(p, 9, GPU, F32, d2, 2), OK_ERR_INVALID_ARG);
    sh_apply(s);
    CHECK_EQ_INT(ok_pool_output(p, 1, GPU, F32, d2, 2), OK_ERR_INVALID_ARG);
    sh_apply(s);
    CHECK_EQ_INT(ok_pool_bind_external(p, 2, 0, GPU, F32, d2, 2), OK_ERR_INVALID_ARG);
    CHECK_EQ_INT(ok_pool_bind_external(p, OK_SLOT_INPUT, 0, GPU, I64, d2, 2), OK_ERR_SHAPE);
    CHECK_EQ_INT(ok_pool_adopt(p, 0, GPU, F32, d2, 2, 16), OK_ERR_INVALID_ARG); /* cap < bytes */
    CHECK_EQ_INT(ok_pool_pinned(p, OK_SLOT_INPUT, 0), h);                       /* pin unchanged */
    CHECK_EQ_INT(sh_stat_sum(p, OK_STAT_CREATES), creates);
    CHECK_EQ_INT(sh_stat_sum(p, OK_STAT_REUSES), reuses);
    CHECK_EQ_INT(ok_pool_input(p, 0, GPU, F32, d2, 2), OK_OK);
    sh_apply(s);
    CHECK_EQ_INT(s->last_op, OK_POOL_REUSE);
    /* state errors */
    CHECK_EQ_INT(ok_pool_run_end(p), OK_ERR_STATE);
    CHECK_EQ_INT(ok_pool_run_begin(p), OK_OK);
    CHECK_EQ_INT(ok_pool_run_begin(p), OK_ERR_STATE);
    CHECK_EQ_INT(ok_pool_run_end(p), OK_OK);
    CHECK_EQ_INT(ok_pool_keep(p, 0), OK_ERR_NOT_FOUND);
    CHECK_EQ_INT(ok_pool_release(p, 12345), OK_ERR_NOT_FOUND);
    CHECK_EQ_INT(ok_pool_release(p, h), OK_ERR_STATE);        /* pinned, not kept */
    CHECK_EQ_INT(ok_pool_input_bind(p, 1, h), OK_ERR_IN_USE); /* bound to input 0 */
    CHECK_EQ_INT(ok_pool_output(p, 0, GPU, F32, d3, 3), OK_OK);
    sh_apply(s);
    uint32_t o = s->last_handle;
    CHECK_EQ_INT(ok_pool_input_bind(p, 1, o), OK_ERR_IN_USE); /* output pin, not kept */
    CHECK_EQ_INT(ok_pool_keep(p, 0), OK_OK);
    sh_apply(s);
    CHECK_EQ_INT(ok_pool_input_bind(p, 0, o), OK_ERR_SHAPE); /* rank 3 vs declared 2 */
    CHECK_EQ_INT(ok_pool_pinned(p, OK_SLOT_INPUT, 0), h);
    CHECK_EQ_INT(ok_pool_input_bind(p, 1, o), OK_OK);
    sh_apply(s);
    CHECK_EQ_INT(ok_pool_input_bind(p, 1, o), OK_OK);
    sh_apply(s); /* idempotent */
    CHECK_EQ_INT(ok_pool_release(p, o), OK_OK);
    sh_apply(s);
    CHECK_EQ_INT(ok_pool_release(p, o), OK_ERR_STATE);
    ok_pool_bind_external(p, OK_SLOT_OUTPUT, 0, GPU, F32, d2, 2);
    sh_apply(s);
    CHECK_EQ_INT(ok_pool_keep(p, 0), OK_ERR_STATE); /* external: caller owns it */
    CHECK_EQ_INT(ok_pool_release(p, s->last_handle), OK_ERR_STATE);
    CHECK_EQ_INT(ok_pool_check(p), OK_OK);
    CHECK_EQ_INT(ok_pool_input(NULL, 0, GPU, F32, d2, 2), OK_ERR_INVALID_ARG);
    sh_dispose(s);
}

/* One scripted session touching every allocating path (table growth past
 * 8 entries, action list growth past 16 records). Returns the concatenated
 * action stream; with fail_after >= 0 every NOMEM is checked to leave the
 * pool unchanged and then retried with failures off. */
typedef struct {
    uint32_t *w;
    size_t n, cap;
    int nomem;
} stream;

static void stream_add(stream *st, ok_pool *p) {
    uint32_t n;
    const uint32_t *a = ok_pool_actions(p, &n);
    for (uint32_t i = 0; i < n * OK_POOL_ACTION_WORDS; i++) {
        if (st->n == st->cap) {
            size_t nc = st->cap ? st->cap * 2 : 256;
            uint32_t *nw = realloc(st->w, nc * sizeof *nw);
            if (!nw) return;
            st->w = nw;
            st->cap = nc;
        }
        st->w[st->n++] = a[i];
    }
}

#define STEP(call)                                                                 \
    do {                                                                           \
        ok_status rc_ = (call);                                                    \
        if (rc_ == OK_ERR_NOMEM) {                                                 \
            st->nomem++;                                                           \
            CHECK_EQ_INT(ok_pool_action_count(p), 0);                              \
            CHECK_EQ_INT(ok_pool_check(p), OK_OK);                                 \
            CHECK_EQ_INT(memcmp(ok_pool_stats(p, GPU), before, sizeof before), 0); \
            ok_pool_set_alloc_fail_after(-1);                                      \
            rc_ = (call);                                                          \
        }                                                                          \
        CHECK_EQ_INT(rc_, OK_OK);                                                  \
        stream_add(st, p);                                                         \
        memcpy(before, ok_pool_stats(p, GPU), sizeof before);                      \
    } while (0)

static void scripted(int fail_after, stream *st) {
    ok_pool_set_alloc_fail_after(fail_after);
    ok_pool *p = ok_pool_create(8192, 12, 12);
    while (!p) { /* creation failure: nothing to clean up, retry */
        st->nomem++;
        ok_pool_set_alloc_fail_after(-1);
        p = ok_pool_create(8192, 12, 12);
    }
    uint64_t before[OK_POOL_STAT_COUNT];
    memcpy(before, ok_pool_stats(p, GPU), sizeof before);
    for (uint32_t i = 0; i < 12; i++) {
        int64_t d[] = {1, 64 * (i + 1)};
        STEP(ok_pool_input(p, i, GPU, F32, d, 2));
        STEP(ok_pool_output(p, i, GPU, F32, d, 2));
    }
    STEP(ok_pool_run_begin(p));
    for (uint32_t i = 0; i < 12; i++) {
        int64_t d[] = {2, 64 * (i + 1)};
        STEP(ok_pool_input(p, i, GPU, F32, d, 2));
    }
    int64_t e[] = {3};
    STEP(ok_pool_bind_external(p, OK_SLOT_INPUT, 0, GPU, F32, e, 1));
    uint32_t kh = ok_pool_pinned(p, OK_SLOT_OUTPUT, 3);
    STEP(ok_pool_keep(p, 3));
    STEP(ok_pool_adopt(p, 3, GPU, F32, e, 1, 0));
    STEP(ok_pool_run_end(p));
    STEP(ok_pool_run_begin(p));
    STEP(ok_pool_input_bind(p, 1, kh));
    STEP(ok_pool_release(p, kh));
    STEP(ok_pool_run_end(p));
    STEP(ok_pool_set_budget(p, 1024));
    STEP(ok_pool_destroy(p));
    ok_pool_set_alloc_fail_after(-1);
    ok_pool_free(p);
}

static void test_alloc_failure(void) {
    stream ref = {0};
    scripted(-1, &ref);
    CHECK_EQ_INT(ref.nomem, 0);
    CHECK(ref.n > 16 * OK_POOL_ACTION_WORDS);
    int failures_seen = 0;
    for (int n = 0; n < 12; n++) {
        stream got = {0};
        scripted(n, &got);
        failures_seen += got.nomem;
        /* identical actions: a failed call left no trace */
        CHECK_EQ_INT(got.n, ref.n);
        CHECK(got.n == ref.n && memcmp(got.w, ref.w, ref.n * sizeof *ref.w) == 0);
        free(got.w);
    }
    CHECK(failures_seen >= 6); /* create, slots, table and action growth all hit */
    free(ref.w);
}

/* ------------------------------------------------------------------ */

static uint32_t rng_s = 0x9e3779b9u;
static uint32_t rnd(uint32_t n) {
    rng_s ^= rng_s << 13;
    rng_s ^= rng_s >> 17;
    rng_s ^= rng_s << 5;
    return rng_s % n;
}

#define NKEPT 64
typedef struct {
    shadow *s;
    uint32_t kept[NKEPT];
    int n_kept;
} actor;

static void random_op(actor *a) {
    shadow *s = a->s;
    ok_pool *p = s->p;
    uint32_t kind = rnd(2), idx = rnd(4);
    int backend = (int)rnd(3);
    int32_t dtype = rnd(4) ? F32 : I64;
    int64_t dims[3] = {1 + rnd(3), (int64_t)rnd(5) * 37, 1 + rnd(40)};
    int32_t rank = 3;
    ok_status rc;
    switch (rnd(12)) {
    case 0: sh_run_begin(s); break;
    case 1: sh_run_end(s); break;
    case 2:
    case 3:
        rc = kind ? ok_pool_output(p, idx, backend, dtype, dims, rank)
                  : ok_pool_input(p, idx, backend, dtype, dims, rank);
        CHECK(rc == OK_OK || (rc == OK_ERR_SHAPE && idx == 3));
        sh_apply(s);
        break;
    case 4:
        rc = ok_pool_bind_external(p, (int)kind, idx, backend, dtype, dims, rank);
        CHECK(rc == OK_OK || (rc == OK_ERR_SHAPE && idx == 3 && !kind));
        sh_apply(s);
        break;
    case 5:
        rc = ok_pool_adopt(p, idx, backend, dtype, dims, rank, rnd(2) ? 0 : 1 << 20);
        CHECK(rc == OK_OK);
        sh_apply(s);
        break;
    case 6: {
        uint32_t h = ok_pool_pinned(p, OK_SLOT_OUTPUT, idx);
        rc = ok_pool_keep(p, idx);
        CHECK(rc == OK_OK || rc == OK_ERR_NOT_FOUND || rc == OK_ERR_STATE);
        sh_apply(s);
        if (rc == OK_OK && a->n_kept < NKEPT) a->kept[a->n_kept++] = h;
        else if (rc == OK_OK) {
            CHECK_EQ_INT(ok_pool_release(p, h), OK_OK);
            sh_apply(s);
        }
        break;
    }
    case 7:
    case 8:
        if (a->n_kept) {
            uint32_t h = a->kept[rnd((uint32_t)a->n_kept)];
            rc = ok_pool_input_bind(p, idx, h);
            CHECK(rc == OK_OK || rc == OK_ERR_IN_USE || rc == OK_ERR_SHAPE);
            sh_apply(s);
        }
        break;
    case 9:
        if (a->n_kept) {
            int i = (int)rnd((uint32_t)a->n_kept);
            CHECK_EQ_INT(ok_pool_release(p, a->kept[i]), OK_OK);
            sh_apply(s);
            a->kept[i] = a->kept[--a->n_kept];
        }
        break;
    case 10:
        ok_pool_set_budget(p, rnd(4) ? 64 * 1024 : rnd(8192));
        sh_apply(s);
        break;
    default: { /* a held handle, kept by the caller, is always alive */
        for (int i = 0; i < a->n_kept; i++) CHECK_EQ_INT(s->h[a->kept[i]], H_OWNED);
        CHECK_EQ_INT(ok_pool_input(p, idx, backend, 9, dims, rank) == OK_OK, idx != 3);
        sh_apply(s);
    }
    }
    /* accounting: the JS map and the pool agree on what is alive */
    CHECK_EQ_INT(sh_live_owned(s), sh_stat_sum(p, OK_STAT_LIVE_TENSORS));
    if (!s->in_run) CHECK(sh_stat_sum(p, OK_STAT_BYTES_FREE) <= ok_pool_budget(p));
}

static void test_random(void) {
    actor a = {0}, b = {0};
    a.s = sh_new(64 * 1024, 4, 4);
    b.s = sh_new(16 * 1024, 4, 4);
    CHECK(a.s && b.s);
    if (!a.s || !b.s) return;
    ok_pool_declare(a.s->p, OK_SLOT_INPUT, 3, F32, 3, NULL); /* shape errors on input 3 */
    ok_pool_declare(b.s->p, OK_SLOT_INPUT, 3, F32, 3, NULL);
    int before = check_failures;
    for (int i = 0; i < 6000 && check_failures == before; i++) random_op(rnd(2) ? &a : &b);
    CHECK(sh_stat_sum(a.s->p, OK_STAT_TAKES) > 0 && sh_stat_sum(a.s->p, OK_STAT_DESTROYS) > 0);
    sh_dispose(a.s);
    sh_dispose(b.s);
}

/* Refusal record: reason, kind, index, dim, expected, got. */
int main(void) {
    test_sizes();
    test_steady_state();
    test_repin();
    test_budget_lru();
    test_interleaved();
    test_dispose();
    test_chaining();
    test_free_count_cap();
    test_bound_growth();
    test_errors();
    test_alloc_failure();
    test_random();
    CHECK_EQ_INT(sh_violations(), 0);
    return CHECK_DONE();
}
