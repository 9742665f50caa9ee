/* The action queue: fixed 40-byte records plus one byte arena for their
 * names and blobs, addressed by 32-bit offsets so JS reads the same layout
 * from wasm32 memory as the native tests do from a 64-bit process. */
#include <string.h>

#include "cache_internal.h"

ok_act_mark ok_act_mark_get(const ok_cache *c) {
    ok_act_mark m;
    m.n_acts = c->n_acts;
    m.n_data = c->n_data;
    return m;
}

void ok_act_rollback(ok_cache *c, ok_act_mark m) {
    c->n_acts = m.n_acts;
    c->n_data = m.n_data;
}

/* Returns the (possibly new) buffer, or NULL with *st set. */
static void *grow(void *buf, uint32_t *cap, uint64_t need, size_t elem,
                  uint32_t used, ok_status *st) {
    uint64_t ncap;
    void *nb;
    *st = OK_OK;
    if (need <= *cap) return buf;
    ncap = *cap ? *cap : 16;
    while (ncap < need) ncap *= 2;
    if (ncap * elem > 0x7FFFFFFFu) {
        *st = OK_ERR_LIMIT;
        return NULL;
    }
    nb = ok_cache_malloc((size_t)(ncap * elem));
    if (!nb) {
        *st = OK_ERR_NOMEM;
        return NULL;
    }
    if (used) memcpy(nb, buf, (size_t)used * elem);
    ok_cache_free(buf);
    *cap = (uint32_t)ncap;
    return nb;
}

/* Reserve arena bytes; returns the offset. */
static ok_status arena_take(ok_cache *c, size_t n, uint32_t *off) {
    ok_status st;
    uint8_t *d = grow(c->data, &c->cap_data, (uint64_t)c->n_data + n, 1,
                      c->n_data, &st);
    if (!d) return st;
    c->data = d;
    *off = c->n_data;
    c->n_data += (uint32_t)n;
    return OK_OK;
}

static ok_status act_new(ok_cache *c, uint32_t type, uint32_t entry,
                         uint32_t chunk, uint32_t chunk_end, const char *name,
                         uint64_t value, ok_cache_action **out) {
    ok_status st;
    ok_cache_action *a;
    size_t nl = name ? strlen(name) : 0;
    uint32_t off = 0;
    a = grow(c->acts, &c->cap_acts, (uint64_t)c->n_acts + 1,
             sizeof(ok_cache_action), c->n_acts, &st);
    if (!a) return st;
    c->acts = a;
    if (nl) {
        /* Runs of actions for one entry (READ_CHUNK per chunk) share the
         * name bytes. */
        const ok_cache_action *prev = c->n_acts ? &c->acts[c->n_acts - 1] : 0;
        if (prev && prev->name_len == nl &&
            memcmp(c->data + prev->name_off, name, nl) == 0) {
            off = prev->name_off;
        } else {
            st = arena_take(c, nl, &off);
            if (st) return st;
            memcpy(c->data + off, name, nl);
        }
    }
    a = &c->acts[c->n_acts++];
    memset(a, 0, sizeof *a);
    a->type = type;
    a->entry = entry;
    a->chunk = chunk;
    a->chunk_end = chunk_end;
    a->name_off = off;
    a->name_len = (uint32_t)nl;
    a->value_lo = (uint32_t)value;
    a->value_hi = (uint32_t)(value >> 32);
    *out = a;
    return OK_OK;
}

ok_status ok_act_push(ok_cache *c, uint32_t type, uint32_t entry,
                      uint32_t chunk, uint32_t chunk_end, const char *name,
                      const uint8_t *blob, size_t blob_len, uint64_t value) {
    ok_act_mark mk = ok_act_mark_get(c);
    ok_cache_action *a;
    uint32_t off = 0;
    ok_status st = act_new(c, type, entry, chunk, chunk_end, name, value, &a);
    if (st) return st;
    if (blob_len) {
        st = arena_take(c, blob_len, &off);
        if (st) {
            ok_act_rollback(c, mk);
            return st;
        }
        memcpy(c->data + off, blob, blob_len);
        a = &c->acts[c->n_acts - 1];
    }
    a->blob_off = off;
    a->blob_len = (uint32_t)blob_len;
    return OK_OK;
}

ok_status ok_act_push_manifest(ok_cache *c, uint32_t type, const ok_entry *e,
                               uint32_t chunk) {
    ok_act_mark mk = ok_act_mark_get(c);
    ok_manifest m;
    ok_cache_action *a;
    uint32_t off;
    size_t n;
    ok_status st = act_new(c, type, e->id, chunk, chunk, e->name, 0, &a);
    if (st) return st;
    ok_entry_to_manifest(e, &m);
    n = ok_manifest_size(&m);
    st = arena_take(c, n, &off);
    if (!st) st = ok_manifest_encode(&m, c->data + off, n);
    if (st) {
        ok_act_rollback(c, mk);
        return st;
    }
    a = &c->acts[c->n_acts - 1];
    a->blob_off = off;
    a->blob_len = (uint32_t)n;
    return OK_OK;
}

ok_status ok_act_push_drop(ok_cache *c, const ok_entry *e) {
    return ok_act_push(c, OK_ACT_DROP_ENTRY, e->id, 0, OK_CACHE_CHUNK_END,
                       e->name, NULL, 0, 0);
}

const ok_cache_action *ok_cache_actions(const ok_cache *c, uint32_t *count) {
    if (count) *count = c ? c->n_acts : 0;
    return c ? c->acts : NULL;
}

const uint8_t *ok_cache_action_data(const ok_cache *c) {
    return c ? c->data : NULL;
}

void ok_cache_actions_clear(ok_cache *c) {
    if (!c) return;
    c->n_acts = 0;
    c->n_data = 0;
}

void ok_cache_actions_trim(ok_cache *c) {
    if (!c) return;
    ok_cache_free(c->acts);
    ok_cache_free(c->data);
    c->acts = NULL;
    c->data = NULL;
    c->n_acts = c->cap_acts = c->n_data = c->cap_data = 0;
}
