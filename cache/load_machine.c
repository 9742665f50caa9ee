/* The load machine (ok_load.h): one load() from source to served session.
 *
 * Paths, each a sequence of states:
 *   hit       LOCKING SYNCING READING CREATING DONE
 *   network   LOCKING SYNCING [QUOTA] FETCHING STREAMING VALIDATING CREATING
 *             COMMITTING DONE
 *   resume    LOCKING SYNCING READING (re-hash the stored prefix) FETCHING
 *             (Range) STREAMING ...
 *   direct    FETCHING STREAMING VALIDATING CREATING DONE (nothing stored:
 *             blob:, data:, file:, no-store, no IndexedDB)
 *   bytes     VALIDATING CREATING DONE
 *   form hit  (a URL load with a form context whose original is stored and
 *             has a verified optimized form) LOCKING SYNCING READING (the
 *             form's entry) CREATING (at 'disabled') DONE; a form that fails
 *             its checks is dropped and the original read instead
 *   FORM      (storing a captured form) LOCKING SYNCING QUOTA STREAMING
 *             VALIDATING CREATING VERIFYING COMMITTING DONE, or straight to
 *             COMMITTING a tombstone when the form fails
 *   DATA      (an external data file, while its model's load is CREATING)
 *             READING DONE (stored beside these model bytes), or [QUOTA]
 *             FETCHING STREAMING DONE (staged: committed by the model's load
 *             in one transaction with the model) / COMMITTING DONE (the
 *             model is stored already)
 * with WAITING (back-off) between a failed request and the next, and
 * FAILED at any point.
 *
 * Invariants the JS side relies on:
 *   - at most one write (WRITE_MANIFEST / STORE_CHUNK / COMMIT) is
 *     outstanding; complete chunks wait in a backlog until the write before
 *     them is acked, so no write is ever queued behind one that may fail;
 *   - an entry commits only when the transport delivered the whole body, the
 *     integrity (if any) matched, the C reader accepted the bytes and
 *     onnxruntime-web created a session from them;
 *   - a stored copy that fails a checksum, is missing a record or is refused
 *     by onnxruntime is dropped before anything else is decided. */
#include <stdio.h>
#include <string.h>

#include "cache_internal.h"
#include "form_tiers.h"
#include "ok_load.h"
#include "onnx_reader.h"
#include "sha256.h"
#include "sha512.h"


enum { SCHEME_BAD = 0, SCHEME_HTTP, SCHEME_FILE, SCHEME_DIRECT };

struct ok_load {
    ok_cache *c;
    ok_actq q;
    uint32_t state;
    uint32_t source, mode, flags;
    uint64_t now;
    char *raw, *url, *page_url;
    uint32_t scheme;
    int storable;           /* may use IndexedDB at all */
    int integ_bad;          /* integrity failed to parse: FAIL at start */
    ok_status integ_status;
    ok_integrity integ;
    char *keys[OK_CACHE_MAX_INTEGRITY];
    uint32_t n_keys;
    char *lock_name;
    uint32_t chunk_size;
    uint64_t bytes_len;     /* OK_SOURCE_BYTES */
    ok_sync *sync;

    /* counters (policy limits in ok_load.h) */
    uint32_t fetches, resumes, refetches, reopens;

    /* the stored entry read (hit / revalidated / resume) or written */
    uint32_t hit_id;        /* holds a reference */
    uint32_t write_id;      /* writing = 1 */
    int rehash;             /* reading a pending entry's prefix to resume */
    uint32_t read_next;     /* next chunk expected by chunk_read */

    /* the request in flight */
    uint32_t req_flags;
    uint64_t req_from;

    /* the accepted response */
    int storing;            /* chunks go to IndexedDB */
    int size_exact;
    uint64_t total;         /* exact total, or (after the end) the size */
    int encoded, html;
    char *resp_etag, *resp_lm;
    int strong;

    /* streaming */
    uint64_t received;      /* bytes in the model buffer */
    int ended;              /* body_end seen; waiting for stores to land */
    struct ok_sha256 sha, sha_mark;       /* whole content; at the last chunk boundary */
    ok_sha512_ctx sha5, sha5_mark;        /* when integrity is sha384/512 */
    ok_xxh3_state sum;                    /* the chunk being filled */
    uint32_t cut;           /* complete chunks so far */
    uint32_t queued;        /* chunks whose STORE_CHUNK was emitted */
    uint8_t prefix[OK_LOAD_PREFIX_CHECK_BYTES];
    uint32_t prefix_len;
    int prefix_done;

    int resuming;           /* broken: storing the backlog, then Range */
    int session_pending;    /* CREATE_SESSION sent, no answer yet */
    uint32_t key_index;     /* the key whose integrity digest matched */

    /* the one outstanding write */
    uint32_t w_type, w_chunk;
    int w_pending;
    int marker_pending;     /* STREAM waits for the PENDING marker's ack */

    /* result */
    uint32_t tier;
    int stored, verified, has_sha, served;
    uint64_t resumed_from;
    uint8_t sha256[32];
    uint64_t report_sum;
    uint32_t report_len;
    uint8_t *report;        /* copy kept for COMMIT */
    int session_live;       /* created, not yet served or released */

    /* optimized forms (OK_SOURCE_FORM, and URL loads with a context) */
    char *form_ctx;         /* NULL: forms off */
    uint32_t form;          /* the form served (URL) or stored (FORM) */
    uint8_t source_sha[32]; /* FORM: the original's SHA-256 */
    uint32_t orig_id;       /* URL: the original behind a form being read */
    uint32_t create_us, orig_create_us;
    uint32_t form_status, form_reason, next_form;
    uint32_t facts;         /* FORM: the original's OK_FACT_* */

    /* external data files (parts) */
    char *part;             /* DATA: the file's location */
    int owner_stored;       /* DATA: the model is committed already */
    uint64_t data_planned;  /* URL/BYTES: the data files' least sizes so far */
    int staged;             /* DATA: every chunk stored, the entry pending */
    uint32_t parts[OK_LOAD_MAX_PARTS]; /* URL: staged entries adopted */
    uint32_t n_parts;
    int parts_lost;         /* URL: a data file could not be stored */
};

static ok_status stream(ok_load *l);
static ok_status create_session(ok_load *l);
static ok_status form_commit(ok_load *l, uint32_t status, uint32_t reason);
static ok_status done(ok_load *l);

/* ---- small helpers ---- */

/* The SRI digest beside SHA-256, when integrity names sha384/512. */
static void sri_init(ok_load *l) {
    if (l->integ.alg == OK_HASH_SHA384) ok_sha384_init(&l->sha5);
    else ok_sha512_init(&l->sha5);
}

static void sri_final(ok_load *l, uint8_t *d) {
    ok_sha512_final(&l->sha5, d); /* 48 or 64 bytes, by the init */
}

static void args0(ok_act_args *a, uint32_t type) {
    memset(a, 0, sizeof *a);
    a->type = type;
}

/* A queue failure (NOMEM) after the state already moved on would strand
 * the caller; every push goes through here and a failure becomes FAIL. */
static ok_status push(ok_load *l, const ok_act_args *a) {
    return ok_q_push(&l->q, a);
}

static ok_status push_simple(ok_load *l, uint32_t type, uint64_t value,
                             uint64_t value2, uint32_t flags, const char *name) {
    ok_act_args a;
    args0(&a, type);
    a.value = value;
    a.value2 = value2;
    a.flags = flags;
    a.name = name;
    return push(l, &a);
}

static ok_entry *entry_of(const ok_load *l, uint32_t id) {
    return id ? ok_idx_find_id(l->c, id) : NULL;
}

static void bind_queue(ok_load *l) { l->c->q = &l->q; }
static void unbind_queue(ok_load *l) { l->c->q = &l->c->own; }

static int finished(const ok_load *l) {
    return l->state == OK_LOAD_STATE_DONE || l->state == OK_LOAD_STATE_FAILED;
}

/* Let go of the read reference: the last reader of a superseded version
 * drops it. */
static ok_status release_hit(ok_load *l) {
    ok_entry *e = entry_of(l, l->hit_id);
    l->hit_id = 0;
    if (!e) return OK_OK;
    if (e->refcount) e->refcount--;
    if (!e->refcount && e->superseded) {
        ok_status st = ok_q_push_drop(&l->q, e);
        if (st) return st;
        ok_idx_remove(l->c, e);
    }
    return OK_OK;
}

/* Let go of the adopted parts: each kept if it can be resumed (completed)
 * later, else dropped. */
static ok_status end_parts(ok_load *l, int keep) {
    while (l->n_parts) {
        ok_entry *e = entry_of(l, l->parts[--l->n_parts]);
        ok_status st;
        if (!e) continue;
        e->writing = 0;
        if (keep && ok_entry_resumable(e) && e->stored_count) continue;
        st = ok_q_push_drop(&l->q, e);
        if (st) {
            e->writing = 1;
            l->n_parts++;
            return st;
        }
        ok_idx_remove(l->c, e);
    }
    return OK_OK;
}

/* Stop writing: keep the pending entry (and parts) when it can be resumed
 * later. */
static ok_status end_write(ok_load *l, int keep) {
    ok_entry *e = entry_of(l, l->write_id);
    ok_status pst = end_parts(l, keep);
    if (pst) return pst;
    l->write_id = 0;
    l->storing = 0;
    l->w_pending = 0;
    l->marker_pending = 0;
    if (!e) return OK_OK;
    e->writing = 0;
    if (keep && ok_entry_resumable(e) && e->stored_count) return OK_OK;
    {
        ok_status st = ok_q_push_drop(&l->q, e);
        if (st) return st;
    }
    ok_idx_remove(l->c, e);
    return OK_OK;
}

static ok_status fail(ok_load *l, ok_status code, uint32_t reason,
                      uint64_t number) {
    ok_act_args a;
    ok_status st = OK_OK;
    if (finished(l)) return OK_OK;
    if (l->state == OK_LOAD_STATE_FETCHING || l->state == OK_LOAD_STATE_STREAMING)
        st = push_simple(l, OK_ACT_CANCEL_FETCH, 0, 0, 0, NULL);
    if (!st && l->session_live) {
        st = push_simple(l, OK_ACT_RELEASE_SESSION, 0, 0, 0, NULL);
        l->session_live = 0;
    }
    if (!st) st = release_hit(l);
    if (!st) st = end_write(l, 1);
    if (!st) {
        args0(&a, OK_ACT_FAIL);
        a.value = code;
        a.flags = reason;
        a.value2 = number;
        a.name = l->url;
        st = push(l, &a);
    }
    l->state = OK_LOAD_STATE_FAILED;
    return st;
}

/* Out of memory mid-event: the queue may not even hold FAIL. Drop what was
 * queued and try once more with an empty arena; JS treats OK_ERR_NOMEM
 * with no FAIL queued as a failed load too. */
static ok_status nomem(ok_load *l) {
    ok_q_clear(&l->q);
    l->session_live = 0; /* JS releases what it created (the contract) */
    fail(l, OK_ERR_NOMEM, OK_REASON_NONE, 0);
    l->state = OK_LOAD_STATE_FAILED;
    return OK_ERR_NOMEM;
}

/* WARN (a warning) or NOTE (an event for the caller): code, why, a number. */
static ok_status tell(ok_load *l, uint32_t type, uint32_t code, uint32_t reason,
                      uint64_t number) {
    ok_act_args a;
    args0(&a, type);
    a.value = code;
    a.flags = reason;
    a.value2 = number;
    a.name = l->url;
    return push(l, &a);
}

