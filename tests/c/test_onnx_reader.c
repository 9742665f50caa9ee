/* Unit tests for the ONNX reader (tests/c/oracle/onnx_reader.c), on ModelProto bytes
 * built here with a tiny protobuf writer. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "onnx_reader.h"

/* ---- a tiny protobuf writer (tests abort on OOM) ---- */
typedef struct pw {
    uint8_t *b;
    size_t n, cap;
} pw;

static void pw_raw(pw *w, const void *p, size_t n) {
    if (w->n + n > w->cap) {
        size_t c = w->cap ? w->cap : 64;
        while (c < w->n + n) c *= 2;
        w->b = realloc(w->b, c);
        if (!w->b) abort();
        w->cap = c;
    }
    if (n) memcpy(w->b + w->n, p, n);
    w->n += n;
}
static void pw_varint(pw *w, uint64_t v) {
    uint8_t t[10];
    size_t i = 0;
    do {
        t[i] = (uint8_t)(v & 0x7f);
        v >>= 7;
        if (v) t[i] |= 0x80;
        i++;
    } while (v);
    pw_raw(w, t, i);
}
static void pw_int(pw *w, uint32_t field, uint64_t v) {
    pw_varint(w, (uint64_t)field << 3);
    pw_varint(w, v);
}
static void pw_bytes(pw *w, uint32_t field, const void *p, size_t n) {
    pw_varint(w, ((uint64_t)field << 3) | 2);
    pw_varint(w, n);
    pw_raw(w, p, n);
}
static void pw_str(pw *w, uint32_t field, const char *s) { pw_bytes(w, field, s, strlen(s)); }
/* Appends sub as a LEN field and frees it. */
static void pw_msg(pw *w, uint32_t field, pw *sub) {
    pw_bytes(w, field, sub->b, sub->n);
    free(sub->b);
    memset(sub, 0, sizeof *sub);
}
static void pw_free(pw *w) {
    free(w->b);
    memset(w, 0, sizeof *w);
}

/* NodeProto with up to 3 inputs, 1 output. */
static void node(pw *g, const char *name, const char *op, const char *domain, const char *in0,
                 const char *in1, const char *out, pw *attrs) {
    pw n = {0};
    if (in0) pw_str(&n, 1, in0);
    if (in1) pw_str(&n, 1, in1);
    if (out) pw_str(&n, 2, out);
    if (name) pw_str(&n, 3, name);
    pw_str(&n, 4, op);
    if (domain) pw_str(&n, 7, domain);
    if (attrs) pw_raw(&n, attrs->b, attrs->n), pw_free(attrs);
    pw_msg(g, 1, &n);
}
/* AttributeProto with a single graph (g) appended to *attrs. */
static void attr_g(pw *attrs, const char *name, pw *graph) {
    pw a = {0};
    pw_str(&a, 1, name);
    pw_msg(&a, 6, graph);
    pw_int(&a, 20, 5); /* type GRAPH */
    pw_msg(attrs, 5, &a);
}
/* Float initializer with raw_data of n*4 bytes; dims given. */
static void init_f32(pw *g, const char *name, int ndims, const int64_t *dims, int packed) {
    pw t = {0}, pk = {0};
    uint64_t n = 1;
    uint8_t *raw;
    for (int i = 0; i < ndims; i++) {
        n *= (uint64_t)dims[i];
        if (packed) pw_varint(&pk, (uint64_t)dims[i]);
        else pw_int(&t, 1, (uint64_t)dims[i]);
    }
    if (packed) pw_msg(&t, 1, &pk);
    pw_int(&t, 2, 1);
    pw_str(&t, 8, name);
    raw = calloc(1, (size_t)n * 4 + 1);
    pw_bytes(&t, 9, raw, (size_t)n * 4);
    free(raw);
    pw_msg(g, 5, &t);
}
/* Initializer of dtype with dims, no data at all. */
static void init_typed(pw *g, const char *name, int32_t dtype, int ndims, const int64_t *dims) {
    pw t = {0};
    for (int i = 0; i < ndims; i++) pw_int(&t, 1, (uint64_t)dims[i]);
    pw_int(&t, 2, (uint64_t)dtype);
    pw_str(&t, 8, name);
    pw_msg(g, 5, &t);
}
static void value_info(pw *g, uint32_t field, const char *name, int32_t et, int ndims,
                       const char *const *dims) {
    pw v = {0}, type = {0}, tt = {0}, shape = {0};
    pw_str(&v, 1, name);
    pw_int(&tt, 1, (uint64_t)et);
    if (ndims >= 0) {
        for (int i = 0; i < ndims; i++) {
            pw d = {0};
            if (!dims[i]) { /* neither */
            } else if (dims[i][0] >= '0' && dims[i][0] <= '9') {
                pw_int(&d, 1, (uint64_t)strtoull(dims[i], NULL, 10));
            } else {
                pw_str(&d, 2, dims[i]);
            }
            pw_msg(&shape, 1, &d);
        }
        pw_msg(&tt, 2, &shape);
    }
    pw_msg(&type, 1, &tt);
    pw_msg(&v, 2, &type);
    pw_msg(g, field, &v);
}
static void model_of(pw *m, pw *graph) {
    pw o = {0};
    pw_int(m, 1, 8);
    pw_str(m, 2, "unit");
    pw_str(&o, 1, "");
    pw_int(&o, 2, 17);
    pw_msg(m, 8, &o);
    pw_msg(m, 7, graph);
}

