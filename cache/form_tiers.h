/* The optimized forms' tier policy, private to the cache sources: keys of
 * forms, which stored form serves, which tier to capture next, and what a
 * verification's verdict makes of a form. The load machine (load_machine.c)
 * carries these decisions through its states. */
#ifndef ORTKEEP_FORM_TIERS_H
#define ORTKEEP_FORM_TIERS_H

#include "cache_internal.h"

/* The key of form `form` of the original stored under `orig_key`, in
 * context `ctx`: "…|form:original" becomes "…|form:<name>|<ctx>". NULL: out
 * of memory. */
char *ok_form_key(const char *orig_key, uint32_t form, const char *ctx);

/* The first tier VERIFIED for the original `orig_key` with content hash
 * `sha` (a FAILED tier is passed over), or NULL: the original serves. */
ok_status ok_form_servable(const ok_cache *c, const char *orig_key,
                           const char *ctx, const uint8_t *sha, ok_entry **out);

/* A captured .onnx holds the model's own initializers inline (protobuf
 * stops at 2 GiB); those in external data files stay there: onnxruntime's
 * writer keeps the references, so such a form is served with the
 * original's data files beside it (and no .ort can be made of it: the ORT
 * format has no external data). */
#define OK_FORM_MAX_INLINE_BYTES ((uint64_t)2 << 30)
/* Verifying a form of a model with external data holds the data in three
 * sessions at once (the caller's, the original again, the form), all in
 * onnxruntime's one wasm32 heap (4 GiB): past this, no form is made. */
#define OK_FORM_MAX_DATA_BYTES ((uint64_t)1 << 30)

/* The tier to capture for those bytes (OK_FORM_ONNX / ORT), or
 * OK_FORM_ORIGINAL: none (a verified form exists, every tier failed -- the
 * sentinel --, the facts rule every tier out, the model is past 2 GiB, or
 * its external data past OK_FORM_MAX_DATA_BYTES). */
ok_status ok_form_next_capture(const ok_cache *c, const char *orig_key,
                               const char *ctx, const uint8_t *sha,
                               uint32_t facts, uint64_t model_bytes,
                               uint64_t data_bytes, uint32_t *form);

/* A round trip's verdict (OK_VERDICT_*) with both creation times -> what is
 * committed: OK_FORM_VERIFIED, or OK_FORM_FAILED and why (OK_REASON_*).
 * OK_ERR_INVALID_ARG for an unknown verdict. */
ok_status ok_form_judge(uint32_t verdict, uint32_t create_us,
                        uint32_t orig_create_us, uint32_t *status,
                        uint32_t *reason);

/* The tier after `form` the facts allow (OK_FORM_ORIGINAL: none). */
uint32_t ok_form_after(uint32_t form, uint32_t facts);

#endif