static ok_status warn(ok_load *l, uint32_t code, uint32_t reason,
                      uint64_t number) {
    return tell(l, OK_ACT_WARN, code, reason, number);
}

static ok_status note(ok_load *l, uint32_t code, uint32_t reason,
                      uint64_t number) {
    return tell(l, OK_ACT_NOTE, code, reason, number);
}

/* ---- source classification and keys ---- */

static int lower_prefix(const char *s, const char *p) {
    for (; *p; s++, p++) {
        char ch = *s;
        if (ch >= 'A' && ch <= 'Z') ch = (char)(ch - 'A' + 'a');
        if (ch != *p) return 0;
    }
    return 1;
}

static uint32_t scheme_of(const char *url) {
    if (lower_prefix(url, "https:") || lower_prefix(url, "http:"))
        return SCHEME_HTTP;
    if (lower_prefix(url, "file:")) return SCHEME_FILE;
    if (lower_prefix(url, "blob:") || lower_prefix(url, "data:"))
        return SCHEME_DIRECT;
    return SCHEME_BAD;
}

/* The URL without its fragment (a copy). */
static char *strip_fragment(const char *url) {
    const char *h = strchr(url, '#');
    return ok_cache_strndup(url, h ? (size_t)(h - url) : strlen(url));
}

static const char *alg_name(uint32_t alg) {
    switch (alg) {
    case OK_HASH_SHA256: return "sha256";
    case OK_HASH_SHA384: return "sha384";
    default: return "sha512";
    }
}

/* The form a load stores and reads (the original bytes, until the
 * artifact-forms issue adds optimized forms to OK_FORM_LIST). */
#define FORM_KEY_(name, value, js) js,
static const char *const FORM_NAMES[] = {OK_FORM_LIST(FORM_KEY_)};
#undef FORM_KEY_

/* Keys: "url:<url>|form:original", or with integrity one content key per
 * digest of the strongest algorithm ("sha384:<hex>|form:original"): the
 * same bytes hit whatever URL they came from. */
static ok_status make_keys(ok_load *l) {
    uint32_t i;
    if (l->source == OK_SOURCE_DATA) {
        /* the model's key + "|data:" + location; no lock of its own */
        size_t n = strlen(l->raw) + sizeof OK_PART_SEP + strlen(l->part);
        l->keys[0] = ok_cache_malloc(n);
        if (!l->keys[0]) return OK_ERR_NOMEM;
        snprintf(l->keys[0], n, "%s" OK_PART_SEP "%s", l->raw, l->part);
        l->n_keys = 1;
        return OK_OK;
    }
    if (l->source == OK_SOURCE_FORM) {
        l->keys[0] = ok_form_key(l->raw, l->form, l->form_ctx);
        if (!l->keys[0]) return OK_ERR_NOMEM;
        l->n_keys = 1;
    } else if (l->integ.alg == OK_HASH_NONE) {
        size_t n = strlen(l->url) + 32;
        char *k = ok_cache_malloc(n);
        if (!k) return OK_ERR_NOMEM;
        snprintf(k, n, "url:%s|form:%s", l->url, FORM_NAMES[OK_FORM_ORIGINAL]);
        l->keys[l->n_keys++] = k;
    } else {
        uint32_t nb = ok_hash_bytes(l->integ.alg);
        for (i = 0; i < l->integ.count; i++) {
            char hex[2 * OK_HASH_MAX_BYTES + 1];
            size_t n = 2 * nb + 32;
            char *k = ok_cache_malloc(n);
            if (!k) return OK_ERR_NOMEM;
            ok_hex(l->integ.digest[i], nb, hex);
            snprintf(k, n, "%s:%s|form:%s", alg_name(l->integ.alg), hex,
                     FORM_NAMES[OK_FORM_ORIGINAL]);
            l->keys[l->n_keys++] = k;
        }
    }
    /* the lock is the smallest key, so every load of the same key set
     * serialises on one name whatever the token order */
    {
        const char *min = l->keys[0];
        size_t n;
        for (i = 1; i < l->n_keys; i++)
            if (strcmp(l->keys[i], min) < 0) min = l->keys[i];
        n = strlen(min) + sizeof OK_CACHE_LOCK_PREFIX;
        l->lock_name = ok_cache_malloc(n);
        if (!l->lock_name) return OK_ERR_NOMEM;
        snprintf(l->lock_name, n, "%s%s", OK_CACHE_LOCK_PREFIX, min);
    }
    return OK_OK;
}

/* ---- lifecycle ---- */

/* A DATA load takes what it is from the model's load: the model's key
 * (its content key when the model is not stored), SHA-256, flags, chunk
 * size and clock, and a mode that keeps the file as the model is kept. The
 * files one model needs must fit one session with it; each is counted as
 * it is planned, so the one past it fails before any is fetched. */
static ok_status part_of_owner(ok_load *l, const ok_load_params *p) {
    ok_load *o = p->owner;
    uint32_t how = ok_load_parts_mode(o);
    if ((o->source != OK_SOURCE_URL && o->source != OK_SOURCE_BYTES) ||
        o->state != OK_LOAD_STATE_CREATING || !o->has_sha)
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
    l->url = strip_fragment(p->url);
    l->part = ok_cache_strdup(p->part);
    if (!l->raw || !l->url || !l->part) return OK_ERR_NOMEM;
    if (strlen(l->raw) + strlen(l->part) > OK_CACHE_MAX_KEY - sizeof OK_PART_SEP)
        return OK_ERR_LIMIT;
    memcpy(l->source_sha, o->sha256, 32);
    l->flags = o->flags;
    l->chunk_size = o->chunk_size;
    l->now = o->now;
    /* revalidating the model decided the bytes: a file stored beside them
     * is theirs */
    l->mode = how == OK_PARTS_UNSTORED ? OK_MODE_NO_STORE
              : o->mode == OK_MODE_NO_CACHE ? OK_MODE_DEFAULT : o->mode;
    l->owner_stored = how == OK_PARTS_OWNER_STORED;
    o->data_planned += p->bytes_len;
    return OK_OK;
}

ok_status ok_load_new(ok_cache *c, const ok_load_params *p, ok_load **out) {
    ok_load *l;
    ok_status st = OK_OK;
    if (!c || !p || !out) return OK_ERR_INVALID_ARG;
    *out = NULL;
    if (p->source != OK_SOURCE_URL && p->source != OK_SOURCE_BYTES &&
        p->source != OK_SOURCE_FORM && p->source != OK_SOURCE_DATA)
        return OK_ERR_INVALID_ARG;
    if (p->source == OK_SOURCE_DATA &&
        (!p->owner || !p->url || !p->part || !p->part[0] ||
         strlen(p->part) > OK_CACHE_MAX_STR))
        return OK_ERR_INVALID_ARG;
    if (p->form_ctx && (strlen(p->form_ctx) > OK_CACHE_MAX_FORM_CTX ||
                        strchr(p->form_ctx, '|') || !p->form_ctx[0]))
        return OK_ERR_INVALID_ARG;
    if (p->source == OK_SOURCE_FORM &&
        (!p->raw || !p->raw[0] || !p->url || !p->form_ctx || !p->source_sha256 ||
         (p->form != OK_FORM_ONNX && p->form != OK_FORM_ORT) ||
         strlen(p->raw) > OK_CACHE_MAX_KEY - OK_CACHE_MAX_FORM_CTX - 32))
        return OK_ERR_INVALID_ARG;
    if (p->mode > OK_MODE_ONLY_IF_CACHED) return OK_ERR_INVALID_ARG;
    if (p->chunk_size && (p->chunk_size < OK_CACHE_MIN_CHUNK_SIZE ||
                          p->chunk_size > OK_CACHE_MAX_CHUNK_SIZE))
        return OK_ERR_INVALID_ARG;
    if (p->source == OK_SOURCE_URL && (!p->raw || !p->url)) return OK_ERR_INVALID_ARG;
    /* what is stored (http URLs, integrity) has a size limit; a data: URL
     * is never stored and may be as long as the model */
    if ((p->url && strlen(p->url) > OK_CACHE_MAX_STR &&
         scheme_of(p->url) == SCHEME_HTTP) ||
        (p->integrity && strlen(p->integrity) > OK_CACHE_MAX_STR))
        return OK_ERR_LIMIT;
    l = ok_cache_calloc(1, sizeof *l);
    if (!l) return OK_ERR_NOMEM;
    l->c = c;
    l->source = p->source;
    l->mode = p->mode;
    l->flags = p->flags;
    l->now = p->now;
    l->bytes_len = p->bytes_len;
    l->chunk_size = p->chunk_size ? p->chunk_size : OK_LOAD_DEFAULT_CHUNK_SIZE;
    if (p->form_ctx) {
        l->form_ctx = ok_cache_strdup(p->form_ctx);
        if (!l->form_ctx) st = OK_ERR_NOMEM;
    }
    if (!st && p->source == OK_SOURCE_DATA) st = part_of_owner(l, p);
    if (!st && p->source == OK_SOURCE_FORM) {
        l->form = p->form;
        l->facts = p->facts;
        memcpy(l->source_sha, p->source_sha256, 32);
        l->raw = ok_cache_strdup(p->raw);
        l->url = ok_cache_strdup(p->url);
        if (!l->raw || !l->url) st = OK_ERR_NOMEM;
        if (!st) st = make_keys(l);
    }
    if (p->source == OK_SOURCE_URL) {
        l->raw = ok_cache_strdup(p->raw);
        l->url = strip_fragment(p->url);
        l->page_url = p->page_url ? strip_fragment(p->page_url) : NULL;
        if (!l->raw || !l->url || (p->page_url && !l->page_url)) st = OK_ERR_NOMEM;
    }
    if (!st) {
        l->integ_status = ok_integrity_parse(p->integrity, &l->integ);
        l->integ_bad = l->integ_status != OK_OK;
    }
    if (!st && (p->source == OK_SOURCE_URL || p->source == OK_SOURCE_DATA)) {
        l->scheme = scheme_of(l->url);
        /* only what can be stored has a key (and takes a lock) */
        if (!l->integ_bad && l->scheme == SCHEME_HTTP) st = make_keys(l);
    }
    if (!st) {
        l->lock_name = l->lock_name ? l->lock_name : ok_cache_strdup("");
        if (!l->lock_name) st = OK_ERR_NOMEM;
    }
    if (st) {
        ok_load_free(l);
        return st;
    }
    ok_sha256_init(&l->sha);
    sri_init(l);
    ok_xxh3_reset(&l->sum, 0);
    *out = l;
    return OK_OK;
}

void ok_load_free(ok_load *l) {
    uint32_t i;
    if (!l) return;
    if (l->c) {
        ok_entry *e = entry_of(l, l->hit_id);
        if (e && e->refcount) e->refcount--;
        e = entry_of(l, l->write_id);
        if (e) e->writing = 0;
        for (i = 0; i < l->n_parts; i++) {
            e = entry_of(l, l->parts[i]);
            if (e) e->writing = 0;
        }
        if (l->sync) ok_cache_sync_abandon(l->c, l->sync);
    }
    ok_q_free(&l->q);
    for (i = 0; i < l->n_keys; i++) ok_cache_free(l->keys[i]);
    ok_cache_free(l->lock_name);
    ok_cache_free(l->raw);
    ok_cache_free(l->url);
    ok_cache_free(l->page_url);
    ok_cache_free(l->resp_etag);
    ok_cache_free(l->resp_lm);
    ok_cache_free(l->report);
    ok_cache_free(l->form_ctx);
    ok_cache_free(l->part);
    ok_cache_free(l);
}

