/* Action queues: fixed 60-byte records plus one byte arena for their
 * strings and blobs, addressed by 32-bit offsets so JS reads the same layout
 * from wasm32 memory as the native tests do from a 64-bit process. */
#include <string.h>

#include "cache_internal.h"

_Static_assert(sizeof(ok_action) == 15 * 4, "ok_action is 15 uint32 words");

ok_act_mark ok_q_mark(const ok_actq *q) {
    ok_act_mark m;
    m.n = q->n;
    m.n_data = q->n_data;
    return m;
}

void ok_q_rollback(ok_actq *q, ok_act_mark m) {
    q->n = m.n;
    q->n_data = m.n_data;
}

void ok_q_clear(ok_actq *q) {
    q->n = 0;
    q->n_data = 0;
}

void ok_q_free(ok_actq *q) {
    ok_cache_free(q->acts);
    ok_cache_free(q->data);
    memset(q, 0, sizeof *q);
}

/* Grow *buf (elem-sized items, cap in items) to hold need items. */
static ok_status grow(void **buf, uint32_t *cap, uint64_t need, size_t elem) {
    uint64_t ncap;
    void *nb;
    if (need <= *cap) return OK_OK;
    ncap = *cap ? *cap : 16;
    while (ncap < need) ncap *= 2;
    if (ncap * elem > 0x7FFFFFFFu) return OK_ERR_LIMIT;
    nb = ok_cache_realloc(*buf, (size_t)(ncap * elem));
    if (!nb) return OK_ERR_NOMEM;
    *buf = nb;
    *cap = (uint32_t)ncap;
    return OK_OK;
}

/* Copy n bytes into the arena; *off is where they went. */
static ok_status arena_put(ok_actq *q, const void *p, size_t n, uint32_t *off) {
    ok_status st;
    *off = 0;
    if (!n) return OK_OK;
    if (n > 0x7FFFFFFFu) return OK_ERR_LIMIT;
    st = grow((void **)&q->data, &q->cap_data, (uint64_t)q->n_data + n, 1);
    if (st) return st;
    memcpy(q->data + q->n_data, p, n);
    *off = q->n_data;
    q->n_data += (uint32_t)n;
    return OK_OK;
}

ok_status ok_q_push(ok_actq *q, const ok_act_args *a) {
    ok_act_mark mk = ok_q_mark(q);
    uint32_t name_off = 0, blob_off = 0, aux_off = 0;
    size_t name_len = a->name ? strlen(a->name) : 0;
    ok_action *r;
    ok_status st = grow((void **)&q->acts, &q->cap, (uint64_t)q->n + 1, sizeof(ok_action));
    if (!st) st = arena_put(q, a->name, name_len, &name_off);
    if (!st) st = arena_put(q, a->blob, a->blob_len, &blob_off);
    if (!st) st = arena_put(q, a->aux, a->aux_len, &aux_off);
    if (st) {
        ok_q_rollback(q, mk);
        return st;
    }
    r = &q->acts[q->n++];
    memset(r, 0, sizeof *r);
    r->type = a->type;
    r->entry = a->entry;
    r->chunk = a->chunk;
    r->chunk_end = a->chunk_end;
    r->flags = a->flags;
    r->value_lo = (uint32_t)a->value;
    r->value_hi = (uint32_t)(a->value >> 32);
    r->value2_lo = (uint32_t)a->value2;
    r->value2_hi = (uint32_t)(a->value2 >> 32);
    r->name_off = name_off;
    r->name_len = (uint32_t)name_len;
    r->blob_off = blob_off;
    r->blob_len = (uint32_t)a->blob_len;
    r->aux_off = aux_off;
    r->aux_len = (uint32_t)a->aux_len;
    return OK_OK;
}

ok_status ok_q_push_manifest(ok_actq *q, ok_act_args a, const ok_entry *e) {
    ok_manifest m;
    size_t n;
    uint8_t *buf;
    ok_status st;
    ok_entry_to_manifest(e, &m);
    n = ok_manifest_size(&m);
    buf = ok_cache_malloc(n);
    if (!buf) return OK_ERR_NOMEM;
    st = ok_manifest_encode(&m, buf, n);
    if (!st) {
        a.entry = e->id;
        a.name = e->name;
        a.blob = buf;
        a.blob_len = n;
        st = ok_q_push(q, &a);
    }
    ok_cache_free(buf);
    return st;
}

ok_status ok_q_push_drop(ok_actq *q, const ok_entry *e) {
    ok_act_args a;
    memset(&a, 0, sizeof a);
    a.type = OK_ACT_DROP_ENTRY;
    a.entry = e->id;
    a.chunk_end = OK_CACHE_CHUNK_END;
    a.name = e->name;
    return ok_q_push(q, &a);
}

const ok_action *ok_cache_actions(const ok_cache *c, uint32_t *count) {
    if (count) *count = c ? c->own.n : 0;
    return c ? c->own.acts : NULL;
}

const uint8_t *ok_cache_action_data(const ok_cache *c) { return c ? c->own.data : NULL; }

void ok_cache_actions_clear(ok_cache *c) {
    if (c) ok_q_clear(&c->own);
}
