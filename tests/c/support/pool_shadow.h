/* A fake "JS side" for the tensor pool's tests: a shadow map handle -> state
 * that applies every action list as JS would, so a test checks both the
 * pool's own invariants (ok_pool_check) and that the action stream is one JS
 * can follow: no double create, no destroy of an external or a still-bound
 * handle, no handle as both input and output of one run. A violation is
 * printed where it is seen and counted; each test checks the count is 0. */
#ifndef ORTKEEP_TEST_POOL_SHADOW_H
#define ORTKEEP_TEST_POOL_SHADOW_H

#include <stdint.h>

#include "tensor_pool.h"

#define F32 1
#define I64 7
#define CPU OK_BACKEND_CPU
#define GPU OK_BACKEND_WEBGPU
#define NN OK_BACKEND_WEBNN
#define MAXH 200000

enum { H_NONE = 0, H_OWNED, H_EXTERNAL, H_DESTROYED, H_FORGOTTEN };

typedef struct shadow {
    ok_pool *p;
    uint8_t h[MAXH];
    uint32_t run_in[256], run_out[256];
    int n_in, n_out, in_run;
    uint32_t last_handle, last_op; /* of the last slot action */
    int n_ops[16];                 /* of the last call */
} shadow;

shadow *sh_new(uint64_t budget, uint32_t nin, uint32_t nout);
/* Apply the last call's actions as JS would. */
void sh_apply(shadow *s);
/* Dispose: exactly every owned handle is destroyed, no external one. */
void sh_dispose(shadow *s);
ok_status sh_run_begin(shadow *s);
ok_status sh_run_end(shadow *s);
int sh_pinned_anywhere(ok_pool *p, uint32_t h, uint32_t n_in, uint32_t n_out);
uint64_t sh_live_owned(const shadow *s);
uint64_t sh_stat_sum(const ok_pool *p, int k);
/* Violations seen by every shadow so far. */
int sh_violations(void);

#endif