const ok_action *ok_load_actions(const ok_load *l, uint32_t *count) {
    if (count) *count = l ? l->q.n : 0;
    return l ? l->q.acts : NULL;
}

const uint8_t *ok_load_action_data(const ok_load *l) {
    return l ? l->q.data : NULL;
}

void ok_load_actions_clear(ok_load *l) {
    if (l) ok_q_clear(&l->q);
}

/* ---- requests ---- */

/* Send FETCH (from byte `from`, with `flags`), counting it. */
static ok_status send_fetch(ok_load *l, uint64_t from, uint32_t flags) {
    ok_act_args a;
    const ok_entry *e = NULL;
    if (l->source != OK_SOURCE_URL && l->source != OK_SOURCE_DATA)
        /* bytes in memory: nothing to fetch */
        return fail(l, OK_ERR_TRUNCATED, OK_REASON_BODY_BROKEN, l->received);
    if (l->fetches >= OK_LOAD_MAX_FETCHES)
        return fail(l, l->received ? OK_ERR_TRUNCATED : OK_ERR_NETWORK,
                    OK_REASON_FETCH_FAILED, l->received);
    l->fetches++;
    l->req_from = from;
    l->req_flags = flags;
    args0(&a, OK_ACT_FETCH);
    a.flags = flags;
    a.value = from;
    a.blob = (const uint8_t *)l->url;
    a.blob_len = strlen(l->url);
    if (flags & OK_FETCH_CONDITIONAL) {
        e = entry_of(l, l->hit_id);
        a.name = e ? e->etag : "";
        a.aux = e ? (const uint8_t *)e->lm : NULL;
        a.aux_len = e ? strlen(e->lm) : 0;
    }
    l->state = OK_LOAD_STATE_FETCHING;
    return push(l, &a);
}

/* Back off, then a fresh request from byte 0 (WAIT -> waited). */
static ok_status retry_later(ok_load *l, uint32_t reason, uint64_t number) {
    uint64_t ms = OK_LOAD_BACKOFF_MS;
    uint32_t i;
    ok_status st;
    if (l->fetches >= OK_LOAD_MAX_FETCHES) return OK_ERR_LIMIT;
    for (i = 1; i < l->fetches && ms < 60000; i++) ms *= 4;
    st = warn(l, OK_WARN_RETRYING, reason, number);
    if (!st) st = push_simple(l, OK_ACT_WAIT, ms, 0, 0, NULL);
    l->state = OK_LOAD_STATE_WAITING;
    return st;
}

/* Forget the download so far; the next response starts from byte 0. */
static void reset_stream(ok_load *l) {
    l->received = 0;
    l->ended = 0;
    l->cut = 0;
    l->queued = 0;
    l->prefix_len = 0;
    l->prefix_done = 0;
    l->resumed_from = 0;
    l->total = 0;
    l->size_exact = 0;
    ok_sha256_init(&l->sha);
    sri_init(l);
    ok_xxh3_reset(&l->sum, 0);
}

/* A plain GET from byte 0 now (no back-off): what any doubt about a resume
 * or a revalidation falls back to. A pending entry is dropped: its bytes
 * may not be the ones the server sends now. */
static ok_status refetch_plain(ok_load *l) {
    ok_status st = end_write(l, 0);
    reset_stream(l);
    if (!st) st = release_hit(l);
    if (!st) st = send_fetch(l, 0, 0);
    return st;
}

/* ---- lookup ---- */


static ok_entry *committed_for(ok_load *l) {
    uint32_t i;
    for (i = 0; i < l->n_keys; i++) {
        ok_entry *e = ok_idx_find_committed(l->c, l->keys[i]);
        if (e) {
            l->key_index = i; /* the key parts and forms hang off */
            return e;
        }
    }
    return NULL;
}

static ok_entry *pending_for(ok_load *l) {
    uint32_t i;
    for (i = 0; i < l->n_keys; i++) {
        ok_entry *e = ok_idx_find_pending(l->c, l->keys[i]);
        if (e && !e->writing) return e;
    }
    return NULL;
}

/* A pending entry this load can continue: same URL, the same integrity,
 * resumable, something stored. */
static int can_resume(const ok_load *l, const ok_entry *e) {
    uint32_t nb = ok_hash_bytes(l->integ.alg), i;
    if (!ok_entry_resumable(e) || !e->stored_count) return 0;
    if (strcmp(e->url, l->url) != 0 || e->chunk_size != l->chunk_size) return 0;
    if (l->source == OK_SOURCE_DATA &&
        memcmp(e->source_sha256, l->source_sha, 32) != 0)
        return 0;
    if (e->integ_alg != l->integ.alg || e->integ_count != l->integ.count)
        return 0;
    for (i = 0; i < l->integ.count; i++)
        if (memcmp(e->integ + (size_t)i * nb, l->integ.digest[i], nb) != 0)
            return 0;
    return 1;
}

/* READ_CHUNKS from chunk `from` to the end of what is stored (a rehash:
 * the stored prefix of a pending entry), then, on a hit, READ_META. */
static ok_status push_reads(ok_load *l, const ok_entry *e, uint32_t from) {
    ok_act_args a;
    ok_status st;
    args0(&a, OK_ACT_READ_CHUNKS);
    a.entry = e->id;
    a.chunk = from;
    a.chunk_end = l->rehash ? e->stored_count : e->chunk_count;
    a.flags = l->rehash ? OK_READ_REHASH : 0;
    a.value = e->chunk_size;
    a.value2 = e->total_size;
    a.name = e->name;
    st = push(l, &a);
    if (!st && !l->rehash && l->source != OK_SOURCE_DATA) {
        args0(&a, OK_ACT_READ_META);
        a.entry = e->id;
        a.name = e->name;
        st = push(l, &a);
    }
    return st;
}

/* Read a committed entry (a hit, or a 304 revalidation). */
static ok_status start_hit(ok_load *l, ok_entry *e) {
    ok_status st;
    e->refcount++;
    e->hit_count++;
    e->last_used = l->now;
    l->hit_id = e->id;
    l->total = e->total_size;
    l->read_next = 0;
    l->rehash = 0;
    l->tier = OK_TIER_INDEXEDDB;
    st = push_simple(l, OK_ACT_ALLOC, e->total_size, e->total_size, 0, NULL);
    if (!st) st = push_reads(l, e, 0);
    l->state = OK_LOAD_STATE_READING;
    return st;
}

/* Re-read a pending entry's stored prefix (checking each chunk and
 * rebuilding the content hash), then ask for the rest by Range. */
static ok_status start_resume(ok_load *l, ok_entry *e) {
    ok_status st;
    reset_stream(l);
    e->writing = 1;
    e->last_used = l->now;
    l->write_id = e->id;
    l->rehash = 1;
    l->read_next = 0;
    l->total = e->total_size;
    l->size_exact = 1;
    l->storing = 1;
    l->strong = (e->flags & OK_EF_STRONG) != 0;
    st = push_simple(l, OK_ACT_ALLOC, e->total_size, e->total_size, 0, NULL);
    if (!st) st = push_reads(l, e, 0);
    l->state = OK_LOAD_STATE_READING;
    return st;
}

static ok_status lookup_form_store(ok_load *l);

/* Drop a pending entry this load cannot continue (the key's lock is held:
 * no one else is writing it). */
static ok_status sweep_pending(ok_load *l, ok_entry *p) {
    ok_status st = ok_q_push_drop(&l->q, p);
    if (st) return st;
    ok_idx_remove(l->c, p);
    return OK_OK;
}

/* Nothing stored serves: continue a download left pending when it can
 * be, else sweep it and fetch. */
static ok_status lookup_miss(ok_load *l) {
    ok_entry *p;
    ok_status st;
    if (l->mode == OK_MODE_ONLY_IF_CACHED)
        return fail(l, OK_ERR_NOT_FOUND, OK_REASON_NOT_CACHED, 0);
    p = pending_for(l);
    if (p && l->mode != OK_MODE_RELOAD && can_resume(l, p) &&
        l->resumes < OK_LOAD_MAX_RESUMES)
        return start_resume(l, p);
    if (p && (st = sweep_pending(l, p))) return st;
    return send_fetch(l, 0, 0);
}

/* A part: the stored file if it was committed beside these very model
 * bytes, else a download it can continue, else the network. */
static ok_status lookup_part(ok_load *l) {
    ok_entry *e = l->mode != OK_MODE_RELOAD
                      ? ok_idx_find_committed(l->c, l->keys[0]) : NULL;
    if (e && memcmp(e->source_sha256, l->source_sha, 32) == 0)
        return start_hit(l, e);
    return lookup_miss(l);
}

static ok_status lookup(ok_load *l) {
    ok_entry *e = NULL;
    ok_status st;
    if (l->source == OK_SOURCE_FORM) return lookup_form_store(l);
    if (l->source == OK_SOURCE_DATA) return lookup_part(l);
    if (l->mode != OK_MODE_RELOAD) e = committed_for(l);
    if (e && l->form_ctx &&
        (l->mode == OK_MODE_DEFAULT || l->mode == OK_MODE_ONLY_IF_CACHED)) {
        ok_entry *f = NULL;
        st = ok_form_servable(l->c, e->key, l->form_ctx, e->sha256, &f);
        if (st) return st;
        if (f) {
            /* the original stays the fallback if the form fails its checks */
            l->orig_id = e->id;
            l->form = f->form;
            l->create_us = f->create_us;
            l->orig_create_us = f->orig_create_us;
            return start_hit(l, f);
        }
    }
    if (e && l->mode == OK_MODE_NO_CACHE) {
        /* revalidate: conditional request with the entry's validators */
        e->refcount++;
        l->hit_id = e->id;
        if (e->etag[0] || e->lm[0]) return send_fetch(l, 0, OK_FETCH_CONDITIONAL);
        /* nothing to revalidate with: fetch; it replaces the entry */
        st = release_hit(l);
        return st ? st : send_fetch(l, 0, 0);
    }
    if (e) return start_hit(l, e);
    return lookup_miss(l);
}

/* ---- events: start, lock, sync ---- */

static ok_status guard(ok_load *l, uint32_t state) {
    if (!l) return OK_ERR_INVALID_ARG;
    if (l->state != state) return OK_ERR_STATE;
    bind_queue(l);
    return OK_OK;
}

static ok_status leave(ok_load *l, ok_status st) {
    unbind_queue(l);
    if (st == OK_ERR_NOMEM) return nomem(l);
    if (st && st != OK_ERR_STATE) {
        /* a limit hit inside a decision: the load cannot go on */
        ok_status code = st;
        st = fail(l, code, OK_REASON_NONE, 0);
        return st ? nomem(l) : code;
    }
    return st;
}

/* A DATA load: its model's load holds the key's lock and synced the index
 * just now, so it looks up at once. */
/* A source that is fetched (URL, DATA): its integrity must parse and its
 * scheme hold a model here (else FAIL is queued and *refused set); then
 * whether it is stored, and the tier it comes from. */
static ok_status admit_fetched(ok_load *l, int *refused) {
    *refused = 1;
    if (l->integ_bad) return fail(l, OK_ERR_INVALID_ARG, OK_REASON_BAD_INTEGRITY, 0);
    if (l->scheme == SCHEME_BAD ||
        (l->scheme == SCHEME_FILE && !(l->flags & OK_LOAD_NODE)))
        return fail(l, OK_ERR_INVALID_SOURCE, OK_REASON_SCHEME, 0);
    if (l->page_url && strcmp(l->page_url, l->url) == 0)
        return fail(l, OK_ERR_INVALID_SOURCE, OK_REASON_PAGE_ITSELF, 0);
    *refused = 0;
    l->storable = l->scheme == SCHEME_HTTP && l->mode != OK_MODE_NO_STORE &&
                  !(l->flags & (OK_LOAD_NO_IDB | OK_LOAD_IDB_FAILED));
    l->tier = l->scheme == SCHEME_FILE ? OK_TIER_FILE : OK_TIER_NETWORK;
    return OK_OK;
}

