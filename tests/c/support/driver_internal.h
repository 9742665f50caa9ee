/* What the parts of the fake page (load_driver.c, driver_fetch.c,
 * driver_apply.c) share and the tests do not see. */
#ifndef ORTKEEP_TEST_DRIVER_INTERNAL_H
#define ORTKEEP_TEST_DRIVER_INTERNAL_H

#include "load_driver.h"

/* the response being streamed */
typedef struct {
    int active;
    const uint8_t *body;
    size_t start, end; /* byte range of `body` sent */
    size_t pos;        /* next byte */
    int cut_at;        /* absolute body byte count where it breaks, -1 */
    int streaming;     /* STREAM came: JS reads the body only then */
    int host_sha;      /* STREAM asked for the body's SHA-256 (OK_STREAM_HOST_SHA256) */
} fx_stream;

void buf_ensure(fx_page *pg, size_t n);
const char *fx_str(const uint8_t *d, uint32_t off, uint32_t len, char *tmp, size_t cap);
/* Answer a FETCH: the response headers, and the body to stream. */
void fx_fetch(fx_page *pg, ok_load *l, const ok_action *a, const uint8_t *data, fx_stream *s);
/* Feed the next body piece (or the end, or the break). */
void fx_feed(fx_page *pg, ok_load *l, fx_stream *s);
/* Carry out one action; returns 0, or -1 when the page "crashed". */
int fx_apply(fx_page *pg, ok_load *l, const ok_action *a, const uint8_t *data, fx_stream *s);

#endif
