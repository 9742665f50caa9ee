/* The one-shot ONNX ModelProto reader: the test oracle of the streaming
 * reader (wasm/onnx/onnx_stream.c), which the core ships. Zero-copy; both
 * apply the rules of onnx_model.h through wasm/onnx/onnx_rules.c.
 *
 * Shape of the walk: one pass over ModelProto, then per graph two passes over
 * its bytes. Pass 1 collects what belongs to the graph itself (node count,
 * initializers, inputs/outputs, the names nodes define and use); pass 2
 * recurses into graph-valued attributes. Doing the graph's own things first
 * keeps each graph's initializers contiguous and lets graphs be numbered in
 * pre-order. Recursion is bounded by OK_ONNX_MAX_GRAPH_DEPTH; every other
 * message is parsed iteratively, so protobuf nesting is bounded too.
 *
 * Scoping (shared initializers) is resolved after the walk from two scratch
 * lists: defs (graph, name, initializer or none) and refs (graph, node input
 * name), via one hash table keyed by (graph, name). */
#include "onnx_reader.h"

#include <stdlib.h>
#include <string.h>

#include "onnx_rules.h"
#include "pb_wire.h"

#define MODEL ok_onnx_msg_model
#define GRAPH ok_onnx_msg_graph
#define NODE ok_onnx_msg_node
#define ATTR ok_onnx_msg_attr
#define TENSOR ok_onnx_msg_tensor
#define KV ok_onnx_msg_kv
#define OPSET ok_onnx_msg_opset
#define VINFO ok_onnx_msg_vinfo
#define TYPE ok_onnx_msg_type
#define TTYPE ok_onnx_msg_ttype
#define SHAPE ok_onnx_msg_shape
#define DIM ok_onnx_msg_dim
#define SPARSE ok_onnx_msg_sparse

/* Arrays never exceed this many entries, so uint32 indexes and size
 * products stay far from overflow on wasm32. */
#define MAX_ENTRIES (1u << 28)

typedef ok_onnx_def def_entry;
typedef ok_onnx_ref ref_entry;

typedef struct reader {
    const uint8_t *buf;
    ok_model *m;
    ok_error *err;
    uint32_t cap_graphs, cap_inits, cap_dims, cap_values, cap_vdims;
    uint32_t cap_opsets, cap_meta, cap_shared;
    def_entry *defs;
    uint32_t n_defs, cap_defs;
    ref_entry *refs;
    uint32_t n_refs, cap_refs;
    uint64_t path_bytes, path_budget; /* paths copy labels: bound the total */
    uint64_t total_bytes;             /* all initializers, kept <= INT64_MAX */
} reader;

/* Makes room for one more element at index n. */
static int grow(reader *r, void **arr, uint32_t *cap, uint32_t n, size_t elsz) {
    uint32_t ncap;
    void *p;
    if (n < *cap) return OK_OK;
    if (n >= MAX_ENTRIES)
        return ok_pb_fail(r->err, OK_ERR_LIMIT, 0, "limit: more than %u entries in one list",
                          (unsigned)MAX_ENTRIES);
    ncap = *cap ? *cap * 2 : 16;
    if ((uint64_t)ncap * elsz > (uint64_t)SIZE_MAX)
        return ok_pb_fail(r->err, OK_ERR_NOMEM, 0, "out of memory");
    p = realloc(*arr, (size_t)ncap * elsz);
    if (!p) return ok_pb_fail(r->err, OK_ERR_NOMEM, 0, "out of memory");
    *arr = p;
    *cap = ncap;
    return OK_OK;
}
#define GROW(r, arr, n, cap) grow((r), (void **)&(arr), &(cap), (n), sizeof *(arr))

static ok_span span_of(const ok_pb_field *f) {
    ok_span s;
    s.off = f->off;
    s.len = f->len;
    return s;
}

static int span_eq(const uint8_t *buf, ok_span s, const char *lit) {
    size_t n = strlen(lit);
    return s.len == n && memcmp(buf + s.off, lit, n) == 0;
}

/* A LEN field that must be LEN; shorthand used throughout. */
#define NEXT(rd, pr, f)                             \
    do {                                            \
        int rc_ = ok_pb_next((pr), (f), (rd)->err); \
        if (rc_) return rc_;                        \
    } while (0)
#define EXPECT(rd, pr, f, w)                               \
    do {                                                   \
        int rc_ = ok_pb_expect((pr), (f), (w), (rd)->err); \
        if (rc_) return rc_;                               \
    } while (0)