static ok_status start_part(ok_load *l) {
    int refused;
    ok_status st = admit_fetched(l, &refused);
    if (st || refused) return st;
    if (l->storable) return lookup(l);
    if (l->mode == OK_MODE_ONLY_IF_CACHED)
        return fail(l, OK_ERR_NOT_FOUND, OK_REASON_NOT_CACHED, 0);
    return send_fetch(l, 0, 0);
}

ok_status ok_load_start(ok_load *l) {
    ok_status st = guard(l, OK_LOAD_STATE_NEW);
    if (st) return st;
    if (l->source == OK_SOURCE_BYTES) {
        /* the caller's bytes are the model buffer; JS feeds them as a body
         * so integrity and the prefix check run as for a download */
        l->tier = OK_TIER_BYTES;
        if (l->integ_bad)
            return leave(l, fail(l, OK_ERR_INVALID_ARG, OK_REASON_BAD_INTEGRITY, 0));
        l->total = l->bytes_len;
        l->size_exact = 1;
        return leave(l, stream(l));
    }
    if (l->source == OK_SOURCE_FORM) {
        /* nothing to store into: no IndexedDB here */
        if (l->flags & (OK_LOAD_NO_IDB | OK_LOAD_IDB_FAILED))
            return leave(l, fail(l, OK_ERR_INVALID_ARG, OK_REASON_NONE, 0));
        l->storable = 1;
        l->tier = OK_TIER_BYTES;
        l->state = OK_LOAD_STATE_LOCKING;
        return leave(l, push_simple(l, OK_ACT_LOCK, 0, 0, 0, l->lock_name));
    }
    if (l->source == OK_SOURCE_DATA) return leave(l, start_part(l));
    if (!l->raw[0])
        return leave(l, fail(l, OK_ERR_INVALID_SOURCE, OK_REASON_EMPTY_SOURCE, 0));
    {
        int refused;
        st = admit_fetched(l, &refused);
        if (st || refused) return leave(l, st);
    }
    if (!l->storable) {
        if (l->mode == OK_MODE_ONLY_IF_CACHED)
            return leave(l, fail(l, OK_ERR_NOT_FOUND, OK_REASON_NOT_CACHED, 0));
        if (l->scheme == SCHEME_HTTP && l->mode != OK_MODE_NO_STORE &&
            (l->flags & OK_LOAD_IDB_FAILED))
            st = warn(l, OK_WARN_CACHE_UNAVAILABLE, OK_REASON_NONE, 0);
        if (!st) st = send_fetch(l, 0, 0);
        return leave(l, st);
    }
    l->state = OK_LOAD_STATE_LOCKING;
    st = push_simple(l, OK_ACT_LOCK, 0, 0, 0, l->lock_name);
    return leave(l, st);
}

ok_status ok_load_locked(ok_load *l) {
    int first;
    ok_status st = guard(l, OK_LOAD_STATE_LOCKING);
    if (st) return st;
    first = !l->c->synced_once;
    st = ok_cache_sync_begin(l->c, first, &l->sync);
    if (!st) {
        l->c->synced_once = 1;
        l->state = OK_LOAD_STATE_SYNCING;
        st = push_simple(l, OK_ACT_SYNC_INDEX, 0, 0,
                         first ? OK_SYNC_CHUNK_NAMES : 0, NULL);
    }
    return leave(l, st);
}

ok_status ok_load_sync_record(ok_load *l, const char *name, size_t name_len,
                              const uint8_t *bytes, size_t len) {
    ok_status st = guard(l, OK_LOAD_STATE_SYNCING);
    if (st) return st;
    st = ok_cache_sync_record(l->c, l->sync, name, name_len, bytes, len);
    unbind_queue(l);
    return st == OK_ERR_NOMEM ? nomem(l) : st;
}

ok_status ok_load_sync_chunk_name(ok_load *l, const char *name,
                                  size_t name_len) {
    ok_status st = guard(l, OK_LOAD_STATE_SYNCING);
    if (st) return st;
    st = ok_cache_sync_chunk_name(l->c, l->sync, name, name_len);
    unbind_queue(l);
    return st == OK_ERR_NOMEM ? nomem(l) : st;
}

ok_status ok_load_synced(ok_load *l) {
    ok_status st = guard(l, OK_LOAD_STATE_SYNCING);
    if (st) return st;
    st = ok_cache_sync_end(l->c, l->sync);
    l->sync = NULL;
    if (!st) st = lookup(l);
    return leave(l, st);
}

/* The store could not be used: go on without it. What was stored is kept
 * for a resume, unless it is the quota that refused it: then it cannot be
 * finished either, and only takes the space. */
static ok_status go_uncached(ok_load *l, uint32_t warning, uint32_t reason) {
    ok_status st = end_write(l, warning != OK_WARN_QUOTA);
    if (!st) st = warn(l, warning, reason, 0);
    l->storable = 0;
    return st;
}

/* A read or a store failed. CLOSED: reopen (a bounded number of times) and
 * redo; else the load goes on without the cache. */
static ok_status io_trouble(ok_load *l, uint32_t kind, int *redo) {
    *redo = 0;
    if (kind == OK_IOFAIL_CLOSED && l->reopens < OK_LOAD_MAX_REOPENS) {
        l->reopens++;
        *redo = 1;
        return push_simple(l, OK_ACT_REOPEN, 0, 0, 0, NULL);
    }
    return OK_OK;
}

ok_status ok_load_io_failed(ok_load *l, uint32_t kind) {
    ok_status st;
    int redo;
    if (!l) return OK_ERR_INVALID_ARG;
    if (l->state != OK_LOAD_STATE_SYNCING && l->state != OK_LOAD_STATE_READING)
        return OK_ERR_STATE;
    bind_queue(l);
    st = io_trouble(l, kind, &redo);
    if (!st && l->state == OK_LOAD_STATE_SYNCING) {
        if (redo) {
            ok_cache_sync_abandon(l->c, l->sync);
            l->sync = NULL;
            st = ok_cache_sync_begin(l->c, 0, &l->sync);
            if (!st) st = push_simple(l, OK_ACT_SYNC_INDEX, 0, 0, 0, NULL);
        } else {
            ok_cache_sync_abandon(l->c, l->sync);
            l->sync = NULL;
            st = go_uncached(l, OK_WARN_CACHE_ERROR, OK_REASON_IDB);
            if (!st) {
                if (l->mode == OK_MODE_ONLY_IF_CACHED)
                    st = fail(l, OK_ERR_NOT_FOUND, OK_REASON_NOT_CACHED, 0);
                else
                    st = send_fetch(l, 0, 0);
            }
        }
    } else if (!st) {
        /* READING: a hit or a resume could not read its records */
        ok_entry *e = entry_of(l, l->rehash ? l->write_id : l->hit_id);
        if (redo && e) {
            st = push_reads(l, e, l->read_next);
        } else {
            st = release_hit(l);
            if (!st) st = go_uncached(l, OK_WARN_CACHE_ERROR, OK_REASON_IDB);
            reset_stream(l);
            if (!st) st = l->mode == OK_MODE_ONLY_IF_CACHED
                              ? fail(l, OK_ERR_NOT_FOUND, OK_REASON_NOT_CACHED, 0)
                              : send_fetch(l, 0, 0);
        }
    }
    return leave(l, st);
}

/* ---- reading a hit / a resume prefix ---- */

/* A stored copy is bad (checksum, missing record, refused by onnxruntime):
 * drop it and fetch the model again, a bounded number of times. */
static ok_status drop_and_refetch(ok_load *l, uint32_t warning, uint32_t reason,
                                  uint64_t number) {
    ok_entry *e = entry_of(l, l->hit_id);
    ok_status st = OK_OK;
    if (e) {
        st = ok_q_push_drop(&l->q, e);
        if (st) return st;
        l->hit_id = 0;
        ok_idx_remove(l->c, e);
    }
    if (l->form != OK_FORM_ORIGINAL) {
        /* an optimized form failed a check: the original serves, and its
         * session captures this tier again, verified anew */
        ok_entry *o = entry_of(l, l->orig_id);
        st = note(l, OK_NOTE_FORM_DROPPED, reason, l->form);
        l->form = OK_FORM_ORIGINAL;
        l->orig_id = 0;
        l->create_us = l->orig_create_us = 0;
        if (st) return st;
        reset_stream(l);
        if (o && o->state == OK_ENTRY_COMMITTED) return start_hit(l, o);
        l->tier = OK_TIER_NETWORK;
        return send_fetch(l, 0, 0);
    }
    st = warn(l, warning, reason, number);
    if (st) return st;
    reset_stream(l);
    if (l->mode == OK_MODE_ONLY_IF_CACHED)
        return fail(l, OK_ERR_CORRUPT, reason, number);
    if (l->refetches >= OK_LOAD_MAX_REFETCHES)
        return fail(l, warning == OK_WARN_REFUSED ? OK_ERR_SESSION_CREATE
                                                  : OK_ERR_CORRUPT,
                    reason, number);
    l->refetches++;
    l->tier = OK_TIER_NETWORK;
    return send_fetch(l, 0, 0);
}

/* A resumed entry's stored chunk idx is bad: keep what is before it. */
static ok_status truncate_resume(ok_load *l, ok_entry *e, uint32_t idx) {
    ok_act_args a;
    ok_status st;
    e->stored_count = idx;
    args0(&a, OK_ACT_DELETE_CHUNKS);
    a.entry = e->id;
    a.chunk = idx;
    a.chunk_end = OK_CACHE_CHUNK_END;
    a.name = e->name;
    st = push(l, &a);
    return st;
}

/* Resume prefix re-read (or truncated): ask for the rest. */
static ok_status resume_fetch(ok_load *l) {
    ok_entry *e = entry_of(l, l->write_id);
    ok_act_args a;
    ok_status st;
    l->rehash = 0;
    if (!e || !e->stored_count) return refetch_plain(l);
    /* the manifest first, so a crash leaves it naming only good chunks */
    args0(&a, OK_ACT_WRITE_MANIFEST);
    st = ok_q_push_manifest(&l->q, a, e);
    if (st) return st;
    l->w_pending = 1;
    l->w_type = OK_ACT_WRITE_MANIFEST;
    l->w_chunk = 0;
    l->marker_pending = 0;
    l->received = ok_entry_stored_bytes(e);
    l->cut = l->queued = e->stored_count;
    if ((e->flags & OK_EF_SIZE_KNOWN) && l->received == e->total_size) {
        /* every byte is stored (a tab died before the commit): nothing to
         * ask for; the end checks the content hash as after a download */
        l->resumed_from = l->received;
        l->ended = 1;
        l->state = OK_LOAD_STATE_STREAMING; /* pump finishes once it lands */
        return OK_OK;
    }
    l->resumes++;
    st = warn(l, OK_WARN_RESUMING, OK_REASON_NONE, l->received);
    if (!st) st = send_fetch(l, l->received, OK_FETCH_RANGE);
    return st;
}

