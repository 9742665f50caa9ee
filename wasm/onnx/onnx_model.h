/* An ONNX ModelProto as the readers report it, and the rules they follow.
 *
 * The streaming reader (onnx_stream.h, the core's) builds an ok_model: flat
 * arrays that index each other by uint32 position. Strings are spans into
 * m->buf: for a streamed model an arena of owned copies that the model holds
 * and ok_model_free() releases; for the one-shot reader that the tests use as
 * its oracle (tests/c/oracle/onnx_reader.h, zero-copy) the caller's buffer,
 * which must outlive the model. Only graph paths are built (and owned) here.
 *
 * What it covers: the main graph and every graph-valued attribute
 * (AttributeProto.g and .graphs, so If/Loop/Scan and any custom op), nested
 * up to OK_ONNX_MAX_GRAPH_DEPTH. ModelProto.functions is skipped.
 *
 * Graph paths: the main graph is "main"; a subgraph is
 *   parent + "/" + label + "." + attr      (AttributeProto.g)
 *   parent + "/" + label + "." + attr "[i]" (AttributeProto.graphs, i from 0)
 * where label is the node's name, or op_type "#" index-in-graph when the name
 * is empty. Graphs are stored in depth-first pre-order (main first; within a
 * graph, subgraphs in node order, then attribute order).
 *
 * Rules the report follows (tests/fixtures/ground_truth.py applies the same):
 * - Logical bytes of a tensor: product of dims times element size; 4-bit
 *   types (UINT4, INT4, FLOAT4E2M1) take ceil(n/2); STRING, UNDEFINED and
 *   unknown data types count 0. A negative dim or a product past 2^63-1 is
 *   OK_ERR_LIMIT. Dims may be packed or not.
 * - External data (data_location == EXTERNAL): keys "location", "offset",
 *   "length" of external_data; offset absent = 0, length absent = 0 (meaning
 *   "to the end of the file"). A non-decimal offset/length is OK_ERR_CORRUPT.
 * - Repeated scalar/string fields in one message: the last one wins (protobuf
 *   rule); a second ModelProto.graph replaces the first (no merge).
 * - sparse_initializer entries are counted per graph, not as initializers.
 * - Shared initializers: each non-empty node input is resolved by ONNX
 *   scoping, from the node's graph outward. At each level, a name that is an
 *   initializer there resolves to that initializer (also when it is a graph
 *   input too); a name that is a graph input, node output or sparse
 *   initializer there stops the lookup with no initializer; otherwise go to
 *   the enclosing graph. An initializer is shared when nodes of two or more
 *   distinct graphs resolve to it. A duplicate initializer name in one graph
 *   resolves to the first.
 * - Control flow: nodes with op_type If/Loop/Scan in domain "" or "ai.onnx".
 */
#ifndef ORTKEEP_ONNX_MODEL_H
#define ORTKEEP_ONNX_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "ok_error.h"

#define OK_ONNX_MAX_GRAPH_DEPTH 64 /* main graph is depth 0 */
#define OK_ONNX_NONE 0xffffffffu   /* "no index" (main graph's parent) */

/* A byte range of the caller's buffer. */
typedef struct ok_span {
    size_t off;
    size_t len;
} ok_span;

enum { OK_DIM_UNKNOWN = 0, OK_DIM_VALUE = 1, OK_DIM_PARAM = 2 };

typedef struct ok_dim {
    int kind;      /* OK_DIM_* (neither dim_value nor dim_param: UNKNOWN) */
    int64_t value; /* dim_value when kind == OK_DIM_VALUE */
    ok_span param; /* dim_param when kind == OK_DIM_PARAM */
} ok_dim;

/* A graph input or output. */
typedef struct ok_value_info {
    uint32_t graph;
    int is_output;
    ok_span name;
    int32_t elem_type;  /* TypeProto.tensor_type.elem_type; 0 if not a tensor */
    int has_shape;      /* tensor_type.shape present: dims below are the rank */
    uint32_t dim_first; /* into ok_model.vdims */
    uint32_t ndims;
} ok_value_info;