static ok_model *read_ok(const pw *m) {
    ok_model *out = NULL;
    ok_error e;
    int rc = ok_onnx_read(m->b, m->n, &out, &e);
    CHECK_EQ_INT(rc, OK_OK);
    if (rc) fprintf(stderr, "  error: %s\n", e.message);
    return out;
}
static int span_is(const ok_model *m, ok_span s, const char *str) {
    return s.len == strlen(str) && memcmp(m->buf + s.off, str, s.len) == 0;
}

static void test_basic_errors(void) {
    ok_model *m = (ok_model *)1;
    ok_error e;
    static const uint8_t only_ir[] = {0x08, 0x08};
    static const uint8_t junk[] = {'G', 'I', 'F', '8'}; /* field 8, wire type 7 */
    static const uint8_t wrong_wire[] = {0x38, 0x01};   /* graph as varint */
    CHECK_EQ_INT(ok_onnx_read(only_ir, 0, &m, &e), OK_ERR_EMPTY);
    CHECK(m == NULL);
    CHECK_EQ_INT(ok_onnx_read(only_ir, 2, &m, &e), OK_ERR_NOT_ONNX);
    CHECK_EQ_INT(e.code, OK_ERR_NOT_ONNX);
    CHECK_EQ_INT(ok_onnx_read(junk, 4, &m, &e), OK_ERR_BAD_WIRE_TYPE);
    CHECK_EQ_INT(ok_onnx_read(wrong_wire, 2, &m, &e), OK_ERR_BAD_WIRE_TYPE);
    CHECK(strstr(e.message, "model.graph") != NULL);
    CHECK_EQ_INT(ok_onnx_read(only_ir, 2, NULL, &e), OK_ERR_INVALID_ARG);
    CHECK_EQ_INT(ok_onnx_read(only_ir, 2, &m, NULL), OK_ERR_NOT_ONNX);
}