ok_status ok_load_chunk_read(ok_load *l, uint32_t idx, const uint8_t *p,
                             size_t n) {
    ok_entry *e;
    int ok;
    ok_status st = guard(l, OK_LOAD_STATE_READING);
    if (st) return st;
    e = entry_of(l, l->rehash ? l->write_id : l->hit_id);
    if (!e || idx != l->read_next ||
        idx >= (l->rehash ? e->stored_count : e->chunk_count))
        return leave(l, OK_ERR_STATE);
    ok = p && (uint64_t)n == ok_entry_chunk_len(e, idx);
    if (ok && (l->rehash || !(l->flags & OK_LOAD_NO_VERIFY)))
        ok = ok_chunk_sum(p, n) == e->sums[idx];
    if (l->rehash) {
        if (!ok) {
            st = truncate_resume(l, e, idx);
            if (!st) st = resume_fetch(l);
            return leave(l, st);
        }
        ok_sha256_update(&l->sha, p, n);
        if (l->integ.alg >= OK_HASH_SHA384) ok_sha512_update(&l->sha5, p, n);
        l->read_next++;
        if (l->read_next == e->stored_count) st = resume_fetch(l);
        return leave(l, st);
    }
    if (!ok)
        return leave(l, drop_and_refetch(l, OK_WARN_CORRUPT,
                                         p ? OK_REASON_CHECKSUM : OK_REASON_MISSING,
                                         idx));
    l->read_next++;
    l->received += n;
    if (l->source == OK_SOURCE_DATA && l->read_next == e->chunk_count) {
        /* a part has no report: its chunks are the whole of it */
        memcpy(l->sha256, e->sha256, 32);
        l->has_sha = 1;
        l->verified = !(l->flags & OK_LOAD_NO_VERIFY);
        l->stored = 1;
        st = done(l);
        if (!st) st = release_hit(l);
    }
    return leave(l, st);
}

ok_status ok_load_meta_read(ok_load *l, const uint8_t *p, size_t n) {
    ok_entry *e;
    ok_status st = guard(l, OK_LOAD_STATE_READING);
    if (st) return st;
    e = entry_of(l, l->hit_id);
    if (!e || l->rehash || l->read_next != e->chunk_count)
        return leave(l, OK_ERR_STATE);
    if (!p || n != e->report_len || ok_chunk_sum(p, n) != e->report_sum)
        return leave(l, drop_and_refetch(l, OK_WARN_CORRUPT,
                                         p ? OK_REASON_CHECKSUM : OK_REASON_MISSING,
                                         e->chunk_count));
    {
        /* a form's load reports the original's content hash: its source */
        ok_entry *o = l->form != OK_FORM_ORIGINAL ? entry_of(l, l->orig_id) : NULL;
        memcpy(l->sha256, o ? o->sha256 : e->sha256, 32);
    }
    l->has_sha = 1;
    l->verified = !(l->flags & OK_LOAD_NO_VERIFY);
    l->stored = 1;
    return leave(l, create_session(l));
}

/* ---- the network ---- */

static int parse_u64(const char *s, uint64_t *out) {
    uint64_t v = 0;
    if (!s || !*s) return 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9') return 0;
        if (v > (UINT64_MAX - 9) / 10) return 0;
        v = v * 10 + (uint64_t)(*s - '0');
    }
    *out = v;
    return 1;
}

/* "bytes A-B/T" -> start, end (inclusive), total (UINT64_MAX for "*"). */
static int parse_content_range(const char *s, uint64_t *a, uint64_t *b,
                               uint64_t *t) {
    char buf[96];
    char *dash, *slash;
    if (!s || strncmp(s, "bytes ", 6) != 0 || strlen(s + 6) >= sizeof buf)
        return 0;
    strcpy(buf, s + 6);
    dash = strchr(buf, '-');
    slash = strchr(buf, '/');
    if (!dash || !slash || dash > slash) return 0;
    *dash = 0;
    *slash = 0;
    if (!parse_u64(buf, a) || !parse_u64(dash + 1, b) || *b < *a) return 0;
    if (strcmp(slash + 1, "*") == 0) *t = UINT64_MAX;
    else if (!parse_u64(slash + 1, t) || *b >= *t) return 0;
    return 1;
}

static int is_html(const char *ct) {
    return ct && (lower_prefix(ct, "text/html") ||
                  lower_prefix(ct, "application/xhtml"));
}

static int identity(const char *ce) {
    return !ce || !*ce || lower_prefix(ce, "identity");
}

static int retryable_status(uint32_t s) {
    return s == 408 || s == 425 || s == 429 || s == 500 || s == 502 ||
           s == 503 || s == 504;
}

/* An error status. Doubtful resumes and revalidations fall back to a plain
 * GET; server hiccups are retried after a back-off; the rest fail. */
static ok_status bad_status(ok_load *l, uint32_t status) {
    ok_status st;
    if (l->req_flags & (OK_FETCH_RANGE | OK_FETCH_CONDITIONAL))
        return refetch_plain(l);
    if (retryable_status(status)) {
        st = retry_later(l, OK_REASON_HTTP_STATUS, status);
        if (st != OK_ERR_LIMIT) return st;
    }
    return fail(l, OK_ERR_NETWORK, OK_REASON_HTTP_STATUS, status);
}

/* Begin storing a fresh download: a new pending entry and its marker. */
static ok_status begin_entry(ok_load *l) {
    ok_entry *e = NULL;
    ok_act_args a;
    ok_status st;
    size_t ib = (size_t)l->integ.count * ok_hash_bytes(l->integ.alg);
    uint32_t i;
    st = ok_idx_reserve(l->c, 1);
    if (!st) st = ok_idx_new_entry(l->c, l->keys[0], l->url,
                                   l->source == OK_SOURCE_FORM ? l->form : OK_FORM_ORIGINAL,
                                   l->chunk_size, l->now, &e);
    if (st) return st;
    if (l->source == OK_SOURCE_FORM) memcpy(e->source_sha256, l->source_sha, 32);
    e->flags = (l->size_exact ? OK_EF_SIZE_KNOWN : 0) |
               (l->strong ? OK_EF_STRONG : 0) | (l->encoded ? OK_EF_ENCODED : 0);
    if (l->source == OK_SOURCE_DATA) {
        e->flags |= OK_EF_PART;
        memcpy(e->source_sha256, l->source_sha, 32);
    }
    e->total_size = l->size_exact ? l->total : 0;
    e->chunk_count = l->size_exact
                         ? (uint32_t)((l->total - 1) / l->chunk_size + 1) : 0;
    e->integ_alg = l->integ.alg;
    e->integ_count = l->integ.count;
    if (ib) {
        uint8_t *d = ok_cache_malloc(ib);
        if (!d) st = OK_ERR_NOMEM;
        else {
            for (i = 0; i < l->integ.count; i++)
                memcpy(d + (size_t)i * ok_hash_bytes(l->integ.alg),
                       l->integ.digest[i], ok_hash_bytes(l->integ.alg));
            ok_cache_free(e->integ);
            e->integ = d;
        }
    }
    if (!st && l->resp_etag) st = ok_entry_set_str(&e->etag, l->resp_etag);
    if (!st && l->resp_lm) st = ok_entry_set_str(&e->lm, l->resp_lm);
    if (!st && e->chunk_count) st = ok_entry_reserve_sums(e, e->chunk_count - 1);
    if (st) {
        ok_entry_free(e);
        return st;
    }
    e->writing = 1;
    ok_idx_insert(l->c, e);
    l->write_id = e->id;
    /* the PENDING marker goes down before any chunk */
    args0(&a, OK_ACT_WRITE_MANIFEST);
    st = ok_q_push_manifest(&l->q, a, e);
    if (st) return st;
    l->w_pending = 1;
    l->w_type = OK_ACT_WRITE_MANIFEST;
    l->marker_pending = 1;
    return OK_OK;
}

static ok_status stream(ok_load *l) {
    l->state = OK_LOAD_STATE_STREAMING;
    return push_simple(l, OK_ACT_STREAM, l->received, l->total, 0, NULL);
}

/* The response is accepted and its size known as far as it can be:
 * plan space, write the marker, stream. */
static ok_status accept_fresh(ok_load *l) {
    ok_status st = OK_OK;
    if (l->size_exact && l->total > OK_LOAD_MAX_SESSION_BYTES)
        return fail(l, OK_ERR_LIMIT, OK_REASON_TOO_BIG, l->total);
    st = push_simple(l, OK_ACT_ALLOC, l->size_exact ? l->total : 0,
                     l->total, 0, NULL);
    if (st) return st;
    l->storing = l->storable;
    if (l->storing && l->size_exact &&
        (l->total - 1) / l->chunk_size + 1 > OK_CACHE_MAX_CHUNKS) {
        l->storing = 0;
        st = warn(l, OK_WARN_UNCACHED, OK_REASON_TOO_BIG, l->total);
    }
    if (st || !l->storing) return st ? st : stream(l);
    if (l->size_exact) {
        /* estimate first: evict what must go before the first byte */
        l->state = OK_LOAD_STATE_QUOTA;
        return push_simple(l, OK_ACT_ESTIMATE_QUOTA, 0, 0, 0, NULL);
    }
    st = begin_entry(l);
    if (st) return st;
    l->state = OK_LOAD_STATE_STREAMING; /* STREAM once the marker lands */
    return OK_OK;
}

ok_status ok_load_quota(ok_load *l, uint64_t free_bytes) {
    ok_status st = guard(l, OK_LOAD_STATE_QUOTA);
    if (st) return st;
    st = ok_evict_plan(l->c, l->total, free_bytes, NULL, 0);
    if (st == OK_ERR_QUOTA) {
        l->storing = 0;
        st = warn(l, OK_WARN_QUOTA, OK_REASON_TOO_BIG, l->total);
        if (!st) st = stream(l);
        return leave(l, st);
    }
    if (!st) st = ok_idx_push_drop_marked(l->c);
    if (!st) {
        ok_idx_remove_marked(l->c);
        st = begin_entry(l);
    }
    if (!st) l->state = OK_LOAD_STATE_STREAMING;
    return leave(l, st);
}

static void keep_validators(ok_load *l, const char *etag, const char *lm) {
    ok_cache_free(l->resp_etag);
    ok_cache_free(l->resp_lm);
    l->resp_etag = etag && *etag ? ok_cache_strdup(etag) : NULL;
    l->resp_lm = lm && *lm ? ok_cache_strdup(lm) : NULL;
    l->strong = etag && *etag && !lower_prefix(etag, "w/");
}

/* A 206 answering our Range: does it continue exactly what is stored? */
static int range_continues(ok_load *l, const char *cr, const char *etag) {
    ok_entry *e = entry_of(l, l->write_id);
    uint64_t a, b, t;
    if (!e) return 0;
    if (cr) {
        if (!parse_content_range(cr, &a, &b, &t)) return 0;
        if (a != l->req_from || t != e->total_size) return 0;
    } else if (!e->integ_count) {
        return 0; /* hidden Content-Range: only integrity can vouch */
    }
    if (e->flags & OK_EF_STRONG) {
        if (etag) return strcmp(etag, e->etag) == 0;
        return e->integ_count != 0; /* hidden ETag: integrity vouches */
    }
    return e->integ_count != 0;
}

