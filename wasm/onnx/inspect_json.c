/* JSON report of an ok_model. Shape (all numbers are JSON integers):
 * {"sha256": s|null, "irVersion": n, "producerName": s, "producerVersion": s,
 *  "domain": s, "modelVersion": n,
 *  "opsetImports": {domain: version}   ("ai.onnx" folds into ""; a repeated
 *                                        domain keeps its first position and
 *                                        its last version),
 *  "graphs": [{"path", "nodes", "initializers", "initializerBytes",
 *              "sparseInitializers"}]   (pre-order, main first),
 *  "totals": {"graphs", "nodes", "initializers", "initializerBytes",
 *             "subgraphInitializers", "subgraphInitializerBytes"},
 *  "controlFlow": {"If", "Loop", "Scan"},
 *  "externalData": [{"initializer", "location", "inFolder", "offset", "length"}]
 *                   (graph order; offset/length 0 when absent, length 0 =
 *                    to end of file),
 *  "metadata": {key: value}             (repeated key: first position, last
 *                                        value),
 *  "sharedInitializers": [{"name", "bytes", "graphs": [path...]}]
 *                   (in initializer order; graphs in pre-order),
 *  "inputs"/"outputs": [{"name", "elemType", "dims": [n|s|null...] | null}]
 *                   (main graph; dims null without a shape)} */
#include "inspect_json.h"

#include <stdlib.h>
#include <string.h>

#include "external_data.h"
#include "json_buf.h"
#include "pb_wire.h"

typedef struct kentry {
    const uint8_t *p;
    size_t len;
    uint32_t idx;
} kentry;

typedef struct kgroup {
    uint32_t first, last;
} kgroup;

static int kentry_cmp(const void *a, const void *b) {
    const kentry *x = a, *y = b;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = n ? memcmp(x->p, y->p, n) : 0;
    if (c) return c;
    if (x->len != y->len) return x->len < y->len ? -1 : 1;
    return x->idx < y->idx ? -1 : (x->idx > y->idx);
}

static int kgroup_cmp(const void *a, const void *b) {
    const kgroup *x = a, *y = b;
    return x->first < y->first ? -1 : (x->first > y->first);
}

/* Groups keys[0,n) by bytes: each group's first and last index, ordered by
 * first appearance. O(n log n) so a hostile file with many keys stays fast.
 * Returns the group count, or -1 when out of memory. keys is reordered. */
static long group_keys(kentry *keys, uint32_t n, kgroup *groups) {
    uint32_t ng = 0;
    if (n == 0) return 0;
    qsort(keys, n, sizeof *keys, kentry_cmp);
    for (uint32_t i = 0; i < n; i++) {
        if (i && keys[i].len == keys[i - 1].len &&
            (keys[i].len == 0 || memcmp(keys[i].p, keys[i - 1].p, keys[i].len) == 0)) {
            groups[ng - 1].last = keys[i].idx;
        } else {
            groups[ng].first = groups[ng].last = keys[i].idx;
            ng++;
        }
    }
    qsort(groups, ng, sizeof *groups, kgroup_cmp);
    return (long)ng;
}

static void put_span(ok_jbuf *b, const ok_model *m, ok_span s) { ok_jbuf_str(b, m->buf + s.off, s.len); }

static int put_opsets(ok_jbuf *b, const ok_model *m) {
    kentry *keys = NULL;
    kgroup *groups = NULL;
    long ng;
    if (m->n_opsets) {
        keys = malloc(m->n_opsets * sizeof *keys);
        groups = malloc(m->n_opsets * sizeof *groups);
        if (!keys || !groups) {
            free(keys);
            free(groups);
            return OK_ERR_NOMEM;
        }
    }
    for (uint32_t i = 0; i < m->n_opsets; i++) {
        ok_span d = m->opsets[i].domain;
        keys[i].p = m->buf + d.off;
        keys[i].len = d.len;
        if (d.len == 7 && memcmp(keys[i].p, "ai.onnx", 7) == 0) keys[i].len = 0;
        keys[i].idx = i;
    }
    ng = group_keys(keys, m->n_opsets, groups);
    ok_jbuf_puts(b, "{");
    for (long i = 0; i < ng; i++) {
        const ok_opset *o = &m->opsets[groups[i].first];
        int dflt =
            o->domain.len == 0 || (o->domain.len == 7 && memcmp(m->buf + o->domain.off, "ai.onnx", 7) == 0);
        if (i) ok_jbuf_puts(b, ",");
        if (dflt) ok_jbuf_puts(b, "\"\"");
        else put_span(b, m, o->domain);
        ok_jbuf_puts(b, ":");
        ok_jbuf_i64(b, m->opsets[groups[i].last].version);
    }
    ok_jbuf_puts(b, "}");
    free(keys);
    free(groups);
    return OK_OK;
}

