/* The streaming ONNX reader's parts (onnx_stream*.c), private: its state and
 * what the parts call in each other. Functions shared between the parts are
 * prefixed ok_osr_ ("ONNX stream reader"); none is part of the API. */
#ifndef ORTKEEP_ONNX_STREAM_INTERNAL_H
#define ORTKEEP_ONNX_STREAM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "onnx_rules.h"
#include "onnx_stream.h"
#include "pb_wire.h"

enum { /* frame kinds */
       K_MODEL,
       K_LEAF,
       K_GRAPH,
       K_NODE,
       K_ATTR,
       K_TENSOR,
       K_PACKED,
       K_KV,
       K_OPSET,
       K_SPARSE,
       K_SVALS,
       K_VINFO,
       K_TYPE,
       K_TTYPE,
       K_SHAPE,
       K_DIM
};

enum { ST_TAG, ST_VAL, ST_LEN, ST_SKIP, ST_CAP };

/* An error held until its scope decides (see ok_osr_serr). */
typedef struct eslot {
    int code; /* 0: none */
    uint64_t off;
    char msg[192];
} eslot;

typedef struct frame {
    uint8_t kind;
    uint32_t number; /* field number in the parent */
    uint64_t start;  /* payload offset */
    uint64_t end;    /* one past the payload */
    uint64_t lenpos; /* where the length varint began */
    uint64_t len;
    uint32_t sid;         /* GRAPH/NODE/ATTR: the stream graph it belongs to */
    uint64_t index;       /* NODE: index in its graph */
    uint32_t first_child; /* NODE/ATTR: first stream graph started inside */
    uint64_t attr_seq;    /* ATTR */
    int64_t list_next;    /* ATTR: next AttributeProto.graphs index */
    uint32_t last_g;      /* ATTR: the live AttributeProto.g, or NONE */
    ok_span a, b, c;      /* NODE: name, op_type, domain; ATTR: name */
    /* Errors, in the one-shot reader's order of checks:
     *   GRAPH  e[0] its own fields (final for the graph), e[1] the first of
     *          its nodes' attributes (subgraphs);
     *   NODE   e[1] the first of its attributes;
     *   ATTR   e[0] its own fields, e[1] its (last) g, e[2] the first of its
     *          graphs;
     *   a top-level field (depth 1, not the graph): e[0]. */
    eslot e[3];
} frame;

typedef struct sgraph {
    uint32_t parent, depth;
    uint64_t node_index, attr_seq;
    int64_t list_idx; /* -1: AttributeProto.g */
    ok_span attr, lname, lop;
    uint64_t off; /* payload offset */
    ok_span name;
    uint64_t nodes, n_if, n_loop, n_scan;
    uint32_t sparse;
    int dead;
} sgraph;

typedef struct sinit {
    ok_initializer t; /* t.graph: stream graph; t.dim_first: into sdims */
    uint64_t off;
} sinit;

struct ok_onnx_stream {
    ok_onnx_limits lim;
    uint64_t heap, peak;
    uint64_t pos;
    int st;
    /* varint in progress */
    int vn;
    uint64_t vstart, v;
    unsigned vshift;
    /* current field */
    uint32_t fnum, fwire;
    uint64_t ftag;
    uint64_t remain;   /* ST_SKIP / ST_CAP */
    int skip_fixed;    /* ST_SKIP is a top-level fixed32/64 value */
    uint64_t fixed_at; /* its value offset */
    uint32_t cap_kind, cap_num;
    ok_span cap;
    int leaf_fresh;
    /* open messages: fr[0] is ModelProto; grown on demand (most models
     * need ~10 frames) up to OK_ONNX_STREAM_MAX_FRAMES */
    frame *fr;
    uint32_t depth, fr_cap;
    /* the error of the last ModelProto.graph, final at the end */
    eslot gerr;
    /* a final error */
    int failed;
    uint64_t fail_off;
    char fail_msg[192];
    int ended;
    /* strings */
    uint8_t *arena;
    size_t alen, acap;
    /* model-level */
    int64_t ir_version, model_version;
    ok_span producer_name, producer_version, domain;
    ok_opset *opsets;
    uint32_t n_opsets, cap_opsets;
    ok_kv *meta;
    uint32_t n_meta, cap_meta;
    uint32_t main_sid;
    int has_graph;
    /* records */
    sgraph *g;
    uint32_t n_g, cap_g;
    sinit *in;
    uint32_t n_in, cap_in;
    int64_t *dims;
    uint32_t n_dims, cap_dims;
    ok_value_info *vals;
    uint32_t n_vals, cap_vals;
    ok_dim *vdims;
    uint32_t n_vdims, cap_vdims;
    ok_onnx_def *defs;
    uint32_t n_defs, cap_defs;
    ok_onnx_ref *refs;
    uint32_t n_refs, cap_refs;
    uint64_t attr_seq;
    /* the message being read where they do not nest */
    sinit ct;
    ok_span loc, eoff, elen;
    int has_eoff, has_elen;
    uint64_t location;
    ok_span kv_k, kv_v;
    ok_opset co;
    ok_span sp_name;
    ok_value_info cv;
    ok_dim cd;
};