ok_status ok_load_response(ok_load *l, uint32_t status, uint32_t resp_type,
                           const char *content_length,
                           const char *content_encoding,
                           const char *content_range,
                           const char *content_type, const char *etag,
                           const char *last_modified) {
    uint64_t cl = 0, a, b, t;
    int has_cl;
    ok_status st = guard(l, OK_LOAD_STATE_FETCHING);
    if (st) return st;
    has_cl = parse_u64(content_length, &cl);
    l->html = is_html(content_type);

    if (status == 304) {
        ok_entry *e = entry_of(l, l->hit_id);
        if (!(l->req_flags & OK_FETCH_CONDITIONAL) || !e)
            return leave(l, bad_status(l, status));
        l->hit_id = 0;
        e->refcount--; /* start_hit takes its own reference */
        return leave(l, start_hit(l, e));
    }
    if (status == 206 && (l->req_flags & OK_FETCH_RANGE)) {
        if (!range_continues(l, content_range, etag) ||
            !identity(content_encoding))
            return leave(l, refetch_plain(l));
        l->resumed_from = l->req_from;
        return leave(l, stream(l));
    }
    if (status == 206) {
        /* a 206 to a plain GET: usable only if it is the whole resource */
        if (!parse_content_range(content_range, &a, &b, &t) || a != 0 ||
            t == UINT64_MAX || b + 1 != t)
            return leave(l, fail(l, OK_ERR_NETWORK, OK_REASON_BAD_RANGE, status));
        status = 200;
        has_cl = 1;
        cl = t;
    }
    if (status != 200) return leave(l, bad_status(l, status));

    /* a fresh body from byte 0 (also a 200 that ignored our Range) */
    if (l->req_flags & OK_FETCH_RANGE) {
        st = end_write(l, 0);
        if (st) return leave(l, st);
    }
    if (l->req_flags & OK_FETCH_CONDITIONAL) {
        st = release_hit(l); /* the stored copy is replaced at commit */
        if (st) return leave(l, st);
    }
    if (l->source == OK_SOURCE_DATA && l->html) {
        /* an SPA fallback or an error page where a data file should be:
         * there is no reader to catch it later */
        st = end_write(l, 0);
        if (!st) st = fail(l, OK_ERR_NETWORK, OK_REASON_HTML, 0);
        return leave(l, st);
    }
    reset_stream(l);
    l->encoded = !identity(content_encoding);
    /* Content-Length is the exact size only for an identity body we can see
     * is identity: same origin, no Content-Encoding. Cross-origin the
     * encoding may be hidden and Content-Length counts encoded bytes. */
    l->size_exact = has_cl && cl > 0 && !l->encoded && resp_type == OK_RESP_BASIC;
    l->total = has_cl ? cl : 0;
    keep_validators(l, etag, last_modified);
    if ((etag && *etag && !l->resp_etag) ||
        (last_modified && *last_modified && !l->resp_lm))
        return leave(l, OK_ERR_NOMEM);
    return leave(l, accept_fresh(l));
}

ok_status ok_load_fetch_failed(ok_load *l) {
    ok_status st = guard(l, OK_LOAD_STATE_FETCHING);
    if (st) return st;
    /* a resume or a revalidation never fails a load: plain GET */
    if (l->req_flags & (OK_FETCH_RANGE | OK_FETCH_CONDITIONAL))
        return leave(l, refetch_plain(l));
    st = retry_later(l, OK_REASON_FETCH_FAILED, 0);
    if (st == OK_ERR_LIMIT)
        st = fail(l, OK_ERR_NETWORK, OK_REASON_FETCH_FAILED, 0);
    return leave(l, st);
}

ok_status ok_load_waited(ok_load *l) {
    ok_status st = guard(l, OK_LOAD_STATE_WAITING);
    if (st) return st;
    return leave(l, send_fetch(l, 0, 0));
}

/* Emit the next write when none is outstanding: a complete chunk waiting
 * in the backlog, or -- once the body ended and every chunk landed -- the
 * end of the stream. */
static ok_status finish_stream(ok_load *l);

static ok_status pump(ok_load *l) {
    ok_entry *e = entry_of(l, l->write_id);
    if (l->w_pending) return OK_OK;
    if (l->storing && e && l->queued < l->cut) {
        uint32_t idx = l->queued;
        uint64_t len = ok_entry_chunk_len(e, idx);
        uint32_t old = e->stored_count;
        ok_act_args a;
        ok_status st;
        if (l->ended && idx == l->cut - 1)
            len = l->received - (uint64_t)idx * l->chunk_size;
        /* the chunk travels with the manifest that lists it */
        e->stored_count = idx + 1;
        if (e->chunk_count < idx + 1) e->chunk_count = idx + 1;
        args0(&a, OK_ACT_STORE_CHUNK);
        a.chunk = idx;
        a.chunk_end = idx + 1;
        a.value = (uint64_t)idx * l->chunk_size;
        a.value2 = len;
        st = ok_q_push_manifest(&l->q, a, e);
        e->stored_count = old;
        if (st) return st;
        l->queued++;
        l->w_pending = 1;
        l->w_type = OK_ACT_STORE_CHUNK;
        l->w_chunk = idx;
        return OK_OK;
    }
    if (l->ended) return finish_stream(l);
    return OK_OK;
}

/* A chunk boundary was reached (or the body ended mid-chunk). */
static ok_status cut_chunk(ok_load *l) {
    ok_entry *e = entry_of(l, l->write_id);
    uint32_t idx = l->cut;
    ok_status st;
    if (l->storing && e) {
        st = ok_entry_reserve_sums(e, idx);
        if (st) return st;
        e->sums[idx] = ok_xxh3_digest(&l->sum);
        if (!(e->flags & OK_EF_SIZE_KNOWN) && idx + 1 > e->chunk_count)
            e->chunk_count = idx + 1;
    }
    ok_xxh3_reset(&l->sum, 0);
    l->cut++;
    l->sha_mark = l->sha;
    l->sha5_mark = l->sha5;
    return OK_OK;
}

ok_status ok_load_body(ok_load *l, const uint8_t *p, size_t n) {
    ok_status st = guard(l, OK_LOAD_STATE_STREAMING);
    if (st) return st;
    if (!p && n) return leave(l, OK_ERR_INVALID_ARG);
    /* a piece may arrive while a chunk store is outstanding (JS splits big
     * pieces): complete chunks wait in the backlog */
    if (l->marker_pending || l->ended) return leave(l, OK_ERR_STATE);
    if (!n) return leave(l, OK_OK);
    if (l->size_exact && l->received + n > l->total) {
        st = end_write(l, 1);
        if (!st) st = fail(l, OK_ERR_NETWORK, OK_REASON_LONG_BODY, l->total);
        return leave(l, st);
    }
    if (!l->prefix_done && l->received < OK_LOAD_PREFIX_CHECK_BYTES &&
        l->resumed_from == 0 && l->form != OK_FORM_ORT &&
        l->source != OK_SOURCE_DATA) {
        size_t take = OK_LOAD_PREFIX_CHECK_BYTES - (size_t)l->received;
        if (take > n) take = n;
        memcpy(l->prefix + l->prefix_len, p, take);
        l->prefix_len += (uint32_t)take;
        if (l->prefix_len == OK_LOAD_PREFIX_CHECK_BYTES) l->prefix_done = 1;
        if (!ok_onnx_prefix_plausible(l->prefix, l->prefix_len)) {
            if (l->source == OK_SOURCE_FORM)
                return leave(l, form_commit(l, OK_FORM_FAILED, OK_REASON_FORM_CAPTURE));
            st = end_write(l, 0);
            if (!st) st = fail(l, OK_ERR_NOT_ONNX,
                               l->html ? OK_REASON_HTML : OK_REASON_NOT_A_MODEL, 0);
            return leave(l, st);
        }
    }
    while (n) {
        uint64_t in_chunk = l->received % l->chunk_size;
        size_t take = (size_t)(l->chunk_size - in_chunk);
        if (take > n) take = n;
        /* hashed per chunk segment: the marks at a chunk boundary must not
         * include bytes past it (a resume continues from there) */
        ok_sha256_update(&l->sha, p, take);
        if (l->integ.alg >= OK_HASH_SHA384) ok_sha512_update(&l->sha5, p, take);
        if (l->storing) ok_xxh3_update(&l->sum, p, take);
        l->received += take;
        p += take;
        n -= take;
        if (l->received % l->chunk_size == 0) {
            st = cut_chunk(l);
            if (st) return leave(l, st);
        }
    }
    return leave(l, pump(l));
}

/* The body broke off (or ended short). Resume from the last complete chunk
 * when the resource is provably the same, else a plain retry. */
static ok_status broken(ok_load *l, uint32_t reason) {
    ok_entry *e = entry_of(l, l->write_id);
    uint64_t got = l->received;
    ok_status st;
    if (l->storing && e && ok_entry_resumable(e) && l->cut > 0 &&
        l->resumes < OK_LOAD_MAX_RESUMES && l->fetches < OK_LOAD_MAX_FETCHES) {
        /* the complete chunks still in memory get stored first; the partial
         * one is discarded and the hashes go back to its start */
        l->received = (uint64_t)l->cut * l->chunk_size;
        l->sha = l->sha_mark;
        l->sha5 = l->sha5_mark;
        ok_xxh3_reset(&l->sum, 0);
        l->resumes++;
        l->resuming = 1;
        st = warn(l, OK_WARN_RESUMING, reason, got);
        if (!st) st = pump(l);
        if (!st && !l->w_pending) {
            l->resuming = 0;
            st = send_fetch(l, l->received, OK_FETCH_RANGE);
        }
        return st;
    }
    st = end_write(l, 0);
    if (st) return st;
    st = retry_later(l, reason, got);
    if (st == OK_ERR_LIMIT)
        st = fail(l, got ? OK_ERR_TRUNCATED : OK_ERR_NETWORK, reason, got);
    return st;
}

ok_status ok_load_body_error(ok_load *l) {
    ok_status st = guard(l, OK_LOAD_STATE_STREAMING);
    if (st) return st;
    return leave(l, broken(l, OK_REASON_BODY_BROKEN));
}

ok_status ok_load_body_end(ok_load *l) {
    ok_entry *e;
    ok_status st = guard(l, OK_LOAD_STATE_STREAMING);
    if (st) return st;
    if (l->marker_pending || l->ended) return leave(l, OK_ERR_STATE);
    if (l->size_exact && l->received != l->total)
        return leave(l, broken(l, OK_REASON_SHORT_BODY));
    if (!l->prefix_done && l->form != OK_FORM_ORT &&
        l->source != OK_SOURCE_DATA &&
        !ok_onnx_prefix_plausible(l->prefix, l->prefix_len) &&
        l->resumed_from == 0) {
        if (l->source == OK_SOURCE_FORM)
            return leave(l, form_commit(l, OK_FORM_FAILED, OK_REASON_FORM_CAPTURE));
        st = end_write(l, 0);
        if (!st) st = fail(l, l->received ? OK_ERR_NOT_ONNX : OK_ERR_EMPTY,
                           l->html ? OK_REASON_HTML : OK_REASON_NOT_A_MODEL, 0);
        return leave(l, st);
    }
    if (l->received == 0) {
        st = end_write(l, 0);
        if (!st) st = fail(l, OK_ERR_EMPTY, OK_REASON_NOT_A_MODEL, 0);
        return leave(l, st);
    }
    if (l->received % l->chunk_size) {
        st = cut_chunk(l); /* the last, short chunk */
        if (st) return leave(l, st);
    }
    l->total = l->received;
    l->ended = 1;
    e = entry_of(l, l->write_id);
    if (e && !(e->flags & OK_EF_SIZE_KNOWN)) {
        e->total_size = l->total;
        e->chunk_count = l->cut;
    }
    return leave(l, pump(l));
}

/* Which digest of the integrity matched: its index, or -1. */
static int integrity_match(ok_load *l, const uint8_t *sha256) {
    uint8_t d[OK_HASH_MAX_BYTES];
    uint32_t nb = ok_hash_bytes(l->integ.alg), i;
    if (l->integ.alg == OK_HASH_NONE) return 0;
    if (l->integ.alg == OK_HASH_SHA256) memcpy(d, sha256, 32);
    else sri_final(l, d);
    for (i = 0; i < l->integ.count; i++)
        if (memcmp(d, l->integ.digest[i], nb) == 0) return (int)i;
    return -1;
}

