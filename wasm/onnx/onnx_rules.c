/* The rules both ONNX readers apply (onnx_model.h): the message descriptors
 * that word errors ("graph.node"), element sizes, external_data numbers and
 * ONNX scoping of shared initializers. The streaming reader (onnx_stream.c)
 * is the core's; the one-shot reader (tests/c/oracle/) is its test oracle and
 * shares these, so the two cannot drift apart on a rule. Also the model's
 * own functions (ok_model_free, ok_model_totals). */
#include "onnx_rules.h"

#include <stdlib.h>
#include <string.h>

#include "pb_wire.h"

/* Field names, for error messages only. */
static const char *const model_f[] = {NULL,
                                      "ir_version",
                                      "producer_name",
                                      "producer_version",
                                      "domain",
                                      "model_version",
                                      "doc_string",
                                      "graph",
                                      "opset_import",
                                      NULL,
                                      NULL,
                                      NULL,
                                      NULL,
                                      NULL,
                                      "metadata_props"};
static const char *const graph_f[] = {
    NULL, "node", "name",       NULL,    NULL,     "initializer", NULL, NULL,
    NULL, NULL,   "doc_string", "input", "output", "value_info",  NULL, "sparse_initializer"};
static const char *const node_f[] = {NULL,      "input",     "output",     "name",
                                     "op_type", "attribute", "doc_string", "domain"};
static const char *const attr_f[] = {NULL, "name", NULL, NULL, NULL, NULL,
                                     "g",  NULL,   NULL, NULL, NULL, "graphs"};
static const char *const tensor_f[] = {NULL,           "dims", "data_type", NULL, NULL, NULL, NULL,
                                       NULL,           "name", "raw_data",  NULL, NULL, NULL, "external_data",
                                       "data_location"};
static const char *const kv_f[] = {NULL, "key", "value"};
static const char *const opset_f[] = {NULL, "domain", "version"};
static const char *const vi_f[] = {NULL, "name", "type"};
static const char *const type_f[] = {NULL, "tensor_type"};
static const char *const ttype_f[] = {NULL, "elem_type", "shape"};
static const char *const shape_f[] = {NULL, "dim"};
static const char *const dim_f[] = {NULL, "dim_value", "dim_param"};
static const char *const sparse_f[] = {NULL, "values"};

#define MSG(n, f) \
    { n, f, (uint32_t)(sizeof f / sizeof f[0]) }
/* Shared by both readers (onnx_rules.h), so both word their errors alike. */
const ok_pb_msg ok_onnx_msg_model = MSG("model", model_f);
const ok_pb_msg ok_onnx_msg_graph = MSG("graph", graph_f);
const ok_pb_msg ok_onnx_msg_node = MSG("node", node_f);
const ok_pb_msg ok_onnx_msg_attr = MSG("attribute", attr_f);
const ok_pb_msg ok_onnx_msg_tensor = MSG("tensor", tensor_f);
const ok_pb_msg ok_onnx_msg_kv = MSG("entry", kv_f);
const ok_pb_msg ok_onnx_msg_opset = MSG("opset_import", opset_f);
const ok_pb_msg ok_onnx_msg_vinfo = MSG("value_info", vi_f);
const ok_pb_msg ok_onnx_msg_type = MSG("type", type_f);
const ok_pb_msg ok_onnx_msg_ttype = MSG("tensor_type", ttype_f);
const ok_pb_msg ok_onnx_msg_shape = MSG("shape", shape_f);
const ok_pb_msg ok_onnx_msg_dim = MSG("dim", dim_f);
const ok_pb_msg ok_onnx_msg_sparse = MSG("sparse_initializer", sparse_f);

typedef ok_onnx_def def_entry;
typedef ok_onnx_ref ref_entry;

unsigned ok_onnx_dtype_bits(int32_t t) {
    switch (t) {
    case 1:
    case 6:
    case 12: return 32; /* FLOAT INT32 UINT32 */
    case 2:
    case 3:
    case 9: return 8; /* UINT8 INT8 BOOL */
    case 4:
    case 5:
    case 10:
    case 16: return 16; /* (U)INT16 FLOAT16 BFLOAT16 */
    case 7:
    case 11:
    case 13:
    case 14: return 64;  /* INT64 DOUBLE UINT64 COMPLEX64 */
    case 15: return 128; /* COMPLEX128 */
    case 17:
    case 18:
    case 19:
    case 20: return 8; /* FLOAT8 variants */
    case 21:
    case 22:
    case 23: return 4; /* UINT4 INT4 FLOAT4E2M1 */
    default: return 0; /* UNDEFINED STRING unknown */
    }
}

int ok_onnx_tensor_bytes(int32_t data_type, uint64_t n, uint64_t *out) {
    unsigned bits = ok_onnx_dtype_bits(data_type);
    uint64_t b;
    if (bits == 4) {
        b = n / 2 + (n & 1); /* ceil(n/2) without overflow */
    } else {
        uint64_t sz = bits / 8;
        if (sz && n > (uint64_t)INT64_MAX / sz) return OK_ERR_LIMIT;
        b = n * sz;
    }
    if (b > (uint64_t)INT64_MAX) return OK_ERR_LIMIT;
    *out = b;
    return OK_OK;
}

/* Parses a decimal string of external_data; "" is not a number. */
int ok_onnx_parse_decimal(const uint8_t *s, size_t n, uint64_t *out) {
    uint64_t v = 0;
    if (n == 0) return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned d = (unsigned)s[i] - '0';
        if (d > 9 || v > (UINT64_MAX - d) / 10) return 0;
        v = v * 10 + d;
    }
    *out = v;
    return 1;
}

/* ---- scoping ------------------------------------------------------------ */

