/* The normalization stamp: one ModelProto.metadata_props entry with key
 * "ortkeep.stamp" that the core appends to every artifact it stores (an
 * optimized .onnx or .ort form), saying what made it and from what:
 *
 *   v=1;producer=ortkeep 0.1.0;ort=1.30.0;ep=wasm;level=extended;
 *   source=<sha256 hex of the original model>;artifact=<sha256 hex of the
 *   artifact's bytes before the stamp>
 *
 * Appending is valid protobuf (a repeated field may come last), so the stamp
 * is a tail the caller concatenates (a Blob part: no copy of the artifact).
 * A model that arrives stamped for the running onnxruntime version, EP and
 * level can be created at graphOptimizationLevel 'disabled'; the stamp is
 * trusted only while it is the model's last field and its artifact digest
 * equals the SHA-256 of the bytes before it (a tool that rewrote the model
 * moves or breaks it), and only for the version/EP/level it names.
 * Pure functions: no I/O, no allocation. */
#ifndef ORTKEEP_STAMP_H
#define ORTKEEP_STAMP_H

#include <stddef.h>
#include <stdint.h>

#include "ok_error.h"
#include "sha256.h"

#define OK_STAMP_KEY "ortkeep.stamp"
#define OK_STAMP_MAX_FIELD 64 /* bytes of one value (producer, ort, ep, level) */
/* The tail's largest size: tag + lengths + key + value. */
#define OK_STAMP_MAX_TAIL 512

#define OK_STAMP_VERDICT_LIST(X)                                                   \
    X(NONE, 0)      /* no stamp: the model's last field is not one */              \
    X(VALID, 1)     /* ours, intact, for this onnxruntime version, EP and level */ \
    X(STALE, 2)     /* the artifact digest no longer matches: rewritten since */   \
    X(FOREIGN, 3)   /* intact, but for another onnxruntime version, EP or level */ \
    X(MALFORMED, 4) /* the key is there, the value does not parse */
enum ok_stamp_verdict {
#define OK_STAMP_VERDICT_ENUM_(name, value) OK_STAMP_##name = value,
    OK_STAMP_VERDICT_LIST(OK_STAMP_VERDICT_ENUM_)
#undef OK_STAMP_VERDICT_ENUM_
};

typedef struct ok_stamp {
    char producer[OK_STAMP_MAX_FIELD + 1];
    char ort[OK_STAMP_MAX_FIELD + 1];   /* onnxruntime version */
    char ep[OK_STAMP_MAX_FIELD + 1];    /* execution provider */
    char level[OK_STAMP_MAX_FIELD + 1]; /* graph optimization level */
    uint8_t source[32];                 /* SHA-256 of the original model */
    uint8_t artifact[32];               /* SHA-256 of the bytes before the stamp */
} ok_stamp;

/* The protobuf tail to append to an artifact: *len bytes into out[0, cap).
 * OK_ERR_INVALID_ARG for an empty field or one holding ';' or '=' or a
 * control byte, OK_ERR_LIMIT when a field is longer than OK_STAMP_MAX_FIELD
 * or cap is too small. */
ok_status ok_stamp_encode(const ok_stamp *s, uint8_t *out, size_t cap, size_t *len);

/* Fills *out from strings (what JS hands the exported ABI): producer, ort,
 * ep and level as for ok_stamp_encode, source and artifact as 64 lowercase
 * hex digits each. OK_ERR_INVALID_ARG for a NULL, a bad field or a digest
 * that is not that, OK_ERR_LIMIT for a field past OK_STAMP_MAX_FIELD. */
ok_status ok_stamp_from_strings(ok_stamp *out, const char *producer, const char *ort, const char *ep,
                                const char *level, const char *source_hex, const char *artifact_hex);

/* Parses a stamp value (the entry's value string). OK_ERR_NOT_ONNX when it is
 * not one (unknown version, a field missing or repeated, bad hex). */
ok_status ok_stamp_parse(const char *value, size_t n, ok_stamp *out);

/* Finds the stamp in a whole model: when its last top-level field is a
 * metadata_props entry keyed OK_STAMP_KEY, *start is that field's offset
 * (the artifact is [0, start)) and the value is [*value, *value + *vlen);
 * returns 1, else 0 (also for bytes that are not a well-formed ModelProto
 * at the top level). */
int ok_stamp_find(const uint8_t *model, size_t n, size_t *start, const char **value, size_t *vlen);

/* The verdict on a stamp found at the end of a model whose bytes before it
 * hash to prefix_sha256, for the running ort/ep/level. */
int ok_stamp_judge(const ok_stamp *s, const uint8_t prefix_sha256[32], const char *ort, const char *ep,
                   const char *level);

/* The stamp of a model that streams past, in the pass that hashes it: the
 * caller feeds every byte in order with the SHA-256 state its own hash had
 * at the start of the piece (before it took the piece), and the tracker
 * follows the top-level fields (skipping payloads by counting) and keeps the
 * last one when it is a small metadata_props entry, with the hash of the
 * bytes before it (hashing at most one piece's head again). No allocation;
 * a model whose top level does not parse has no stamp. */
typedef struct ok_stamp_tracker {
    uint64_t pos; /* bytes fed */
    int state;    /* internal */
    int broken;   /* the top level did not parse: no stamp */
    uint64_t acc; /* varint being read */
    uint32_t shift;
    uint32_t field, wire;
    uint64_t remaining;        /* payload bytes of the current field left */
    int snap;                  /* the current field's tag was metadata_props in one byte */
    int keep;                  /* the current field is a candidate: buffer it */
    struct ok_sha256 cand_sha; /* hash state at the candidate's first byte */
    uint8_t cand[OK_STAMP_MAX_TAIL];
    size_t cand_len;
    int last_is_cand; /* the last complete field is the candidate */
    struct ok_sha256 last_sha;
    uint8_t last[OK_STAMP_MAX_TAIL];
    size_t last_len;
} ok_stamp_tracker;

void ok_stamp_tracker_init(ok_stamp_tracker *t);
void ok_stamp_tracker_feed(ok_stamp_tracker *t, const uint8_t *p, size_t n,
                           const struct ok_sha256 *sha_before);
/* After the last byte: OK_STAMP_NONE, OK_STAMP_MALFORMED, or (with *out the
 * stamp) OK_STAMP_VALID when its artifact digest equals the hash of the
 * bytes before it, OK_STAMP_STALE when not. Version/EP/level are the
 * caller's to compare (ok_stamp_judge, or out's fields). */
int ok_stamp_tracker_end(const ok_stamp_tracker *t, ok_stamp *out);

/* All of it on a whole model; *out gets the stamp when one parses. */
int ok_stamp_check(const uint8_t *model, size_t n, const char *ort, const char *ep, const char *level,
                   ok_stamp *out);

#endif