static int put_metadata(ok_jbuf *b, const ok_model *m) {
    kentry *keys = NULL;
    kgroup *groups = NULL;
    long ng;
    if (m->n_metadata) {
        keys = malloc(m->n_metadata * sizeof *keys);
        groups = malloc(m->n_metadata * sizeof *groups);
        if (!keys || !groups) {
            free(keys);
            free(groups);
            return OK_ERR_NOMEM;
        }
    }
    for (uint32_t i = 0; i < m->n_metadata; i++) {
        keys[i].p = m->buf + m->metadata[i].key.off;
        keys[i].len = m->metadata[i].key.len;
        keys[i].idx = i;
    }
    ng = group_keys(keys, m->n_metadata, groups);
    ok_jbuf_puts(b, "{");
    for (long i = 0; i < ng; i++) {
        if (i) ok_jbuf_puts(b, ",");
        put_span(b, m, m->metadata[groups[i].first].key);
        ok_jbuf_puts(b, ":");
        put_span(b, m, m->metadata[groups[i].last].value);
    }
    ok_jbuf_puts(b, "}");
    free(keys);
    free(groups);
    return OK_OK;
}

static void put_values(ok_jbuf *b, const ok_model *m, int outputs) {
    const ok_graph *g = &m->graphs[0];
    int first = 1;
    ok_jbuf_puts(b, "[");
    for (uint32_t i = g->value_first; i < g->value_first + g->value_count; i++) {
        const ok_value_info *v = &m->values[i];
        if (v->is_output != outputs) continue;
        if (!first) ok_jbuf_puts(b, ",");
        first = 0;
        ok_jbuf_puts(b, "{\"name\":");
        put_span(b, m, v->name);
        ok_jbuf_puts(b, ",\"elemType\":");
        ok_jbuf_i64(b, v->elem_type);
        ok_jbuf_puts(b, ",\"dims\":");
        if (!v->has_shape) {
            ok_jbuf_puts(b, "null}");
            continue;
        }
        ok_jbuf_puts(b, "[");
        for (uint32_t k = 0; k < v->ndims; k++) {
            const ok_dim *d = &m->vdims[v->dim_first + k];
            if (k) ok_jbuf_puts(b, ",");
            if (d->kind == OK_DIM_VALUE) ok_jbuf_i64(b, d->value);
            else if (d->kind == OK_DIM_PARAM) put_span(b, m, d->param);
            else ok_jbuf_puts(b, "null");
        }
        ok_jbuf_puts(b, "]}");
    }
    ok_jbuf_puts(b, "]");
}

