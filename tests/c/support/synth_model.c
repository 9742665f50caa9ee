/* A synthetic ONNX model written field by field (synth_model.h). */
#include <stdlib.h>
#include <string.h>

#include "fx_alloc.h"
#include "synth_model.h"

void fb_put(fx_buf *b, const void *p, size_t n) {
    if (b->n + n > b->cap) {
        size_t nc = b->cap ? b->cap * 2 : 256;
        uint8_t *np;
        while (nc < b->n + n) nc *= 2;
        np = fx_malloc(nc);
        if (b->n) memcpy(np, b->p, b->n);
        free(b->p);
        b->p = np;
        b->cap = nc;
    }
    if (n) memcpy(b->p + b->n, p, n);
    b->n += n;
}

void fb_varint(fx_buf *b, uint64_t v) {
    uint8_t t[10];
    size_t n = 0;
    do {
        t[n] = (uint8_t)(v & 0x7f);
        v >>= 7;
        if (v) t[n] |= 0x80;
        n++;
    } while (v);
    fb_put(b, t, n);
}

void fb_len_field(fx_buf *b, uint32_t field, const fx_buf *inner) {
    fb_varint(b, (uint64_t)field << 3 | 2);
    fb_varint(b, inner->n);
    fb_put(b, inner->p, inner->n);
}

void fb_str_field(fx_buf *b, uint32_t field, const char *s) {
    fb_varint(b, (uint64_t)field << 3 | 2);
    fb_varint(b, strlen(s));
    fb_put(b, s, strlen(s));
}

/* A valid ONNX model of about `size` bytes: Identity over a uint8
 * initializer whose raw_data are seeded pseudo-random bytes. */
uint8_t *fx_model(size_t size, uint32_t seed, size_t *out_len) {
    fx_buf m = {0}, g = {0}, node = {0}, init = {0}, out = {0}, op = {0};
    size_t payload = size > 200 ? size - 200 : 16, i;
    uint8_t *raw = fx_malloc(payload);
    uint32_t x = seed * 2654435761u + 1;
    for (i = 0; i < payload; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        raw[i] = (uint8_t)x;
    }
    fb_str_field(&node, 1, "w");
    fb_str_field(&node, 2, "y");
    fb_str_field(&node, 4, "Identity");
    fb_varint(&init, 1 << 3 | 0);
    fb_varint(&init, payload);
    fb_varint(&init, 2 << 3 | 0);
    fb_varint(&init, 2); /* UINT8 */
    fb_str_field(&init, 8, "w");
    fb_varint(&init, 9 << 3 | 2);
    fb_varint(&init, payload);
    fb_put(&init, raw, payload);
    fb_str_field(&out, 1, "y");
    fb_len_field(&g, 1, &node);
    fb_str_field(&g, 2, "g");
    fb_len_field(&g, 5, &init);
    fb_len_field(&g, 12, &out);
    fb_varint(&op, 2 << 3 | 0);
    fb_varint(&op, 17);
    fb_varint(&m, 1 << 3 | 0);
    fb_varint(&m, 8);
    fb_len_field(&m, 8, &op);
    fb_len_field(&m, 7, &g);
    free(raw);
    free(g.p);
    free(node.p);
    free(init.p);
    free(out.p);
    free(op.p);
    *out_len = m.n;
    return m.p;
}
