/* Protobuf bytes by hand: a growing buffer, varints and length-delimited
 * fields, and a valid ONNX model of a chosen size made of them. */
#ifndef ORTKEEP_TEST_SYNTH_MODEL_H
#define ORTKEEP_TEST_SYNTH_MODEL_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint8_t *p;
    size_t n, cap;
} fx_buf;

void fb_put(fx_buf *b, const void *p, size_t n);
void fb_varint(fx_buf *b, uint64_t v);
void fb_len_field(fx_buf *b, uint32_t field, const fx_buf *inner);
void fb_str_field(fx_buf *b, uint32_t field, const char *s);
/* A valid ONNX model of about `size` bytes: Identity over a uint8
 * initializer whose raw_data are seeded pseudo-random bytes. */
uint8_t *fx_model(size_t size, uint32_t seed, size_t *out_len);

#endif
