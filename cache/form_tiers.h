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

/* A captured form holds every weight inline: protobuf and FlatBuffers
 * both stop at 2 GiB. */
#define OK_FORM_MAX_INLINE_BYTES ((uint64_t)2 << 30)

/* The tier to capture for those bytes (OK_FORM_ONNX / ORT), or
 * OK_FORM_ORIGINAL: none (a verified form exists, every tier failed -- the
 * sentinel --, the facts rule every tier out, or inline_bytes -- the model
 * and its external data -- would not fit one file). */
ok_status ok_form_next_capture(const ok_cache *c, const char *orig_key,
                               const char *ctx, const uint8_t *sha,
                               uint32_t facts, uint64_t inline_bytes,
                               uint32_t *form);

/* A round trip's verdict (OK_VERDICT_*) with both creation times -> what is
 * committed: OK_FORM_VERIFIED, or OK_FORM_FAILED and why (OK_REASON_*).
 * OK_ERR_INVALID_ARG for an unknown verdict. */
ok_status ok_form_judge(uint32_t verdict, uint32_t create_us,
                        uint32_t orig_create_us, uint32_t *status,
                        uint32_t *reason);

/* The tier after `form` (OK_FORM_ORIGINAL after the last). */
uint32_t ok_form_after(uint32_t form);

#endif