static int read_kv(reader *rd, size_t off, size_t end, ok_span *k, ok_span *v) {
    ok_pb_reader pr = ok_pb_sub(rd->buf, off, end, &KV);
    ok_pb_field f;
    k->off = v->off = off;
    k->len = v->len = 0;
    while (pr.pos < pr.end) {
        NEXT(rd, &pr, &f);
        if (f.number == 1 || f.number == 2) {
            EXPECT(rd, &pr, &f, OK_PB_LEN);
            *(f.number == 1 ? k : v) = span_of(&f);
        }
    }
    return OK_OK;
}

static int push_def(reader *rd, uint32_t graph, uint32_t init, ok_span name) {
    int rc = GROW(rd, rd->defs, rd->n_defs, rd->cap_defs);
    if (rc) return rc;
    rd->defs[rd->n_defs].graph = graph;
    rd->defs[rd->n_defs].init = init;
    rd->defs[rd->n_defs].name = name;
    rd->n_defs++;
    return OK_OK;
}

static int push_dim(reader *rd, uint64_t v) {
    int rc = GROW(rd, rd->m->dims, rd->m->n_dims, rd->cap_dims);
    if (rc) return rc;
    rd->m->dims[rd->m->n_dims++] = (int64_t)v;
    return OK_OK;
}

/* TensorProto as an initializer of graph gi. */
static int read_tensor(reader *rd, uint32_t gi, size_t off, size_t end) {
    ok_model *m = rd->m;
    ok_pb_reader pr = ok_pb_sub(rd->buf, off, end, &TENSOR);
    ok_pb_field f;
    ok_initializer t;
    ok_span loc = {0, 0}, eoff = {0, 0}, elen = {0, 0};
    int has_eoff = 0, has_elen = 0, rc;
    uint64_t location = 0, n = 1;
    int zero = 0;

    memset(&t, 0, sizeof t);
    t.graph = gi;
    t.name.off = off;
    t.dim_first = m->n_dims;
    while (pr.pos < pr.end) {
        NEXT(rd, &pr, &f);
        switch (f.number) {
        case 1: /* dims: packed or not */
            if (f.wire == OK_PB_VARINT) {
                if ((rc = push_dim(rd, f.value))) return rc;
            } else {
                size_t p = f.off;
                EXPECT(rd, &pr, &f, OK_PB_LEN);
                while (p < f.off + f.len) {
                    uint64_t v;
                    if ((rc = ok_pb_varint(rd->buf, f.off + f.len, &p, &v, rd->err))) return rc;
                    if ((rc = push_dim(rd, v))) return rc;
                }
            }
            break;
        case 2:
            EXPECT(rd, &pr, &f, OK_PB_VARINT);
            t.data_type = (int32_t)f.value;
            break;
        case 8:
            EXPECT(rd, &pr, &f, OK_PB_LEN);
            t.name = span_of(&f);
            break;
        case 9:
            EXPECT(rd, &pr, &f, OK_PB_LEN);
            t.has_raw = 1;
            t.raw = span_of(&f);
            t.raw_offset = f.off;
            t.raw_length = f.len;
            break;
        case 13: {
            ok_span k, v;
            EXPECT(rd, &pr, &f, OK_PB_LEN);
            if ((rc = read_kv(rd, f.off, f.off + f.len, &k, &v))) return rc;
            if (span_eq(rd->buf, k, "location")) loc = v;
            else if (span_eq(rd->buf, k, "offset")) eoff = v, has_eoff = 1;
            else if (span_eq(rd->buf, k, "length")) elen = v, has_elen = 1;
            break;
        }
        case 14:
            EXPECT(rd, &pr, &f, OK_PB_VARINT);
            location = f.value;
            break;
        default: break;
        }
    }
    t.ndims = m->n_dims - t.dim_first;
    /* A zero dim makes the product 0 whatever follows (as in Python). */
    for (uint32_t i = 0; i < t.ndims; i++) {
        int64_t d = m->dims[t.dim_first + i];
        if (d < 0)
            return ok_pb_fail(rd->err, OK_ERR_LIMIT, off,
                              "limit at byte %zu: initializer dim %lld is negative", off, (long long)d);
        if (d == 0) zero = 1;
    }
    for (uint32_t i = 0; !zero && i < t.ndims; i++) {
        uint64_t d = (uint64_t)m->dims[t.dim_first + i];
        if (n > (uint64_t)INT64_MAX / d)
            return ok_pb_fail(rd->err, OK_ERR_LIMIT, off,
                              "limit at byte %zu: initializer element count overflows", off);
        n *= d;
    }
    if (zero) n = 0;
    if (ok_onnx_tensor_bytes(t.data_type, n, &t.bytes))
        return ok_pb_fail(rd->err, OK_ERR_LIMIT, off, "limit at byte %zu: initializer byte size overflows",
                          off);
    if (location == 1) { /* EXTERNAL */
        t.is_external = 1;
        t.ext_location = loc;
        if ((has_eoff && !ok_onnx_parse_decimal(rd->buf + eoff.off, eoff.len, &t.ext_offset)) ||
            (has_elen && !ok_onnx_parse_decimal(rd->buf + elen.off, elen.len, &t.ext_length)))
            return ok_pb_fail(rd->err, OK_ERR_CORRUPT, off,
                              "corrupt at byte %zu: external_data offset/length is not a decimal", off);
    }
    if ((rc = GROW(rd, m->inits, m->n_inits, rd->cap_inits))) return rc;
    m->inits[m->n_inits] = t;
    if ((rc = push_def(rd, gi, m->n_inits, t.name))) return rc;
    m->n_inits++;
    /* Each term is <= INT64_MAX, so the sums cannot wrap before the check. */
    m->graphs[gi].init_bytes += t.bytes;
    rd->total_bytes += t.bytes;
    if (rd->total_bytes > (uint64_t)INT64_MAX)
        return ok_pb_fail(rd->err, OK_ERR_LIMIT, off,
                          "limit at byte %zu: initializer bytes of the model overflow", off);
    return OK_OK;
}