#define MAX_ENTRIES (1u << 28)

/* ---- heap, counted (onnx_stream.c) --------------------------------------- */

/* Resizes *p from old to n bytes within lim.max_heap: OK_OK, OK_ERR_LIMIT or
 * OK_ERR_NOMEM (then *p is unchanged). */
int ok_osr_s_realloc(ok_onnx_stream *s, void **p, size_t old, size_t n);

static inline void s_free(ok_onnx_stream *s, void *p, size_t n) {
    free(p);
    s->heap -= n;
}

/* ---- errors (onnx_stream.c) ---------------------------------------------- */

/* A final error: sticky. */
int ok_osr_sfatal(ok_onnx_stream *s, int code, uint64_t off, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* A heap error (rc from ok_osr_s_realloc) as the final error. */
int ok_osr_heap_fail(ok_onnx_stream *s, int rc);

/* An error of the wire or the rules. At the top level it is final (returns
 * the code). Inside a message it belongs to the innermost scope that the
 * one-shot reader checks as a unit: a graph's own fields (the graph's nodes,
 * initializers, inputs...), an attribute's own fields, or a top-level field.
 * The scope stops there: its rest is skipped by counting, its error held,
 * and passed outward when the scope ends (ok_osr_close_frame), where the one-shot
 * order decides which error counts. Returns PENDED: stop handling this
 * field, go on reading. */
#define PENDED (-1)
int ok_osr_serr(ok_onnx_stream *s, int code, uint64_t off, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* ---- messages (onnx_stream_frames.c) ------------------------------------- */

static inline const ok_pb_msg *msg_of(int kind) {
    switch (kind) {
    case K_GRAPH: return &ok_onnx_msg_graph;
    case K_NODE: return &ok_onnx_msg_node;
    case K_ATTR: return &ok_onnx_msg_attr;
    case K_TENSOR:
    case K_SVALS: return &ok_onnx_msg_tensor;
    case K_KV: return &ok_onnx_msg_kv;
    case K_OPSET: return &ok_onnx_msg_opset;
    case K_SPARSE: return &ok_onnx_msg_sparse;
    case K_VINFO: return &ok_onnx_msg_vinfo;
    case K_TYPE: return &ok_onnx_msg_type;
    case K_TTYPE: return &ok_onnx_msg_ttype;
    case K_SHAPE: return &ok_onnx_msg_shape;
    case K_DIM: return &ok_onnx_msg_dim;
    default: return &ok_onnx_msg_model;
    }
}

/* The message a field being read belongs to: a fresh top-level leaf frame
 * stands for a field of ModelProto. */
static inline int container(const ok_onnx_stream *s) {
    int k = s->fr[s->depth].kind;
    return k == K_LEAF ? K_MODEL : k;
}

static inline ok_span empty_span(void) {
    ok_span e = {0, 0};
    return e;
}

/* A bad wire type for the field being read (ok_osr_serr), else OK_OK. */
int ok_osr_expect(ok_onnx_stream *s, uint32_t wire);
/* Appends a dim of the initializer being read. */
int ok_osr_push_dim(ok_onnx_stream *s, uint64_t v);

/* Opens a message of this kind for the LEN field being read. */
frame *ok_osr_descend(ok_onnx_stream *s, int kind);
/* A new stream graph: ModelProto.graph (parent NONE) or a graph-valued
 * attribute's (list_idx -1 for AttributeProto.g). */
int ok_osr_start_graph(ok_onnx_stream *s, uint32_t parent, int64_t list_idx, const frame *attr);
/* A LEN field's payload: copy it into the arena, then ok_osr_on_string(). */
int ok_osr_capture(ok_onnx_stream *s);
/* A captured string is complete (s->cap): record it where it belongs. */
int ok_osr_on_string(ok_onnx_stream *s);
/* The frame on top ends (pos == its end). */
int ok_osr_close_frame(ok_onnx_stream *s);

/* ---- fields (onnx_stream_fields.c) --------------------------------------- */

int ok_osr_on_scalar(ok_onnx_stream *s);
/* A LEN field whose length (s->remain) fits its message: descend into it,
 * capture it or (by default) skip it. */
int ok_osr_on_len(ok_onnx_stream *s);

/* ---- the walk and the end (onnx_stream_walk.c, onnx_stream_finish.c) ----- */

/* Reads p[0, n) on from where the stream stands. */
int ok_osr_feed(ok_onnx_stream *s, const uint8_t *p, size_t n);
/* The whole model was read without error: builds it in the one-shot
 * reader's order into *out (the arena goes to the model). */
int ok_osr_finish(ok_onnx_stream *s, ok_model **out);

#endif
