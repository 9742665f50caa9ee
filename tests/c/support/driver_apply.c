/* The fake page carrying out one action of a load, as
 * js/cache/load-driver.js does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver_internal.h"
#include "inspect_json.h"
#include "onnx_reader.h"
#include "sha256.h"

/* Carry out one action; returns 0, or -1 when the page "crashed". */
int fx_apply(fx_page *pg, ok_load *l, const ok_action *a, const uint8_t *data, fx_stream *s) {
    fx_db *d = pg->db;
    char name[128];
    uint64_t value = (uint64_t)a->value_lo | (uint64_t)a->value_hi << 32;
    uint64_t value2 = (uint64_t)a->value2_lo | (uint64_t)a->value2_hi << 32;
    int rc;
    uint32_t i;
    fx_str(data, a->name_off, a->name_len, name, sizeof name);
    if (getenv("FX_TRACE"))
        fprintf(stderr, "  action %u name=%s chunk=%u..%u value=%llu value2=%llu flags=%u\n", a->type, name,
                a->chunk, a->chunk_end, (unsigned long long)value, (unsigned long long)value2, a->flags);
    switch (a->type) {
    case OK_ACT_LOCK: FX_EV(ok_load_locked, l); return 0;
    case OK_ACT_SYNC_INDEX:
        if (d->closed) {
            FX_EV(ok_load_io_failed, l, OK_IOFAIL_CLOSED);
            return 0;
        }
        if (d->fail_reads > 0) {
            d->fail_reads--;
            FX_EV(ok_load_io_failed, l, OK_IOFAIL_OTHER);
            return 0;
        }
        for (i = 0; i < d->index.n; i++)
            FX_EV(ok_load_sync_record, l, d->index.v[i].name, strlen(d->index.v[i].name), d->index.v[i].bytes,
                  d->index.v[i].len);
        if (a->flags & OK_SYNC_CHUNK_NAMES)
            for (i = 0; i < d->chunks.n; i++)
                FX_EV(ok_load_sync_chunk_name, l, d->chunks.v[i].name, strlen(d->chunks.v[i].name));
        FX_EV(ok_load_synced, l);
        return 0;
    case OK_ACT_ESTIMATE_QUOTA:
        FX_EV(ok_load_quota, l,
              d->quota ? (db_used(d) > d->quota ? 0 : d->quota - db_used(d)) + d->estimate_slack
                       : UINT64_MAX);
        return 0;
    case OK_ACT_FETCH: fx_fetch(pg, l, a, data, s); return 0;
    case OK_ACT_STREAM:
        /* the body is fed by the loop when the queue is empty */
        if (s->active) pg->buf_len = (size_t)value;
        s->streaming = s->active;
        s->host_sha = (a->flags & OK_STREAM_HOST_SHA256) != 0;
        return 0;
    case OK_ACT_CANCEL_FETCH: s->active = 0; return 0;
    case OK_ACT_WAIT: FX_EV(ok_load_waited, l); return 0;
    case OK_ACT_ALLOC:
        free(pg->buf);
        pg->buf = NULL;
        pg->buf_len = pg->buf_cap = 0;
        buf_ensure(pg, value ? (size_t)value : 16);
        return 0;
    case OK_ACT_READ_CHUNKS:
        if (d->closed) {
            FX_EV(ok_load_io_failed, l, OK_IOFAIL_CLOSED);
            return 0;
        }
        if (d->fail_reads > 0) {
            d->fail_reads--;
            FX_EV(ok_load_io_failed, l, OK_IOFAIL_OTHER);
            return 0;
        }
        for (i = a->chunk; i < a->chunk_end; i++) {
            fx_rec *r = fs_find(&d->chunks, name, i);
            if (r) {
                buf_ensure(pg, (size_t)(i * value + r->len));
                if (r->len <= value) memcpy(pg->buf + i * value, r->bytes, r->len);
                if (pg->buf_len < i * value + r->len) pg->buf_len = (size_t)(i * value + r->len);
            }
            if (FX_EV(ok_load_chunk_read, l, i, r ? r->bytes : NULL, r ? r->len : 0) != OK_OK) break;
        }
        return 0;
    case OK_ACT_READ_META: {
        fx_rec *r;
        if (d->closed) {
            FX_EV(ok_load_io_failed, l, OK_IOFAIL_CLOSED);
            return 0;
        }
        r = fs_find(&d->meta, name, 0);
        FX_EV(ok_load_meta_read, l, r ? r->bytes : NULL, r ? r->len : 0);
        return 0;
    }
    case OK_ACT_WRITE_MANIFEST:
    case OK_ACT_STORE_CHUNK:
    case OK_ACT_COMMIT: {
        uint64_t adding = a->blob_len + a->aux_len + (a->type == OK_ACT_STORE_CHUNK ? value2 : 0);
        int g;
        if (a->type == OK_ACT_COMMIT && (a->flags & OK_COMMIT_MORE)) {
            /* held for the group's one transaction */
            if (pg->n_group < FX_MAX_GROUP) {
                fx_str(data, a->name_off, a->name_len, pg->group[pg->n_group].name, sizeof pg->group[0].name);
                pg->group[pg->n_group].len = a->blob_len;
                pg->group[pg->n_group].bytes = fx_malloc(a->blob_len);
                memcpy(pg->group[pg->n_group++].bytes, data + a->blob_off, a->blob_len);
            }
            return 0;
        }
        for (g = 0; g < pg->n_group; g++) adding += pg->group[g].len;
        rc = db_begin_write(d, adding);
        if (rc) fx_group_clear(pg);
        if (rc < 0) return -1;
        if (a->type == OK_ACT_STORE_CHUNK && (a->flags & OK_STORE_AHEAD)) {
            /* begun at once, settled when the page is idle (the loop) */
            pg->ahead_n++;
            if (rc && !pg->ahead_failed) pg->ahead_failed = rc;
            if (rc) return 0;
            if (!pg->ahead_failed) pg->ahead_landed++;
        } else if (rc) {
            FX_EV(ok_load_write_failed, l, (uint32_t)rc);
            return 0;
        }
        if (a->type == OK_ACT_STORE_CHUNK)
            fs_put(&d->chunks, name, a->chunk, pg->buf + value, (size_t)value2);
        if (a->type == OK_ACT_COMMIT && a->aux_len) fs_put(&d->meta, name, 0, data + a->aux_off, a->aux_len);
        for (g = 0; g < pg->n_group; g++)
            fs_put(&d->index, pg->group[g].name, 0, pg->group[g].bytes, pg->group[g].len);
        fx_group_clear(pg);
        fs_put(&d->index, name, 0, data + a->blob_off, a->blob_len);
        d->writes++;
        if (!(a->type == OK_ACT_STORE_CHUNK && (a->flags & OK_STORE_AHEAD))) FX_EV(ok_load_written, l);
        return 0;
    }
    case OK_ACT_DELETE_CHUNKS:
    case OK_ACT_DROP_ENTRY:
    case OK_ACT_CLEAR_ALL:
        rc = db_begin_write(d, 0);
        if (rc < 0) return -1;
        if (rc) return 0; /* a failed delete: JS logs it and goes on */
        if (a->type == OK_ACT_DELETE_CHUNKS) {
            fs_del(&d->chunks, name, a->chunk, a->chunk_end);
        } else if (a->type == OK_ACT_DROP_ENTRY) {
            fs_del(&d->chunks, name, 0, OK_CACHE_CHUNK_END);
            fs_del(&d->index, name, 0, 1);
            fs_del(&d->meta, name, 0, 1);
        } else {
            fs_free(&d->index);
            fs_free(&d->meta);
            fs_free(&d->chunks);
        }
        d->writes++;
        return 0;
    case OK_ACT_REOPEN:
        d->closed = 0;
        d->reopens++;
        return 0;
    case OK_ACT_VALIDATE: {
        ok_model *m = NULL;
        ok_error err;
        char *json = NULL, hex[65];
        size_t jl = 0;
        uint8_t dig[32];
        ok_load_info li;
        memset(&err, 0, sizeof err);
        ok_load_info_get(l, &li);
        if (li.form == OK_FORM_ORT) {
            /* JS reads an .ort with the C ORT reader and hands over the
             * original's report; the stand-in takes bytes starting "ORTM" */
            static const char rep[] = "{\"ort\":true}";
            if (value >= 8 && memcmp(pg->buf + 4, "ORTM", 4) == 0)
                FX_EV(ok_load_validated, l, OK_OK, 0, (const uint8_t *)rep, sizeof rep - 1);
            else FX_EV(ok_load_validated, l, OK_ERR_NOT_ONNX, 0, NULL, 0);
            return 0;
        }
        if (ok_onnx_read(pg->buf, (size_t)value, &m, &err) != OK_OK) {
            FX_EV(ok_load_validated, l, err.code, err.offset, NULL, 0);
            return 0;
        }
        ok_sha256(pg->buf, (size_t)value, dig);
        ok_hex(dig, 32, hex);
        if (ok_inspect_json(m, hex, &json, &jl, &err) != OK_OK) {
            ok_model_free(m);
            FX_EV(ok_load_validated, l, err.code, 0, NULL, 0);
            return 0;
        }
        ok_model_free(m);
        FX_EV(ok_load_validated, l, OK_OK, 0, (const uint8_t *)json, jl);
        free(json);
        return 0;
    }
    case OK_ACT_CREATE_SESSION:
        /* value2: the form (an optimized one is created at 'disabled'); an
         * original is asked which form to capture, as JS does */
        pg->created_form = (uint32_t)value2;
        if (pg->n_parts && (!value2 || ok_load_parts_mode(l) == OK_PARTS_OWNER_STORED)) {
            /* a form served reads its original's data files too, as JS does
             * (a FORM load's own session is not the caller's: none) */
            ok_load_info info;
            int pr = fx_load_parts(pg, l);
            if (pr) return pr < 0 ? -1 : 0;
            FX_EV(ok_load_parts_loaded, l);
            /* a stale form retired: the original is read, CREATE_SESSION again */
            if (ok_load_info_get(l, &info) == OK_OK && info.form != (uint32_t)value2) {
                pg->created_form = OK_FORM_ORIGINAL;
                return 0;
            }
        }
        if (!value2) pg->capture = ok_load_capture_form(l, pg->facts, pg->external_bytes);
        if (pg->refuse_sessions > 0 || (pg->refuse_forms >> value2 & 1)) {
            if (pg->refuse_sessions > 0) pg->refuse_sessions--;
            FX_EV(ok_load_session_timed, l, pg->refuse_facts, 0);
            return 0;
        }
        pg->sessions++;
        free(pg->served);
        pg->served = fx_malloc((size_t)value);
        memcpy(pg->served, pg->buf, (size_t)value);
        pg->served_len = (size_t)value;
        FX_EV(ok_load_session_timed, l, OK_SESSION_OK | pg->session_facts,
              value2 < OK_FORM_COUNT ? pg->create_us[value2] : 0);
        return 0;
    case OK_ACT_CAPTURE_FORM:
        /* the capture onnxruntime writes (form_len 0: nothing usable) */
        pg->captures++;
        pg->captured_form = (uint32_t)value;
        FX_EV(ok_load_captured, l, pg->form_bytes ? pg->form_len : 0);
        return 0;
    case OK_ACT_VERIFY_FORM:
        pg->verifies++;
        FX_EV(ok_load_form_verified, l, pg->verdict ? pg->verdict : OK_VERDICT_EQUAL, pg->orig_create_us,
              pg->form_resample_us);
        return 0;
    case OK_ACT_NOTE:
        if (pg->n_notes < 16) {
            pg->notes[pg->n_notes] = (uint32_t)value;
            pg->note_reasons[pg->n_notes] = a->flags;
            pg->note_values[pg->n_notes++] = value2;
        }
        return 0;
    case OK_ACT_RELEASE_SESSION: pg->released++; return 0;
    case OK_ACT_WARN:
        if (pg->n_warns < 64) pg->warns[pg->n_warns++] = (uint32_t)value;
        return 0;
    case OK_ACT_DONE:
        pg->done = 1;
        pg->tier = (uint32_t)value;
        pg->done_flags = a->flags;
        pg->chunks_at_done = pg->db->chunks.n;
        {
            ok_load_info info;
            if (ok_load_info_get(l, &info) == OK_OK && info.has_sha256)
                memcpy(pg->served_sha, info.sha256, 32);
        }
        return 0;
    case OK_ACT_FAIL:
        pg->failed = 1;
        pg->fail_code = (uint32_t)value;
        pg->fail_reason = a->flags;
        pg->fail_number = value2;
        return 0;
    default: return 0;
    }
}