/* SparseTensorProto: counted, and its name (values.name) defines a name. */
static int read_sparse(reader *rd, uint32_t gi, size_t off, size_t end) {
    ok_pb_reader pr = ok_pb_sub(rd->buf, off, end, &SPARSE);
    ok_pb_field f;
    ok_span name = {off, 0};
    while (pr.pos < pr.end) {
        NEXT(rd, &pr, &f);
        if (f.number == 1) {
            ok_pb_reader tr;
            ok_pb_field tf;
            EXPECT(rd, &pr, &f, OK_PB_LEN);
            tr = ok_pb_sub(rd->buf, f.off, f.off + f.len, &TENSOR);
            while (tr.pos < tr.end) {
                NEXT(rd, &tr, &tf);
                if (tf.number == 8) {
                    EXPECT(rd, &tr, &tf, OK_PB_LEN);
                    name = span_of(&tf);
                }
            }
        }
    }
    rd->m->graphs[gi].sparse_count++;
    return push_def(rd, gi, OK_ONNX_NONE, name);
}

static int push_vdim(reader *rd, const ok_dim *d) {
    int rc = GROW(rd, rd->m->vdims, rd->m->n_vdims, rd->cap_vdims);
    if (rc) return rc;
    rd->m->vdims[rd->m->n_vdims++] = *d;
    return OK_OK;
}

/* TypeProto.Tensor: merged into v (protobuf merge: elem_type last wins,
 * shape dims append). */
static int read_tensor_type(reader *rd, ok_value_info *v, size_t off, size_t end) {
    ok_pb_reader pr = ok_pb_sub(rd->buf, off, end, &TTYPE);
    ok_pb_field f;
    int rc;
    while (pr.pos < pr.end) {
        NEXT(rd, &pr, &f);
        if (f.number == 1) {
            EXPECT(rd, &pr, &f, OK_PB_VARINT);
            v->elem_type = (int32_t)f.value;
        } else if (f.number == 2) {
            ok_pb_reader sr;
            ok_pb_field sf;
            EXPECT(rd, &pr, &f, OK_PB_LEN);
            v->has_shape = 1;
            sr = ok_pb_sub(rd->buf, f.off, f.off + f.len, &SHAPE);
            while (sr.pos < sr.end) {
                ok_pb_reader dr;
                ok_pb_field df;
                ok_dim d;
                NEXT(rd, &sr, &sf);
                if (sf.number != 1) continue;
                EXPECT(rd, &sr, &sf, OK_PB_LEN);
                memset(&d, 0, sizeof d);
                d.param.off = sf.off;
                dr = ok_pb_sub(rd->buf, sf.off, sf.off + sf.len, &DIM);
                while (dr.pos < dr.end) { /* a oneof: last one wins */
                    NEXT(rd, &dr, &df);
                    if (df.number == 1) {
                        EXPECT(rd, &dr, &df, OK_PB_VARINT);
                        d.kind = OK_DIM_VALUE;
                        d.value = (int64_t)df.value;
                    } else if (df.number == 2) {
                        EXPECT(rd, &dr, &df, OK_PB_LEN);
                        d.kind = OK_DIM_PARAM;
                        d.param = span_of(&df);
                    }
                }
                if ((rc = push_vdim(rd, &d))) return rc;
                v->ndims++;
            }
        }
    }
    return OK_OK;
}

