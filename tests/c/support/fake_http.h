/* The HTTP server a fake page fetches from, and how it misbehaves on
 * request (the answers themselves: driver_fetch.c). */
#ifndef ORTKEEP_TEST_FAKE_HTTP_H
#define ORTKEEP_TEST_FAKE_HTTP_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint32_t status;      /* 0 = 200/206 as the request asks */
    int fetch_fails;      /* fetch() rejects (offline, CORS) */
    int refuse_preflight; /* conditional or If-Range requests fail */
    int cut_at;           /* body breaks after this many bytes (-1 off) */
    int short_by;         /* body ends cleanly this many bytes early */
    int long_by;          /* body has this many extra bytes */
    int chunked;          /* no Content-Length */
    int gzip;             /* Content-Encoding: gzip (decoded body) */
    int cors;             /* Response.type 'cors': ETag/Content-Range hidden */
    int ignore_range;     /* 200 with everything to a Range request */
    int range_from0;      /* 206 from byte 0 whatever was asked */
    int html;             /* an SPA fallback page instead of the model */
    const uint8_t *bytes; /* override the body for this request */
    size_t len;
} fx_reply;

typedef struct {
    uint64_t from;
    uint32_t flags;
    char inm[64], ims[64];
} fx_request;

#define FX_MAX_REQ 16
typedef struct fx_server {
    const uint8_t *bytes;
    size_t len;
    char etag[64], lm[64];
    fx_reply plan[FX_MAX_REQ]; /* what request n gets (0-based) */
    fx_reply every;            /* what every request gets (unless planned) */
    int planned[FX_MAX_REQ];
    fx_request req[FX_MAX_REQ];
    int n_req;
} fx_server;

#endif
