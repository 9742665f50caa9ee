/* The tensor pool tests' shadow of the JS side (pool_shadow.h). */
#include "pool_shadow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int violations = 0;

static void seen(int ok, const char *what, long long a, long long b, int line) {
    if (ok) return;
    violations++;
    fprintf(stderr, "%s:%d: shadow: %s (%lld vs %lld)\n", __FILE__, line, what, a, b);
}

static void seen_eq(long long a, long long b, const char *what, int line) { seen(a == b, what, a, b, line); }

/* Each argument is evaluated once (some are calls). */
#define SH_CHECK(cond) seen(!!(cond), #cond, 1, 0, __LINE__)
#define SH_EQ(a, b) seen_eq((long long)(a), (long long)(b), #a " == " #b, __LINE__)

int sh_violations(void) { return violations; }

static int in_set(const uint32_t *s, int n, uint32_t h) {
    for (int i = 0; i < n; i++)
        if (s[i] == h) return 1;
    return 0;
}

int sh_pinned_anywhere(ok_pool *p, uint32_t h, uint32_t n_in, uint32_t n_out) {
    for (uint32_t i = 0; i < n_in; i++)
        if (ok_pool_pinned(p, OK_SLOT_INPUT, i) == h) return 1;
    for (uint32_t i = 0; i < n_out; i++)
        if (ok_pool_pinned(p, OK_SLOT_OUTPUT, i) == h) return 1;
    return 0;
}

void sh_apply(shadow *s) {
    uint32_t n;
    const uint32_t *a = ok_pool_actions(s->p, &n);
    memset(s->n_ops, 0, sizeof s->n_ops);
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t *r = a + i * OK_POOL_ACTION_WORDS;
        uint32_t op = r[0], h = r[1], kind = r[2];
        SH_CHECK(op >= 1 && op <= 9 && h > 0 && h < MAXH);
        if (!(op >= 1 && op <= 9 && h > 0 && h < MAXH)) continue;
        s->n_ops[op]++;
        switch (op) {
        case OK_POOL_CREATE:
        case OK_POOL_ADOPT:
            SH_EQ(s->h[h], H_NONE);
            s->h[h] = H_OWNED;
            break;
        case OK_POOL_EXTERNAL:
            SH_EQ(s->h[h], H_NONE);
            s->h[h] = H_EXTERNAL;
            break;
        case OK_POOL_DESTROY:
            SH_EQ(s->h[h], H_OWNED);
            SH_CHECK(!sh_pinned_anywhere(s->p, h, 64, 64)); /* never frees a bound tensor */
            s->h[h] = H_DESTROYED;
            break;
        case OK_POOL_FORGET:
            SH_EQ(s->h[h], H_EXTERNAL);
            s->h[h] = H_FORGOTTEN;
            break;
        default: /* REUSE TAKE BIND KEEP: a live pool tensor */ SH_EQ(s->h[h], H_OWNED);
        }
        if (kind != OK_POOL_NONE && op != OK_POOL_FORGET && op != OK_POOL_KEEP) {
            s->last_handle = h;
            s->last_op = op;
            if (s->in_run) {
                uint32_t *mine = kind == OK_SLOT_INPUT ? s->run_in : s->run_out;
                int *nm = kind == OK_SLOT_INPUT ? &s->n_in : &s->n_out;
                /* never the same handle as an input and an output of one run */
                SH_CHECK(!in_set(kind == OK_SLOT_INPUT ? s->run_out : s->run_in,
                                 kind == OK_SLOT_INPUT ? s->n_out : s->n_in, h));
                if (*nm < 256 && !in_set(mine, *nm, h)) mine[(*nm)++] = h;
            }
        }
    }
    SH_EQ(ok_pool_check(s->p), OK_OK);
}

shadow *sh_new(uint64_t budget, uint32_t nin, uint32_t nout) {
    shadow *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->p = ok_pool_create(budget, nin, nout);
    if (!s->p) {
        free(s);
        return NULL;
    }
    return s;
}

uint64_t sh_live_owned(const shadow *s) {
    uint64_t n = 0;
    for (uint32_t h = 0; h < MAXH; h++) n += s->h[h] == H_OWNED;
    return n;
}

uint64_t sh_stat_sum(const ok_pool *p, int k) {
    uint64_t n = 0;
    for (int b = 0; b < OK_BACKEND_COUNT; b++) n += ok_pool_stats(p, b)[k];
    return n;
}

void sh_dispose(shadow *s) {
    SH_EQ(ok_pool_destroy(s->p), OK_OK);
    sh_apply(s);
    SH_EQ(sh_live_owned(s), 0);
    for (uint32_t h = 0; h < MAXH; h++) SH_CHECK(s->h[h] != H_EXTERNAL);
    SH_EQ(sh_stat_sum(s->p, OK_STAT_LIVE_TENSORS), 0);
    SH_EQ(sh_stat_sum(s->p, OK_STAT_BYTES_HELD), 0);
    SH_EQ(ok_pool_run_begin(s->p), OK_ERR_STATE);
    ok_pool_free(s->p);
    free(s);
}

ok_status sh_run_begin(shadow *s) {
    ok_status rc = ok_pool_run_begin(s->p);
    if (rc == OK_OK) {
        s->in_run = 1;
        s->n_in = s->n_out = 0;
    }
    sh_apply(s);
    return rc;
}

ok_status sh_run_end(shadow *s) {
    ok_status rc = ok_pool_run_end(s->p);
    if (rc == OK_OK) s->in_run = 0;
    sh_apply(s);
    return rc;
}
