/* The end of the streaming ONNX reader (see onnx_stream.c): the model in the
 * one-shot reader's order, rebuilt from what was recorded in byte order. */
#include <stdlib.h>
#include <string.h>

#include "onnx_stream_internal.h"

/* ---- the end: the one-shot reader's order ------------------------------ */

typedef struct fin {
    ok_onnx_stream *s;
    ok_model *m;
    uint32_t ng;     /* model graphs */
    uint32_t *fid;   /* stream graph -> model graph, or NONE */
    uint32_t *order; /* model graph -> stream graph */
    uint32_t *kids;  /* children of each stream graph, grouped by parent */
    uint32_t *kfirst;
    uint32_t *imap;         /* stream initializer -> model initializer */
    uint32_t *stack, *spos; /* the pre-order walk's */
    ok_onnx_def *defs;      /* scoping, in model numbering */
    ok_onnx_ref *refs;
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
    if ((r = ok_osr_s_realloc(f->s, &p, 0, n))) {
        *rc = ok_osr_heap_fail(f->s, r);
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
        do {
            d[nd++] = (char)('0' + u % 10);
            u /= 10;
        } while (u);
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
            do {
                d[nd++] = (char)('0' + u % 10);
                u /= 10;
            } while (u);
            suffix[sl++] = '[';
            while (nd) suffix[sl++] = d[--nd];
            suffix[sl++] = ']';
        }
        n = pg->path_len + 1 + ll + slen + 1 + sg->attr.len + sl;
        *path_bytes += n;
        if (*path_bytes > budget)
            return ok_osr_sfatal(s, OK_ERR_LIMIT, sg->off,
                                 "limit at byte %llu: graph paths exceed %llu bytes",
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

/* The scratch every step uses; freed by fin_release. */
static int fin_scratch(fin *f) {
    ok_onnx_stream *s = f->s;
    int rc = OK_OK;
    f->fid = fin_alloc(f, (size_t)s->n_g * 4 + 4, &rc);
    f->order = fin_alloc(f, (size_t)s->n_g * 4 + 4, &rc);
    f->kids = fin_alloc(f, (size_t)s->n_g * 4 + 4, &rc);
    f->kfirst = fin_alloc(f, (size_t)s->n_g * 4 + 8, &rc);
    f->stack = fin_alloc(f, (OK_ONNX_MAX_GRAPH_DEPTH + 2) * 4, &rc);
    f->spos = fin_alloc(f, (OK_ONNX_MAX_GRAPH_DEPTH + 2) * 4, &rc);
    return rc;
}

/* Children of every graph, grouped by parent (counting sort), then in the
 * one-shot order: node, attribute, the attribute's g, its graphs. */
static void fin_children(fin *f) {
    const ok_onnx_stream *s = f->s;
    memset(f->kfirst, 0, (size_t)s->n_g * 4 + 8);
    for (uint32_t i = 0; i < s->n_g; i++)
        if (s->g[i].parent != OK_ONNX_NONE && !s->g[i].dead) f->kfirst[s->g[i].parent + 1]++;
    for (uint32_t i = 0; i < s->n_g; i++) f->kfirst[i + 1] += f->kfirst[i];
    for (uint32_t i = 0; i < s->n_g; i++) f->fid[i] = f->kfirst[i]; /* fill cursor */
    for (uint32_t i = 0; i < s->n_g; i++)
        if (s->g[i].parent != OK_ONNX_NONE && !s->g[i].dead) f->kids[f->fid[s->g[i].parent]++] = i;
    for (uint32_t i = 0; i < s->n_g; i++)
        sort_kids(f->kids + f->kfirst[i], f->kfirst[i + 1] - f->kfirst[i], s->g);
    for (uint32_t i = 0; i < s->n_g; i++) f->fid[i] = OK_ONNX_NONE;
}

/* Model graphs in pre-order from the last ModelProto.graph (f->fid,
 * f->order, f->ng); graphs outside that tree stay NONE. */
static void fin_preorder(fin *f) {
    const ok_onnx_stream *s = f->s;
    uint32_t ng = 0, sp;
    f->stack[0] = s->main_sid;
    f->spos[0] = f->kfirst[s->main_sid];
    sp = 1;
    f->fid[s->main_sid] = ng;
    f->order[ng++] = s->main_sid;
    while (sp) {
        uint32_t top = f->stack[sp - 1];
        if (f->spos[sp - 1] == f->kfirst[top + 1]) {
            sp--;
            continue;
        }
        {
            uint32_t c = f->kids[f->spos[sp - 1]++];
            f->fid[c] = ng;
            f->order[ng++] = c;
            f->stack[sp] = c;
            f->spos[sp] = f->kfirst[c];
            sp++;
        }
    }
    f->ng = ng;
}

/* The model's graphs: counts, then paths (within their byte budget). */
static int fin_graphs(fin *f) {
    ok_onnx_stream *s = f->s;
    ok_model *m = f->m;
    uint32_t ng = f->ng;
    uint64_t path_bytes = 0;
    int rc = OK_OK;
    m->graphs = fin_alloc(f, (size_t)ng * sizeof *m->graphs, &rc);
    if (rc) return rc;
    memset(m->graphs, 0, (size_t)ng * sizeof *m->graphs);
    m->n_graphs = ng;
    for (uint32_t gi = 0; gi < ng; gi++) {
        const sgraph *sg = &s->g[f->order[gi]];
        ok_graph *g = &m->graphs[gi];
        g->parent = sg->parent == OK_ONNX_NONE ? OK_ONNX_NONE : f->fid[sg->parent];
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
        for (uint32_t gi = 0; gi < ng && !rc; gi++) rc = build_path(f, gi, &path_bytes, budget);
    }
    return rc;
}

/* Initializers grouped by graph in pre-order (bucket by model graph,
 * stable), f->imap, then their dims and byte sums in model order. */
static int fin_initializers(fin *f) {
    ok_onnx_stream *s = f->s;
    ok_model *m = f->m;
    uint32_t ng = f->ng;
    uint64_t total_bytes = 0;
    int rc = OK_OK;
    uint32_t *cnt = fin_alloc(f, ((size_t)ng + 1) * 4, &rc);
    uint32_t n_live = 0, n_ldims = 0;
    if (rc) return rc;
    f->imap = fin_alloc(f, (size_t)s->n_in * 4 + 4, &rc);
    if (rc) {
        s_free(s, cnt, ((size_t)ng + 1) * 4);
        return rc;
    }
    memset(cnt, 0, ((size_t)ng + 1) * 4);
    for (uint32_t i = 0; i < s->n_in; i++) {
        uint32_t g = f->fid[s->in[i].t.graph];
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
    m->inits = fin_alloc(f, (size_t)n_live * sizeof *m->inits + 1, &rc);
    m->dims = fin_alloc(f, (size_t)n_ldims * sizeof *m->dims + 1, &rc);
    if (rc) {
        s_free(s, cnt, ((size_t)ng + 1) * 4);
        return rc;
    }
    for (uint32_t i = 0; i < s->n_in; i++) {
        uint32_t g = f->fid[s->in[i].t.graph];
        f->imap[i] = OK_ONNX_NONE;
        if (g == OK_ONNX_NONE) continue;
        f->imap[i] = cnt[g]++;
        m->inits[f->imap[i]] = s->in[i].t;
        m->inits[f->imap[i]].graph = g;
    }
    m->n_inits = n_live;
    s_free(s, cnt, ((size_t)ng + 1) * 4);
    /* dims and byte sums in model order */
    {
        uint32_t *back = fin_alloc(f, (size_t)n_live * 4 + 4, &rc);
        if (rc) return rc;
        for (uint32_t i = 0; i < s->n_in; i++)
            if (f->imap[i] != OK_ONNX_NONE) back[f->imap[i]] = i;
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
                return ok_osr_sfatal(s, OK_ERR_LIMIT, si->off,
                                     "limit at byte %llu: initializer bytes of the model overflow",
                                     (unsigned long long)si->off);
            }
        }
        s_free(s, back, (size_t)n_live * 4 + 4);
    }
    return OK_OK;
}

/* Graph inputs and outputs, grouped by graph in pre-order, with their dims. */
static int fin_values(fin *f) {
    ok_onnx_stream *s = f->s;
    ok_model *m = f->m;
    uint32_t ng = f->ng;
    uint32_t n_live = 0, n_lvd = 0;
    int rc = OK_OK;
    for (uint32_t i = 0; i < s->n_vals; i++)
        if (f->fid[s->vals[i].graph] != OK_ONNX_NONE) {
            n_live++;
            n_lvd += s->vals[i].ndims;
        }
    m->values = fin_alloc(f, (size_t)n_live * sizeof *m->values + 1, &rc);
    m->vdims = fin_alloc(f, (size_t)n_lvd * sizeof *m->vdims + 1, &rc);
    if (rc) return rc;
    /* values of one graph are contiguous in stream order already only
     * per graph; walk graphs in model order (values per graph are few
     * relative to a pass per graph, so bucket once). */
    {
        uint32_t *cnt = fin_alloc(f, ((size_t)ng + 1) * 4, &rc);
        uint32_t *slot;
        if (rc) return rc;
        memset(cnt, 0, ((size_t)ng + 1) * 4);
        for (uint32_t i = 0; i < s->n_vals; i++) {
            uint32_t g = f->fid[s->vals[i].graph];
            if (g != OK_ONNX_NONE) cnt[g + 1]++;
        }
        for (uint32_t g = 0; g < ng; g++) cnt[g + 1] += cnt[g];
        for (uint32_t g = 0; g < ng; g++) {
            m->graphs[g].value_first = cnt[g];
            m->graphs[g].value_count = cnt[g + 1] - cnt[g];
        }
        slot = fin_alloc(f, (size_t)n_live * 4 + 4, &rc);
        if (rc) {
            s_free(s, cnt, ((size_t)ng + 1) * 4);
            return rc;
        }
        for (uint32_t i = 0; i < s->n_vals; i++) {
            uint32_t g = f->fid[s->vals[i].graph];
            if (g != OK_ONNX_NONE) slot[cnt[g]++] = i;
        }
        for (uint32_t j = 0; j < n_live; j++) {
            const ok_value_info *sv = &s->vals[slot[j]];
            ok_value_info *v = &m->values[j];
            *v = *sv;
            v->graph = f->fid[sv->graph];
            memcpy(m->vdims + m->n_vdims, s->vdims + sv->dim_first, (size_t)sv->ndims * sizeof *m->vdims);
            v->dim_first = m->n_vdims;
            m->n_vdims += sv->ndims;
        }
        m->n_values = n_live;
        s_free(s, slot, (size_t)n_live * 4 + 4);
        s_free(s, cnt, ((size_t)ng + 1) * 4);
    }
    return OK_OK;
}

/* ModelProto's own fields. */
static int fin_model_fields(fin *f) {
    ok_onnx_stream *s = f->s;
    ok_model *m = f->m;
    int rc = OK_OK;
    m->ir_version = s->ir_version;
    m->model_version = s->model_version;
    m->producer_name = s->producer_name;
    m->producer_version = s->producer_version;
    m->domain = s->domain;
    m->opsets = fin_alloc(f, (size_t)s->n_opsets * sizeof *m->opsets + 1, &rc);
    m->metadata = fin_alloc(f, (size_t)s->n_meta * sizeof *m->metadata + 1, &rc);
    if (rc) return rc;
    if (s->n_opsets) memcpy(m->opsets, s->opsets, (size_t)s->n_opsets * sizeof *m->opsets);
    if (s->n_meta) memcpy(m->metadata, s->meta, (size_t)s->n_meta * sizeof *m->metadata);
    m->n_opsets = s->n_opsets;
    m->n_metadata = s->n_meta;
    return OK_OK;
}

/* Scoping: defs and refs of live graphs, in model numbering, resolved by the
 * rules both readers share (ok_onnx_resolve_scopes). */
static int fin_scopes(fin *f) {
    ok_onnx_stream *s = f->s;
    ok_model *m = f->m;
    uint32_t nd = 0, nr = 0;
    ok_error e;
    int rc = OK_OK;
    f->defs = fin_alloc(f, (size_t)s->n_defs * sizeof *f->defs + 1, &rc);
    f->refs = fin_alloc(f, (size_t)s->n_refs * sizeof *f->refs + 1, &rc);
    if (rc) return rc;
    for (uint32_t i = 0; i < s->n_defs; i++) {
        uint32_t g = f->fid[s->defs[i].graph];
        if (g == OK_ONNX_NONE) continue;
        f->defs[nd] = s->defs[i];
        f->defs[nd].graph = g;
        if (f->defs[nd].init != OK_ONNX_NONE) f->defs[nd].init = f->imap[f->defs[nd].init];
        nd++;
    }
    for (uint32_t i = 0; i < s->n_refs; i++) {
        uint32_t g = f->fid[s->refs[i].graph];
        if (g == OK_ONNX_NONE) continue;
        f->refs[nr] = s->refs[i];
        f->refs[nr].graph = g;
        nr++;
    }
    /* ok_onnx_resolve_scopes allocates on its own: count its bound. */
    {
        uint64_t need = 16 * (uint64_t)nd + 8 * (uint64_t)nr + 64;
        if (s->heap + need > s->lim.max_heap) return ok_osr_heap_fail(s, OK_ERR_LIMIT);
        if (s->heap + need > s->peak) s->peak = s->heap + need;
    }
    rc = ok_onnx_resolve_scopes(m, s->arena, f->defs, nd, f->refs, nr, &e);
    if (rc) return ok_osr_sfatal(s, rc, e.offset, "%s", e.message);
    if (m->shared) { /* count what it kept */
        s->heap += (uint64_t)m->n_shared * sizeof *m->shared;
        if (s->heap > s->peak) s->peak = s->heap;
    }
    return OK_OK;
}

/* Frees the scratch (not the model). */
static void fin_release(fin *f) {
    ok_onnx_stream *s = f->s;
    if (f->defs) s_free(s, f->defs, (size_t)s->n_defs * sizeof *f->defs + 1);
    if (f->refs) s_free(s, f->refs, (size_t)s->n_refs * sizeof *f->refs + 1);
    if (f->fid) s_free(s, f->fid, (size_t)s->n_g * 4 + 4);
    if (f->order) s_free(s, f->order, (size_t)s->n_g * 4 + 4);
    if (f->kids) s_free(s, f->kids, (size_t)s->n_g * 4 + 4);
    if (f->kfirst) s_free(s, f->kfirst, (size_t)s->n_g * 4 + 8);
    if (f->imap) s_free(s, f->imap, (size_t)s->n_in * 4 + 4);
    if (f->stack) s_free(s, f->stack, (OK_ONNX_MAX_GRAPH_DEPTH + 2) * 4);
    if (f->spos) s_free(s, f->spos, (OK_ONNX_MAX_GRAPH_DEPTH + 2) * 4);
}

/* The arena goes to the model. */
static void fin_hand_over(fin *f, ok_model **out) {
    ok_onnx_stream *s = f->s;
    ok_model *m = f->m;
    m->owned_buf = s->arena;
    m->buf = s->arena;
    s->arena = NULL;
    s->acap = s->alen = 0;
    m->total_len = s->pos;
    m->len = s->pos > (uint64_t)SIZE_MAX ? SIZE_MAX : (size_t)s->pos;
    *out = m;
}

int ok_osr_finish(ok_onnx_stream *s, ok_model **out) {
    fin f;
    int rc = OK_OK;

    memset(&f, 0, sizeof f);
    f.s = s;
    if (!s->arena) { /* spans index m->buf: never NULL */
        if ((rc = ok_osr_s_realloc(s, (void **)&s->arena, 0, 16))) return ok_osr_heap_fail(s, rc);
        s->acap = 16;
    }
    f.m = fin_alloc(&f, sizeof *f.m, &rc);
    if (!f.m) return rc;
    memset(f.m, 0, sizeof *f.m);
    rc = fin_scratch(&f);
    if (!rc) {
        fin_children(&f);
        fin_preorder(&f);
        rc = fin_graphs(&f);
    }
    if (!rc) rc = fin_initializers(&f);
    if (!rc) rc = fin_values(&f);
    if (!rc) rc = fin_model_fields(&f);
    if (!rc) rc = fin_scopes(&f);
    fin_release(&f);
    if (rc) {
        ok_model_free(f.m);
        return rc;
    }
    fin_hand_over(&f, out);
    return OK_OK;
}