int ok_inspect_json(const ok_model *m, const char *sha256_hex, char **json_out, size_t *json_len,
                    ok_error *err) {
    ok_jbuf b;
    ok_totals t;
    uint64_t max;
    int rc, first;

    if (err) {
        err->code = OK_OK;
        err->offset = 0;
        err->message[0] = '\0';
    }
    if (!m || !json_out || m->n_graphs == 0)
        return ok_pb_fail(err, OK_ERR_INVALID_ARG, 0, "invalid argument to ok_inspect_json");
    *json_out = NULL;
    if (json_len) *json_len = 0;
    /* Paths repeat in sharedInitializers, so bound the output. */
    max = ((uint64_t)64 << 20) + 16 * (uint64_t)m->len;
    if (max > SIZE_MAX / 2) max = SIZE_MAX / 2;
    ok_jbuf_init(&b, (size_t)max);

    ok_jbuf_puts(&b, "{\"sha256\":");
    if (sha256_hex) ok_jbuf_str(&b, (const uint8_t *)sha256_hex, strlen(sha256_hex));
    else ok_jbuf_puts(&b, "null");
    ok_jbuf_puts(&b, ",\"irVersion\":");
    ok_jbuf_i64(&b, m->ir_version);
    ok_jbuf_puts(&b, ",\"producerName\":");
    put_span(&b, m, m->producer_name);
    ok_jbuf_puts(&b, ",\"producerVersion\":");
    put_span(&b, m, m->producer_version);
    ok_jbuf_puts(&b, ",\"domain\":");
    put_span(&b, m, m->domain);
    ok_jbuf_puts(&b, ",\"modelVersion\":");
    ok_jbuf_i64(&b, m->model_version);
    ok_jbuf_puts(&b, ",\"opsetImports\":");
    if ((rc = put_opsets(&b, m))) goto fail;

    ok_jbuf_puts(&b, ",\"graphs\":[");
    for (uint32_t i = 0; i < m->n_graphs; i++) {
        const ok_graph *g = &m->graphs[i];
        if (i) ok_jbuf_puts(&b, ",");
        ok_jbuf_puts(&b, "{\"path\":");
        ok_jbuf_str(&b, (const uint8_t *)g->path, g->path_len);
        ok_jbuf_puts(&b, ",\"nodes\":");
        ok_jbuf_u64(&b, g->nodes);
        ok_jbuf_puts(&b, ",\"initializers\":");
        ok_jbuf_u64(&b, g->init_count);
        ok_jbuf_puts(&b, ",\"initializerBytes\":");
        ok_jbuf_u64(&b, g->init_bytes);
        ok_jbuf_puts(&b, ",\"sparseInitializers\":");
        ok_jbuf_u64(&b, g->sparse_count);
        ok_jbuf_puts(&b, "}");
    }
    ok_model_totals(m, &t);
    ok_jbuf_puts(&b, "],\"totals\":{\"graphs\":");
    ok_jbuf_u64(&b, t.graphs);
    ok_jbuf_puts(&b, ",\"nodes\":");
    ok_jbuf_u64(&b, t.nodes);
    ok_jbuf_puts(&b, ",\"initializers\":");
    ok_jbuf_u64(&b, t.initializers);
    ok_jbuf_puts(&b, ",\"initializerBytes\":");
    ok_jbuf_u64(&b, t.initializer_bytes);
    ok_jbuf_puts(&b, ",\"subgraphInitializers\":");
    ok_jbuf_u64(&b, t.subgraph_initializers);
    ok_jbuf_puts(&b, ",\"subgraphInitializerBytes\":");
    ok_jbuf_u64(&b, t.subgraph_initializer_bytes);
    ok_jbuf_puts(&b, "},\"controlFlow\":{\"If\":");
    ok_jbuf_u64(&b, m->n_if);
    ok_jbuf_puts(&b, ",\"Loop\":");
    ok_jbuf_u64(&b, m->n_loop);
    ok_jbuf_puts(&b, ",\"Scan\":");
    ok_jbuf_u64(&b, m->n_scan);

    ok_jbuf_puts(&b, "},\"externalData\":[");
    first = 1;
    for (uint32_t i = 0; i < m->n_inits; i++) {
        const ok_initializer *in = &m->inits[i];
        if (!in->is_external) continue;
        if (!first) ok_jbuf_puts(&b, ",");
        first = 0;
        ok_jbuf_puts(&b, "{\"initializer\":");
        put_span(&b, m, in->name);
        ok_jbuf_puts(&b, ",\"location\":");
        put_span(&b, m, in->ext_location);
        ok_jbuf_puts(&b, ok_external_in_folder(m->buf + in->ext_location.off, in->ext_location.len)
                             ? ",\"inFolder\":true"
                             : ",\"inFolder\":false");
        ok_jbuf_puts(&b, ",\"offset\":");
        ok_jbuf_u64(&b, in->ext_offset);
        ok_jbuf_puts(&b, ",\"length\":");
        ok_jbuf_u64(&b, in->ext_length);
        ok_jbuf_puts(&b, "}");
    }
    ok_jbuf_puts(&b, "],\"metadata\":");
    if ((rc = put_metadata(&b, m))) goto fail;

    ok_jbuf_puts(&b, ",\"sharedInitializers\":[");
    for (uint32_t i = 0; i < m->n_shared; i++) {
        const ok_shared_ref *s = &m->shared[i];
        int start = i == 0 || m->shared[i - 1].init != s->init;
        int end = i + 1 == m->n_shared || m->shared[i + 1].init != s->init;
        if (start) {
            if (i) ok_jbuf_puts(&b, ",");
            ok_jbuf_puts(&b, "{\"name\":");
            put_span(&b, m, m->inits[s->init].name);
            ok_jbuf_puts(&b, ",\"bytes\":");
            ok_jbuf_u64(&b, m->inits[s->init].bytes);
            ok_jbuf_puts(&b, ",\"graphs\":[");
        } else {
            ok_jbuf_puts(&b, ",");
        }
        ok_jbuf_str(&b, (const uint8_t *)m->graphs[s->graph].path, m->graphs[s->graph].path_len);
        if (end) ok_jbuf_puts(&b, "]}");
    }
    ok_jbuf_puts(&b, "],\"inputs\":");
    put_values(&b, m, 0);
    ok_jbuf_puts(&b, ",\"outputs\":");
    put_values(&b, m, 1);
    ok_jbuf_puts(&b, "}");

    if (b.failed) {
        rc = b.failed;
        goto fail;
    }
    *json_out = b.p;
    if (json_len) *json_len = b.len;
    return OK_OK;

fail:
    ok_jbuf_free(&b);
    if (rc == OK_ERR_LIMIT)
        return ok_pb_fail(err, rc, 0, "limit: JSON report exceeds %llu bytes", (unsigned long long)max);
    return ok_pb_fail(err, OK_ERR_NOMEM, 0, "out of memory");
}