static ok_status commit(ok_load *l);

/* A data file arrived whole (no reader: the model's report says what it
 * must hold). Stored beside a stored model, it commits now; beside one
 * being stored, it is staged for the model's commit. */
static ok_status part_complete(ok_load *l) {
    ok_entry *e = entry_of(l, l->write_id);
    if (l->total < l->bytes_len) {
        ok_status st = end_write(l, 0);
        return st ? st : fail(l, OK_ERR_TRUNCATED, OK_REASON_DATA_SHORT, l->total);
    }
    if (!l->storing || !e) return done(l);
    if (l->owner_stored) return commit(l);
    e->total_size = l->total;
    e->chunk_count = e->stored_count = l->cut;
    memcpy(e->sha256, l->sha256, 32);
    l->staged = 1;
    return done(l);
}

/* Every chunk landed (or nothing is stored): check integrity, then ask the
 * C reader. */
static ok_status finish_stream(ok_load *l) {
    int m;
    ok_sha256_final(&l->sha, l->sha256);
    l->has_sha = 1;
    m = integrity_match(l, l->sha256);
    if (m < 0) {
        ok_status st;
        l->has_sha = 0;
        if (l->resumed_from) {
            /* resumed bytes did not add up: the resource changed; a clean
             * download decides */
            st = warn(l, OK_WARN_RETRYING, OK_REASON_CHANGED, l->resumed_from);
            return st ? st : refetch_plain(l);
        }
        st = end_write(l, 0);
        return st ? st : fail(l, OK_ERR_INTEGRITY, OK_REASON_DIGEST, 0);
    }
    l->key_index = (uint32_t)m;
    if (l->source == OK_SOURCE_DATA) return part_complete(l);
    l->state = OK_LOAD_STATE_VALIDATING;
    {
        char hex[65];
        ok_hex(l->sha256, 32, hex);
        return push_simple(l, OK_ACT_VALIDATE, l->total, 0, 0, hex);
    }
}

ok_status ok_load_validated(ok_load *l, uint32_t status, uint64_t offset,
                            const uint8_t *report, size_t n) {
    ok_status st = guard(l, OK_LOAD_STATE_VALIDATING);
    if (st) return st;
    if (status != OK_OK && l->source == OK_SOURCE_FORM)
        return leave(l, form_commit(l, OK_FORM_FAILED, OK_REASON_FORM_CAPTURE));
    if (status != OK_OK) {
        st = end_write(l, 0);
        if (!st) st = fail(l, (ok_status)status,
                           l->html ? OK_REASON_HTML : OK_REASON_NOT_A_MODEL, offset);
        return leave(l, st);
    }
    if (!report || !n) return leave(l, OK_ERR_INVALID_ARG);
    if (l->storing && n > OK_CACHE_MAX_REPORT) {
        /* a report this big is not worth keeping: serve, store nothing */
        st = go_uncached(l, OK_WARN_UNCACHED, OK_REASON_TOO_BIG);
        if (st) return leave(l, st);
    }
    if (l->storing) {
        ok_cache_free(l->report);
        l->report = ok_cache_malloc(n);
        if (!l->report) return leave(l, OK_ERR_NOMEM);
        memcpy(l->report, report, n);
    }
    l->report_len = (uint32_t)n;
    l->report_sum = ok_chunk_sum(report, n);
    return leave(l, create_session(l));
}

/* CREATE_SESSION: value2 = the form (an optimized one is created at
 * 'disabled': onnxruntime already optimized it). */
static ok_status create_session(ok_load *l) {
    l->state = OK_LOAD_STATE_CREATING;
    l->session_pending = 1;
    return push_simple(l, OK_ACT_CREATE_SESSION, l->total, l->form, 0, NULL);
}

static ok_status done(ok_load *l) {
    uint32_t flags = (l->stored ? OK_DONE_STORED : 0) |
                     (l->verified ? OK_DONE_VERIFIED : 0) |
                     (l->staged ? OK_DONE_STAGED : 0);
    ok_status st = OK_OK;
    if (l->source == OK_SOURCE_FORM) {
        /* the round-trip session was for checking only */
        if (l->session_live)
            st = push_simple(l, OK_ACT_RELEASE_SESSION, 0, 0, 0, NULL);
        l->session_live = 0;
        if (!st && l->form_status == OK_FORM_FAILED && l->stored) {
            l->next_form = ok_form_after(l->form, l->facts);
            st = note(l, OK_NOTE_FORM_ESCALATED, l->form_reason,
                      (uint64_t)l->form | (uint64_t)l->next_form << 8);
        }
        if (st) return st;
    }
    st = push_simple(l, OK_ACT_DONE, l->tier, l->resumed_from, flags, NULL);
    l->session_live = 0; /* served: the caller owns it now */
    l->served = 1;
    l->state = OK_LOAD_STATE_DONE;
    return st;
}

/* The stored bytes were served: persist the LRU clock (in the background,
 * after DONE) and let go of the read reference. */
static ok_status done_hit(ok_load *l) {
    ok_entry *e = entry_of(l, l->hit_id);
    ok_status st = done(l);
    if (l->form != OK_FORM_ORIGINAL) {
        /* a form serves only beside its original: the original's clock is
         * the one kept, so eviction takes a form before its original */
        ok_entry *o = entry_of(l, l->orig_id);
        if (o) {
            o->last_used = l->now;
            o->hit_count++;
        }
        if (!st) st = release_hit(l); /* the form's read reference */
        e = o;
    }
    if (!st && e && !e->superseded) {
        ok_act_args a;
        args0(&a, OK_ACT_WRITE_MANIFEST);
        st = ok_q_push_manifest(&l->q, a, e);
        if (!st) {
            l->w_pending = 1;
            l->w_type = OK_ACT_WRITE_MANIFEST;
        }
    }
    if (!st) st = release_hit(l);
    return st;
}

/* COMMIT: the entry's manifest as COMMITTED, with its report, in one
 * transaction; the entry stays pending in memory until the write lands. */
static ok_status push_commit(ok_load *l, ok_entry *e, const uint8_t *report,
                             uint32_t report_len) {
    ok_act_args a;
    ok_status st;
    args0(&a, OK_ACT_COMMIT);
    a.aux = report;
    a.aux_len = report_len;
    e->state = OK_ENTRY_COMMITTED;
    st = ok_q_push_manifest(&l->q, a, e);
    /* servable only once that transaction is durable (written) */
    e->state = OK_ENTRY_PENDING;
    if (st) return st;
    l->w_pending = 1;
    l->w_type = OK_ACT_COMMIT;
    l->state = OK_LOAD_STATE_COMMITTING;
    return OK_OK;
}

/* The session exists: commit the entry (manifest + reader report in one
 * transaction). */
static ok_status commit(ok_load *l) {
    ok_entry *e = entry_of(l, l->write_id);
    const char *key = l->keys[l->key_index];
    ok_status st;
    uint32_t i;
    if (!e || l->parts_lost) {
        /* a data file could not be stored: nothing of the model is (a
         * model without its data is no use and would take the space) */
        st = end_write(l, 0);
        return st ? st : done(l);
    }
    if (strcmp(e->key, key) != 0) {
        /* content-addressed: the digest that matched names the entry */
        uint64_t gen = ok_idx_max_gen(l->c, key) + 1;
        st = ok_entry_set_str(&e->key, key);
        if (st) return st;
        e->gen = gen;
    }
    e->total_size = l->total;
    e->chunk_count = l->cut;
    e->stored_count = l->cut;
    memcpy(e->sha256, l->sha256, 32);
    e->report_len = l->report_len;
    e->report_sum = l->report_sum;
    /* the parts first, in the model's transaction (COMMIT_MORE) */
    for (i = 0; i < l->n_parts; i++) {
        ok_entry *p = entry_of(l, l->parts[i]);
        ok_act_args a;
        if (!p) return OK_ERR_STATE;
        args0(&a, OK_ACT_COMMIT);
        a.flags = OK_COMMIT_MORE;
        memcpy(p->source_sha256, l->sha256, 32);
        p->state = OK_ENTRY_COMMITTED;
        st = ok_q_push_manifest(&l->q, a, p);
        p->state = OK_ENTRY_PENDING;
        if (st) return st;
    }
    return push_commit(l, e, l->report, l->report_len);
}

ok_status ok_load_session(ok_load *l, int ok) {
    return ok_load_session_timed(l, ok, 0);
}

ok_status ok_load_session_timed(ok_load *l, int ok, uint32_t create_us) {
    ok_status st;
    if (!l) return OK_ERR_INVALID_ARG;
    if (!l->session_pending) return OK_ERR_STATE;
    l->session_pending = 0;
    bind_queue(l);
    if (l->state != OK_LOAD_STATE_CREATING) {
        /* aborted meanwhile: the session must not live on */
        st = ok ? push_simple(l, OK_ACT_RELEASE_SESSION, 0, 0, 0, NULL) : OK_OK;
        unbind_queue(l);
        return st == OK_ERR_NOMEM ? nomem(l) : st;
    }
    if (l->form != OK_FORM_ORIGINAL && ok) l->create_us = create_us;
    if (l->source == OK_SOURCE_FORM) {
        if (!ok) return leave(l, form_commit(l, OK_FORM_FAILED, OK_REASON_SESSION));
        l->session_live = 1;
        l->state = OK_LOAD_STATE_VERIFYING;
        return leave(l, push_simple(l, OK_ACT_VERIFY_FORM, l->form, 0, 0, NULL));
    }
    if (!ok) {
        if (l->tier == OK_TIER_INDEXEDDB)
            return leave(l, drop_and_refetch(l, OK_WARN_REFUSED, OK_REASON_SESSION, 0));
        st = end_write(l, 0);
        if (!st) st = fail(l, OK_ERR_SESSION_CREATE, OK_REASON_SESSION, 0);
        return leave(l, st);
    }
    l->session_live = 1;
    if (l->tier == OK_TIER_INDEXEDDB) return leave(l, done_hit(l));
    if (l->storing && l->write_id) return leave(l, commit(l));
    return leave(l, done(l));
}

/* ---- optimized forms ---- */

/* A FORM load after the sync: another tab (or an earlier load) may have
 * decided this form for these bytes already; else store what was captured,
 * or record that nothing usable was. */
static ok_status lookup_form_store(ok_load *l) {
    ok_entry *f = ok_idx_find_committed(l->c, l->keys[0]), *p;
    ok_status st;
    if (f && memcmp(f->source_sha256, l->source_sha, 32) == 0) {
        l->form_status = f->form_status;
        l->form_reason = f->form_reason;
        return done(l);
    }
    p = pending_for(l);
    if (p) {
        /* a capture a killed tab left half-stored: it is never resumed */
        st = ok_q_push_drop(&l->q, p);
        if (st) return st;
        ok_idx_remove(l->c, p);
    }
    l->storing = 1;
    if (!l->bytes_len) return form_commit(l, OK_FORM_FAILED, OK_REASON_FORM_CAPTURE);
    if (l->bytes_len > OK_LOAD_MAX_SESSION_BYTES)
        return form_commit(l, OK_FORM_FAILED, OK_REASON_FORM_DOOMED);
    l->total = l->bytes_len;
    l->size_exact = 1;
    /* an .ort file is a FlatBuffer: the C ORT reader checks it at VALIDATE */
    if (l->form == OK_FORM_ORT) l->prefix_done = 1;
    return accept_fresh(l);
}

