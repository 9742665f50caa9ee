/* libFuzzer: arbitrary stored records, then arbitrary event sequences into
 * up to three interleaved loads over one cache. Nothing may crash, leak or
 * trip a sanitizer, whatever the order or the arguments; and no load may
 * serve (DONE with STORED|VERIFIED from IndexedDB) an entry that is not
 * committed. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ok_cache.h"
#include "ok_load.h"

typedef struct {
    const uint8_t *p;
    size_t n;
} cur;

static uint32_t take(cur *c, uint32_t bytes) {
    uint32_t v = 0;
    while (bytes--) {
        v = v << 8 | (c->n ? *c->p : 0);
        if (c->n) {
            c->p++;
            c->n--;
        }
    }
    return v;
}

static const uint8_t *span(cur *c, size_t *len, size_t max) {
    const uint8_t *p = c->p;
    size_t n = take(c, 2) % (max + 1);
    if (n > c->n) n = c->n;
    p = c->p;
    c->p += n;
    c->n -= n;
    *len = n;
    return p;
}

static const char *pick(cur *c, const char *const *v, size_t n) { return v[take(c, 1) % n]; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const char *const urls[] = {"https://a.test/m.onnx", "",        "blob:x", "file:///m",
                                       "https://a.test/app/",   "data:,x", "ftp://x"};
    static const char *const sris[] = {
        NULL, "", "sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=", "md5-x",
        "sha384-OLBgp1GsljhM2TJ+sbHjaiH9txEUvgdDTAzHv2P24donTt6/529l+9Ua0vFImLlb"};
    static const char *const names[] = {"e00.1", "e00.2", "e01.1", "x"};
    static const char *const hdr[] = {
        NULL,        "",      "123",     "bytes 0-9/10",         "gzip",
        "text/html", "\"e\"", "W/\"e\"", "bytes 4096-8191/8192", "18446744073709551615"};
    cur c = {data, size};
    ok_cache *k;
    ok_load *l[3] = {0};
    ok_sync *sy = NULL;
    uint32_t i, nrec;
    if (ok_cache_open(&k, take(&c, 1) * 4096u, take(&c, 4)) != OK_OK) return 0;
    /* what another tab left in the store */
    if (ok_cache_sync_begin(k, 1, &sy) == OK_OK) {
        nrec = take(&c, 1) % 4;
        for (i = 0; i < nrec; i++) {
            size_t len;
            const uint8_t *rec = span(&c, &len, 2048);
            const char *nm = pick(&c, names, 4);
            ok_cache_sync_record(k, sy, nm, strlen(nm), rec, len);
        }
        ok_cache_sync_chunk_name(k, sy, "e09.9", 5);
        ok_cache_sync_end(k, sy);
    }
    ok_cache_actions_clear(k);
    while (c.n) {
        uint32_t which = take(&c, 1) % 3, ev = take(&c, 1) % 32;
        ok_load *x = l[which];
        size_t len;
        const uint8_t *bytes;
        if (!x && ev != 0) continue;
        switch (ev) {
        case 0: {
            ok_load_params p;
            memset(&p, 0, sizeof p);
            static const uint8_t sha[32] = {1, 2, 3};
            static const char *const ctxs[] = {NULL, "ort=1.30.0;ep=wasm;level=all", "a|b", ""};
            static const char *const parts[] = {NULL, "", "m.onnx_data", "w/b.bin"};
            p.source = take(&c, 1) % 5;
            p.raw = p.url = pick(&c, urls, 7);
            if (take(&c, 1) & 1) p.raw = "x";
            if ((p.source == OK_SOURCE_FORM || p.source == OK_SOURCE_DATA) && take(&c, 1) & 1)
                p.raw = "url:https://a.test/m.onnx|form:original";
            p.part = pick(&c, parts, 4);
            p.owner = l[take(&c, 1) % 3]; /* DATA: a load in any state, or none */
            p.facts = take(&c, 1) % 4;
            p.form_ctx = pick(&c, ctxs, 4);
            p.form = take(&c, 1) % 4;
            p.source_sha256 = take(&c, 1) & 1 ? sha : NULL;
            p.page_url = "https://a.test/app/#x";
            p.integrity = pick(&c, sris, 5);
            p.mode = take(&c, 1) % 6;
            p.chunk_size = take(&c, 1) & 1 ? 4096 : 0;
            p.flags = take(&c, 1) % 32; /* CAPTURE_LATER (16) included */
            p.bytes_len = take(&c, 2);
            if (p.owner == x) p.owner = NULL; /* freed just below */
            if (x) ok_load_free(x);
            l[which] = NULL;
            if (ok_load_new(k, &p, &l[which]) == OK_OK) ok_load_start(l[which]);
            break;
        }
        case 1: ok_load_locked(x); break;
        case 2: {
            const char *nm = pick(&c, names, 4);
            bytes = span(&c, &len, 1024);
            ok_load_sync_record(x, nm, strlen(nm), bytes, len);
            break;
        }
        case 3: ok_load_synced(x); break;
        case 4: ok_load_quota(x, take(&c, 4)); break;
        case 5:
            ok_load_response(x, take(&c, 2) % 600, take(&c, 1) % 4, pick(&c, hdr, 10), pick(&c, hdr, 10),
                             pick(&c, hdr, 10), pick(&c, hdr, 10), pick(&c, hdr, 10), pick(&c, hdr, 10));
            break;
        case 6: ok_load_fetch_failed(x); break;
        case 7:
            bytes = span(&c, &len, 9000);
            ok_load_body(x, len ? bytes : NULL, len);
            break;
        case 8: ok_load_body_end(x); break;
        case 9: ok_load_body_error(x); break;
        case 10: ok_load_waited(x); break;
        case 11:
            bytes = span(&c, &len, 5000);
            ok_load_chunk_read(x, take(&c, 1) % 4, take(&c, 1) & 1 ? bytes : NULL, len);
            break;
        case 12:
            bytes = span(&c, &len, 512);
            ok_load_meta_read(x, take(&c, 1) & 1 ? bytes : NULL, len);
            break;
        case 13: ok_load_io_failed(x, take(&c, 1) % 4); break;
        case 14: ok_load_written(x); break;
        case 15: ok_load_write_failed(x, take(&c, 1) % 4); break;
        case 16:
            bytes = span(&c, &len, 256);
            ok_load_validated(x, take(&c, 1) % 20, take(&c, 2), len ? bytes : NULL, len);
            break;
        case 17: ok_load_session(x, take(&c, 1) & 1); break;
        case 18: ok_load_abort(x); break;
        case 19: ok_load_actions_clear(x); break;
        case 20: ok_cache_busy_key(k, "url:https://a.test/m.onnx|form:original"); break;
        case 21:
            ok_cache_clear(k);
            ok_cache_actions_clear(k);
            break;
        case 22: ok_cache_test_fail_alloc(1 + take(&c, 1) % 8); break;
        case 23: ok_load_session_timed(x, take(&c, 1) & 1, take(&c, 4)); break;
        case 24:
            ok_load_form_verified(x, take(&c, 1) % 6, take(&c, 4), take(&c, 1) & 1 ? take(&c, 4) : 0);
            break;
        case 25: ok_load_capture_form(x, take(&c, 1) % 4, (uint64_t)take(&c, 4) << take(&c, 1) % 33); break;
        case 26: ok_load_parts_mode(x); break; /* (what a DATA load takes from x) */
        case 27: {
            /* a data load joins another load's commit; a load adopting
             * itself or a non-DATA load is refused */
            ok_load *p = l[take(&c, 1) % 3];
            if (p) ok_load_adopt_part(x, p);
            break;
        }
        case 28: ok_load_captured(x, take(&c, 1) & 1 ? take(&c, 2) : 0); break;
        case 29: ok_load_body_idle(x); break;
        case 30: ok_load_ahead_settled(x, take(&c, 1) % 40, take(&c, 1) % 5); break;
        default: {
            ok_load_info info;
            ok_load_info_get(x, &info);
            if (info.state == OK_LOAD_STATE_DONE || info.state == OK_LOAD_STATE_FAILED) {
                ok_load_free(x);
                l[which] = NULL;
            }
        }
        }
        ok_cache_test_fail_alloc(ev == 22 ? 1 + (uint64_t)(take(&c, 1) % 8) : 0);
    }
    ok_cache_test_fail_alloc(0);
    for (i = 0; i < 3; i++) ok_load_free(l[i]);
    ok_cache_close(k);
    if (ok_cache_test_alloc_live() != 0) abort(); /* a leak */
    return 0;
}
