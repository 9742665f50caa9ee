/* The forms' decisions taken from JS's facts (cache/form_policy.h):
 * eligibility and the context string, the verify protocol's best sample and
 * verdict, and which prepared form serves. */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "form_policy.h"
#include "ok_load.h"

static void test_context(void) {
    char ctx[OK_FORM_MAX_CONTEXT];
    uint32_t off = 99;
    const uint32_t st = OK_FORM_LOAD_STORABLE;
    CHECK_EQ_INT(ok_form_context("1.30.0", "wasm", "extended", st, ctx, sizeof ctx, &off), OK_OK);
    CHECK_EQ_INT(off, OK_FORMS_OFF_NONE);
    CHECK_EQ_STR(ctx, "ort=1.30.0;ep=wasm;level=extended");
    /* no level: onnxruntime's default, all */
    CHECK_EQ_INT(ok_form_context("1.22.0", "webgpu,wasm", NULL, st, ctx, sizeof ctx, &off), OK_OK);
    CHECK_EQ_STR(ctx, "ort=1.22.0;ep=webgpu,wasm;level=all");
    CHECK_EQ_INT(ok_form_context("1.22.0", "wasm", "", st, ctx, sizeof ctx, &off), OK_OK);
    CHECK_EQ_STR(ctx, "ort=1.22.0;ep=wasm;level=all");
    /* each reason, in the order they are judged */
    CHECK_EQ_INT(ok_form_context("1.30.0", "wasm", "disabled", 0, ctx, sizeof ctx, &off), OK_OK);
    CHECK_EQ_INT(off, OK_FORMS_OFF_NOT_STORED);
    CHECK_EQ_STR(ctx, "");
    CHECK_EQ_INT(
        ok_form_context("1.30.0", "wasm", "disabled", st | OK_FORM_LOAD_OWN_WRITER, ctx, sizeof ctx, &off),
        OK_OK);
    CHECK_EQ_INT(off, OK_FORMS_OFF_LEVEL);
    CHECK_EQ_INT(ok_form_context("1.30.0", "wasm", "ALL", st, ctx, sizeof ctx, &off), OK_OK);
    CHECK_EQ_INT(off, OK_FORMS_OFF_LEVEL);
    CHECK_EQ_INT(
        ok_form_context("1.30.0", "wasm", "basic", st | OK_FORM_LOAD_OWN_WRITER, ctx, sizeof ctx, &off),
        OK_OK);
    CHECK_EQ_INT(off, OK_FORMS_OFF_OWN_WRITER);
    /* names that would break the key, or do not fit */
    CHECK_EQ_INT(ok_form_context("1.30.0|x", "wasm", "all", st, ctx, sizeof ctx, &off), OK_OK);
    CHECK_EQ_INT(off, OK_FORMS_OFF_CONTEXT);
    CHECK_EQ_INT(ok_form_context("1.30.0", "wa;sm", "all", st, ctx, sizeof ctx, &off), OK_OK);
    CHECK_EQ_INT(off, OK_FORMS_OFF_CONTEXT);
    CHECK_EQ_INT(ok_form_context("", "wasm", "all", st, ctx, sizeof ctx, &off), OK_OK);
    CHECK_EQ_INT(off, OK_FORMS_OFF_CONTEXT);
    CHECK_EQ_INT(ok_form_context("1.30.0", "wasm", "all", st, ctx, 10, &off), OK_OK);
    CHECK_EQ_INT(off, OK_FORMS_OFF_CONTEXT);
    CHECK_EQ_STR(ctx, "");
    char eps[300];
    memset(eps, 'w', sizeof eps - 1);
    eps[sizeof eps - 1] = '\0';
    char big[512];
    CHECK_EQ_INT(ok_form_context("1.30.0", eps, "all", st, big, sizeof big, &off), OK_OK);
    CHECK_EQ_INT(off, OK_FORMS_OFF_CONTEXT);
    CHECK_EQ_INT(ok_form_context(NULL, "wasm", "all", st, ctx, sizeof ctx, &off), OK_ERR_INVALID_ARG);
    CHECK_EQ_INT(ok_form_context("1.30.0", "wasm", "all", st, ctx, sizeof ctx, NULL), OK_ERR_INVALID_ARG);
}