/* ValueInfoProto of a graph input or output. */
static int read_value_info(reader *rd, uint32_t gi, int is_output, size_t off, size_t end) {
    ok_model *m = rd->m;
    ok_pb_reader pr = ok_pb_sub(rd->buf, off, end, &VINFO);
    ok_pb_field f;
    ok_value_info v;
    int rc;

    memset(&v, 0, sizeof v);
    v.graph = gi;
    v.is_output = is_output;
    v.name.off = off;
    v.dim_first = m->n_vdims;
    while (pr.pos < pr.end) {
        NEXT(rd, &pr, &f);
        if (f.number == 1) {
            EXPECT(rd, &pr, &f, OK_PB_LEN);
            v.name = span_of(&f);
        } else if (f.number == 2) {
            ok_pb_reader tr;
            ok_pb_field tf;
            EXPECT(rd, &pr, &f, OK_PB_LEN);
            tr = ok_pb_sub(rd->buf, f.off, f.off + f.len, &TYPE);
            while (tr.pos < tr.end) {
                NEXT(rd, &tr, &tf);
                if (tf.number == 1) {
                    EXPECT(rd, &tr, &tf, OK_PB_LEN);
                    if ((rc = read_tensor_type(rd, &v, tf.off, tf.off + tf.len))) return rc;
                } else if (tf.number == 4 || tf.number == 5 || tf.number == 8 || tf.number == 9) {
                    /* Another member of the value oneof replaces tensor_type. */
                    v.elem_type = 0;
                    v.has_shape = 0;
                    v.ndims = 0;
                    m->n_vdims = v.dim_first;
                }
            }
        }
    }
    if (!is_output && (rc = push_def(rd, gi, OK_ONNX_NONE, v.name))) return rc;
    if ((rc = GROW(rd, m->values, m->n_values, rd->cap_values))) return rc;
    m->values[m->n_values++] = v;
    return OK_OK;
}

/* Pass 1 over a node: names used and defined, control-flow counts. */
static int read_node_names(reader *rd, uint32_t gi, size_t off, size_t end) {
    ok_pb_reader pr = ok_pb_sub(rd->buf, off, end, &NODE);
    ok_pb_field f;
    ok_span op = {off, 0}, domain = {off, 0};
    int rc;
    while (pr.pos < pr.end) {
        NEXT(rd, &pr, &f);
        switch (f.number) {
        case 1:
            EXPECT(rd, &pr, &f, OK_PB_LEN);
            if (f.len == 0) break; /* "" = omitted optional input */
            if ((rc = GROW(rd, rd->refs, rd->n_refs, rd->cap_refs))) return rc;
            rd->refs[rd->n_refs].graph = gi;
            rd->refs[rd->n_refs].name = span_of(&f);
            rd->n_refs++;
            break;
        case 2:
            EXPECT(rd, &pr, &f, OK_PB_LEN);
            if (f.len && (rc = push_def(rd, gi, OK_ONNX_NONE, span_of(&f)))) return rc;
            break;
        case 3:
        case 5:
        case 6: EXPECT(rd, &pr, &f, OK_PB_LEN); break;
        case 4:
            EXPECT(rd, &pr, &f, OK_PB_LEN);
            op = span_of(&f);
            break;
        case 7:
            EXPECT(rd, &pr, &f, OK_PB_LEN);
            domain = span_of(&f);
            break;
        default: break;
        }
    }
    if (domain.len == 0 || span_eq(rd->buf, domain, "ai.onnx")) {
        if (span_eq(rd->buf, op, "If")) rd->m->n_if++;
        else if (span_eq(rd->buf, op, "Loop")) rd->m->n_loop++;
        else if (span_eq(rd->buf, op, "Scan")) rd->m->n_scan++;
    }
    return OK_OK;
}