static void test_main_graph(void) {
    pw g = {0}, m = {0}, t = {0}, kv = {0}, o = {0}, sp = {0}, spv = {0};
    static const int64_t d23[] = {2, 3}, d5[] = {5}, d3[] = {3}, d7[] = {7};
    static const char *const xdims[] = {"batch", "4", NULL};
    ok_model *r;
    float fd[2] = {1, 2};

    node(&g, "n0", "MatMul", NULL, "x", "W", "h", NULL);
    node(&g, "", "Add", "", "h", "B", "y", NULL);
    node(&g, NULL, "If", "ai.onnx", "c", NULL, "z", NULL);      /* counted */
    node(&g, NULL, "Loop", "com.other", "c", NULL, "z2", NULL); /* not counted */
    pw_str(&g, 2, "main_graph");
    init_f32(&g, "W", 2, d23, 1);    /* packed dims */
    init_f32(&g, "B", 2, d23, 0);    /* unpacked dims */
    init_typed(&g, "s", 8, 1, d5);   /* STRING: 0 bytes */
    init_typed(&g, "i4", 22, 1, d5); /* INT4: ceil(5/2) = 3 */
    init_typed(&g, "u4", 21, 1, d5);
    init_typed(&g, "f4", 23, 1, d3); /* FLOAT4E2M1: 2 */
    init_typed(&g, "c128", 15, 1, d3);
    init_typed(&g, "unk", 99, 1, d3);     /* unknown dtype: 0 */
    init_typed(&g, "scalar", 7, 0, NULL); /* int64 scalar: 8 */
    /* float_data (field 4, packed fixed32) and no raw_data */
    pw_int(&t, 1, 2);
    pw_int(&t, 2, 1);
    pw_bytes(&t, 4, fd, sizeof fd);
    pw_str(&t, 8, "fdata");
    pw_int(&t, 1000, 1);             /* unknown varint field */
    pw_varint(&t, (1001u << 3) | 5); /* unknown fixed32 */
    pw_raw(&t, "abcd", 4);
    pw_varint(&t, (1002u << 3) | 1); /* unknown fixed64 */
    pw_raw(&t, "abcdefgh", 8);
    pw_msg(&g, 5, &t);
    /* external: location + offset, no length */
    init_typed(&g, "placeholder", 1, 0, NULL);
    {
        pw e = {0};
        pw_int(&t, 1, 7);
        pw_int(&t, 2, 1);
        pw_str(&t, 8, "ext");
        pw_str(&kv, 1, "location");
        pw_str(&kv, 2, "w.bin");
        pw_msg(&t, 13, &kv);
        pw_str(&kv, 1, "offset");
        pw_str(&kv, 2, "4096");
        pw_msg(&t, 13, &kv);
        pw_str(&kv, 1, "checksum");
        pw_str(&kv, 2, "x");
        pw_msg(&t, 13, &kv);
        pw_int(&t, 14, 1);
        pw_msg(&g, 5, &t);
        (void)e;
    }
    /* sparse initializer */
    init_typed(&spv, "sp_values", 1, 1, d7);
    pw_raw(&sp, spv.b + 1 + 1, spv.n - 2); /* strip the outer tag+len (short) */
    pw_free(&spv);
    {
        pw s2 = {0};
        pw_msg(&s2, 1, &sp);
        pw_msg(&g, 15, &s2);
    }
    value_info(&g, 11, "x", 1, 3, xdims);
    value_info(&g, 11, "c", 9, -1, NULL);
    value_info(&g, 12, "y", 1, 0, NULL);

    pw_int(&m, 1, 9);
    pw_str(&m, 2, "prod");
    pw_str(&m, 3, "2.0");
    pw_str(&m, 4, "dom");
    pw_int(&m, 5, 3);
    pw_str(&o, 1, "");
    pw_int(&o, 2, 13);
    pw_msg(&m, 8, &o);
    pw_str(&o, 1, "com.microsoft");
    pw_int(&o, 2, 1);
    pw_msg(&m, 8, &o);
    pw_msg(&m, 7, &g);
    pw_str(&kv, 1, "k");
    pw_str(&kv, 2, "v");
    pw_msg(&m, 14, &kv);
    pw_str(&m, 25, "function bytes are skipped");

    r = read_ok(&m);
    if (r) {
        const ok_graph *mg = &r->graphs[0];
        CHECK_EQ_INT(r->ir_version, 9);
        CHECK_EQ_INT(r->model_version, 3);
        CHECK(span_is(r, r->producer_name, "prod"));
        CHECK(span_is(r, r->producer_version, "2.0"));
        CHECK(span_is(r, r->domain, "dom"));
        CHECK_EQ_INT(r->n_opsets, 2);
        CHECK(span_is(r, r->opsets[1].domain, "com.microsoft"));
        CHECK_EQ_INT(r->n_metadata, 1);
        CHECK(span_is(r, r->metadata[0].value, "v"));
        CHECK_EQ_INT(r->n_graphs, 1);
        CHECK_EQ_STR(mg->path, "main");
        CHECK(span_is(r, mg->name, "main_graph"));
        CHECK_EQ_INT(mg->nodes, 4);
        CHECK_EQ_INT(r->n_if, 1);
        CHECK_EQ_INT(r->n_loop, 0);
        CHECK_EQ_INT(mg->init_count, 12);
        CHECK_EQ_INT(mg->sparse_count, 1);
        CHECK_EQ_INT(r->n_inits, 12);
        if (r->n_inits == 12) {
            const ok_initializer *w = &r->inits[0], *b = &r->inits[1];
            CHECK(span_is(r, w->name, "W"));
            CHECK_EQ_INT(w->ndims, 2);
            CHECK_EQ_INT(r->dims[w->dim_first + 1], 3);
            CHECK_EQ_INT(w->bytes, 24);
            CHECK(w->has_raw);
            CHECK_EQ_INT(w->raw.len, 24);
            CHECK(w->raw.off + w->raw.len <= r->len);
            CHECK_EQ_INT(b->ndims, 2);
            CHECK_EQ_INT(b->bytes, 24);
            CHECK_EQ_INT(r->inits[2].bytes, 0);
            CHECK_EQ_INT(r->inits[3].bytes, 3);
            CHECK_EQ_INT(r->inits[4].bytes, 3);
            CHECK_EQ_INT(r->inits[5].bytes, 2);
            CHECK_EQ_INT(r->inits[6].bytes, 48);
            CHECK_EQ_INT(r->inits[7].bytes, 0);
            CHECK_EQ_INT(r->inits[8].bytes, 8);
            CHECK(span_is(r, r->inits[9].name, "fdata"));
            CHECK_EQ_INT(r->inits[9].bytes, 8);
            CHECK_EQ_INT(r->inits[9].has_raw, 0);
            CHECK(span_is(r, r->inits[11].name, "ext"));
            CHECK(r->inits[11].is_external);
            CHECK(span_is(r, r->inits[11].ext_location, "w.bin"));
            CHECK_EQ_INT(r->inits[11].ext_offset, 4096);
            CHECK_EQ_INT(r->inits[11].ext_length, 0);
            CHECK_EQ_INT(r->inits[11].bytes, 28);
        }
        CHECK_EQ_INT(mg->init_bytes, 24 + 24 + 3 + 3 + 2 + 48 + 8 + 8 + 4 + 28);
        CHECK_EQ_INT(mg->value_count, 3);
        if (r->n_values == 3) {
            const ok_value_info *x = &r->values[0];
            CHECK(span_is(r, x->name, "x"));
            CHECK_EQ_INT(x->elem_type, 1);
            CHECK(x->has_shape);
            CHECK_EQ_INT(x->ndims, 3);
            CHECK_EQ_INT(r->vdims[x->dim_first].kind, OK_DIM_PARAM);
            CHECK(span_is(r, r->vdims[x->dim_first].param, "batch"));
            CHECK_EQ_INT(r->vdims[x->dim_first + 1].kind, OK_DIM_VALUE);
            CHECK_EQ_INT(r->vdims[x->dim_first + 1].value, 4);
            CHECK_EQ_INT(r->vdims[x->dim_first + 2].kind, OK_DIM_UNKNOWN);
            CHECK_EQ_INT(r->values[1].has_shape, 0);
            CHECK_EQ_INT(r->values[2].is_output, 1);
            CHECK_EQ_INT(r->values[2].has_shape, 1);
            CHECK_EQ_INT(r->values[2].ndims, 0);
        }
        CHECK_EQ_INT(r->n_shared, 0);
    }
    ok_model_free(r);

    /* Every prefix: no out-of-bounds read (ASan), and either a clean error
     * or (cut on a field boundary) a model. */
    for (size_t n = 0; n < m.n; n++) {
        ok_model *p = NULL;
        ok_error e;
        int rc = ok_onnx_read(m.b, n, &p, &e);
        CHECK(rc == OK_OK || rc == OK_ERR_TRUNCATED || rc == OK_ERR_EMPTY || rc == OK_ERR_NOT_ONNX ||
              rc == OK_ERR_BAD_VARINT || rc == OK_ERR_BAD_WIRE_TYPE);
        CHECK(rc == OK_OK || (p == NULL && e.message[0] != '\0'));
        ok_model_free(p);
    }
    pw_free(&m);
}