typedef struct ok_initializer {
    uint32_t graph; /* index of the declaring graph */
    ok_span name;
    int32_t data_type;
    uint32_t dim_first; /* into ok_model.dims */
    uint32_t ndims;
    uint64_t bytes;      /* logical byte size (see rules above) */
    int has_raw;         /* raw_data present: raw is its payload */
    ok_span raw;         /* into buf: the one-shot reader only ({0,0} when streamed) */
    uint64_t raw_offset; /* raw_data payload as a byte range of the model */
    uint64_t raw_length;
    int is_external; /* data_location == EXTERNAL */
    ok_span ext_location;
    uint64_t ext_offset;
    uint64_t ext_length; /* 0 = to the end of the file */
    uint32_t ref_graphs; /* distinct graphs whose nodes resolve to it */
} ok_initializer;

typedef struct ok_graph {
    char *path; /* NUL-terminated, owned; path_len excludes the NUL (a node
                   name with a NUL byte makes strlen(path) shorter) */
    size_t path_len;
    uint32_t parent; /* OK_ONNX_NONE for main */
    uint32_t depth;
    ok_span name;
    uint64_t nodes;
    uint32_t init_first; /* this graph's initializers: contiguous */
    uint32_t init_count;
    uint64_t init_bytes;
    uint32_t sparse_count;
    uint32_t value_first; /* inputs then outputs: contiguous in ok_model.values */
    uint32_t value_count;
} ok_graph;

typedef struct ok_opset {
    ok_span domain; /* as written ("" and "ai.onnx" both mean the default) */
    int64_t version;
} ok_opset;

typedef struct ok_kv {
    ok_span key;
    ok_span value;
} ok_kv;

/* An (initializer, graph) pair: nodes of `graph` use `init`. Only pairs of
 * shared initializers are kept, sorted by init then graph. */
typedef struct ok_shared_ref {
    uint32_t init;
    uint32_t graph;
} ok_shared_ref;

typedef struct ok_model {
    const uint8_t *buf; /* what spans index: the caller's buffer (borrowed), or
                           owned_buf */
    size_t len;         /* model bytes (SIZE_MAX when more) */
    uint8_t *owned_buf; /* streamed models: the string arena; else NULL */
    uint64_t total_len; /* model bytes, 64-bit */
    int64_t ir_version;
    int64_t model_version;
    ok_span producer_name, producer_version, domain;
    ok_opset *opsets; /* in file order, duplicates as written */
    uint32_t n_opsets;
    ok_kv *metadata; /* in file order */
    uint32_t n_metadata;
    ok_graph *graphs; /* pre-order; graphs[0] is main */
    uint32_t n_graphs;
    ok_initializer *inits; /* grouped by graph, in graph order */
    uint32_t n_inits;
    int64_t *dims;
    uint32_t n_dims;
    ok_value_info *values;
    uint32_t n_values;
    ok_dim *vdims;
    uint32_t n_vdims;
    ok_shared_ref *shared;
    uint32_t n_shared;
    uint64_t total_nodes;
    uint64_t n_if, n_loop, n_scan;
} ok_model;

void ok_model_free(ok_model *m);

/* Logical byte size of a tensor with n elements of data_type; *out. Returns
 * OK_ERR_LIMIT past 2^63-1. */
int ok_onnx_tensor_bytes(int32_t data_type, uint64_t n, uint64_t *out);

/* Bits per element of an ONNX data type (4 for INT4...; 0 for STRING and
 * unknown). */
unsigned ok_onnx_dtype_bits(int32_t data_type);

/* Counts of the whole model, as the JSON report's "totals". */
typedef struct ok_totals {
    uint64_t graphs, nodes, initializers, initializer_bytes;
    uint64_t subgraph_initializers, subgraph_initializer_bytes;
} ok_totals;
void ok_model_totals(const ok_model *m, ok_totals *t);

/* Cheap early check of the first bytes of a download: could they begin an
 * ONNX ModelProto? 0 = certainly not (an HTML page, JSON, text: every
 * top-level field must be a ModelProto field with its wire type), 1 =
 * maybe. The reader decides for good once the whole file is there. */
int ok_onnx_prefix_plausible(const uint8_t *p, size_t n);

#endif
