/* The fake page's network: a FETCH answered by the fake server (statuses,
 * ranges, hidden headers, cuts), and the body fed piece by piece. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver_internal.h"
#include "sha256.h"

void buf_ensure(fx_page *pg, size_t n) {
    if (n > pg->buf_cap) {
        size_t nc = pg->buf_cap ? pg->buf_cap : 4096;
        uint8_t *nb;
        while (nc < n) nc *= 2;
        nb = fx_malloc(nc);
        if (pg->buf_len) memcpy(nb, pg->buf, pg->buf_len);
        free(pg->buf);
        pg->buf = nb;
        pg->buf_cap = nc;
    }
}

const char *fx_str(const uint8_t *d, uint32_t off, uint32_t len, char *tmp, size_t cap) {
    if (len >= cap) len = (uint32_t)cap - 1;
    if (len) memcpy(tmp, d + off, len);
    tmp[len] = 0;
    return tmp;
}

/* Answer a FETCH: the response headers, and the body to stream. */
void fx_fetch(fx_page *pg, ok_load *l, const ok_action *a, const uint8_t *data, fx_stream *s) {
    fx_server *sv = pg->srv;
    int n = sv->n_req;
    fx_reply r = (n < FX_MAX_REQ && sv->planned[n]) ? sv->plan[n] : sv->every;
    uint64_t from = (uint64_t)a->value_lo | (uint64_t)a->value_hi << 32;
    const uint8_t *body = r.bytes ? r.bytes : sv->bytes;
    size_t len = r.bytes ? r.len : sv->len;
    static const char html[] = "<!doctype html><html><head><title>app</title></head><body>spa</body></html>";
    char cl[32], cr[96], tmp[64] = "";
    const char *etag = sv->etag[0] ? sv->etag : NULL;
    const char *lm = sv->lm[0] ? sv->lm : NULL;
    uint32_t status = 200;
    size_t start = 0, end;
    if (n < FX_MAX_REQ) {
        sv->req[n].from = (a->flags & OK_FETCH_RANGE) ? from : 0;
        sv->req[n].flags = a->flags;
        fx_str(data, a->name_off, a->name_len, sv->req[n].inm, sizeof sv->req[n].inm);
        fx_str(data, a->aux_off, a->aux_len, sv->req[n].ims, sizeof sv->req[n].ims);
    }
    sv->n_req++;
    memset(s, 0, sizeof *s);
    if (r.fetch_fails || (r.refuse_preflight && (a->flags & OK_FETCH_CONDITIONAL))) {
        FX_EV(ok_load_fetch_failed, l);
        return;
    }
    if (r.html) {
        body = (const uint8_t *)html;
        len = sizeof html - 1;
    }
    if (a->flags & OK_FETCH_CONDITIONAL) {
        char *inm = n < FX_MAX_REQ ? sv->req[n].inm : tmp;
        char *ims = n < FX_MAX_REQ ? sv->req[n].ims : tmp;
        if ((inm[0] && etag && strcmp(inm, etag) == 0) || (!inm[0] && ims[0] && lm && strcmp(ims, lm) == 0)) {
            FX_EV(ok_load_response, l, 304, r.cors ? OK_RESP_CORS : OK_RESP_BASIC, NULL, NULL, NULL, NULL,
                  r.cors ? NULL : etag, lm);
            return;
        }
    }
    end = len;
    if (r.status) {
        /* an error page; the machine never streams it */
        FX_EV(ok_load_response, l, r.status, OK_RESP_BASIC, "9", NULL, NULL, "text/plain", NULL, NULL);
        return;
    }
    if ((a->flags & OK_FETCH_RANGE) && !r.ignore_range && from < len) {
        status = 206;
        start = r.range_from0 ? 0 : (size_t)from;
    } else if (r.range_from0) {
        status = 206;
        start = 0;
    }
    if (r.short_by && (size_t)r.short_by < end - start) end -= (size_t)r.short_by;
    /* gzip: Content-Length counts encoded bytes (here: two thirds) */
    snprintf(cl, sizeof cl, "%llu", (unsigned long long)(len - start - (r.gzip ? (len - start) / 3 : 0)));
    if (status == 206)
        snprintf(cr, sizeof cr, "bytes %llu-%llu/%llu", (unsigned long long)start,
                 (unsigned long long)(len - 1), (unsigned long long)len);
    FX_EV(ok_load_response, l, status, r.cors ? OK_RESP_CORS : OK_RESP_BASIC, r.chunked ? NULL : cl,
          r.gzip && !r.cors ? "gzip" : NULL, status == 206 && !r.cors ? cr : NULL,
          r.html ? "text/html; charset=utf-8" : "application/octet-stream", r.cors ? NULL : etag, lm);
    s->active = 1;
    s->body = body;
    s->start = start;
    s->end = end + (size_t)r.long_by;
    if (s->end > len && !r.long_by) s->end = len;
    s->pos = start;
    s->cut_at = r.cut_at >= 0 && r.cut_at != 0 ? r.cut_at : -1;
}

/* Feed the next body piece (or the end, or the break). */
void fx_feed(fx_page *pg, ok_load *l, fx_stream *s) {
    size_t n;
    if (s->cut_at >= 0 && s->pos - s->start >= (size_t)s->cut_at) {
        s->active = 0;
        FX_EV(ok_load_body_error, l);
        return;
    }
    if (s->pos >= s->end) {
        s->active = 0;
        if (s->host_sha && !pg->host_sha_skip) {
            uint8_t d[32];
            ok_sha256(pg->buf, pg->buf_len, d);
            if (pg->host_sha_wrong) d[0] ^= 0xff;
            if (FX_EV(ok_load_body_sha256, l, d) != OK_OK) return;
        }
        FX_EV(ok_load_body_end, l);
        return;
    }
    n = pg->piece;
    if (n > s->end - s->pos) n = s->end - s->pos;
    if (s->cut_at >= 0 && s->pos - s->start + n > (size_t)s->cut_at)
        n = (size_t)s->cut_at - (s->pos - s->start);
    buf_ensure(pg, pg->buf_len + n);
    {
        /* long bodies repeat the last byte past the end */
        size_t i;
        for (i = 0; i < n; i++) {
            size_t at = s->pos + i;
            pg->buf[pg->buf_len + i] = at < pg->srv->len || s->body != pg->srv->bytes
                                           ? s->body[at < s->end ? at : s->end - 1]
                                           : 0x5a;
        }
    }
    s->pos += n;
    if (pg->split && n > 1) {
        size_t h = n / 2;
        if (FX_EV(ok_load_body, l, pg->buf + pg->buf_len, h) != OK_OK ||
            FX_EV(ok_load_body, l, pg->buf + pg->buf_len + h, n - h) != OK_OK) {
            s->active = 0;
            return;
        }
        pg->buf_len += n;
        if (!pg->fast_net) FX_EV(ok_load_body_idle, l);
        return;
    }
    if (FX_EV(ok_load_body, l, pg->buf + pg->buf_len, n) == OK_OK) {
        pg->buf_len += n;
        /* a slow link: JS waits on the network between pieces */
        if (!pg->fast_net) FX_EV(ok_load_body_idle, l);
    } else {
        s->active = 0;
    }
}
