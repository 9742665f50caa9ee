/* The optimized forms' decisions a page used to make in JS, taken here from
 * the facts JS reports (js/forms/tiers.js, probe.js, prepared.js): whether a
 * load may make forms and the context string that becomes part of a form's
 * cache key; the verify protocol (how many creations of each side are timed,
 * which sample counts, the verdict a round trip earns); the probes'
 * tolerances and long dimension; which form `ortkeep prepare` made serves a
 * page. Pure functions, no state: form_tiers.c keeps the tiers' policy. */
#ifndef ORTKEEP_FORM_POLICY_H
#define ORTKEEP_FORM_POLICY_H

#include <stddef.h>
#include <stdint.h>

#include "ok_error.h"

/* ---- eligibility and the form context ---- */

/* Facts about one load (ok_form_context `facts`). */
#define OK_FORM_LOAD_FACT_LIST(X)                              \
    X(STORABLE, 1)   /* a cache keeps what this load stores */ \
    X(OWN_WRITER, 2) /* the caller set optimizedModelFilePath itself */
enum {
#define OK_FORM_LOAD_FACT_ENUM_(name, value) OK_FORM_LOAD_##name = value,
    OK_FORM_LOAD_FACT_LIST(OK_FORM_LOAD_FACT_ENUM_)
#undef OK_FORM_LOAD_FACT_ENUM_
};

/* Why a load makes no forms (ok_form_context's answer; NONE: it does). */
#define OK_FORMS_OFF_LIST(X)                                            \
    X(NONE, 0)                                                          \
    X(NOT_STORED, 1) /* nothing is stored for this source */            \
    X(LEVEL, 2)      /* graphOptimizationLevel has no optimized form */ \
    X(OWN_WRITER, 3) /* the caller writes its own optimized model */    \
    X(CONTEXT, 4)    /* a runtime/EP name cannot be part of a key */
enum {
#define OK_FORMS_OFF_ENUM_(name, value) OK_FORMS_OFF_##name = value,
    OK_FORMS_OFF_LIST(OK_FORMS_OFF_ENUM_)
#undef OK_FORMS_OFF_ENUM_
};

/* The longest context string, with its NUL. */
#define OK_FORM_MAX_CONTEXT 256u

/* Whether a load may make forms, and its context "ort=V;ep=A,B;level=L":
 * the onnxruntime-web version, the execution providers' names
 * comma-separated, and the optimization level (NULL or "": onnxruntime's
 * default, "all"; one of basic, extended, layout, all). *off gets
 * OK_FORMS_OFF_NONE with the context written to out (cap bytes), or the
 * reason there is none. OK_ERR_INVALID_ARG: a NULL pointer. */
ok_status ok_form_context(const char *ort_version, const char *eps, const char *level, uint32_t facts,
                          char *out, size_t cap, uint32_t *off);

/* ---- the verify protocol ---- */

/* Creations timed per side at verification, interleaved original, form,
 * original (a slow moment then hits one sample, not a side), and the probe
 * feed sets both sessions run. */
#define OK_VERIFY_POLICY_LIST(X) \
    X(ORIGINAL_CREATES, 2)       \
    X(FORM_CREATES, 1)           \
    X(PROBE_SETS, 2)
enum {
#define OK_VERIFY_ENUM_(name, value) OK_VERIFY_##name = value,
    OK_VERIFY_POLICY_LIST(OK_VERIFY_ENUM_)
#undef OK_VERIFY_ENUM_
};

/* What a side's creation time is taken as from its samples (microseconds):
 * the best, since one creation on a shared machine can be slowed by
 * anything. UINT32_MAX for no sample. */
uint32_t ok_form_best_us(const uint32_t *samples, uint32_t n);

/* What a round trip showed (ok_form_probe_verdict `probe`). */
#define OK_PROBE_FACT_LIST(X)                                           \
    X(CREATED, 1)       /* every timed session was created */           \
    X(REFERENCE_RAN, 2) /* the original ran the probes at some shape */ \
    X(FORM_RAN, 4)      /* the form ran the same probes */              \
    X(EQUAL, 8)         /* and answered within the tolerance */
enum {
#define OK_PROBE_FACT_ENUM_(name, value) OK_PROBE_##name = value,
    OK_PROBE_FACT_LIST(OK_PROBE_FACT_ENUM_)
#undef OK_PROBE_FACT_ENUM_
};

/* The verdict (OK_VERDICT_*) a round trip earns from its OK_PROBE_* facts. */
uint32_t ok_form_probe_verdict(uint32_t probe);

/* ---- probes ---- */

/* The outputs' tolerance, |a - b| <= atol + rtol * |a|, in millionths, and
 * the length a probe gives free dimensions when the caller's shapes do not
 * run (audio and sequences need more than 1: silero's reflect pad). */
#define OK_PROBE_POLICY_LIST(X) \
    X(RTOL_PPM, 1000)           \
    X(ATOL_PPM, 100)            \
    X(LONG_DIM, 256)
enum {
#define OK_PROBE_POLICY_ENUM_(name, value) OK_PROBE_##name = value,
    OK_PROBE_POLICY_LIST(OK_PROBE_POLICY_ENUM_)
#undef OK_PROBE_POLICY_ENUM_
};

/* ---- forms made ahead of time (ortkeep prepare) ---- */

/* Facts about one form a prepare manifest lists. */
#define OK_PREPARED_FACT_LIST(X)                                              \
    X(ONNX, 1)           /* an .onnx form (the cache takes no .ort by URL) */ \
    X(HAS_FILE, 2)       /* it names its file */                              \
    X(VERIFIED_EQUAL, 4) /* prepare verified its outputs equal */             \
    X(SAME_ORT, 8)       /* made with the onnxruntime-web the page runs */    \
    X(EP_WANTED, 16)     /* for an execution provider the page asked for */
enum {
#define OK_PREPARED_FACT_ENUM_(name, value) OK_PREPARED_##name = value,
    OK_PREPARED_FACT_LIST(OK_PREPARED_FACT_ENUM_)
#undef OK_PREPARED_FACT_ENUM_
};
#define OK_PREPARED_ALL 31u
#define OK_PREPARED_NONE UINT32_MAX

/* Which of n prepared forms serves: among those with every fact, the one
 * prepare measured fastest to create (create_us; UINT32_MAX: not measured),
 * the first listed on a tie; OK_PREPARED_NONE: none (the original serves). */
uint32_t ok_form_pick_prepared(const uint32_t *facts, const uint32_t *create_us, uint32_t n);

#endif