static int read_graph(reader *rd, size_t off, size_t end, uint32_t parent, uint32_t depth, char *path,
                      size_t path_len);

/* Builds parent/label.attr[idx] (idx < 0: no index) and reads the graph. */
static int read_subgraph(reader *rd, uint32_t parent, const char *label, size_t label_len, ok_span attr,
                         long idx, const ok_pb_field *gf) {
    const ok_graph *pg = &rd->m->graphs[parent];
    char suffix[24];
    size_t slen = 0, n;
    char *p;
    if (pg->depth + 1 > OK_ONNX_MAX_GRAPH_DEPTH)
        return ok_pb_fail(rd->err, OK_ERR_TOO_DEEP, gf->off,
                          "too deep at byte %zu: graph nesting exceeds %d levels", gf->off,
                          OK_ONNX_MAX_GRAPH_DEPTH);
    if (idx >= 0) {
        /* Hand-rolled "[%ld]" keeps this file free of stdio. */
        char digits[20];
        int nd = 0;
        unsigned long u = (unsigned long)idx;
        do {
            digits[nd++] = (char)('0' + u % 10);
            u /= 10;
        } while (u);
        suffix[slen++] = '[';
        while (nd) suffix[slen++] = digits[--nd];
        suffix[slen++] = ']';
    }
    n = pg->path_len + 1 + label_len + 1 + attr.len + slen;
    rd->path_bytes += n;
    if (rd->path_bytes > rd->path_budget)
        return ok_pb_fail(rd->err, OK_ERR_LIMIT, gf->off, "limit at byte %zu: graph paths exceed %llu bytes",
                          gf->off, (unsigned long long)rd->path_budget);
    p = malloc(n + 1);
    if (!p) return ok_pb_fail(rd->err, OK_ERR_NOMEM, gf->off, "out of memory");
    memcpy(p, pg->path, pg->path_len);
    p[pg->path_len] = '/';
    memcpy(p + pg->path_len + 1, label, label_len);
    p[pg->path_len + 1 + label_len] = '.';
    memcpy(p + pg->path_len + 2 + label_len, rd->buf + attr.off, attr.len);
    memcpy(p + n - slen, suffix, slen);
    p[n] = '\0';
    return read_graph(rd, gf->off, gf->off + gf->len, parent, pg->depth + 1, p, n);
}

/* Pass 2 over a node: recurse into graph-valued attributes. */
static int read_node_graphs(reader *rd, uint32_t gi, uint64_t index, size_t off, size_t end) {
    ok_pb_reader pr = ok_pb_sub(rd->buf, off, end, &NODE);
    ok_pb_field f;
    ok_span name = {off, 0}, op = {off, 0};
    char label[64 + 24];
    const char *lp;
    size_t ll;
    int rc, any_attr = 0;

    /* Fields may come in any order: find the label first. */
    while (pr.pos < pr.end) {
        NEXT(rd, &pr, &f);
        if (f.number == 3) name = span_of(&f);
        else if (f.number == 4) op = span_of(&f);
        else if (f.number == 5) any_attr = 1;
    }
    if (!any_attr) return OK_OK;
    if (name.len) {
        lp = (const char *)rd->buf + name.off;
        ll = name.len;
    } else {
        /* op_type "#" index; an op_type longer than the scratch is cut only
         * here would be wrong, so fall back to heap for long op types. */
        char digits[24];
        int nd = 0;
        uint64_t u = index;
        char *heap;
        do {
            digits[nd++] = (char)('0' + u % 10);
            u /= 10;
        } while (u);
        ll = op.len + 1 + (size_t)nd;
        heap = ll <= sizeof label ? label : malloc(ll);
        if (!heap) return ok_pb_fail(rd->err, OK_ERR_NOMEM, off, "out of memory");
        memcpy(heap, rd->buf + op.off, op.len);
        heap[op.len] = '#';
        for (int i = 0; i < nd; i++) heap[op.len + 1 + i] = digits[nd - 1 - i];
        lp = heap;
    }

    rc = OK_OK;
    pr = ok_pb_sub(rd->buf, off, end, &NODE);
    while (rc == OK_OK && pr.pos < pr.end) {
        ok_pb_reader ar;
        ok_pb_field af;
        ok_span aname;
        ok_pb_field g;
        int has_g = 0;
        memset(&g, 0, sizeof g);
        long gi_idx = 0;
        if ((rc = ok_pb_next(&pr, &f, rd->err))) break;
        if (f.number != 5) continue;
        aname.off = f.off;
        aname.len = 0;
        /* The attribute's name may follow its graphs on the wire. */
        ar = ok_pb_sub(rd->buf, f.off, f.off + f.len, &ATTR);
        while (ar.pos < ar.end) {
            if ((rc = ok_pb_next(&ar, &af, rd->err))) break;
            if (af.number == 1) {
                if ((rc = ok_pb_expect(&ar, &af, OK_PB_LEN, rd->err))) break;
                aname = span_of(&af);
            } else if (af.number == 6 || af.number == 11) {
                if ((rc = ok_pb_expect(&ar, &af, OK_PB_LEN, rd->err))) break;
                if (af.number == 6) g = af, has_g = 1; /* last one wins */
            }
        }
        if (rc) break;
        if (has_g && (rc = read_subgraph(rd, gi, lp, ll, aname, -1, &g))) break;
        ar = ok_pb_sub(rd->buf, f.off, f.off + f.len, &ATTR);
        while (ar.pos < ar.end) {
            if ((rc = ok_pb_next(&ar, &af, rd->err))) break;
            if (af.number == 11 && (rc = read_subgraph(rd, gi, lp, ll, aname, gi_idx++, &af))) break;
        }
    }
    if (lp != label && lp != (const char *)rd->buf + name.off) free((void *)lp);
    return rc;
}