/* Commit a FORM load's verdict: the form (VERIFIED: its chunks and the
 * original's reader report) or a tombstone (FAILED: no chunks; those
 * stored are deleted first, so a crash leaves a pending entry that the
 * next load sweeps, never a tombstone naming chunks). */
static ok_status form_commit(ok_load *l, uint32_t status, uint32_t reason) {
    ok_entry *e = entry_of(l, l->write_id);
    ok_act_args a;
    ok_status st;
    l->form_status = status;
    l->form_reason = status == OK_FORM_FAILED ? reason : OK_REASON_NONE;
    if (!l->storing) return done(l); /* storing stopped (quota): nothing kept */
    if (!e) {
        st = ok_idx_reserve(l->c, 1);
        if (!st) st = ok_idx_new_entry(l->c, l->keys[0], l->url, l->form,
                                       l->chunk_size, l->now, &e);
        if (st) return st;
        memcpy(e->source_sha256, l->source_sha, 32);
        e->writing = 1;
        ok_idx_insert(l->c, e);
        l->write_id = e->id;
        l->storing = 1;
    } else if (status == OK_FORM_FAILED && e->stored_count) {
        args0(&a, OK_ACT_DELETE_CHUNKS);
        a.entry = e->id;
        a.chunk = 0;
        a.chunk_end = OK_CACHE_CHUNK_END;
        a.name = e->name;
        st = push(l, &a);
        if (st) return st;
    }
    e->form_status = status;
    e->form_reason = l->form_reason;
    e->create_us = l->create_us;
    e->orig_create_us = l->orig_create_us;
    if (status == OK_FORM_FAILED) {
        e->flags = 0;
        e->total_size = 0;
        e->chunk_count = e->stored_count = 0;
        e->report_len = 0;
        e->report_sum = 0;
        memset(e->sha256, 0, 32);
        return push_commit(l, e, NULL, 0);
    }
    return commit(l);
}

ok_status ok_load_form_verified(ok_load *l, uint32_t verdict,
                                uint32_t orig_create_us, uint32_t form_create_us) {
    ok_status st = guard(l, OK_LOAD_STATE_VERIFYING);
    if (st) return st;
    if (l->source != OK_SOURCE_FORM) return leave(l, OK_ERR_STATE);
    l->orig_create_us = orig_create_us;
    if (form_create_us && form_create_us < l->create_us) l->create_us = form_create_us;
    {
        uint32_t status, reason;
        st = ok_form_judge(verdict, l->create_us, orig_create_us, &status, &reason);
        if (st) {
            unbind_queue(l);
            return st;
        }
        st = form_commit(l, status, reason);
    }
    return leave(l, st);
}

uint32_t ok_load_capture_form(const ok_load *l, uint32_t facts,
                              uint64_t external_bytes) {
    const ok_entry *e;
    uint32_t form = OK_FORM_ORIGINAL;
    if (!l || !l->form_ctx || !l->storable || l->source != OK_SOURCE_URL ||
        l->form != OK_FORM_ORIGINAL || !l->has_sha || !l->n_keys ||
        l->state != OK_LOAD_STATE_CREATING)
        return OK_FORM_ORIGINAL;
    e = ok_idx_find_id(l->c, l->hit_id);
    /* out of memory: no capture this time */
    if (ok_form_next_capture(l->c, e ? e->key : l->keys[l->key_index], l->form_ctx,
                             l->sha256, facts, l->total, external_bytes, &form) != OK_OK)
        return OK_FORM_ORIGINAL;
    return form;
}

/* e's commit landed: it serves now; older generations of its key go (at
 * their last reader's release when in use). */
static ok_status now_committed(ok_load *l, ok_entry *e) {
    uint32_t i;
    ok_status st;
    e->state = OK_ENTRY_COMMITTED;
    for (i = 0; i < l->c->n_entries; i++) {
        ok_entry *o = l->c->entries[i];
        o->mark = o != e && strcmp(o->key, e->key) == 0 && !o->writing &&
                  !o->refcount;
        if (o != e && strcmp(o->key, e->key) == 0 && o->refcount)
            o->superseded = 1;
    }
    st = ok_idx_push_drop_marked(l->c);
    if (st) return st;
    ok_idx_remove_marked(l->c);
    e->writing = 0;
    return OK_OK;
}

static ok_status committed(ok_load *l) {
    ok_entry *e = entry_of(l, l->write_id);
    ok_status st;
    if (!e) return done(l);
    while (l->n_parts) {
        ok_entry *p = entry_of(l, l->parts[l->n_parts - 1]);
        if (p && (st = now_committed(l, p))) return st;
        l->n_parts--;
    }
    st = now_committed(l, e);
    if (st) return st;
    l->write_id = 0;
    l->storing = 0;
    l->stored = 1;
    return done(l);
}

/* Redo the write that failed (after an eviction or a reopen). */
static ok_status redo_write(ok_load *l, uint32_t type) {
    ok_entry *e = entry_of(l, l->write_id);
    ok_act_args a;
    ok_status st;
    if (!e) return OK_ERR_STATE;
    if (type == OK_ACT_STORE_CHUNK) {
        l->queued--;
        return pump(l);
    }
    if (type == OK_ACT_COMMIT)
        return l->source == OK_SOURCE_FORM
                   ? form_commit(l, l->form_status, l->form_reason)
                   : commit(l);
    args0(&a, OK_ACT_WRITE_MANIFEST);
    st = ok_q_push_manifest(&l->q, a, e);
    if (!st) {
        l->w_pending = 1;
        l->w_type = OK_ACT_WRITE_MANIFEST;
    }
    return st;
}

/* After the write outstanding was settled (landed, or given up on): what
 * the state waits for next. */
static ok_status after_write(ok_load *l, uint32_t type) {
    if (finished(l)) return OK_OK;
    if (type == OK_ACT_COMMIT) return l->stored ? OK_OK : done(l);
    if (l->marker_pending) {
        l->marker_pending = 0;
        return stream(l);
    }
    if (l->resuming) {
        ok_status st = pump(l);
        if (st || l->w_pending) return st;
        l->resuming = 0;
        if (!l->storing) {
            /* storing stopped: the stored prefix cannot be continued */
            reset_stream(l);
            st = retry_later(l, OK_REASON_BODY_BROKEN, 0);
            return st == OK_ERR_LIMIT
                       ? fail(l, OK_ERR_TRUNCATED, OK_REASON_BODY_BROKEN, 0)
                       : st;
        }
        return send_fetch(l, l->received, OK_FETCH_RANGE);
    }
    if (l->state == OK_LOAD_STATE_STREAMING) return pump(l);
    return OK_OK;
}

ok_status ok_load_written(ok_load *l) {
    ok_entry *e;
    uint32_t type;
    ok_status st = OK_OK;
    if (!l) return OK_ERR_INVALID_ARG;
    if (!l->w_pending) return OK_ERR_STATE;
    bind_queue(l);
    l->w_pending = 0;
    type = l->w_type;
    e = entry_of(l, l->write_id);
    if (type == OK_ACT_STORE_CHUNK && e && l->w_chunk == e->stored_count)
        e->stored_count++;
    if (type == OK_ACT_COMMIT && !finished(l)) st = committed(l);
    if (!st) st = after_write(l, type);
    return leave(l, st);
}

ok_status ok_load_write_failed(ok_load *l, uint32_t kind) {
    ok_entry *e;
    uint32_t type;
    ok_status st = OK_OK;
    int redo = 0, marker;
    if (!l) return OK_ERR_INVALID_ARG;
    if (!l->w_pending) return OK_ERR_STATE;
    bind_queue(l);
    l->w_pending = 0;
    type = l->w_type;
    marker = l->marker_pending;
    e = entry_of(l, l->write_id);
    if (finished(l) || !e) return leave(l, OK_OK); /* an LRU touch: let it be */
    if (kind == OK_IOFAIL_QUOTA) {
        uint64_t need = l->size_exact ? l->total : l->received + l->chunk_size;
        uint64_t have = ok_entry_stored_bytes(e);
        st = ok_evict_plan(l->c, need > have ? need - have : l->chunk_size,
                           UINT64_MAX, e, 1);
        if (!st) {
            st = ok_idx_push_drop_marked(l->c);
            if (!st) {
                ok_idx_remove_marked(l->c);
                redo = 1;
            }
        } else if (st == OK_ERR_QUOTA) {
            st = go_uncached(l, OK_WARN_QUOTA, OK_REASON_TOO_BIG);
        }
    } else {
        st = io_trouble(l, kind, &redo);
        if (!st && !redo) st = go_uncached(l, OK_WARN_CACHE_ERROR, OK_REASON_IDB);
    }
    if (!st && redo) return leave(l, redo_write(l, type));
    if (!st && marker && !l->storing) {
        /* the body was waiting for the marker: it streams uncached now */
        st = stream(l);
    } else if (!st) {
        st = after_write(l, type);
    }
    return leave(l, st);
}

uint32_t ok_load_parts_mode(const ok_load *l) {
    if (!l || l->source != OK_SOURCE_URL || l->state != OK_LOAD_STATE_CREATING ||
        !l->storable)
        return OK_PARTS_UNSTORED;
    if (l->tier == OK_TIER_INDEXEDDB) return OK_PARTS_OWNER_STORED;
    return l->storing && l->write_id ? OK_PARTS_STAGE : OK_PARTS_UNSTORED;
}

ok_status ok_load_adopt_part(ok_load *l, ok_load *part) {
    ok_entry *e;
    if (!l || !part || part->source != OK_SOURCE_DATA || l->source != OK_SOURCE_URL)
        return OK_ERR_INVALID_ARG;
    if (l->state != OK_LOAD_STATE_CREATING || !l->session_pending ||
        part->state != OK_LOAD_STATE_DONE)
        return OK_ERR_STATE;
    e = part->staged ? entry_of(part, part->write_id) : NULL;
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

ok_status ok_load_abort(ok_load *l) {
    ok_status st;
    if (!l) return OK_ERR_INVALID_ARG;
    if (finished(l)) return OK_OK;
    bind_queue(l);
    st = fail(l, OK_ERR_ABORTED, OK_REASON_NONE, 0);
    unbind_queue(l);
    return st == OK_ERR_NOMEM ? nomem(l) : st;
}

ok_status ok_load_info_get(const ok_load *l, ok_load_info *out) {
    if (!l || !out) return OK_ERR_INVALID_ARG;
    memset(out, 0, sizeof *out);
    out->state = l->state;
    out->tier = l->tier;
    out->stored = (uint32_t)l->stored;
    out->has_sha256 = (uint32_t)l->has_sha;
    out->total = l->total;
    out->received = l->received;
    out->resumed_from = l->resumed_from;
    out->fetches = l->fetches;
    out->resumes = l->resumes;
    out->refetches = l->refetches;
    memcpy(out->sha256, l->sha256, 32);
    out->key = l->n_keys ? l->keys[l->key_index] : "";
    out->lock_name = l->lock_name ? l->lock_name : "";
    out->form = l->form;
    out->form_status = l->form_status;
    out->form_reason = l->form_reason;
    out->next_form = l->next_form;
    out->create_us = l->create_us;
    out->orig_create_us = l->orig_create_us;
    out->source_total = l->total;
    if (l->form != OK_FORM_ORIGINAL && l->source == OK_SOURCE_URL) {
        const ok_entry *o = entry_of(l, l->orig_id);
        if (o) out->source_total = o->total_size;
    }
    return OK_OK;
}
