/* The load machine: external data files (parts) and their model's load. */
#include <stdio.h>
#include <string.h>

#include "load_internal.h"
#include "form_tiers.h"

/* A DATA load takes what it is from the model's load: the model's key
 * (its content key when the model is not stored), SHA-256, flags, chunk
 * size and clock, and a mode that keeps the file as the model is kept. The
 * files one model needs must fit one session with it; each is counted as
 * it is planned, so the one past it fails before any is fetched. */
ok_status ok_ld_part_of_owner(ok_load *l, const ok_load_params *p) {
    ok_load *o = p->owner;
    uint32_t how = ok_load_parts_mode(o);
    if ((o->source != OK_SOURCE_URL && o->source != OK_SOURCE_BYTES) || o->state != OK_LOAD_STATE_CREATING ||
        !o->has_sha)
        return OK_ERR_STATE;
    if (p->bytes_len > OK_LOAD_MAX_SESSION_BYTES - o->total ||
        o->data_planned > OK_LOAD_MAX_SESSION_BYTES - o->total - p->bytes_len)
        return OK_ERR_LIMIT;
    if (o->n_keys) {
        l->raw = ok_cache_strdup(o->keys[o->key_index]);
    } else {
        char hex[65];
        ok_hex(o->sha256, 32, hex);
        l->raw = ok_cache_malloc(sizeof "sha256:|form:original" + 64);
        if (l->raw) snprintf(l->raw, sizeof "sha256:|form:original" + 64, "sha256:%s|form:original", hex);
    }
    l->url = ok_ld_strip_fragment(p->url);
    l->part = ok_cache_strdup(p->part);
    if (!l->raw || !l->url || !l->part) return OK_ERR_NOMEM;
    if (strlen(l->raw) + strlen(l->part) > OK_CACHE_MAX_KEY - sizeof OK_PART_SEP) return OK_ERR_LIMIT;
    memcpy(l->source_sha, o->sha256, 32);
    l->flags = o->flags;
    l->chunk_size = o->chunk_size;
    l->now = o->now;
    /* the model's mode: under no-cache each file is revalidated as a plain
     * no-cache fetch of it would be (a data file can change on the server
     * while the model file stays byte-identical) */
    l->mode = how == OK_PARTS_UNSTORED ? OK_MODE_NO_STORE : o->mode;
    l->owner_stored = how == OK_PARTS_OWNER_STORED;
    o->data_planned += p->bytes_len;
    return OK_OK;
}

/* A DATA load: its model's load holds the key's lock and synced the index
 * just now, so it looks up at once. */
ok_status ok_ld_start_part(ok_load *l) {
    int refused;
    ok_status st = ok_ld_admit_fetched(l, &refused);
    if (st || refused) return st;
    if (l->storable) return ok_ld_lookup(l);
    if (l->mode == OK_MODE_ONLY_IF_CACHED) return ok_ld_fail(l, OK_ERR_NOT_FOUND, OK_REASON_NOT_CACHED, 0);
    return ok_ld_send_fetch(l, 0, 0);
}

/* A data file arrived whole (no reader: the model's report says what it
 * must hold). Stored beside a stored model, it commits now; beside one
 * being stored, it is staged for the model's commit. */
ok_status ok_ld_part_complete(ok_load *l) {
    ok_entry *e = ok_ld_entry_of(l, l->write_id);
    if (l->total < l->bytes_len) {
        ok_status st = ok_ld_end_write(l, 0);
        return st ? st : ok_ld_fail(l, OK_ERR_TRUNCATED, OK_REASON_DATA_SHORT, l->total);
    }
    if (!l->storing || !e) return ok_ld_done(l);
    if (l->owner_stored) return ok_ld_commit(l);
    e->total_size = l->total;
    e->chunk_count = e->stored_count = l->cut;
    memcpy(e->sha256, l->sha256, 32);
    l->staged = 1;
    return ok_ld_done(l);
}

uint32_t ok_load_parts_mode(const ok_load *l) {
    if (!l || l->source != OK_SOURCE_URL || l->state != OK_LOAD_STATE_CREATING || !l->storable)
        return OK_PARTS_UNSTORED;
    if (l->tier == OK_TIER_INDEXEDDB) return OK_PARTS_OWNER_STORED;
    return l->storing && l->write_id ? OK_PARTS_STAGE : OK_PARTS_UNSTORED;
}

ok_status ok_load_adopt_part(ok_load *l, ok_load *part) {
    ok_entry *e;
    if (!l || !part || part->source != OK_SOURCE_DATA ||
        (l->source != OK_SOURCE_URL && l->source != OK_SOURCE_BYTES))
        return OK_ERR_INVALID_ARG;
    if (l->state != OK_LOAD_STATE_CREATING || !l->session_pending || part->state != OK_LOAD_STATE_DONE)
        return OK_ERR_STATE;
    e = part->staged ? ok_ld_entry_of(part, part->write_id) : NULL;
    if (!e) {
        /* read from IndexedDB or committed by itself: nothing to carry;
         * fetched and not stored: the model cannot be stored whole */
        if (!part->stored) l->parts_lost = 1;
        return OK_OK;
    }
    if (l->n_parts == OK_LOAD_MAX_PARTS || !l->storing || !l->write_id) {
        l->parts_lost = 1;
        return OK_OK; /* the staged file stays pending: swept or resumed later */
    }
    l->parts[l->n_parts++] = e->id;
    part->write_id = 0;
    part->staged = 0;
    return OK_OK;
}

/* A form folds weights of its data files into itself, and was chosen at
 * the lookup, before the files were loaded: one fetched again since (a
 * rotten chunk, a missing record) may hold other bytes. A form whose
 * source (ok_form_source_id) is not what is stored beside its original now
 * is retired before any session is made of it: the original is read and
 * serves, and the form is captured again in the background. */
ok_status ok_load_parts_loaded(ok_load *l) {
    ok_entry *f, *o;
    const char *key;
    const uint8_t *sha;
    uint8_t id[32];
    if (!l) return OK_ERR_INVALID_ARG;
    if (l->state != OK_LOAD_STATE_CREATING || !l->session_pending) return OK_ERR_STATE;
    if (l->form == OK_FORM_ORIGINAL || l->tier != OK_TIER_INDEXEDDB) return OK_OK;
    f = ok_ld_entry_of(l, l->hit_id);
    o = ok_ld_entry_of(l, l->orig_id);
    key = o ? o->key : l->content && l->n_keys ? l->keys[0] : NULL;
    sha = o ? o->sha256 : l->source_sha;
    if (f && key) {
        ok_form_source_id(l->c, key, sha, id);
        if (memcmp(id, f->source_sha256, 32) == 0) return OK_OK;
    }
    ok_ld_bind_queue(l);
    l->session_pending = 0;
    return ok_ld_leave(l, ok_ld_drop_and_refetch(l, 0, OK_REASON_FORM_STALE, 0));
}
