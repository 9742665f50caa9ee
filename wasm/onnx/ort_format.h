/* ORT format (onnxruntime's FlatBuffer model file, identifier "ORTM"): a
 * bounds-checked read of what an artifact check needs, never trusting an
 * offset. The ONNX reader reads protobuf only; this is how the core accepts
 * an .ort form captured from onnxruntime-web before it is trusted. */
#ifndef ORTKEEP_ORT_FORMAT_H
#define ORTKEEP_ORT_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "ok_error.h"

typedef struct ok_ort_info {
    char ort_version[32];   /* InferenceSession.ort_version: the ORT format version ("" if absent) */
    int64_t ir_version;     /* Model.ir_version */
    char producer_name[64]; /* Model.producer_name, truncated to fit */
    int has_graph;          /* Model.graph present (always 1 on success) */
} ok_ort_info;

/* OK_OK and *info filled, or: EMPTY; TRUNCATED (an offset or length runs
 * past the end, offset set); NOT_ONNX (no ORTM identifier, no model, no
 * graph: not an ORT-format model); INVALID_ARG. */
ok_status ok_ort_read(const uint8_t *buf, size_t len, ok_ort_info *info, ok_error *err);

#endif
