/* Error codes shared by every part of the core. JS maps each code to an
 * OrtkeepError with the same name (js/errors.js), so a code, once shipped,
 * keeps its number. A function that can fail returns one of these (0 = OK)
 * and, where the caller passes one, fills an ok_error with the byte offset
 * and a one-line message. */
#ifndef ORTKEEP_OK_ERROR_H
#define ORTKEEP_OK_ERROR_H

#include <stddef.h>

/* X(NAME, value, what): the one list of error codes (OK_OK = 0 is not an
 * error). The enum, ok_status_name() and the JS table (js/core-constants.js,
 * generated) all come from it. */
#define OK_STATUS_LIST(X)                                                \
    X(NOMEM, 1, "an allocation failed")                                  \
    X(INVALID_ARG, 2, "caller broke the contract (NULL, bad index)")     \
    X(EMPTY, 3, "input has no bytes")                                    \
    X(TRUNCATED, 4, "a length or field runs past the end")               \
    X(BAD_WIRE_TYPE, 5, "protobuf wire type 3/4/6/7 or wrong for field") \
    X(BAD_VARINT, 6, "varint longer than 10 bytes or overflows")         \
    X(TOO_DEEP, 7, "nesting beyond the reader's limit")                  \
    X(NOT_ONNX, 8, "parses, but is not a ModelProto (no graph)")         \
    X(LIMIT, 9, "a count or size beyond a sane limit")                   \
    X(NOT_FOUND, 10, "no such key / handle / entry")                     \
    X(STATE, 11, "event not valid in the current state")                 \
    X(CORRUPT, 12, "stored bytes fail their checksum or format")         \
    X(INTEGRITY, 13, "content does not match the expected digest")       \
    X(QUOTA, 14, "does not fit the byte budget or the storage quota")    \
    X(SHAPE, 15, "tensor dtype/rank/dims do not match")                  \
    X(IN_USE, 16, "resource still bound / referenced")                   \
    X(NETWORK, 17, "the network failed or the server refused")           \
    X(ABORTED, 18, "the caller's AbortSignal fired")                     \
    X(INVALID_SOURCE, 19, "not something a model can be loaded from")    \
    X(SESSION_CREATE, 20, "onnxruntime-web refused the model")

typedef enum ok_status {
    OK_OK = 0,
#define OK_STATUS_ENUM_(name, value, what) OK_ERR_##name = value,
    OK_STATUS_LIST(OK_STATUS_ENUM_)
#undef OK_STATUS_ENUM_
        OK_STATUS_END_
} ok_status;

typedef struct ok_error {
    ok_status code;
    size_t offset;     /* byte offset in the input where it applies, or 0 */
    char message[192]; /* one line, no trailing newline */
} ok_error;

/* "TRUNCATED" for OK_ERR_TRUNCATED, "OK" for OK_OK, NULL for an unknown
 * value. The names are stable: JS error codes are these strings. */
const char *ok_status_name(int status);

#endif
