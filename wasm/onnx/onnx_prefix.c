/* The early "is this an ONNX model at all?" check on the first bytes of a
 * download, so an HTML error page or an SPA's index.html is refused before
 * anything is stored. ModelProto fields and their wire types (onnx.proto):
 * ir_version 1 varint, producer_name 2, producer_version 3, domain 4 (len),
 * model_version 5 varint, doc_string 6, graph 7, opset_import 8,
 * metadata_props 14, training_info 20, functions 25, configuration 26
 * (len). Exporters write fields in number order, so the prefix of a real
 * model is ir_version, opset/producer strings, then the graph. */
#include "onnx_model.h"

static int expected_wire(uint64_t field) {
    switch (field) {
    case 1:
    case 5: return 0;
    case 2:
    case 3:
    case 4:
    case 6:
    case 7:
    case 8:
    case 14:
    case 20:
    case 25:
    case 26: return 2;
    default: return -1;
    }
}

/* Reads a varint from p[*i, n): 1 done, 0 ran out (plausible so far),
 * -1 malformed. */
static int varint(const uint8_t *p, size_t n, size_t *i, uint64_t *out) {
    uint64_t v = 0;
    unsigned shift = 0;
    while (*i < n) {
        uint8_t b = p[(*i)++];
        if (shift == 63 && b > 1) return -1;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *out = v;
            return 1;
        }
        shift += 7;
        if (shift > 63) return -1;
    }
    return 0;
}

int ok_onnx_prefix_plausible(const uint8_t *p, size_t n) {
    size_t i = 0;
    if (!p || !n) return 1; /* nothing seen yet; emptiness is judged later */
    while (i < n) {
        uint64_t tag, v;
        int r = varint(p, n, &i, &tag);
        if (r <= 0) return r == 0;
        if (expected_wire(tag >> 3) != (int)(tag & 7)) return 0;
        r = varint(p, n, &i, &v);
        if (r <= 0) return r == 0;
        if ((tag & 7) == 2) {
            if (v > (uint64_t)1 << 40) return 0; /* no field is a terabyte */
            if (v >= n - i) return 1;            /* runs past what we have */
            i += (size_t)v;
        }
    }
    return 1;
}
