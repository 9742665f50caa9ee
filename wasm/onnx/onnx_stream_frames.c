/* The streaming ONNX reader's open messages (see onnx_stream.c): the records
 * they fill, descending into a message, capturing a string, closing a frame
 * and passing its held errors outward. */
#include <stdlib.h>
#include <string.h>

#include "onnx_stream_internal.h"

int ok_osr_expect(ok_onnx_stream *s, uint32_t wire) {
    char fname[96];
    if (s->fwire == wire) return OK_OK;
    ok_pb_field_name(msg_of(container(s)), s->fnum, fname, sizeof fname);
    return ok_osr_serr(s, OK_ERR_BAD_WIRE_TYPE, s->ftag, "bad wire type %u at byte %llu: %s expects %u",
                       (unsigned)s->fwire, (unsigned long long)s->ftag, fname, (unsigned)wire);
}

/* ---- records ------------------------------------------------------------ */

static int grow(ok_onnx_stream *s, void **arr, uint32_t *cap, uint32_t n, size_t elsz) {
    uint32_t ncap;
    int rc;
    if (n < *cap) return OK_OK;
    if (n >= MAX_ENTRIES)
        return ok_osr_sfatal(s, OK_ERR_LIMIT, s->pos, "limit: more than %u entries in one list",
                             (unsigned)MAX_ENTRIES);
    ncap = *cap ? *cap * 2 : 16;
    if ((uint64_t)ncap * elsz > (uint64_t)SIZE_MAX) return ok_osr_heap_fail(s, OK_ERR_NOMEM);
    rc = ok_osr_s_realloc(s, arr, (size_t)*cap * elsz, (size_t)ncap * elsz);
    if (rc) return ok_osr_heap_fail(s, rc);
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

int ok_osr_push_dim(ok_onnx_stream *s, uint64_t v) {
    int rc = GROW(s, s->dims, s->n_dims, s->cap_dims);
    if (rc) return rc;
    s->dims[s->n_dims++] = (int64_t)v;
    return OK_OK;
}

static int span_eq(const ok_onnx_stream *s, ok_span a, const char *lit) {
    size_t n = strlen(lit);
    return a.len == n && memcmp(s->arena + a.off, lit, n) == 0;
}

/* ---- frames ------------------------------------------------------------- */

/* Opens a message for the LEN field being read: turns the fresh top-level
 * frame into it, or pushes a new one. */
frame *ok_osr_descend(ok_onnx_stream *s, int kind) {
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

int ok_osr_start_graph(ok_onnx_stream *s, uint32_t parent, int64_t list_idx, const frame *attr) {
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
    f = ok_osr_descend(s, K_GRAPH);
    f->sid = sid;
    memset(f->e, 0, sizeof f->e);
    return OK_OK;
}

/* A LEN field's payload: copy it into the arena, then ok_osr_on_string(). */
int ok_osr_capture(ok_onnx_stream *s) {
    uint64_t n = s->remain;
    int rc;
    /* Pending like a wire error: a field cut short is TRUNCATED first. */
    if (n > s->lim.max_string)
        return ok_osr_serr(
            s, OK_ERR_LIMIT, s->vstart, "limit at byte %llu: a string of %llu bytes (more than %llu)",
            (unsigned long long)s->vstart, (unsigned long long)n, (unsigned long long)s->lim.max_string);
    if (s->acap - s->alen < n) {
        size_t ncap = s->acap ? s->acap : 4096;
        while (ncap - s->alen < n) {
            if (ncap > SIZE_MAX / 2) return ok_osr_heap_fail(s, OK_ERR_LIMIT);
            ncap *= 2;
        }
        if ((rc = ok_osr_s_realloc(s, (void **)&s->arena, s->acap, ncap))) return ok_osr_heap_fail(s, rc);
        s->acap = ncap;
    }
    s->cap_kind = (uint32_t)container(s);
    s->cap_num = s->fnum;
    s->cap.off = s->alen;
    s->cap.len = (size_t)n;
    s->st = ST_CAP;
    return OK_OK;
}

int ok_osr_on_string(ok_onnx_stream *s) {
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
            return ok_osr_serr(s, OK_ERR_LIMIT, off, "limit at byte %llu: initializer dim %lld is negative",
                               (unsigned long long)off, (long long)d);
        if (d == 0) zero = 1;
    }
    for (uint32_t i = 0; !zero && i < t->ndims; i++) {
        uint64_t d = (uint64_t)s->dims[t->dim_first + i];
        if (n > (uint64_t)INT64_MAX / d)
            return ok_osr_serr(s, OK_ERR_LIMIT, off,
                               "limit at byte %llu: initializer element count overflows",
                               (unsigned long long)off);
        n *= d;
    }
    if (zero) n = 0;
    if (ok_onnx_tensor_bytes(t->data_type, n, &t->bytes))
        return ok_osr_serr(s, OK_ERR_LIMIT, off, "limit at byte %llu: initializer byte size overflows",
                           (unsigned long long)off);
    if (s->location == 1) {
        t->is_external = 1;
        t->ext_location = s->loc;
        if ((s->has_eoff && !ok_onnx_parse_decimal(s->arena + s->eoff.off, s->eoff.len, &t->ext_offset)) ||
            (s->has_elen && !ok_onnx_parse_decimal(s->arena + s->elen.off, s->elen.len, &t->ext_length)))
            return ok_osr_serr(s, OK_ERR_CORRUPT, off,
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
int ok_osr_close_frame(ok_onnx_stream *s) {
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
    default: return OK_OK;
    }
#undef f
}
