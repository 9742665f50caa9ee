/* Streaming ONNX reader; see onnx_stream.h for the contract.
 *
 * Shape: a push parser over the protobuf wire format. The position is a
 * 64-bit byte offset; the state is a varint being read (tag, value or length,
 * resumable at any byte), or a count of bytes to skip or to copy into the
 * arena, plus a fixed stack of open messages (frames), each with its known
 * end. A top-level field is a frame too, so that a model cut inside it is
 * reported at its length, as ok_onnx_read() does.
 *
 * While reading, everything is recorded in byte order against "stream
 * graphs" (one per graph message seen, in the order they start). The
 * one-shot reader's order (graphs in pre-order, each graph's initializers
 * and values contiguous, only the last ModelProto.graph and the last
 * AttributeProto.g counting) is rebuilt once at the end, when the whole tree
 * is known: paths need node names and attribute names that may follow the
 * graphs on the wire.
 *
 * Errors inside a message are held in the scope the one-shot reader checks
 * as a unit (serr), the rest of that scope is skipped by counting, and
 * close_frame passes them outward in the one-shot reader's order: a
 * top-level field's error is final when the field is complete, the last
 * ModelProto.graph's at the end. */
#include "onnx_stream.h"

#include <stdarg.h>
#include <stdio.h> /* vsnprintf only: formatting, no I/O */
#include <stdlib.h>
#include <string.h>

#include "onnx_reader_internal.h"
#include "pb_wire.h"

enum { /* frame kinds */
    K_MODEL, K_LEAF, K_GRAPH, K_NODE, K_ATTR, K_TENSOR, K_PACKED, K_KV,
    K_OPSET, K_SPARSE, K_SVALS, K_VINFO, K_TYPE, K_TTYPE, K_SHAPE, K_DIM
};

enum { ST_TAG, ST_VAL, ST_LEN, ST_SKIP, ST_CAP };

/* An error held until its scope decides (see serr). */
typedef struct eslot {
    int code; /* 0: none */
    uint64_t off;
    char msg[192];
} eslot;

