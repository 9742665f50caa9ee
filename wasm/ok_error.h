/* Error codes shared by every part of the core. JS maps each code to an
 * OrtkeepError with the same name (js/errors.js), so a code, once shipped,
 * keeps its number. A function that can fail returns one of these (0 = OK)
 * and, where the caller passes one, fills an ok_error with the byte offset
 * and a one-line message. */
#ifndef ORTKEEP_OK_ERROR_H
#define ORTKEEP_OK_ERROR_H

#include <stddef.h>

typedef enum ok_status {
    OK_OK = 0,
    OK_ERR_NOMEM = 1,          /* an allocation failed */
    OK_ERR_INVALID_ARG = 2,    /* caller broke the contract (NULL, bad index) */
    OK_ERR_EMPTY = 3,          /* input has no bytes */
    OK_ERR_TRUNCATED = 4,      /* a length or field runs past the end */
    OK_ERR_BAD_WIRE_TYPE = 5,  /* protobuf wire type 3/4/6/7 or wrong for field */
    OK_ERR_BAD_VARINT = 6,     /* varint longer than 10 bytes or overflows */
    OK_ERR_TOO_DEEP = 7,       /* nesting beyond the reader's limit */
    OK_ERR_NOT_ONNX = 8,       /* parses, but is not a ModelProto (no graph) */
    OK_ERR_LIMIT = 9,          /* a count or size beyond a sane limit */
    OK_ERR_NOT_FOUND = 10,     /* no such key / handle / entry */
    OK_ERR_STATE = 11,         /* event not valid in the current state */
    OK_ERR_CORRUPT = 12,       /* stored bytes fail their digest or format */
    OK_ERR_INTEGRITY = 13,     /* content does not match the expected digest */
    OK_ERR_QUOTA = 14,         /* does not fit the byte budget */
    OK_ERR_SHAPE = 15,         /* tensor dtype/rank/dims do not match */
    OK_ERR_IN_USE = 16         /* resource still bound / referenced */
} ok_status;

typedef struct ok_error {
    ok_status code;
    size_t offset;      /* byte offset in the input where it applies, or 0 */
    char message[192];  /* one line, no trailing newline */
} ok_error;

#endif
