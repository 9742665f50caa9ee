/* The streaming ONNX reader's fields (see onnx_stream.c): what a VARINT,
 * fixed or LEN field means in the message being read. */
#include <stdio.h> /* snprintf only: formatting, no I/O */
#include <stdlib.h>
#include <string.h>

#include "onnx_stream_internal.h"

/* ---- fields ------------------------------------------------------------- */

/* A VARINT field (value in s->v) or a fixed one (consumed). */
int ok_osr_on_scalar(ok_onnx_stream *s) {
    int k = container(s), rc;
    uint64_t v = s->v;
#define EXPECT_(w)                                   \
    do {                                             \
        if ((rc = ok_osr_expect(s, (w)))) return rc; \
    } while (0)
    switch (k) {
    case K_MODEL:
        switch (s->fnum) {
        case 1:
            EXPECT_(OK_PB_VARINT);
            s->ir_version = (int64_t)v;
            break;
        case 5:
            EXPECT_(OK_PB_VARINT);
            s->model_version = (int64_t)v;
            break;
        case 2:
        case 3:
        case 4:
        case 6:
        case 7:
        case 8:
        case 14: EXPECT_(OK_PB_LEN); break;
        default: break;
        }
        break;
    case K_OPSET:
        if (s->fnum == 1) EXPECT_(OK_PB_LEN);
        else if (s->fnum == 2) {
            EXPECT_(OK_PB_VARINT);
            s->co.version = (int64_t)v;
        }
        break;
    case K_KV:
        if (s->fnum == 1 || s->fnum == 2) EXPECT_(OK_PB_LEN);
        break;
    case K_GRAPH:
        switch (s->fnum) {
        case 1:
        case 2:
        case 5:
        case 10:
        case 11:
        case 12:
        case 13:
        case 15: EXPECT_(OK_PB_LEN); break;
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
            if (s->fwire == OK_PB_VARINT) return ok_osr_push_dim(s, v);
            EXPECT_(OK_PB_LEN);
            break;
        case 2:
            EXPECT_(OK_PB_VARINT);
            s->ct.t.data_type = (int32_t)v;
            break;
        case 8:
        case 9:
        case 13: EXPECT_(OK_PB_LEN); break;
        case 14:
            EXPECT_(OK_PB_VARINT);
            s->location = v;
            break;
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
        if (s->fnum == 1) {
            EXPECT_(OK_PB_VARINT);
            s->cv.elem_type = (int32_t)v;
        } else if (s->fnum == 2) EXPECT_(OK_PB_LEN);
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
int ok_osr_on_len(ok_onnx_stream *s) {
    int k = container(s), rc;
    frame *f = &s->fr[s->depth], *nf;
    switch (k) {
    case K_MODEL:
        switch (s->fnum) {
        case 1:
        case 5: return ok_osr_expect(s, OK_PB_VARINT);
        case 2:
        case 3:
        case 4: return ok_osr_capture(s);
        case 7:
            s->has_graph = 1;
            s->gerr.code = 0;
            s->main_sid = s->n_g;
            return ok_osr_start_graph(s, OK_ONNX_NONE, -1, NULL);
        case 8:
            memset(&s->co, 0, sizeof s->co);
            ok_osr_descend(s, K_OPSET);
            return OK_OK;
        case 14:
            s->kv_k = s->kv_v = empty_span();
            ok_osr_descend(s, K_KV);
            return OK_OK;
        default: return OK_OK;
        }
    case K_OPSET:
        if (s->fnum == 1) return ok_osr_capture(s);
        if (s->fnum == 2) return ok_osr_expect(s, OK_PB_VARINT);
        return OK_OK;
    case K_KV: return s->fnum == 1 || s->fnum == 2 ? ok_osr_capture(s) : OK_OK;
    case K_GRAPH: {
        sgraph *g = &s->g[f->sid];
        switch (s->fnum) {
        case 1: {
            uint64_t idx = g->nodes++;
            nf = ok_osr_descend(s, K_NODE);
            nf->sid = f->sid;
            nf->index = idx;
            nf->first_child = s->n_g;
            nf->a = nf->b = nf->c = empty_span();
            return OK_OK;
        }
        case 2: return ok_osr_capture(s);
        case 5:
            memset(&s->ct, 0, sizeof s->ct);
            s->ct.t.dim_first = s->n_dims;
            s->ct.off = s->pos;
            s->loc = s->eoff = s->elen = empty_span();
            s->has_eoff = s->has_elen = 0;
            s->location = 0;
            ok_osr_descend(s, K_TENSOR)->sid = f->sid;
            return OK_OK;
        case 15:
            s->sp_name = empty_span();
            ok_osr_descend(s, K_SPARSE)->sid = f->sid;
            return OK_OK;
        case 11:
        case 12:
            memset(&s->cv, 0, sizeof s->cv);
            s->cv.graph = f->sid;
            s->cv.is_output = s->fnum == 12;
            s->cv.dim_first = s->n_vdims;
            ok_osr_descend(s, K_VINFO)->sid = f->sid;
            return OK_OK;
        default: return OK_OK;
        }
    }
    case K_NODE:
        switch (s->fnum) {
        case 1:
        case 2: return s->remain ? ok_osr_capture(s) : OK_OK;
        case 3:
        case 4:
        case 7: return ok_osr_capture(s);
        case 5: {
            uint32_t sid = f->sid;
            nf = ok_osr_descend(s, K_ATTR);
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
        if (s->fnum == 1) return ok_osr_capture(s);
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
            if ((rc = ok_osr_start_graph(s, attr.sid, idx, &attr))) return rc;
            return OK_OK;
        }
        return OK_OK;
    case K_TENSOR:
        switch (s->fnum) {
        case 1: ok_osr_descend(s, K_PACKED); return OK_OK;
        case 2:
        case 14: return ok_osr_expect(s, OK_PB_VARINT);
        case 8: return ok_osr_capture(s);
        case 9:
            s->ct.t.has_raw = 1;
            s->ct.t.raw_offset = s->pos;
            s->ct.t.raw_length = s->remain;
            return OK_OK;
        case 13:
            s->kv_k = s->kv_v = empty_span();
            ok_osr_descend(s, K_KV);
            return OK_OK;
        default: return OK_OK;
        }
    case K_SPARSE:
        if (s->fnum == 1) ok_osr_descend(s, K_SVALS);
        return OK_OK;
    case K_SVALS: return s->fnum == 8 ? ok_osr_capture(s) : OK_OK;
    case K_VINFO:
        if (s->fnum == 1) return ok_osr_capture(s);
        if (s->fnum == 2) ok_osr_descend(s, K_TYPE);
        return OK_OK;
    case K_TYPE:
        if (s->fnum == 1) ok_osr_descend(s, K_TTYPE);
        else if (s->fnum == 4 || s->fnum == 5 || s->fnum == 8 || s->fnum == 9) return ok_osr_on_scalar(s);
        return OK_OK;
    case K_TTYPE:
        if (s->fnum == 1) return ok_osr_expect(s, OK_PB_VARINT);
        if (s->fnum == 2) {
            s->cv.has_shape = 1;
            ok_osr_descend(s, K_SHAPE);
        }
        return OK_OK;
    case K_SHAPE:
        if (s->fnum == 1) {
            memset(&s->cd, 0, sizeof s->cd);
            ok_osr_descend(s, K_DIM);
        }
        return OK_OK;
    case K_DIM:
        if (s->fnum == 1) return ok_osr_expect(s, OK_PB_VARINT);
        if (s->fnum == 2) return ok_osr_capture(s);
        return OK_OK;
    default: return OK_OK;
    }
}