/* Takes ownership of path. */
static int read_graph(reader *rd, size_t off, size_t end, uint32_t parent, uint32_t depth, char *path,
                      size_t path_len) {
    ok_model *m = rd->m;
    ok_pb_reader pr;
    ok_pb_field f;
    ok_graph *g;
    uint32_t gi = m->n_graphs;
    uint64_t index;
    int rc;

    if ((rc = GROW(rd, m->graphs, m->n_graphs, rd->cap_graphs))) {
        free(path);
        return rc;
    }
    g = &m->graphs[gi];
    memset(g, 0, sizeof *g);
    g->path = path;
    g->path_len = path_len;
    g->parent = parent;
    g->depth = depth;
    g->name.off = off;
    g->init_first = m->n_inits;
    g->value_first = m->n_values;
    m->n_graphs++;

    /* Pass 1: the graph's own contents. m->graphs may move while we push,
     * so address it by index below. */
    pr = ok_pb_sub(rd->buf, off, end, &GRAPH);
    while (pr.pos < pr.end) {
        NEXT(rd, &pr, &f);
        switch (f.number) {
        case 1:
            EXPECT(rd, &pr, &f, OK_PB_LEN);
            m->graphs[gi].nodes++;
            m->total_nodes++;
            if ((rc = read_node_names(rd, gi, f.off, f.off + f.len))) return rc;
            break;
        case 2:
            EXPECT(rd, &pr, &f, OK_PB_LEN);
            m->graphs[gi].name = span_of(&f);
            break;
        case 5:
            EXPECT(rd, &pr, &f, OK_PB_LEN);
            if ((rc = read_tensor(rd, gi, f.off, f.off + f.len))) return rc;
            break;
        case 15:
            EXPECT(rd, &pr, &f, OK_PB_LEN);
            if ((rc = read_sparse(rd, gi, f.off, f.off + f.len))) return rc;
            break;
        case 11:
        case 12:
            EXPECT(rd, &pr, &f, OK_PB_LEN);
            if ((rc = read_value_info(rd, gi, f.number == 12, f.off, f.off + f.len))) return rc;
            break;
        case 10:
        case 13: EXPECT(rd, &pr, &f, OK_PB_LEN); break;
        default: break;
        }
    }
    m->graphs[gi].init_count = m->n_inits - m->graphs[gi].init_first;
    m->graphs[gi].value_count = m->n_values - m->graphs[gi].value_first;

    /* Pass 2: subgraphs, in node order (already validated in pass 1). */
    pr = ok_pb_sub(rd->buf, off, end, &GRAPH);
    index = 0;
    while (pr.pos < pr.end) {
        NEXT(rd, &pr, &f);
        if (f.number != 1) continue;
        if ((rc = read_node_graphs(rd, gi, index++, f.off, f.off + f.len))) return rc;
    }
    return OK_OK;
}