/* main: W, S, V initializers; If "cond" (then: uses W, V; else: defines S
 * and V and uses them); an unnamed custom node with graphs [g0, g1]. */
static void test_subgraphs_and_sharing(void) {
    pw g = {0}, then_g = {0}, else_g = {0}, attrs = {0}, m = {0}, g0 = {0}, g1 = {0}, a = {0};
    pw inner = {0}, inner_attrs = {0};
    static const int64_t d4[] = {4};
    ok_model *r;

    node(&then_g, "t_mm", "MatMul", NULL, "x", "W", "t1", NULL);
    node(&then_g, "t_add", "Add", NULL, "t1", "V", "t_out", NULL);
    /* a nested If inside then, unnamed, index 2: uses W from two levels up */
    node(&inner, "deep", "Mul", NULL, "W", "S", "d_out", NULL);
    attr_g(&inner_attrs, "then_branch", &inner);
    node(&then_g, NULL, "If", NULL, "c", NULL, "t_if", &inner_attrs);

    init_f32(&else_g, "S", 1, d4, 1);          /* shadows outer S */
    value_info(&else_g, 11, "V", 1, -1, NULL); /* input V shadows outer V */
    node(&else_g, "e_add", "Add", NULL, "S", "V", "e_out", NULL);
    node(&else_g, "e_mul", "Mul", NULL, "e_out", "S", "e_out2", NULL);

    attr_g(&attrs, "else_branch", &else_g);
    attr_g(&attrs, "then_branch", &then_g);
    node(&g, "mm", "MatMul", NULL, "x", "W", "xw", NULL);
    node(&g, "add", "Add", NULL, "xw", "S", "xs", NULL);
    node(&g, "cond", "If", NULL, "c", NULL, "y", &attrs);
    node(&g, "v_use", "Add", NULL, "y", "V", "yv", NULL);

    node(&g0, NULL, "Relu", NULL, "V", NULL, "g0o", NULL);
    node(&g1, NULL, "Relu", NULL, "yv", NULL, "g1o", NULL); /* main output: not init */
    pw_str(&a, 1, "branches");
    pw_msg(&a, 11, &g0);
    pw_msg(&a, 11, &g1);
    pw_msg(&attrs, 5, &a);
    node(&g, "", "Branches", "custom", "x", NULL, "c_out", &attrs);

    init_f32(&g, "W", 1, d4, 1);
    init_f32(&g, "S", 1, d4, 1);
    init_f32(&g, "V", 1, d4, 1);
    model_of(&m, &g);
    r = read_ok(&m);
    if (r) {
        CHECK_EQ_INT(r->n_graphs, 6);
        if (r->n_graphs == 6) {
            CHECK_EQ_STR(r->graphs[0].path, "main");
            CHECK_EQ_STR(r->graphs[1].path, "main/cond.else_branch");
            CHECK_EQ_STR(r->graphs[2].path, "main/cond.then_branch");
            CHECK_EQ_STR(r->graphs[3].path, "main/cond.then_branch/If#2.then_branch");
            CHECK_EQ_STR(r->graphs[4].path, "main/Branches#4.branches[0]");
            CHECK_EQ_STR(r->graphs[5].path, "main/Branches#4.branches[1]");
            CHECK_EQ_INT(r->graphs[3].depth, 2);
            CHECK_EQ_INT(r->graphs[3].parent, 2);
            CHECK_EQ_INT(r->graphs[1].init_first, 3); /* main's come first */
        }
        CHECK_EQ_INT(r->total_nodes, 5 + 2 + 3 + 1 + 1 + 1);
        CHECK_EQ_INT(r->n_if, 2);
        /* inits: 0 W, 1 S, 2 V (main), 3 S (else) */
        CHECK_EQ_INT(r->n_inits, 4);
        if (r->n_inits == 4) {
            CHECK_EQ_INT(r->inits[0].ref_graphs, 3); /* main, then, deep */
            CHECK_EQ_INT(r->inits[1].ref_graphs, 2); /* main, deep */
            CHECK_EQ_INT(r->inits[2].ref_graphs, 3); /* main, then, g0 */
            CHECK_EQ_INT(r->inits[3].ref_graphs, 1); /* else only */
        }
        CHECK_EQ_INT(r->n_shared, 8);
        if (r->n_shared == 8) {
            CHECK_EQ_INT(r->shared[0].init, 0);
            CHECK_EQ_INT(r->shared[0].graph, 0);
            CHECK_EQ_INT(r->shared[1].graph, 2);
            CHECK_EQ_INT(r->shared[2].graph, 3);
            CHECK_EQ_INT(r->shared[3].init, 1);
            CHECK_EQ_INT(r->shared[4].graph, 3);
            CHECK_EQ_INT(r->shared[7].graph, 4);
        }
    }
    ok_model_free(r);
    pw_free(&m);
}