typedef struct frame {
    uint8_t kind;
    uint32_t number;  /* field number in the parent */
    uint64_t start;   /* payload offset */
    uint64_t end;     /* one past the payload */
    uint64_t lenpos;  /* where the length varint began */
    uint64_t len;
    uint32_t sid;     /* GRAPH/NODE/ATTR: the stream graph it belongs to */
    uint64_t index;   /* NODE: index in its graph */
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

/* ---- heap, counted ------------------------------------------------------ */

static int s_realloc(ok_onnx_stream *s, void **p, size_t old, size_t n) {
    void *q;
    if (n > old && s->heap + (n - old) > s->lim.max_heap) return OK_ERR_LIMIT;
    q = realloc(*p, n ? n : 1);
    if (!q) return OK_ERR_NOMEM;
    *p = q;
    s->heap = s->heap + n - old;
    if (s->heap > s->peak) s->peak = s->heap;
    return OK_OK;
}

static void s_free(ok_onnx_stream *s, void *p, size_t n) {
    free(p);
    s->heap -= n;
}

/* ---- errors ------------------------------------------------------------- */

static void vformat(char *out, const char *fmt, va_list ap) {
    vsnprintf(out, 192, fmt, ap);
}

/* A final error: sticky. */
static int sfatal(ok_onnx_stream *s, int code, uint64_t off, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static int sfatal(ok_onnx_stream *s, int code, uint64_t off, const char *fmt, ...) {
    va_list ap;
    if (s->failed) return s->failed;
    va_start(ap, fmt);
    vformat(s->fail_msg, fmt, ap);
    va_end(ap);
    s->failed = code;
    s->fail_off = off;
    return code;
}

static int heap_fail(ok_onnx_stream *s, int rc) {
    if (rc == OK_ERR_LIMIT)
        return sfatal(s, rc, s->pos, "limit at byte %llu: reading needs more than %llu bytes of heap",
                      (unsigned long long)s->pos, (unsigned long long)s->lim.max_heap);
    return sfatal(s, OK_ERR_NOMEM, s->pos, "out of memory");
}

/* An error of the wire or the rules. At the top level it is final (returns
 * the code). Inside a message it belongs to the innermost scope that the
 * one-shot reader checks as a unit: a graph's own fields (the graph's nodes,
 * initializers, inputs...), an attribute's own fields, or a top-level field.
 * The scope stops there: its rest is skipped by counting, its error held,
 * and passed outward when the scope ends (close_frame), where the one-shot
 * order decides which error counts. Returns PENDED: stop handling this
 * field, go on reading. */
#define PENDED (-1)
static int serr(ok_onnx_stream *s, int code, uint64_t off, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static int serr(ok_onnx_stream *s, int code, uint64_t off, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    if (s->depth == 0) {
        if (!s->failed) {
            vformat(s->fail_msg, fmt, ap);
            s->failed = code;
            s->fail_off = off;
        }
        va_end(ap);
        return s->failed;
    }
    {
        uint32_t k = s->depth;
        while (k > 1 && s->fr[k].kind != K_GRAPH && s->fr[k].kind != K_ATTR) k--;
        vformat(s->fr[k].e[0].msg, fmt, ap);
        s->fr[k].e[0].code = code;
        s->fr[k].e[0].off = off;
        s->depth = k;
    }
    va_end(ap);
    s->vn = 0;
    s->remain = s->fr[s->depth].end - s->pos;
    s->skip_fixed = 0;
    s->st = s->remain ? ST_SKIP : ST_TAG;
    s->cap_kind = 0;
    return PENDED;
}

static const ok_pb_msg *msg_of(int kind) {
    switch (kind) {
    case K_GRAPH: return &ok_onnx_msg_graph;
    case K_NODE: return &ok_onnx_msg_node;
    case K_ATTR: return &ok_onnx_msg_attr;
    case K_TENSOR: case K_SVALS: return &ok_onnx_msg_tensor;
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
static int container(const ok_onnx_stream *s) {
    int k = s->fr[s->depth].kind;
    return k == K_LEAF ? K_MODEL : k;
}

static int expect(ok_onnx_stream *s, uint32_t wire) {
    char fname[96];
    if (s->fwire == wire) return OK_OK;
    ok_pb_field_name(msg_of(container(s)), s->fnum, fname, sizeof fname);
    return serr(s, OK_ERR_BAD_WIRE_TYPE, s->ftag, "bad wire type %u at byte %llu: %s expects %u",
                (unsigned)s->fwire, (unsigned long long)s->ftag, fname, (unsigned)wire);
}

/* ---- records ------------------------------------------------------------ */

static int grow(ok_onnx_stream *s, void **arr, uint32_t *cap, uint32_t n, size_t elsz) {
    uint32_t ncap;
    int rc;
    if (n < *cap) return OK_OK;
    if (n >= MAX_ENTRIES)
        return sfatal(s, OK_ERR_LIMIT, s->pos, "limit: more than %u entries in one list",
                      (unsigned)MAX_ENTRIES);
    ncap = *cap ? *cap * 2 : 16;
    if ((uint64_t)ncap * elsz > (uint64_t)SIZE_MAX) return heap_fail(s, OK_ERR_NOMEM);
    rc = s_realloc(s, arr, (size_t)*cap * elsz, (size_t)ncap * elsz);
    if (rc) return heap_fail(s, rc);
    *cap = ncap;
    return OK_OK;
}
#define GROW(s, arr, n, cap) grow((s), (void **)&(arr), &(cap), (n), sizeof *(arr))

static int push_def(ok_onnx_stream *s, uint32_t sid, uint32_t init, ok_span name) {
    int rc = GROW(s, s->defs, s->n_defs, s->cap_defs);
    if (rc) return rc;
    s->defs[s->n_defs].graph = sid;
    s->defs[s->n_defs].init = init;
    s->defs[s->n_defs].name = name;
    s->n_defs++;
    return OK_OK;
}

static int push_dim(ok_onnx_stream *s, uint64_t v) {
    int rc = GROW(s, s->dims, s->n_dims, s->cap_dims);
    if (rc) return rc;
    s->dims[s->n_dims++] = (int64_t)v;
    return OK_OK;
}

static int span_eq(const ok_onnx_stream *s, ok_span a, const char *lit) {
    size_t n = strlen(lit);
    return a.len == n && memcmp(s->arena + a.off, lit, n) == 0;
}

static ok_span empty_span(void) {
    ok_span e = {0, 0};
    return e;
}

/* ---- frames ------------------------------------------------------------- */

/* Opens a message for the LEN field being read: turns the fresh top-level
 * frame into it, or pushes a new one. */
static frame *descend(ok_onnx_stream *s, int kind) {
    frame *f;
    if (s->leaf_fresh) {
        f = &s->fr[s->depth];
        s->leaf_fresh = 0;
    } else {
        f = &s->fr[++s->depth]; /* depth is bounded by the rules (see .h) */
        f->number = s->fnum;
        f->start = s->pos;
        f->end = s->pos + s->remain;
        f->lenpos = s->vstart;
        f->len = s->remain;
    }
    f->kind = (uint8_t)kind;
    f->e[0].code = f->e[1].code = f->e[2].code = 0;
    s->remain = 0; /* not skipped: read */
    return f;
}

static int start_graph(ok_onnx_stream *s, uint32_t parent, int64_t list_idx, const frame *attr) {
    int rc = GROW(s, s->g, s->n_g, s->cap_g);
    sgraph *g;
    frame *f;
    uint32_t sid = s->n_g;
    if (rc) return rc;
    g = &s->g[s->n_g++];
    memset(g, 0, sizeof *g);
    g->parent = parent;
    g->depth = parent == OK_ONNX_NONE ? 0 : s->g[parent].depth + 1;
    g->node_index = attr ? s->fr[s->depth - 1].index : 0;
    g->attr_seq = attr ? attr->attr_seq : 0;
    g->list_idx = list_idx;
    g->off = s->pos;
    g->name = empty_span();
    f = descend(s, K_GRAPH);
    f->sid = sid;
    memset(f->e, 0, sizeof f->e);
    return OK_OK;
}

/* A LEN field's payload: copy it into the arena, then on_string(). */
static int capture(ok_onnx_stream *s) {
    uint64_t n = s->remain;
    int rc;
    /* Pending like a wire error: a field cut short is TRUNCATED first. */
    if (n > s->lim.max_string)
        return serr(s, OK_ERR_LIMIT, s->vstart,
                      "limit at byte %llu: a string of %llu bytes (more than %llu)",
                      (unsigned long long)s->vstart, (unsigned long long)n,
                      (unsigned long long)s->lim.max_string);
    if (s->acap - s->alen < n) {
        size_t ncap = s->acap ? s->acap : 4096;
        while (ncap - s->alen < n) {
            if (ncap > SIZE_MAX / 2) return heap_fail(s, OK_ERR_LIMIT);
            ncap *= 2;
        }
        if ((rc = s_realloc(s, (void **)&s->arena, s->acap, ncap))) return heap_fail(s, rc);
        s->acap = ncap;
    }
    s->cap_kind = (uint32_t)container(s);
    s->cap_num = s->fnum;
    s->cap.off = s->alen;
    s->cap.len = (size_t)n;
    s->st = ST_CAP;
    return OK_OK;
}

static int on_string(ok_onnx_stream *s) {
    ok_span v = s->cap;
    frame *f = &s->fr[s->depth];
    int rc;
    switch (s->cap_kind) {
    case K_MODEL:
        if (s->cap_num == 2) s->producer_name = v;
        else if (s->cap_num == 3) s->producer_version = v;
        else s->domain = v;
        break;
    case K_OPSET: s->co.domain = v; break;
    case K_KV:
        if (s->cap_num == 1) s->kv_k = v;
        else s->kv_v = v;
        break;
    case K_GRAPH: s->g[f->sid].name = v; break;
    case K_NODE:
        switch (s->cap_num) {
        case 1:
            if ((rc = GROW(s, s->refs, s->n_refs, s->cap_refs))) return rc;
            s->refs[s->n_refs].graph = f->sid;
            s->refs[s->n_refs].name = v;
            s->n_refs++;
            break;
        case 2: return push_def(s, f->sid, OK_ONNX_NONE, v);
        case 3: f->a = v; break;
        case 4: f->b = v; break;
        default: f->c = v; break;
        }
        break;
    case K_ATTR: f->a = v; break;
    case K_TENSOR: s->ct.t.name = v; break;
    case K_SVALS: s->sp_name = v; break;
    case K_VINFO: s->cv.name = v; break;
    case K_DIM:
        s->cd.kind = OK_DIM_PARAM;
        s->cd.param = v;
        break;
    default: break;
    }
    return OK_OK;
}

static int close_tensor(ok_onnx_stream *s, uint32_t sid) {
    sinit *c = &s->ct;
    ok_initializer *t = &c->t;
    uint64_t n = 1, off = c->off;
    int zero = 0, rc;
    t->graph = sid;
    t->ndims = s->n_dims - t->dim_first;
    for (uint32_t i = 0; i < t->ndims; i++) {
        int64_t d = s->dims[t->dim_first + i];
        if (d < 0)
            return serr(s, OK_ERR_LIMIT, off, "limit at byte %llu: initializer dim %lld is negative",
                        (unsigned long long)off, (long long)d);
        if (d == 0) zero = 1;
    }
    for (uint32_t i = 0; !zero && i < t->ndims; i++) {
        uint64_t d = (uint64_t)s->dims[t->dim_first + i];
        if (n > (uint64_t)INT64_MAX / d)
            return serr(s, OK_ERR_LIMIT, off,
                        "limit at byte %llu: initializer element count overflows",
                        (unsigned long long)off);
        n *= d;
    }
    if (zero) n = 0;
    if (ok_onnx_tensor_bytes(t->data_type, n, &t->bytes))
        return serr(s, OK_ERR_LIMIT, off, "limit at byte %llu: initializer byte size overflows",
                    (unsigned long long)off);
    if (s->location == 1) {
        t->is_external = 1;
        t->ext_location = s->loc;
        if ((s->has_eoff &&
             !ok_onnx_parse_decimal(s->arena + s->eoff.off, s->eoff.len, &t->ext_offset)) ||
            (s->has_elen &&
             !ok_onnx_parse_decimal(s->arena + s->elen.off, s->elen.len, &t->ext_length)))
            return serr(s, OK_ERR_CORRUPT, off,
                        "corrupt at byte %llu: external_data offset/length is not a decimal",
                        (unsigned long long)off);
    }
    if ((rc = GROW(s, s->in, s->n_in, s->cap_in))) return rc;
    s->in[s->n_in] = *c;
    if ((rc = push_def(s, sid, s->n_in, t->name))) return rc;
    s->n_in++;
    return OK_OK;
}

/* The frame on top ends (pos == its end). */
static int close_frame(ok_onnx_stream *s) {
    frame *fp = &s->fr[s->depth], *up;
    int rc;
#define f (*fp)
    /* Pass errors outward (the popped frame stays readable until the next
     * push). */
    s->depth--;
    up = &s->fr[s->depth];
    if (s->depth == 0) {
        if (f.kind == K_GRAPH) { /* final at the end, if still the graph */
            s->gerr = f.e[0].code ? f.e[0] : f.e[1];
        } else if (f.e[0].code) {
            s->failed = f.e[0].code;
            s->fail_off = f.e[0].off;
            memcpy(s->fail_msg, f.e[0].msg, sizeof s->fail_msg);
            return s->failed;
        }
    } else if (f.kind == K_GRAPH) {
        const eslot *e = f.e[0].code ? &f.e[0] : &f.e[1];
        if (s->g[f.sid].list_idx < 0) up->e[1] = *e; /* the last g: replaces */
        else if (e->code && !up->e[2].code) up->e[2] = *e;
    } else if (f.kind == K_ATTR) {
        const eslot *e = f.e[0].code ? &f.e[0] : f.e[1].code ? &f.e[1] : &f.e[2];
        if (e->code && !up->e[1].code) up->e[1] = *e;
    } else if (f.kind == K_NODE) {
        if (f.e[1].code && !up->e[1].code) up->e[1] = f.e[1];
    }
    switch (f.kind) {
    case K_NODE: {
        sgraph *g = &s->g[f.sid];
        if (f.c.len == 0 || span_eq(s, f.c, "ai.onnx")) {
            if (span_eq(s, f.b, "If")) g->n_if++;
            else if (span_eq(s, f.b, "Loop")) g->n_loop++;
            else if (span_eq(s, f.b, "Scan")) g->n_scan++;
        }
        for (uint32_t i = f.first_child; i < s->n_g; i++)
            if (s->g[i].parent == f.sid) {
                s->g[i].lname = f.a;
                s->g[i].lop = f.b;
            }
        return OK_OK;
    }
    case K_ATTR: {
        uint32_t gi = s->fr[s->depth].sid;
        for (uint32_t i = f.first_child; i < s->n_g; i++)
            if (s->g[i].parent == gi) s->g[i].attr = f.a;
        return OK_OK;
    }
    case K_TENSOR: return close_tensor(s, s->fr[s->depth].sid);
    case K_KV:
        if (s->fr[s->depth].kind == K_TENSOR) {
            if (span_eq(s, s->kv_k, "location")) s->loc = s->kv_v;
            else if (span_eq(s, s->kv_k, "offset")) s->eoff = s->kv_v, s->has_eoff = 1;
            else if (span_eq(s, s->kv_k, "length")) s->elen = s->kv_v, s->has_elen = 1;
            return OK_OK;
        }
        if ((rc = GROW(s, s->meta, s->n_meta, s->cap_meta))) return rc;
        s->meta[s->n_meta].key = s->kv_k;
        s->meta[s->n_meta].value = s->kv_v;
        s->n_meta++;
        return OK_OK;
    case K_OPSET:
        if ((rc = GROW(s, s->opsets, s->n_opsets, s->cap_opsets))) return rc;
        s->opsets[s->n_opsets++] = s->co;
        return OK_OK;
    case K_SPARSE: {
        uint32_t sid = s->fr[s->depth].sid;
        s->g[sid].sparse++;
        return push_def(s, sid, OK_ONNX_NONE, s->sp_name);
    }
    case K_VINFO: {
        uint32_t sid = s->fr[s->depth].sid;
        if (!s->cv.is_output && (rc = push_def(s, sid, OK_ONNX_NONE, s->cv.name))) return rc;
        if ((rc = GROW(s, s->vals, s->n_vals, s->cap_vals))) return rc;
        s->vals[s->n_vals++] = s->cv;
        return OK_OK;
    }
    case K_DIM:
        if ((rc = GROW(s, s->vdims, s->n_vdims, s->cap_vdims))) return rc;
        s->vdims[s->n_vdims++] = s->cd;
        s->cv.ndims++;
        return OK_OK;
    default:
        return OK_OK;
    }
#undef f
}

/* ---- fields ------------------------------------------------------------- */

/* A VARINT field (value in s->v) or a fixed one (consumed). */
static int on_scalar(ok_onnx_stream *s) {
    int k = container(s), rc;
    uint64_t v = s->v;
#define EXPECT_(w)                          \
    do {                                    \
        if ((rc = expect(s, (w)))) return rc; \
    } while (0)
    switch (k) {
    case K_MODEL:
        switch (s->fnum) {
        case 1: EXPECT_(OK_PB_VARINT); s->ir_version = (int64_t)v; break;
        case 5: EXPECT_(OK_PB_VARINT); s->model_version = (int64_t)v; break;
        case 2: case 3: case 4: case 6: case 7: case 8: case 14: EXPECT_(OK_PB_LEN); break;
        default: break;
        }
        break;
    case K_OPSET:
        if (s->fnum == 1) EXPECT_(OK_PB_LEN);
        else if (s->fnum == 2) { EXPECT_(OK_PB_VARINT); s->co.version = (int64_t)v; }
        break;
    case K_KV:
        if (s->fnum == 1 || s->fnum == 2) EXPECT_(OK_PB_LEN);
        break;
    case K_GRAPH:
        switch (s->fnum) {
        case 1: case 2: case 5: case 10: case 11: case 12: case 13: case 15: EXPECT_(OK_PB_LEN); break;
        default: break;
        }
        break;
    case K_NODE:
        if (s->fnum >= 1 && s->fnum <= 7) EXPECT_(OK_PB_LEN);
        break;
    case K_ATTR:
        if (s->fnum == 1 || s->fnum == 6 || s->fnum == 11) EXPECT_(OK_PB_LEN);
        break;
    case K_TENSOR:
        switch (s->fnum) {
        case 1:
            if (s->fwire == OK_PB_VARINT) return push_dim(s, v);
            EXPECT_(OK_PB_LEN);
            break;
        case 2: EXPECT_(OK_PB_VARINT); s->ct.t.data_type = (int32_t)v; break;
        case 8: case 9: case 13: EXPECT_(OK_PB_LEN); break;
        case 14: EXPECT_(OK_PB_VARINT); s->location = v; break;
        default: break;
        }
        break;
    case K_SPARSE:
        if (s->fnum == 1) EXPECT_(OK_PB_LEN);
        break;
    case K_SVALS:
        if (s->fnum == 8) EXPECT_(OK_PB_LEN);
        break;
    case K_VINFO:
        if (s->fnum == 1 || s->fnum == 2) EXPECT_(OK_PB_LEN);
        break;
    case K_TYPE:
        if (s->fnum == 1) EXPECT_(OK_PB_LEN);
        else if (s->fnum == 4 || s->fnum == 5 || s->fnum == 8 || s->fnum == 9) goto reset_type;
        break;
    case K_TTYPE:
        if (s->fnum == 1) { EXPECT_(OK_PB_VARINT); s->cv.elem_type = (int32_t)v; }
        else if (s->fnum == 2) EXPECT_(OK_PB_LEN);
        break;
    case K_SHAPE:
        if (s->fnum == 1) EXPECT_(OK_PB_LEN);
        break;
    case K_DIM:
        if (s->fnum == 1) {
            EXPECT_(OK_PB_VARINT);
            s->cd.kind = OK_DIM_VALUE;
            s->cd.value = (int64_t)v;
        } else if (s->fnum == 2) {
            EXPECT_(OK_PB_LEN);
        }
        break;
    default: break;
    }
    return OK_OK;
reset_type: /* another member of the TypeProto oneof replaces tensor_type */
    s->cv.elem_type = 0;
    s->cv.has_shape = 0;
    s->cv.ndims = 0;
    s->n_vdims = s->cv.dim_first;
    return OK_OK;
}

/* A LEN field whose length (s->remain) fits its message: descend into it,
 * capture it or (by default) skip it. */
static int on_len(ok_onnx_stream *s) {
    int k = container(s), rc;
    frame *f = &s->fr[s->depth], *nf;
    switch (k) {
    case K_MODEL:
        switch (s->fnum) {
        case 1: case 5: return expect(s, OK_PB_VARINT);
        case 2: case 3: case 4: return capture(s);
        case 7:
            s->has_graph = 1;
            s->gerr.code = 0;
            s->main_sid = s->n_g;
            return start_graph(s, OK_ONNX_NONE, -1, NULL);
        case 8:
            memset(&s->co, 0, sizeof s->co);
            descend(s, K_OPSET);
            return OK_OK;
        case 14:
            s->kv_k = s->kv_v = empty_span();
            descend(s, K_KV);
            return OK_OK;
        default: return OK_OK;
        }
    case K_OPSET:
        if (s->fnum == 1) return capture(s);
        if (s->fnum == 2) return expect(s, OK_PB_VARINT);
        return OK_OK;
    case K_KV:
        return s->fnum == 1 || s->fnum == 2 ? capture(s) : OK_OK;
    case K_GRAPH: {
        sgraph *g = &s->g[f->sid];
        switch (s->fnum) {
        case 1: {
            uint64_t idx = g->nodes++;
            nf = descend(s, K_NODE);
            nf->sid = f->sid;
            nf->index = idx;
            nf->first_child = s->n_g;
            nf->a = nf->b = nf->c = empty_span();
            return OK_OK;
        }
        case 2: return capture(s);
        case 5:
            memset(&s->ct, 0, sizeof s->ct);
            s->ct.t.dim_first = s->n_dims;
            s->ct.off = s->pos;
            s->loc = s->eoff = s->elen = empty_span();
            s->has_eoff = s->has_elen = 0;
            s->location = 0;
            descend(s, K_TENSOR)->sid = f->sid;
            return OK_OK;
        case 15:
            s->sp_name = empty_span();
            descend(s, K_SPARSE)->sid = f->sid;
            return OK_OK;
        case 11: case 12:
            memset(&s->cv, 0, sizeof s->cv);
            s->cv.graph = f->sid;
            s->cv.is_output = s->fnum == 12;
            s->cv.dim_first = s->n_vdims;
            descend(s, K_VINFO)->sid = f->sid;
            return OK_OK;
        default: return OK_OK;
        }
    }
    case K_NODE:
        switch (s->fnum) {
        case 1: case 2: return s->remain ? capture(s) : OK_OK;
        case 3: case 4: case 7: return capture(s);
        case 5: {
            uint32_t sid = f->sid;
            nf = descend(s, K_ATTR);
            nf->sid = sid;
            nf->first_child = s->n_g;
            nf->attr_seq = s->attr_seq++;
            nf->list_next = 0;
            nf->last_g = OK_ONNX_NONE;
            nf->a = empty_span();
            return OK_OK;
        }
        default: return OK_OK;
        }
    case K_ATTR:
        if (s->fnum == 1) return capture(s);
        if (s->fnum == 6 || s->fnum == 11) {
            frame attr = *f;
            int64_t idx = -1;
            if (s->g[f->sid].depth + 1 > OK_ONNX_MAX_GRAPH_DEPTH) {
                /* The subgraph's own error; it is skipped, not read. */
                eslot *e = &f->e[2];
                if (s->fnum == 6) {
                    if (f->last_g != OK_ONNX_NONE) s->g[f->last_g].dead = 1;
                    f->last_g = OK_ONNX_NONE;
                    e = &f->e[1];
                } else {
                    f->list_next++;
                    if (e->code) return OK_OK;
                }
                e->code = OK_ERR_TOO_DEEP;
                e->off = s->pos;
                snprintf(e->msg, sizeof e->msg, "too deep at byte %llu: graph nesting exceeds %d levels",
                         (unsigned long long)s->pos, OK_ONNX_MAX_GRAPH_DEPTH);
                return OK_OK;
            }
            if (s->fnum == 6) { /* the last g counts */
                if (f->last_g != OK_ONNX_NONE) s->g[f->last_g].dead = 1;
                f->last_g = s->n_g;
            } else {
                idx = f->list_next++;
            }
            if ((rc = start_graph(s, attr.sid, idx, &attr))) return rc;
            return OK_OK;
        }
        return OK_OK;
    case K_TENSOR:
        switch (s->fnum) {
        case 1: descend(s, K_PACKED); return OK_OK;
        case 2: case 14: return expect(s, OK_PB_VARINT);
        case 8: return capture(s);
        case 9:
            s->ct.t.has_raw = 1;
            s->ct.t.raw_offset = s->pos;
            s->ct.t.raw_length = s->remain;
            return OK_OK;
        case 13:
            s->kv_k = s->kv_v = empty_span();
            descend(s, K_KV);
            return OK_OK;
        default: return OK_OK;
        }
    case K_SPARSE:
        if (s->fnum == 1) descend(s, K_SVALS);
        return OK_OK;
    case K_SVALS:
        return s->fnum == 8 ? capture(s) : OK_OK;
    case K_VINFO:
        if (s->fnum == 1) return capture(s);
        if (s->fnum == 2) descend(s, K_TYPE);
        return OK_OK;
    case K_TYPE:
        if (s->fnum == 1) descend(s, K_TTYPE);
        else if (s->fnum == 4 || s->fnum == 5 || s->fnum == 8 || s->fnum == 9) return on_scalar(s);
        return OK_OK;
    case K_TTYPE:
        if (s->fnum == 1) return expect(s, OK_PB_VARINT);
        if (s->fnum == 2) {
            s->cv.has_shape = 1;
            descend(s, K_SHAPE);
        }
        return OK_OK;
    case K_SHAPE:
        if (s->fnum == 1) {
            memset(&s->cd, 0, sizeof s->cd);
            descend(s, K_DIM);
        }
        return OK_OK;
    case K_DIM:
        if (s->fnum == 1) return expect(s, OK_PB_VARINT);
        if (s->fnum == 2) return capture(s);
        return OK_OK;
    default:
        return OK_OK;
    }
}

/* ---- the feed loop ------------------------------------------------------ */

static int fname_err(ok_onnx_stream *s, int code, uint64_t off, const char *what,
                     uint64_t a, uint64_t end) {
    char fname[96];
    ok_pb_field_name(msg_of(container(s)), s->fnum, fname, sizeof fname);
    if (what[0] == 'l')
        return serr(s, code, off, "truncated at byte %llu: %s length %llu runs past end %llu",
                    (unsigned long long)off, fname, (unsigned long long)a,
                    (unsigned long long)end);
    return serr(s, code, off, "truncated at byte %llu: %s fixed%u runs past end %llu",
                (unsigned long long)off, fname, (unsigned)a, (unsigned long long)end);
}

/* A complete tag in s->v. */
static int on_tag(ok_onnx_stream *s) {
    uint64_t tag = s->v;
    char fname[96];
    s->ftag = s->vstart;
    if ((tag >> 3) == 0 || (tag >> 3) > 0x1fffffffu)
        return serr(s, OK_ERR_BAD_WIRE_TYPE, s->ftag, "bad tag at byte %llu in %s: field number %llu",
                    (unsigned long long)s->ftag, msg_of(container(s))->name,
                    (unsigned long long)(tag >> 3));
    s->fnum = (uint32_t)(tag >> 3);
    s->fwire = (uint32_t)(tag & 7);
    switch (s->fwire) {
    case OK_PB_VARINT: s->st = ST_VAL; return OK_OK;
    case OK_PB_LEN: s->st = ST_LEN; return OK_OK;
    case OK_PB_FIXED64:
    case OK_PB_FIXED32: {
        unsigned need = s->fwire == OK_PB_FIXED64 ? 8 : 4;
        if (s->depth > 0 && s->fr[s->depth].end - s->pos < need)
            return fname_err(s, OK_ERR_TRUNCATED, s->pos, "fixed", need * 8, s->fr[s->depth].end);
        s->fixed_at = s->pos;
        s->remain = need;
        s->skip_fixed = 1;
        s->st = ST_SKIP;
        return OK_OK;
    }
    default:
        ok_pb_field_name(msg_of(container(s)), s->fnum, fname, sizeof fname);
        return serr(s, OK_ERR_BAD_WIRE_TYPE, s->ftag, "bad wire type %u at byte %llu: %s",
                    (unsigned)s->fwire, (unsigned long long)s->ftag, fname);
    }
}

/* A complete length in s->v (its varint began at s->vstart). */
static int on_length(ok_onnx_stream *s) {
    uint64_t len = s->v;
    int rc;
    if (s->depth > 0 && len > s->fr[s->depth].end - s->pos)
        return fname_err(s, OK_ERR_TRUNCATED, s->vstart, "length", len, s->fr[s->depth].end);
    s->remain = len;
    if (s->depth == 0) { /* a top-level field: a frame, so a cut is named */
        frame *f = &s->fr[1];
        f->kind = K_LEAF;
        f->number = s->fnum;
        f->start = s->pos;
        f->end = len > UINT64_MAX - s->pos ? UINT64_MAX : s->pos + len;
        f->lenpos = s->vstart;
        f->len = len;
        f->e[0].code = f->e[1].code = f->e[2].code = 0;
        s->depth = 1;
        s->leaf_fresh = 1;
    }
    /* on_len opens at most one message: make room first, so frame pointers
     * taken there stay valid. The rules bound the nesting (onnx_stream.h);
     * never trust that alone. */
    if (s->depth + 1 >= OK_ONNX_STREAM_MAX_FRAMES)
        return sfatal(s, OK_ERR_TOO_DEEP, s->pos, "too deep at byte %llu: more than %d open messages",
                      (unsigned long long)s->pos, OK_ONNX_STREAM_MAX_FRAMES);
    if (s->depth + 2 > s->fr_cap) {
        uint32_t ncap = s->fr_cap * 2 > OK_ONNX_STREAM_MAX_FRAMES ? OK_ONNX_STREAM_MAX_FRAMES
                                                                   : s->fr_cap * 2;
        if ((rc = s_realloc(s, (void **)&s->fr, (size_t)s->fr_cap * sizeof(frame),
                            (size_t)ncap * sizeof(frame))))
            return heap_fail(s, rc);
        s->fr_cap = ncap;
    }
    s->st = ST_TAG;
    rc = on_len(s);
    s->leaf_fresh = 0;
    if (rc) return rc;
    if (s->st == ST_CAP) {
        if (s->remain == 0) {
            s->st = ST_TAG;
            return on_string(s);
        }
    } else if (s->remain) {
        s->skip_fixed = 0;
        s->st = ST_SKIP;
    }
    return OK_OK;
}

static int feed(ok_onnx_stream *s, const uint8_t *p, size_t n) {
    size_t i = 0;
    int rc;
    for (;;) {
        if (s->st == ST_TAG && !s->vn) {
            while (s->depth > 0 && s->pos == s->fr[s->depth].end) {
                rc = close_frame(s);
                if (rc > 0) return rc;
            }
        }
        /* A varint (tag, value, length or packed dim) under way at the end
         * of its message runs past it: known without the next byte. */
        if ((s->vn || s->st == ST_VAL || s->st == ST_LEN) && s->depth > 0 &&
            s->pos >= s->fr[s->depth].end) {
            uint64_t at = s->vn ? s->vstart : s->pos;
            s->vn = 0;
            rc = serr(s, OK_ERR_TRUNCATED, at, "truncated at byte %llu: varint runs past end %llu",
                      (unsigned long long)at, (unsigned long long)s->fr[s->depth].end);
            if (rc > 0) return rc;
            continue;
        }
        if (i == n) return OK_OK;
        rc = OK_OK;
        switch (s->st) {
        case ST_SKIP: {
            uint64_t take = s->remain < n - i ? s->remain : n - i;
            i += (size_t)take;
            s->pos += take;
            s->remain -= take;
            if (!s->remain) {
                s->st = ST_TAG;
                if (s->skip_fixed) {
                    s->skip_fixed = 0;
                    rc = on_scalar(s);
                }
            }
            break;
        }
        case ST_CAP: {
            uint64_t take = s->remain < n - i ? s->remain : n - i;
            memcpy(s->arena + s->alen, p + i, (size_t)take);
            s->alen += (size_t)take;
            i += (size_t)take;
            s->pos += take;
            s->remain -= take;
            if (!s->remain) {
                s->st = ST_TAG;
                rc = on_string(s);
            }
            break;
        }
        default: { /* a varint: tag, value, length, or a packed dim */
            uint8_t b;
            if (!s->vn) {
                s->vn = 1;
                s->vstart = s->pos;
                s->v = 0;
                s->vshift = 0;
            }
            b = p[i++];
            s->pos++;
            if (s->vshift == 63 && (b & 0x7e)) {
                s->vn = 0;
                rc = serr(s, OK_ERR_BAD_VARINT, s->vstart, "bad varint at byte %llu: overflows 64 bits",
                          (unsigned long long)s->vstart);
                break;
            }
            s->v |= (uint64_t)(b & 0x7f) << s->vshift;
            if (b & 0x80) {
                s->vshift += 7;
                if (s->vshift > 63) {
                    s->vn = 0;
                    rc = serr(s, OK_ERR_BAD_VARINT, s->vstart,
                              "bad varint at byte %llu: longer than 10 bytes",
                              (unsigned long long)s->vstart);
                }
                break;
            }
            s->vn = 0;
            if (s->st == ST_VAL) {
                s->st = ST_TAG;
                rc = on_scalar(s);
            } else if (s->st == ST_LEN) {
                rc = on_length(s);
            } else if (s->fr[s->depth].kind == K_PACKED) {
                rc = push_dim(s, s->v);
            } else {
                rc = on_tag(s);
            }
            break;
        }
        }
        if (rc > 0) return rc;
    }
}

/* ---- the end: the one-shot reader's order ------------------------------ */

typedef struct fin {
    ok_onnx_stream *s;
    ok_model *m;
    uint32_t *fid;   /* stream graph -> model graph, or NONE */
    uint32_t *order; /* model graph -> stream graph */
    uint32_t *kids;  /* children of each stream graph, grouped by parent */
    uint32_t *kfirst;
    uint32_t *imap;  /* stream initializer -> model initializer */
} fin;

static int child_cmp(const void *a, const void *b, const sgraph *g) {
    const sgraph *x = &g[*(const uint32_t *)a], *y = &g[*(const uint32_t *)b];
    if (x->attr_seq != y->attr_seq) return x->attr_seq < y->attr_seq ? -1 : 1;
    if (x->list_idx != y->list_idx) return x->list_idx < y->list_idx ? -1 : 1;
    return 0;
}

/* Insertion sort: children come nearly sorted (only a `g` after its
 * attribute's `graphs` moves), and qsort has no context argument. */
static void sort_kids(uint32_t *k, uint32_t n, const sgraph *g) {
    for (uint32_t i = 1; i < n; i++) {
        uint32_t x = k[i], j = i;
        while (j > 0 && child_cmp(&k[j - 1], &x, g) > 0) {
            k[j] = k[j - 1];
            j--;
        }
        k[j] = x;
    }
}

static void *fin_alloc(fin *f, size_t n, int *rc) {
    void *p = NULL;
    int r;
    if (*rc) return NULL;
    if ((r = s_realloc(f->s, &p, 0, n))) {
        *rc = heap_fail(f->s, r);
        return NULL;
    }
    return p;
}

static int build_path(fin *f, uint32_t gi, uint64_t *path_bytes, uint64_t budget) {
    ok_onnx_stream *s = f->s;
    ok_model *m = f->m;
    const sgraph *sg = &s->g[f->order[gi]];
    ok_graph *g = &m->graphs[gi];
    const ok_graph *pg;
    char lab[24], suffix[24];
    size_t ll = 0, slen = 0, n;
    const uint8_t *lp;
    char *p;
    int rc = OK_OK;
    if (gi == 0) {
        p = fin_alloc(f, 5, &rc);
        if (!p) return rc;
        memcpy(p, "main", 5);
        g->path = p;
        g->path_len = 4;
        return OK_OK;
    }
    pg = &m->graphs[g->parent];
    if (sg->lname.len) {
        lp = s->arena + sg->lname.off;
        ll = sg->lname.len;
    } else {
        uint64_t u = sg->node_index;
        char d[24];
        int nd = 0;
        do { d[nd++] = (char)('0' + u % 10); u /= 10; } while (u);
        lab[0] = '#';
        for (int i = 0; i < nd; i++) lab[1 + i] = d[nd - 1 - i];
        lp = s->arena + sg->lop.off;
        ll = sg->lop.len;
        slen = (size_t)nd + 1; /* "#digits" goes after op_type */
    }
    {
        size_t sl = 0;
        if (sg->list_idx >= 0) {
            char d[24];
            int nd = 0;
            uint64_t u = (uint64_t)sg->list_idx;
            do { d[nd++] = (char)('0' + u % 10); u /= 10; } while (u);
            suffix[sl++] = '[';
            while (nd) suffix[sl++] = d[--nd];
            suffix[sl++] = ']';
        }
        n = pg->path_len + 1 + ll + slen + 1 + sg->attr.len + sl;
        *path_bytes += n;
        if (*path_bytes > budget)
            return sfatal(s, OK_ERR_LIMIT, sg->off, "limit at byte %llu: graph paths exceed %llu bytes",
                          (unsigned long long)sg->off, (unsigned long long)budget);
        p = fin_alloc(f, n + 1, &rc);
        if (!p) return rc;
        memcpy(p, pg->path, pg->path_len);
        p[pg->path_len] = '/';
        memcpy(p + pg->path_len + 1, lp, ll);
        memcpy(p + pg->path_len + 1 + ll, lab, slen);
        p[pg->path_len + 1 + ll + slen] = '.';
        memcpy(p + pg->path_len + 2 + ll + slen, s->arena + sg->attr.off, sg->attr.len);
        memcpy(p + n - sl, suffix, sl);
        p[n] = '\0';
        g->path = p;
        g->path_len = n;
    }
    return OK_OK;
}

static int finish(ok_onnx_stream *s, ok_model **out) {
    fin f;
    ok_model *m;
    uint32_t ng = 0, *stack = NULL, *spos = NULL, sp = 0;
    uint64_t path_bytes = 0, total_bytes = 0;
    int rc = OK_OK;
    ok_onnx_def *defs = NULL;
    ok_onnx_ref *refs = NULL;
    uint32_t nd = 0, nr = 0;
    ok_error e;

    memset(&f, 0, sizeof f);
    f.s = s;
    if (!s->arena) { /* spans index m->buf: never NULL */
        if ((rc = s_realloc(s, (void **)&s->arena, 0, 16))) return heap_fail(s, rc);
        s->acap = 16;
    }
    m = fin_alloc(&f, sizeof *m, &rc);
    if (!m) return rc;
    memset(m, 0, sizeof *m);
    f.m = m;
    f.fid = fin_alloc(&f, (size_t)s->n_g * 4 + 4, &rc);
    f.order = fin_alloc(&f, (size_t)s->n_g * 4 + 4, &rc);
    f.kids = fin_alloc(&f, (size_t)s->n_g * 4 + 4, &rc);
    f.kfirst = fin_alloc(&f, (size_t)s->n_g * 4 + 8, &rc);
    stack = fin_alloc(&f, (OK_ONNX_MAX_GRAPH_DEPTH + 2) * 4, &rc);
    spos = fin_alloc(&f, (OK_ONNX_MAX_GRAPH_DEPTH + 2) * 4, &rc);
    if (rc) goto done;

    /* Children of every graph, grouped by parent (counting sort), then in
     * the one-shot order: node, attribute, the attribute's g, its graphs. */
    memset(f.kfirst, 0, (size_t)s->n_g * 4 + 8);
    for (uint32_t i = 0; i < s->n_g; i++)
        if (s->g[i].parent != OK_ONNX_NONE && !s->g[i].dead) f.kfirst[s->g[i].parent + 1]++;
    for (uint32_t i = 0; i < s->n_g; i++) f.kfirst[i + 1] += f.kfirst[i];
    for (uint32_t i = 0; i < s->n_g; i++) f.fid[i] = f.kfirst[i]; /* fill cursor */
    for (uint32_t i = 0; i < s->n_g; i++)
        if (s->g[i].parent != OK_ONNX_NONE && !s->g[i].dead) f.kids[f.fid[s->g[i].parent]++] = i;
    for (uint32_t i = 0; i < s->n_g; i++)
        sort_kids(f.kids + f.kfirst[i], f.kfirst[i + 1] - f.kfirst[i], s->g);
    for (uint32_t i = 0; i < s->n_g; i++) f.fid[i] = OK_ONNX_NONE;

    /* Pre-order from the last ModelProto.graph. */
    stack[0] = s->main_sid;
    spos[0] = f.kfirst[s->main_sid];
    sp = 1;
    f.fid[s->main_sid] = ng;
    f.order[ng++] = s->main_sid;
    while (sp) {
        uint32_t top = stack[sp - 1];
        if (spos[sp - 1] == f.kfirst[top + 1]) {
            sp--;
            continue;
        }
        {
            uint32_t c = f.kids[spos[sp - 1]++];
            f.fid[c] = ng;
            f.order[ng++] = c;
            stack[sp] = c;
            spos[sp] = f.kfirst[c];
            sp++;
        }
    }

    m->graphs = fin_alloc(&f, (size_t)ng * sizeof *m->graphs, &rc);
    if (rc) goto done;
    memset(m->graphs, 0, (size_t)ng * sizeof *m->graphs);
    m->n_graphs = ng;
    for (uint32_t gi = 0; gi < ng; gi++) {
        const sgraph *sg = &s->g[f.order[gi]];
        ok_graph *g = &m->graphs[gi];
        g->parent = sg->parent == OK_ONNX_NONE ? OK_ONNX_NONE : f.fid[sg->parent];
        g->depth = sg->depth;
        g->name = sg->name;
        g->nodes = sg->nodes;
        g->sparse_count = sg->sparse;
        m->total_nodes += sg->nodes;
        m->n_if += sg->n_if;
        m->n_loop += sg->n_loop;
        m->n_scan += sg->n_scan;
    }
    {
        uint64_t budget = 8 * s->pos + (1u << 20);
        for (uint32_t gi = 0; gi < ng && !rc; gi++) rc = build_path(&f, gi, &path_bytes, budget);
        if (rc) goto done;
    }

    /* Initializers and values, grouped by graph in pre-order (bucket by
     * model graph, stable). */
    {
        uint32_t *cnt = fin_alloc(&f, ((size_t)ng + 1) * 4, &rc);
        uint32_t n_live = 0, n_ldims = 0;
        if (rc) goto done;
        f.imap = fin_alloc(&f, (size_t)s->n_in * 4 + 4, &rc);
        if (rc) { s_free(s, cnt, ((size_t)ng + 1) * 4); goto done; }
        memset(cnt, 0, ((size_t)ng + 1) * 4);
        for (uint32_t i = 0; i < s->n_in; i++) {
            uint32_t g = f.fid[s->in[i].t.graph];
            if (g == OK_ONNX_NONE) continue;
            cnt[g + 1]++;
            n_live++;
            n_ldims += s->in[i].t.ndims;
        }
        for (uint32_t g = 0; g < ng; g++) cnt[g + 1] += cnt[g];
        for (uint32_t g = 0; g < ng; g++) {
            m->graphs[g].init_first = cnt[g];
            m->graphs[g].init_count = cnt[g + 1] - cnt[g];
        }
        m->inits = fin_alloc(&f, (size_t)n_live * sizeof *m->inits + 1, &rc);
        m->dims = fin_alloc(&f, (size_t)n_ldims * sizeof *m->dims + 1, &rc);
        if (rc) { s_free(s, cnt, ((size_t)ng + 1) * 4); goto done; }
        for (uint32_t i = 0; i < s->n_in; i++) {
            uint32_t g = f.fid[s->in[i].t.graph];
            f.imap[i] = OK_ONNX_NONE;
            if (g == OK_ONNX_NONE) continue;
            f.imap[i] = cnt[g]++;
            m->inits[f.imap[i]] = s->in[i].t;
            m->inits[f.imap[i]].graph = g;
        }
        m->n_inits = n_live;
        s_free(s, cnt, ((size_t)ng + 1) * 4);
        /* dims and byte sums in model order */
        {
            uint32_t *back = fin_alloc(&f, (size_t)n_live * 4 + 4, &rc);
            if (rc) goto done;
            for (uint32_t i = 0; i < s->n_in; i++)
                if (f.imap[i] != OK_ONNX_NONE) back[f.imap[i]] = i;
            for (uint32_t j = 0; j < n_live; j++) {
                const sinit *si = &s->in[back[j]];
                ok_initializer *t = &m->inits[j];
                memcpy(m->dims + m->n_dims, s->dims + si->t.dim_first, (size_t)si->t.ndims * sizeof *m->dims);
                t->dim_first = m->n_dims;
                m->n_dims += si->t.ndims;
                m->graphs[t->graph].init_bytes += t->bytes;
                total_bytes += t->bytes;
                if (total_bytes > (uint64_t)INT64_MAX) {
                    s_free(s, back, (size_t)n_live * 4 + 4);
                    rc = sfatal(s, OK_ERR_LIMIT, si->off,
                                "limit at byte %llu: initializer bytes of the model overflow",
                                (unsigned long long)si->off);
                    goto done;
                }
            }
            s_free(s, back, (size_t)n_live * 4 + 4);
        }
    }
    {
        uint32_t n_live = 0, n_lvd = 0;
        for (uint32_t i = 0; i < s->n_vals; i++)
            if (f.fid[s->vals[i].graph] != OK_ONNX_NONE) {
                n_live++;
                n_lvd += s->vals[i].ndims;
            }
        m->values = fin_alloc(&f, (size_t)n_live * sizeof *m->values + 1, &rc);
        m->vdims = fin_alloc(&f, (size_t)n_lvd * sizeof *m->vdims + 1, &rc);
        if (rc) goto done;
        /* values of one graph are contiguous in stream order already only
         * per graph; walk graphs in model order (values per graph are few
         * relative to a pass per graph, so bucket once). */
        {
            uint32_t *cnt = fin_alloc(&f, ((size_t)ng + 1) * 4, &rc);
            uint32_t *slot;
            if (rc) goto done;
            memset(cnt, 0, ((size_t)ng + 1) * 4);
            for (uint32_t i = 0; i < s->n_vals; i++) {
                uint32_t g = f.fid[s->vals[i].graph];
                if (g != OK_ONNX_NONE) cnt[g + 1]++;
            }
            for (uint32_t g = 0; g < ng; g++) cnt[g + 1] += cnt[g];
            for (uint32_t g = 0; g < ng; g++) {
                m->graphs[g].value_first = cnt[g];
                m->graphs[g].value_count = cnt[g + 1] - cnt[g];
            }
            slot = fin_alloc(&f, (size_t)n_live * 4 + 4, &rc);
            if (rc) { s_free(s, cnt, ((size_t)ng + 1) * 4); goto done; }
            for (uint32_t i = 0; i < s->n_vals; i++) {
                uint32_t g = f.fid[s->vals[i].graph];
                if (g != OK_ONNX_NONE) slot[cnt[g]++] = i;
            }
            for (uint32_t j = 0; j < n_live; j++) {
                const ok_value_info *sv = &s->vals[slot[j]];
                ok_value_info *v = &m->values[j];
                *v = *sv;
                v->graph = f.fid[sv->graph];
                memcpy(m->vdims + m->n_vdims, s->vdims + sv->dim_first, (size_t)sv->ndims * sizeof *m->vdims);
                v->dim_first = m->n_vdims;
                m->n_vdims += sv->ndims;
            }
            m->n_values = n_live;
            s_free(s, slot, (size_t)n_live * 4 + 4);
            s_free(s, cnt, ((size_t)ng + 1) * 4);
        }
    }

    /* model-level fields */
    m->ir_version = s->ir_version;
    m->model_version = s->model_version;
    m->producer_name = s->producer_name;
    m->producer_version = s->producer_version;
    m->domain = s->domain;
    m->opsets = fin_alloc(&f, (size_t)s->n_opsets * sizeof *m->opsets + 1, &rc);
    m->metadata = fin_alloc(&f, (size_t)s->n_meta * sizeof *m->metadata + 1, &rc);
    if (rc) goto done;
    if (s->n_opsets) memcpy(m->opsets, s->opsets, (size_t)s->n_opsets * sizeof *m->opsets);
    if (s->n_meta) memcpy(m->metadata, s->meta, (size_t)s->n_meta * sizeof *m->metadata);
    m->n_opsets = s->n_opsets;
    m->n_metadata = s->n_meta;

    /* Scoping: defs and refs of live graphs, in model numbering. */
    defs = fin_alloc(&f, (size_t)s->n_defs * sizeof *defs + 1, &rc);
    refs = fin_alloc(&f, (size_t)s->n_refs * sizeof *refs + 1, &rc);
    if (rc) goto done;
    for (uint32_t i = 0; i < s->n_defs; i++) {
        uint32_t g = f.fid[s->defs[i].graph];
        if (g == OK_ONNX_NONE) continue;
        defs[nd] = s->defs[i];
        defs[nd].graph = g;
        if (defs[nd].init != OK_ONNX_NONE) defs[nd].init = f.imap[defs[nd].init];
        nd++;
    }
    for (uint32_t i = 0; i < s->n_refs; i++) {
        uint32_t g = f.fid[s->refs[i].graph];
        if (g == OK_ONNX_NONE) continue;
        refs[nr] = s->refs[i];
        refs[nr].graph = g;
        nr++;
    }
    /* ok_onnx_resolve_scopes allocates on its own: count its bound. */
    {
        uint64_t need = 16 * (uint64_t)nd + 8 * (uint64_t)nr + 64;
        if (s->heap + need > s->lim.max_heap) {
            rc = heap_fail(s, OK_ERR_LIMIT);
            goto done;
        }
        if (s->heap + need > s->peak) s->peak = s->heap + need;
    }
    rc = ok_onnx_resolve_scopes(m, s->arena, defs, nd, refs, nr, &e);
    if (rc) {
        rc = sfatal(s, rc, e.offset, "%s", e.message);
        goto done;
    }
    if (m->shared) { /* count what it kept */
        s->heap += (uint64_t)m->n_shared * sizeof *m->shared;
        if (s->heap > s->peak) s->peak = s->heap;
    }

done:
    if (defs) s_free(s, defs, (size_t)s->n_defs * sizeof *defs + 1);
    if (refs) s_free(s, refs, (size_t)s->n_refs * sizeof *refs + 1);
    if (f.fid) s_free(s, f.fid, (size_t)s->n_g * 4 + 4);
    if (f.order) s_free(s, f.order, (size_t)s->n_g * 4 + 4);
    if (f.kids) s_free(s, f.kids, (size_t)s->n_g * 4 + 4);
    if (f.kfirst) s_free(s, f.kfirst, (size_t)s->n_g * 4 + 8);
    if (f.imap) s_free(s, f.imap, (size_t)s->n_in * 4 + 4);
    if (stack) s_free(s, stack, (OK_ONNX_MAX_GRAPH_DEPTH + 2) * 4);
    if (spos) s_free(s, spos, (OK_ONNX_MAX_GRAPH_DEPTH + 2) * 4);
    if (rc) {
        ok_model_free(m);
        return rc;
    }
    /* The arena goes to the model. */
    m->owned_buf = s->arena;
    m->buf = s->arena;
    s->arena = NULL;
    s->acap = s->alen = 0;
    m->total_len = s->pos;
    m->len = s->pos > (uint64_t)SIZE_MAX ? SIZE_MAX : (size_t)s->pos;
    *out = m;
    return OK_OK;
}

/* ---- API ---------------------------------------------------------------- */

void ok_onnx_limits_default(ok_onnx_limits *l) {
    l->max_heap = (uint64_t)64 << 20;
    l->max_string = (uint64_t)16 << 20;
}

ok_onnx_stream *ok_onnx_stream_new(const ok_onnx_limits *limits) {
    ok_onnx_stream *s = calloc(1, sizeof *s);
    size_t fb = 16 * sizeof(frame);
    if (!s) return NULL;
    if (limits) s->lim = *limits;
    else ok_onnx_limits_default(&s->lim);
    s->fr = calloc(16, sizeof(frame));
    s->fr_cap = 16;
    if (!s->fr) {
        free(s);
        return NULL;
    }
    s->heap = s->peak = sizeof *s + fb;
    s->fr[0].kind = K_MODEL;
    s->fr[0].end = UINT64_MAX;
    s->main_sid = OK_ONNX_NONE;
    return s;
}

static int report(const ok_onnx_stream *s, ok_error *err) {
    if (err) {
        err->code = (ok_status)s->failed;
        err->offset = s->fail_off > (uint64_t)SIZE_MAX ? SIZE_MAX : (size_t)s->fail_off;
        memcpy(err->message, s->fail_msg, sizeof err->message);
        err->message[sizeof err->message - 1] = '\0';
    }
    return s->failed;
}

static void clear(ok_error *err) {
    if (err) {
        err->code = OK_OK;
        err->offset = 0;
        err->message[0] = '\0';
    }
}

int ok_onnx_stream_feed(ok_onnx_stream *s, const uint8_t *p, size_t n, ok_error *err) {
    clear(err);
    if (!s || (!p && n)) return ok_pb_fail(err, OK_ERR_INVALID_ARG, 0, "invalid argument to ok_onnx_stream_feed");
    if (s->failed) return report(s, err);
    if (s->ended) return ok_pb_fail(err, OK_ERR_STATE, 0, "state: feed after ok_onnx_stream_end");
    if (feed(s, p, n) > 0) return report(s, err);
    return OK_OK;
}

int ok_onnx_stream_end(ok_onnx_stream *s, ok_model **out, ok_error *err) {
    clear(err);
    if (out) *out = NULL;
    if (!s || !out) return ok_pb_fail(err, OK_ERR_INVALID_ARG, 0, "invalid argument to ok_onnx_stream_end");
    if (s->failed) return report(s, err);
    if (s->ended) return ok_pb_fail(err, OK_ERR_STATE, 0, "state: ok_onnx_stream_end called twice");
    s->ended = 1;
    if (s->pos == 0) {
        sfatal(s, OK_ERR_EMPTY, 0, "empty: the model has no bytes");
        return report(s, err);
    }
    /* A cut: the outermost open field, or the top-level varint or fixed
     * value being read, runs past the end. */
    if (s->depth > 0) {
        const frame *f = &s->fr[1];
        char fname[96];
        ok_pb_field_name(&ok_onnx_msg_model, f->number, fname, sizeof fname);
        sfatal(s, OK_ERR_TRUNCATED, f->lenpos, "truncated at byte %llu: %s length %llu runs past end %llu",
               (unsigned long long)f->lenpos, fname, (unsigned long long)f->len,
               (unsigned long long)s->pos);
        return report(s, err);
    }
    if (s->vn) {
        sfatal(s, OK_ERR_TRUNCATED, s->vstart, "truncated at byte %llu: varint runs past end %llu",
               (unsigned long long)s->vstart, (unsigned long long)s->pos);
        return report(s, err);
    }
    if (s->st == ST_SKIP && s->skip_fixed) {
        char fname[96];
        ok_pb_field_name(&ok_onnx_msg_model, s->fnum, fname, sizeof fname);
        sfatal(s, OK_ERR_TRUNCATED, s->fixed_at, "truncated at byte %llu: %s fixed%u runs past end %llu",
               (unsigned long long)s->fixed_at, fname, s->fwire == OK_PB_FIXED64 ? 64u : 32u,
               (unsigned long long)s->pos);
        return report(s, err);
    }
    if (s->st == ST_VAL || s->st == ST_LEN) { /* a tag with no value yet */
        sfatal(s, OK_ERR_TRUNCATED, s->pos, "truncated at byte %llu: varint runs past end %llu",
               (unsigned long long)s->pos, (unsigned long long)s->pos);
        return report(s, err);
    }
    if (!s->has_graph) {
        sfatal(s, OK_ERR_NOT_ONNX, 0, "not onnx: %llu bytes parse as protobuf but hold no ModelProto.graph",
               (unsigned long long)s->pos);
        return report(s, err);
    }
    if (s->gerr.code) {
        s->failed = s->gerr.code;
        s->fail_off = s->gerr.off;
        memcpy(s->fail_msg, s->gerr.msg, sizeof s->fail_msg);
        return report(s, err);
    }
    if (finish(s, out)) return report(s, err);
    return OK_OK;
}

void ok_onnx_stream_free(ok_onnx_stream *s) {
    if (!s) return;
    free(s->fr);
    free(s->arena);
    free(s->opsets);
    free(s->meta);
    free(s->g);
    free(s->in);
    free(s->dims);
    free(s->vals);
    free(s->vdims);
    free(s->defs);
    free(s->refs);
    free(s);
}

uint64_t ok_onnx_stream_consumed(const ok_onnx_stream *s) { return s ? s->pos : 0; }

uint64_t ok_onnx_stream_error_offset(const ok_onnx_stream *s) {
    return s && s->failed ? s->fail_off : 0;
}

uint64_t ok_onnx_stream_heap(const ok_onnx_stream *s, uint64_t *peak) {
    if (peak) *peak = s ? s->peak : 0;
    return s ? s->heap : 0;
}
