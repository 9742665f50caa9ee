/* The optimized forms' tier policy, private to the cache sources: keys of
 * forms, which stored form serves, which tier to capture next, and what a
 * verification's verdict makes of a form. The load machine (cache/load_*.c)
 * carries these decisions through its states. */
#ifndef ORTKEEP_FORM_TIERS_H
#define ORTKEEP_FORM_TIERS_H

#include "cache_internal.h"

/* The key of form `form` of the original stored under `orig_key`, in
 * context `ctx`: "…|form:original" becomes "…|form:<name>|<ctx>". NULL: out
 * of memory. */
char *ok_form_key(const char *orig_key, uint32_t form, const char *ctx);

/* What a form of the original `orig_key` with content hash `sha` is made
 * from, as one digest: `sha` itself for a model with no stored data files;
 * else SHA-256 over `sha` and, in key order, each committed data file's
 * location and content SHA-256. A form folds weights of the data files into
 * itself (a BatchNorm into a Conv, a Transpose of a weight), so a data file
 * that changes while the model file stays byte-identical must make its old
 * forms stale. */
void ok_form_source_id(const ok_cache *c, const char *orig_key, const uint8_t *sha, uint8_t out[32]);

/* The same digest for bytes handed to load() with their `n` data files
 * handed as bytes too: `sha` the model's hash, locs[i] (onnxruntime-web's
 * `path`) and shas[i] each file's. The host hashes them; order does not
 * count. OK_ERR_INVALID_ARG: a location given twice or missing. Equal to
 * ok_form_source_id of the same files stored beside the model. */
ok_status ok_form_given_source_id(const uint8_t *sha, uint32_t n, const char *const *locs,
                                  const uint8_t *const *shas, uint8_t out[32]);

/* Whether data files handed as bytes, `data_bytes` in all, are worth
 * naming with their model (ok_form_given_source_id: the host hashes every
 * byte on each load): only where a form could be made of them. */
int ok_form_names_given_data(uint64_t data_bytes);

/* Tier order. The .onnx form comes first, then the .ort. Where the page
 * creates an .ort form in place (OK_LOAD_ORT_IN_PLACE in `load_flags`,
 * js/forms/in-place.js: its bytes used where they lie in onnxruntime's
 * heap, initializers included), the .ort comes first. Measured there
 * (bench-bert, 45 MiB of weights, Chromium): 195 ms against 500 ms for
 * the .onnx form. A page without it (a proxy worker, onnxruntime-web's own
 * loader) keeps the .onnx first and serves whichever is verified. */

/* The first tier, in that order, VERIFIED for the original `orig_key`
 * with content hash `sha` and the data files stored beside it
 * (ok_form_source_id; a FAILED tier is passed over), or NULL: the
 * original serves. */
ok_status ok_form_servable(const ok_cache *c, const char *orig_key, const char *ctx, const uint8_t *sha,
                           uint32_t load_flags, ok_entry **out);

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

/* A form judged slower than its original is tried again this long after
 * that verdict: creation times measured in one noisy moment on a shared
 * machine must not rule a form out for good. */
#define OK_FORM_RETRY_SLOWER_MS ((uint64_t)7 * 24 * 60 * 60 * 1000)

/* The stored verdict `f` is to be tried again at `now` (ms): a check that
 * was interrupted once, or a "slower" verdict at least
 * OK_FORM_RETRY_SLOWER_MS old. */
int ok_form_retry(const ok_entry *f, uint64_t now);

/* The tier to capture for those bytes (OK_FORM_ONNX / ORT), in the tier
 * order, or OK_FORM_ORIGINAL: none (a verified form exists earlier in it, every tier failed -- the
 * sentinel --, the facts rule every tier out, the model is past 2 GiB, or
 * its external data past OK_FORM_MAX_DATA_BYTES). A tier whose verdict is
 * to be tried again at `now` (ok_form_retry) is captured again. */
ok_status ok_form_next_capture(const ok_cache *c, const char *orig_key, const char *ctx, const uint8_t *sha,
                               uint32_t facts, uint32_t load_flags, uint64_t model_bytes, uint64_t data_bytes,
                               uint64_t now, uint32_t *form);

/* A round trip's verdict (OK_VERDICT_*) with both creation times -> what is
 * committed: OK_FORM_VERIFIED, or OK_FORM_FAILED and why (OK_REASON_*).
 * A check that itself failed (OK_VERDICT_FAILED) may be a transient fault
 * -- on WebGPU, another session's run on the page's one device -- so the
 * first is FORM_INTERRUPTED (the tier is captured and checked once more)
 * and only a second (`prior_reason` FORM_INTERRUPTED) fails it for good
 * (SESSION). OK_ERR_INVALID_ARG for an unknown verdict. */
ok_status ok_form_judge(uint32_t verdict, uint32_t create_us, uint32_t orig_create_us, uint32_t prior_reason,
                        uint32_t *status, uint32_t *reason);

/* Revision of a verified form's verdict. Every warm load served by a form
 * times its creation; that alone says nothing against the original, whose
 * time was taken once, at verification, maybe in a quieter moment. So a
 * warm load whose form creation came within OK_FORM_REVISE_NEAR_PCT of
 * the original's verified time (or any while a revision is under way)
 * times the original once beside it, in the background: the one extra
 * session such a load adds. Each such pair is tallied in the form's
 * record; after OK_FORM_REVISE_PAIRS pairs the form is demoted (a
 * "slower" tombstone, tried again after OK_FORM_RETRY_SLOWER_MS) when the
 * pairs' ratio (form time over original time) and the verification's,
 * taken together as their geometric mean, pass OK_FORM_REVISE_SLOWER_PCT%;
 * else the tally restarts. Why both: a pair's order is fixed (the form's
 * creation is the caller's, always first, and a page's later creations
 * run on better-compiled onnxruntime wasm), the verification's is not
 * (both orders, each side's best sample). Measured here under an 8x CPU
 * throttle: silero's form, 0.71x its original at verification, took
 * 1.11x and 1.17x of it over three pairs in two runs; the pairs alone
 * demoted it. */
#define OK_FORM_REVISE_PAIRS 3u
#define OK_FORM_REVISE_NEAR_PCT 90u
#define OK_FORM_REVISE_SLOWER_PCT 105u

/* A warm load served by the verified form `f` that created in `form_us`
 * (us), with `facts` (OK_SESSION_*) about that creation, is to time the
 * original beside it. Not for the page's first model session (onnxruntime-
 * web's start-up, or its code still cold from it, would make the form look
 * slow) nor when it read external data files (the original's would be
 * read back too). */
int ok_form_revise_wanted(const ok_entry *f, uint32_t form_us, uint32_t facts);

/* Tally one pair (the form's warm creation, the original's beside it, us)
 * into the verified form `f`'s record: OK_REVISION_TALLIED, KEPT (the
 * tally restarts) or DEMOTED (ok_load.h). DEMOTED leaves in *form_us and
 * *orig_us the pairs' mean times (the tombstone's record, the caller
 * commits it); else f's record is updated and is to be written. */
uint32_t ok_form_revise(ok_entry *f, uint32_t *form_us, uint32_t *orig_us);

/* The tier after `form`, in the order `load_flags` give (tier_order), that
 * the facts allow (OK_FORM_ORIGINAL: none). */
uint32_t ok_form_after(uint32_t form, uint32_t facts, uint32_t load_flags);

#endif