static void test_verify(void) {
    const uint32_t samples[] = {5200, 3100, 4000};
    CHECK_EQ_INT(OK_VERIFY_ORIGINAL_CREATES, 2);
    CHECK_EQ_INT(OK_VERIFY_FORM_CREATES, 1);
    CHECK_EQ_INT(ok_form_best_us(samples, 3), 3100);
    CHECK_EQ_INT(ok_form_best_us(samples, 1), 5200);
    CHECK_EQ_INT(ok_form_best_us(samples, 0), UINT32_MAX);
    CHECK_EQ_INT(ok_form_best_us(NULL, 3), UINT32_MAX);
    const uint32_t all = OK_PROBE_CREATED | OK_PROBE_REFERENCE_RAN | OK_PROBE_FORM_RAN | OK_PROBE_EQUAL;
    CHECK_EQ_INT(ok_form_probe_verdict(all), OK_VERDICT_EQUAL);
    CHECK_EQ_INT(ok_form_probe_verdict(all & ~(uint32_t)OK_PROBE_EQUAL), OK_VERDICT_DIFFERS);
    /* the form cannot run what the original ran: it differs, whatever else */
    CHECK_EQ_INT(ok_form_probe_verdict(all & ~(uint32_t)OK_PROBE_FORM_RAN), OK_VERDICT_DIFFERS);
    CHECK_EQ_INT(ok_form_probe_verdict(OK_PROBE_CREATED), OK_VERDICT_UNVERIFIABLE);
    CHECK_EQ_INT(ok_form_probe_verdict(all & ~(uint32_t)OK_PROBE_CREATED), OK_VERDICT_FAILED);
    CHECK_EQ_INT(ok_form_probe_verdict(0), OK_VERDICT_FAILED);
    /* the tolerance the default compare uses: 1e-3 relative, 1e-4 absolute */
    CHECK_EQ_INT(OK_PROBE_RTOL_PPM, 1000);
    CHECK_EQ_INT(OK_PROBE_ATOL_PPM, 100);
    CHECK_EQ_INT(OK_PROBE_LONG_DIM, 256);
}

static void test_prepared(void) {
    const uint32_t ok = OK_PREPARED_ALL;
    uint32_t facts[] = {ok, ok, ok & ~(uint32_t)OK_PREPARED_SAME_ORT, ok};
    uint32_t us[] = {9000, 4000, 1000, 4000};
    /* the fastest usable; a faster one for another runtime is not usable; the first on a tie */
    CHECK_EQ_INT(ok_form_pick_prepared(facts, us, 4), 1);
    for (uint32_t f = 1; f < OK_PREPARED_ALL; f <<= 1) {
        uint32_t one[] = {ok & ~f};
        uint32_t t[] = {1};
        CHECK_EQ_INT(ok_form_pick_prepared(one, t, 1), OK_PREPARED_NONE);
    }
    /* not measured: after every measured one */
    uint32_t f2[] = {ok, ok};
    uint32_t us2[] = {UINT32_MAX, 7000};
    CHECK_EQ_INT(ok_form_pick_prepared(f2, us2, 2), 1);
    us2[1] = UINT32_MAX;
    CHECK_EQ_INT(ok_form_pick_prepared(f2, us2, 2), 0);
    CHECK_EQ_INT(ok_form_pick_prepared(f2, us2, 0), OK_PREPARED_NONE);
    CHECK_EQ_INT(ok_form_pick_prepared(NULL, us2, 2), OK_PREPARED_NONE);
}

int main(void) {
    test_context();
    test_verify();
    test_prepared();
    return CHECK_DONE();
}