static int read_model(reader *rd, size_t len) {
    ok_model *m = rd->m;
    ok_pb_reader pr = ok_pb_sub(rd->buf, 0, len, &MODEL);
    ok_pb_field f, graph;
    int has_graph = 0, rc;
    char *path;

    while (pr.pos < pr.end) {
        NEXT(rd, &pr, &f);
        switch (f.number) {
        case 1:
            EXPECT(rd, &pr, &f, OK_PB_VARINT);
            m->ir_version = (int64_t)f.value;
            break;
        case 5:
            EXPECT(rd, &pr, &f, OK_PB_VARINT);
            m->model_version = (int64_t)f.value;
            break;
        case 2:
        case 3:
        case 4:
        case 6:
            EXPECT(rd, &pr, &f, OK_PB_LEN);
            if (f.number == 2) m->producer_name = span_of(&f);
            else if (f.number == 3) m->producer_version = span_of(&f);
            else if (f.number == 4) m->domain = span_of(&f);
            break;
        case 7:
            EXPECT(rd, &pr, &f, OK_PB_LEN);
            graph = f;
            has_graph = 1;
            break;
        case 8: {
            ok_pb_reader orr;
            ok_pb_field of;
            ok_opset o;
            EXPECT(rd, &pr, &f, OK_PB_LEN);
            o.domain.off = f.off;
            o.domain.len = 0;
            o.version = 0;
            orr = ok_pb_sub(rd->buf, f.off, f.off + f.len, &OPSET);
            while (orr.pos < orr.end) {
                NEXT(rd, &orr, &of);
                if (of.number == 1) {
                    EXPECT(rd, &orr, &of, OK_PB_LEN);
                    o.domain = span_of(&of);
                } else if (of.number == 2) {
                    EXPECT(rd, &orr, &of, OK_PB_VARINT);
                    o.version = (int64_t)of.value;
                }
            }
            if ((rc = GROW(rd, m->opsets, m->n_opsets, rd->cap_opsets))) return rc;
            m->opsets[m->n_opsets++] = o;
            break;
        }
        case 14: {
            ok_kv kv;
            EXPECT(rd, &pr, &f, OK_PB_LEN);
            if ((rc = read_kv(rd, f.off, f.off + f.len, &kv.key, &kv.value))) return rc;
            if ((rc = GROW(rd, m->metadata, m->n_metadata, rd->cap_meta))) return rc;
            m->metadata[m->n_metadata++] = kv;
            break;
        }
        default: break;
        }
    }
    if (!has_graph)
        return ok_pb_fail(rd->err, OK_ERR_NOT_ONNX, 0,
                          "not onnx: %zu bytes parse as protobuf but hold no ModelProto.graph", len);
    path = malloc(5);
    if (!path) return ok_pb_fail(rd->err, OK_ERR_NOMEM, 0, "out of memory");
    memcpy(path, "main", 5);
    if ((rc = read_graph(rd, graph.off, graph.off + graph.len, OK_ONNX_NONE, 0, path, 4))) return rc;
    return ok_onnx_resolve_scopes(m, rd->buf, rd->defs, rd->n_defs, rd->refs, rd->n_refs, rd->err);
}

int ok_onnx_read(const uint8_t *buf, size_t len, ok_model **out, ok_error *err) {
    reader rd;
    ok_model *m;
    int rc;

    if (err) {
        err->code = OK_OK;
        err->offset = 0;
        err->message[0] = '\0';
    }
    if (!out) return ok_pb_fail(err, OK_ERR_INVALID_ARG, 0, "invalid argument: out is NULL");
    *out = NULL;
    if (!buf && len) return ok_pb_fail(err, OK_ERR_INVALID_ARG, 0, "invalid argument: buf is NULL");
    if (len == 0) return ok_pb_fail(err, OK_ERR_EMPTY, 0, "empty: the model has no bytes");
    m = calloc(1, sizeof *m);
    if (!m) return ok_pb_fail(err, OK_ERR_NOMEM, 0, "out of memory");
    m->buf = buf;
    m->len = len;
    m->total_len = len;
    memset(&rd, 0, sizeof rd);
    rd.buf = buf;
    rd.m = m;
    rd.err = err;
    rd.path_budget = 8 * (uint64_t)len + (1u << 20);
    rc = read_model(&rd, len);
    free(rd.defs);
    free(rd.refs);
    if (rc) {
        ok_model_free(m);
        return rc;
    }
    *out = m;
    return OK_OK;
}
