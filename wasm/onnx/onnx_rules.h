/* What the streaming reader (onnx_stream.c) shares with its test oracle, the
 * one-shot reader (tests/c/oracle/onnx_reader.c), so both apply one set of
 * rules and word errors alike. Not part of the public API. */
#ifndef ORTKEEP_ONNX_RULES_H
#define ORTKEEP_ONNX_RULES_H

#include <stddef.h>
#include <stdint.h>

#include "onnx_model.h"
#include "pb_wire.h"

/* Message descriptors, for error messages ("graph.node"). */
extern const ok_pb_msg ok_onnx_msg_model, ok_onnx_msg_graph, ok_onnx_msg_node, ok_onnx_msg_attr,
    ok_onnx_msg_tensor, ok_onnx_msg_kv, ok_onnx_msg_opset, ok_onnx_msg_vinfo, ok_onnx_msg_type,
    ok_onnx_msg_ttype, ok_onnx_msg_shape, ok_onnx_msg_dim, ok_onnx_msg_sparse;

/* A name defined in a graph: an initializer (its index in m->inits), or
 * OK_ONNX_NONE for a graph input, node output or sparse initializer. */
typedef struct ok_onnx_def {
    uint32_t graph;
    uint32_t init;
    ok_span name; /* into the buf passed to ok_onnx_resolve_scopes */
} ok_onnx_def;

/* A node input name used in a graph. */
typedef struct ok_onnx_ref {
    uint32_t graph;
    ok_span name;
} ok_onnx_ref;

/* Resolves refs against defs by ONNX scoping (onnx_model.h) over
 * m->graphs[].parent; fills m->inits[].ref_graphs and m->shared. Temporary
 * heap: at most 16 * n_defs + 8 * n_refs + 64 bytes (a hash table of 4-byte
 * slots at most 4 per def, and one 8-byte pair per ref). */
int ok_onnx_resolve_scopes(ok_model *m, const uint8_t *buf, const ok_onnx_def *defs, uint32_t n_defs,
                           const ok_onnx_ref *refs, uint32_t n_refs, ok_error *err);

/* external_data offset/length: decimal digits only, no overflow; 1 = ok. */
int ok_onnx_parse_decimal(const uint8_t *s, size_t n, uint64_t *out);

#endif