/* Shadowing by a node output in the inner graph. */
static void test_shadow_by_node_output(void) {
    pw g = {0}, sub = {0}, attrs = {0}, m = {0};
    static const int64_t d1[] = {1};
    ok_model *r;
    node(&sub, "mk", "Constant", NULL, NULL, NULL, "W", NULL);
    node(&sub, "use", "Relu", NULL, "W", NULL, "o", NULL);
    attr_g(&attrs, "body", &sub);
    node(&g, "loop", "Loop", NULL, "W", NULL, "y", &attrs);
    init_f32(&g, "W", 1, d1, 0);
    model_of(&m, &g);
    r = read_ok(&m);
    if (r) {
        CHECK_EQ_INT(r->n_loop, 1);
        CHECK_EQ_INT(r->inits[0].ref_graphs, 1);
        CHECK_EQ_INT(r->n_shared, 0);
        CHECK_EQ_STR(r->graphs[1].path, "main/loop.body");
    }
    ok_model_free(r);
    pw_free(&m);
}

/* depth levels of nesting: If nodes each holding the next graph. */
static int nested_model(int depth, pw *m) {
    pw g = {0};
    ok_model *r = NULL;
    ok_error e;
    int rc;
    node(&g, "leaf", "Relu", NULL, "x", NULL, "y", NULL);
    for (int i = 0; i < depth; i++) {
        pw outer = {0}, attrs = {0};
        attr_g(&attrs, "then_branch", &g);
        node(&outer, NULL, "If", NULL, "c", NULL, "y", &attrs);
        g = outer;
    }
    model_of(m, &g);
    rc = ok_onnx_read(m->b, m->n, &r, &e);
    if (r) CHECK_EQ_INT(r->n_graphs, depth + 1);
    ok_model_free(r);
    return rc;
}