static uint32_t hash_name(const uint8_t *p, size_t n) {
    uint32_t h = 2166136261u; /* FNV-1a */
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 16777619u;
    return h;
}

static uint32_t hash_mix(uint32_t h, uint32_t graph) {
    h ^= graph * 0x9e3779b9u;
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    return h;
}

static int pair_cmp(const void *a, const void *b) {
    const ok_shared_ref *x = a, *y = b;
    if (x->init != y->init) return x->init < y->init ? -1 : 1;
    if (x->graph != y->graph) return x->graph < y->graph ? -1 : 1;
    return 0;
}

int ok_onnx_resolve_scopes(ok_model *m, const uint8_t *buf, const ok_onnx_def *defs, uint32_t n_defs,
                           const ok_onnx_ref *refs, uint32_t n_refs, ok_error *err) {
    uint32_t cap = 16, mask, *slots, npairs = 0, pcap = 0, keep = 0;
    ok_shared_ref *pairs = NULL;
    int rc = OK_OK;

    while (cap < 2 * (uint64_t)n_defs + 2) cap *= 2; /* n_defs < 2^28 */
    mask = cap - 1;
    slots = malloc((size_t)cap * sizeof *slots);
    if (!slots) return ok_pb_fail(err, OK_ERR_NOMEM, 0, "out of memory");
    memset(slots, 0xff, (size_t)cap * sizeof *slots);

    /* Insert defs; an initializer beats other definitions of the same name
     * in the same graph, and the first initializer beats later ones. */
    for (uint32_t i = 0; i < n_defs; i++) {
        const def_entry *d = &defs[i];
        uint32_t h = hash_mix(hash_name(buf + d->name.off, d->name.len), d->graph);
        for (;; h++) {
            uint32_t s = slots[h & mask];
            const def_entry *e;
            if (s == OK_ONNX_NONE) {
                slots[h & mask] = i;
                break;
            }
            e = &defs[s];
            if (e->graph == d->graph && e->name.len == d->name.len &&
                memcmp(buf + e->name.off, buf + d->name.off, d->name.len) == 0) {
                if (e->init == OK_ONNX_NONE && d->init != OK_ONNX_NONE) slots[h & mask] = i;
                break;
            }
        }
    }

    for (uint32_t i = 0; i < n_refs && rc == OK_OK; i++) {
        const ref_entry *r = &refs[i];
        uint32_t hn = hash_name(buf + r->name.off, r->name.len);
        uint32_t g = r->graph, found = OK_ONNX_NONE;
        int stop = 0;
        while (g != OK_ONNX_NONE && !stop) {
            uint32_t h = hash_mix(hn, g);
            for (;; h++) {
                uint32_t s = slots[h & mask];
                const def_entry *e;
                if (s == OK_ONNX_NONE) break;
                e = &defs[s];
                if (e->graph == g && e->name.len == r->name.len &&
                    memcmp(buf + e->name.off, buf + r->name.off, r->name.len) == 0) {
                    found = e->init;
                    stop = 1;
                    break;
                }
            }
            g = m->graphs[g].parent;
        }
        if (found == OK_ONNX_NONE) continue;
        if (npairs >= pcap) {
            /* At most one pair per ref: grow by doubling up to n_refs. */
            uint32_t ncap = pcap ? (pcap > n_refs / 2 ? n_refs : pcap * 2) : 16;
            ok_shared_ref *np = realloc(pairs, (size_t)ncap * sizeof *pairs);
            if (!np) {
                rc = ok_pb_fail(err, OK_ERR_NOMEM, 0, "out of memory");
                break;
            }
            pairs = np;
            pcap = ncap;
        }
        pairs[npairs].init = found;
        pairs[npairs].graph = r->graph;
        npairs++;
    }
    free(slots);
    if (rc) {
        free(pairs);
        return rc;
    }

    if (npairs) qsort(pairs, npairs, sizeof *pairs, pair_cmp);
    /* Unique pairs, count graphs per initializer. */
    for (uint32_t i = 0; i < npairs; i++) {
        if (i && pair_cmp(&pairs[i], &pairs[i - 1]) == 0) continue;
        m->inits[pairs[i].init].ref_graphs++;
        pairs[keep++] = pairs[i];
    }
    /* Keep pairs of shared initializers only (order is preserved). */
    npairs = keep;
    keep = 0;
    for (uint32_t i = 0; i < npairs; i++)
        if (m->inits[pairs[i].init].ref_graphs >= 2) pairs[keep++] = pairs[i];
    if (keep == 0) {
        free(pairs);
        pairs = NULL;
    }
    m->shared = pairs;
    m->n_shared = keep;
    return OK_OK;
}

/* ---- model -------------------------------------------------------------- */

/* ---- the model ---------------------------------------------------------- */

void ok_model_free(ok_model *m) {
    if (!m) return;
    free(m->owned_buf);
    for (uint32_t i = 0; i < m->n_graphs; i++) free(m->graphs[i].path);
    free(m->graphs);
    free(m->inits);
    free(m->dims);
    free(m->values);
    free(m->vdims);
    free(m->opsets);
    free(m->metadata);
    free(m->shared);
    free(m);
}

void ok_model_totals(const ok_model *m, ok_totals *t) {
    memset(t, 0, sizeof *t);
    t->graphs = m->n_graphs;
    t->nodes = m->total_nodes;
    for (uint32_t i = 0; i < m->n_graphs; i++) {
        const ok_graph *g = &m->graphs[i];
        t->initializers += g->init_count;
        t->initializer_bytes += g->init_bytes;
        if (i) {
            t->subgraph_initializers += g->init_count;
            t->subgraph_initializer_bytes += g->init_bytes;
        }
    }
}