static void test_depth(void) {
    pw m = {0};
    CHECK_EQ_INT(nested_model(OK_ONNX_MAX_GRAPH_DEPTH, &m), OK_OK);
    pw_free(&m);
    CHECK_EQ_INT(nested_model(OK_ONNX_MAX_GRAPH_DEPTH + 1, &m), OK_ERR_TOO_DEEP);
    pw_free(&m);
}

static void test_malformed(void) {
    pw g = {0}, m = {0}, t = {0};
    ok_model *r = (ok_model *)1;
    ok_error e;
    static const int64_t neg[] = {-1}, big[] = {INT64_MAX / 2, 4};

    /* graph.node with a length past the end of the graph */
    pw_varint(&g, (1 << 3) | 2);
    pw_varint(&g, 5000);
    pw_raw(&g, "xx", 2);
    model_of(&m, &g);
    CHECK_EQ_INT(ok_onnx_read(m.b, m.n, &r, &e), OK_ERR_TRUNCATED);
    CHECK(r == NULL);
    CHECK(strstr(e.message, "graph.node length 5000 runs past end") != NULL);
    CHECK(strncmp(e.message, "truncated at byte ", 18) == 0);
    CHECK(e.offset > 0 && e.offset < m.n);
    pw_free(&m);

    /* graph.node as a varint */
    pw_int(&g, 1, 3);
    model_of(&m, &g);
    CHECK_EQ_INT(ok_onnx_read(m.b, m.n, &r, &e), OK_ERR_BAD_WIRE_TYPE);
    pw_free(&m);

    /* overlong varint inside a tensor */
    pw_varint(&t, 2 << 3);
    pw_raw(&t, "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 11);
    pw_msg(&g, 5, &t);
    model_of(&m, &g);
    CHECK_EQ_INT(ok_onnx_read(m.b, m.n, &r, &e), OK_ERR_BAD_VARINT);
    pw_free(&m);

    init_typed(&g, "n", 1, 1, neg);
    model_of(&m, &g);
    CHECK_EQ_INT(ok_onnx_read(m.b, m.n, &r, &e), OK_ERR_LIMIT);
    pw_free(&m);

    init_typed(&g, "big", 1, 2, big);
    model_of(&m, &g);
    CHECK_EQ_INT(ok_onnx_read(m.b, m.n, &r, &e), OK_ERR_LIMIT);
    pw_free(&m);

    /* external offset that is not a decimal */
    {
        pw kv = {0};
        pw_str(&t, 8, "e");
        pw_str(&kv, 1, "offset");
        pw_str(&kv, 2, "12a");
        pw_msg(&t, 13, &kv);
        pw_int(&t, 14, 1);
        pw_msg(&g, 5, &t);
        model_of(&m, &g);
        CHECK_EQ_INT(ok_onnx_read(m.b, m.n, &r, &e), OK_ERR_CORRUPT);
        pw_free(&m);
    }
    /* graph field present but empty: a model with an empty main graph */
    model_of(&m, &g);
    r = read_ok(&m);
    if (r) CHECK_EQ_INT(r->graphs[0].nodes, 0);
    ok_model_free(r);
    pw_free(&m);
}

int main(void) {
    test_basic_errors();
    test_main_graph();
    test_subgraphs_and_sharing();
    test_shadow_by_node_output();
    test_depth();
    test_malformed();
    return CHECK_DONE();
}
