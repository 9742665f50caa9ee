/* Entry manifests: the bytes of one "index" record.
 *
 * Layout (little-endian), version 2 (the original form), 5 (an optimized
 * form: version 2 plus the form record with its revision), 3 (a form
 * before revisions: read, never written) or 4 (a part: an external data
 * file of a model, flag PART; version 3's layout, the record's source
 * sha256 the model's content hash, no verdict):
 *     0  "OKCM"                 magic
 *     4  u16 version = 2, 3, 4 or 5, u16 0
 *     8  u32 record length, CRC included
 *    12  u32 state, form, flags, chunk_size, chunk_count, stored_count,
 *            integrity_alg, integrity_count, report_len,
 *            form record length (0 in version 2, 48 in versions 3, 4,
 *            60 in version 5)
 *    52  u64 gen, total_size, last_used, hit_count, report_sum
 *    92  [32] content sha256 (zero until committed)
 *   124  u32 key_len, url_len, etag_len, lm_len
 *   140  integrity_count * digest bytes   expected digests (SRI)
 *        key, url, etag, last-modified bytes
 *        versions 3, 4, 5: u32 form_status, form_reason, create_us,
 *                   orig_create_us, [32] source sha256
 *        version 5: u32 rev_pairs, rev_form_us, rev_orig_us (the
 *                   revision of the verdict under way, form_tiers.h)
 *        stored_count * u64     chunk checksums
 *   end  u32 CRC-32 (IEEE) of everything before it
 *
 * Decoding checks every field against the others, so a record that passes
 * describes a self-consistent entry; anything else is a typed error. A
 * record of another version is OK_ERR_STATE: another ortkeep wrote it, so
 * it is left alone rather than swept. Forms are version 5 (3 before their
 * revisions) and parts version 4 so that an ortkeep from before them leaves
 * them alone too. */
#include <string.h>

#include "cache_internal.h"

#define MF_MAGIC "OKCM"
#define MF_VERSION 2u
#define MF_VERSION_FORM_V3 3u
#define MF_VERSION_PART 4u
#define MF_VERSION_FORM 5u
#define MF_HEAD 140u
#define MF_FORM_REC 48u
#define MF_FORM_REC_REV 60u

static uint32_t version_of(const ok_manifest *m) {
    return (m->flags & OK_EF_PART)       ? MF_VERSION_PART
           : m->form != OK_FORM_ORIGINAL ? MF_VERSION_FORM
                                         : MF_VERSION;
}

/* The form record's length in a record of version `v`. */
static size_t form_rec_len(uint32_t v) {
    return v == MF_VERSION ? 0 : v == MF_VERSION_FORM ? MF_FORM_REC_REV : MF_FORM_REC;
}

static size_t form_rec(const ok_manifest *m) { return form_rec_len(version_of(m)); }

static uint32_t crc32_ieee(const uint8_t *p, size_t n) {
    static const uint32_t t[16] = {0x00000000u, 0x1DB71064u, 0x3B6E20C8u, 0x26D930ACu,
                                   0x76DC4190u, 0x6B6B51F4u, 0x4DB26158u, 0x5005713Cu,
                                   0xEDB88320u, 0xF00F9344u, 0xD6D6A3E8u, 0xCB61B38Cu,
                                   0x9B64C2B0u, 0x86D3D2D4u, 0xA00AE278u, 0xBDBDF21Cu};
    uint32_t c = 0xFFFFFFFFu;
    size_t i;
    for (i = 0; i < n; i++) {
        c ^= p[i];
        c = (c >> 4) ^ t[c & 15];
        c = (c >> 4) ^ t[c & 15];
    }
    return c ^ 0xFFFFFFFFu;
}

static void put32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}
static void put64(uint8_t *p, uint64_t v) {
    put32(p, (uint32_t)v);
    put32(p + 4, (uint32_t)(v >> 32));
}
static uint32_t get32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t get64(const uint8_t *p) { return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32; }

static size_t integ_bytes(const ok_manifest *m) {
    return (size_t)m->integrity_count * ok_hash_bytes(m->integrity_alg);
}

size_t ok_manifest_size(const ok_manifest *m) {
    return MF_HEAD + integ_bytes(m) + m->key_len + m->url_len + m->etag_len + m->lm_len + form_rec(m) +
           (size_t)m->stored_count * 8 + 4;
}

ok_status ok_manifest_encode(const ok_manifest *m, uint8_t *out, size_t cap) {
    size_t need, off;
    uint32_t i;
    if (!m || !out) return OK_ERR_INVALID_ARG;
    need = ok_manifest_size(m);
    if (cap < need || need > 0xFFFFFFFFu) return OK_ERR_INVALID_ARG;
    memset(out, 0, MF_HEAD);
    memcpy(out, MF_MAGIC, 4);
    out[4] = (uint8_t)version_of(m);
    put32(out + 8, (uint32_t)need);
    put32(out + 12, m->state);
    put32(out + 16, m->form);
    put32(out + 20, m->flags);
    put32(out + 24, m->chunk_size);
    put32(out + 28, m->chunk_count);
    put32(out + 32, m->stored_count);
    put32(out + 36, m->integrity_alg);
    put32(out + 40, m->integrity_count);
    put32(out + 44, m->report_len);
    put32(out + 48, (uint32_t)form_rec(m));
    put64(out + 52, m->gen);
    put64(out + 60, m->total_size);
    put64(out + 68, m->last_used);
    put64(out + 76, m->hit_count);
    put64(out + 84, m->report_sum);
    memcpy(out + 92, m->sha256, 32);
    put32(out + 124, m->key_len);
    put32(out + 128, m->url_len);
    put32(out + 132, m->etag_len);
    put32(out + 136, m->lm_len);
    off = MF_HEAD;
#define MF_PUT(ptr, n)                              \
    do {                                            \
        size_t mf_n_ = (n);                         \
        if (mf_n_) memcpy(out + off, (ptr), mf_n_); \
        off += mf_n_;                               \
    } while (0)
    MF_PUT(m->integrity, integ_bytes(m));
    MF_PUT(m->key, m->key_len);
    MF_PUT(m->url, m->url_len);
    MF_PUT(m->etag, m->etag_len);
    MF_PUT(m->last_modified, m->lm_len);
#undef MF_PUT
    if (form_rec(m)) {
        put32(out + off, m->form_status);
        put32(out + off + 4, m->form_reason);
        put32(out + off + 8, m->create_us);
        put32(out + off + 12, m->orig_create_us);
        memcpy(out + off + 16, m->source_sha256, 32);
        if (form_rec(m) == MF_FORM_REC_REV) {
            put32(out + off + 48, m->rev_pairs);
            put32(out + off + 52, m->rev_form_us);
            put32(out + off + 56, m->rev_orig_us);
        }
        off += form_rec(m);
    }
    for (i = 0; i < m->stored_count; i++, off += 8) put64(out + off, m->sums[i]);
    put32(out + off, crc32_ieee(out, off));
    return OK_OK;
}

static int has_nul(const uint8_t *p, uint32_t n) { return n && memchr(p, 0, n) != NULL; }

/* Field-level consistency of a decoded header (strings not yet read). */
static ok_status check_fields(const ok_manifest *m) {
    uint64_t need_chunks;
    int tomb = 0;
    const uint32_t known_flags = OK_EF_SIZE_KNOWN | OK_EF_STRONG | OK_EF_ENCODED | OK_EF_PART;
    if (m->state != OK_ENTRY_PENDING && m->state != OK_ENTRY_COMMITTED) return OK_ERR_CORRUPT;
    if (m->flags & ~known_flags) return OK_ERR_CORRUPT;
    if (m->chunk_size == 0) return OK_ERR_CORRUPT;
    if (m->form >= OK_FORM_COUNT) return OK_ERR_CORRUPT;
    if (m->form == OK_FORM_ORIGINAL && m->form_status != OK_FORM_NONE) return OK_ERR_CORRUPT;
    /* a part is the original bytes of a data file: no form, no report */
    if ((m->flags & OK_EF_PART) && (m->form != OK_FORM_ORIGINAL || m->report_len || m->report_sum))
        return OK_ERR_CORRUPT;
    if (m->form != OK_FORM_ORIGINAL) {
        /* a form is judged before it commits: none while pending */
        if (m->form_status > OK_FORM_FAILED ||
            (m->state == OK_ENTRY_COMMITTED) != (m->form_status != OK_FORM_NONE))
            return OK_ERR_CORRUPT;
        if (m->form_status == OK_FORM_FAILED) {
            /* a tombstone: committed, nothing stored */
            if (m->state != OK_ENTRY_COMMITTED || m->chunk_count || m->stored_count || m->total_size ||
                m->report_len)
                return OK_ERR_CORRUPT;
            tomb = 1;
        }
    }
    if (m->chunk_size > OK_CACHE_MAX_CHUNK_SIZE) return OK_ERR_LIMIT;
    if (m->chunk_count > OK_CACHE_MAX_CHUNKS) return OK_ERR_LIMIT;
    if (m->stored_count > m->chunk_count) return OK_ERR_CORRUPT;
    if (tomb) {
        /* checked above */
    } else if (m->state == OK_ENTRY_COMMITTED || (m->flags & OK_EF_SIZE_KNOWN)) {
        if (m->total_size == 0) return OK_ERR_CORRUPT;
        need_chunks = (m->total_size - 1) / m->chunk_size + 1;
        if (need_chunks != m->chunk_count) return OK_ERR_CORRUPT;
    } else if (m->total_size != 0) {
        /* the size became known at the end of the body, before the commit */
        need_chunks = (m->total_size - 1) / m->chunk_size + 1;
        if (need_chunks != m->chunk_count) return OK_ERR_CORRUPT;
    }
    if (m->state == OK_ENTRY_COMMITTED && !tomb &&
        (m->stored_count != m->chunk_count || (m->report_len == 0) != ((m->flags & OK_EF_PART) != 0)))
        return OK_ERR_CORRUPT;
    if (m->integrity_alg > OK_HASH_SHA512) return OK_ERR_CORRUPT;
    if ((m->integrity_alg == OK_HASH_NONE) != (m->integrity_count == 0)) return OK_ERR_CORRUPT;
    if (m->integrity_count > OK_CACHE_MAX_INTEGRITY) return OK_ERR_LIMIT;
    if (m->report_len > OK_CACHE_MAX_REPORT) return OK_ERR_LIMIT;
    if (m->key_len == 0) return OK_ERR_CORRUPT;
    if (m->key_len > OK_CACHE_MAX_KEY || m->url_len > OK_CACHE_MAX_STR || m->etag_len > OK_CACHE_MAX_STR ||
        m->lm_len > OK_CACHE_MAX_STR)
        return OK_ERR_LIMIT;
    return OK_OK;
}

ok_status ok_manifest_decode(const uint8_t *b, size_t len, ok_manifest *m) {
    uint32_t rec_len, strs, i, version;
    size_t rec;
    uint64_t body;
    const uint8_t *p;
    uint8_t *blk;
    uint64_t *sums;
    char *s;
    size_t blk_len, ib;
    ok_status st;

    if (!m) return OK_ERR_INVALID_ARG;
    memset(m, 0, sizeof *m);
    if (!b) return len ? OK_ERR_INVALID_ARG : OK_ERR_TRUNCATED;
    if (len < 4) return memcmp(b, MF_MAGIC, len) ? OK_ERR_CORRUPT : OK_ERR_TRUNCATED;
    if (memcmp(b, MF_MAGIC, 4) != 0) return OK_ERR_CORRUPT;
    if (len < 12) return OK_ERR_TRUNCATED;
    version = get32(b + 4);
    if (version != MF_VERSION && version != MF_VERSION_FORM && version != MF_VERSION_FORM_V3 &&
        version != MF_VERSION_PART)
        return OK_ERR_STATE;
    rec = form_rec_len(version);
    rec_len = get32(b + 8);
    if (rec_len > len) return OK_ERR_TRUNCATED;
    if (rec_len < len || rec_len < MF_HEAD + 4) return OK_ERR_CORRUPT;
    if (crc32_ieee(b, len - 4) != get32(b + len - 4)) return OK_ERR_CORRUPT;

    m->state = get32(b + 12);
    m->form = get32(b + 16);
    m->flags = get32(b + 20);
    m->chunk_size = get32(b + 24);
    m->chunk_count = get32(b + 28);
    m->stored_count = get32(b + 32);
    m->integrity_alg = get32(b + 36);
    m->integrity_count = get32(b + 40);
    m->report_len = get32(b + 44);
    m->gen = get64(b + 52);
    m->total_size = get64(b + 60);
    m->last_used = get64(b + 68);
    m->hit_count = get64(b + 76);
    m->report_sum = get64(b + 84);
    memcpy(m->sha256, b + 92, 32);
    m->key_len = get32(b + 124);
    m->url_len = get32(b + 128);
    m->etag_len = get32(b + 132);
    m->lm_len = get32(b + 136);
    if (b[6] || b[7]) return OK_ERR_CORRUPT;
    /* the version says what the record is: a form (5, or 3 from before
     * revisions), a part (4), or the original (2, no record) */
    if ((version != version_of(m) && !(version == MF_VERSION_FORM_V3 && version_of(m) == MF_VERSION_FORM)) ||
        get32(b + 48) != rec)
        return OK_ERR_CORRUPT;
    if (rec) {
        /* the record sits after the strings: bounds-checked below once
         * their lengths are known */
        size_t at;
        if (m->key_len > OK_CACHE_MAX_KEY || m->url_len > OK_CACHE_MAX_STR ||
            m->etag_len > OK_CACHE_MAX_STR || m->lm_len > OK_CACHE_MAX_STR ||
            m->integrity_count > OK_CACHE_MAX_INTEGRITY || m->integrity_alg > OK_HASH_SHA512)
            return OK_ERR_CORRUPT;
        at = MF_HEAD + integ_bytes(m) + m->key_len + m->url_len + m->etag_len + m->lm_len;
        if (at + rec + 4 > len) return OK_ERR_CORRUPT;
        m->form_status = get32(b + at);
        m->form_reason = get32(b + at + 4);
        m->create_us = get32(b + at + 8);
        m->orig_create_us = get32(b + at + 12);
        memcpy(m->source_sha256, b + at + 16, 32);
        if (rec == MF_FORM_REC_REV) {
            m->rev_pairs = get32(b + at + 48);
            m->rev_form_us = get32(b + at + 52);
            m->rev_orig_us = get32(b + at + 56);
        }
    }
    st = check_fields(m);
    if (st) {
        memset(m, 0, sizeof *m);
        return st;
    }
    ib = integ_bytes(m);
    strs = m->key_len + m->url_len + m->etag_len + m->lm_len;
    body = (uint64_t)MF_HEAD + ib + strs + rec + (uint64_t)m->stored_count * 8 + 4;
    if (body != len) return OK_ERR_CORRUPT;

    p = b + MF_HEAD + ib;
    if (has_nul(p, m->key_len) || has_nul(p + m->key_len, m->url_len) ||
        has_nul(p + m->key_len + m->url_len, m->etag_len) ||
        has_nul(p + m->key_len + m->url_len + m->etag_len, m->lm_len))
        return OK_ERR_CORRUPT;

    /* One block: checksums (8-aligned first), key\0 url\0 etag\0 lm\0, the
     * integrity digests. */
    blk_len = (size_t)m->stored_count * 8 + (size_t)strs + 4 + ib;
    blk = ok_cache_malloc(blk_len);
    if (!blk) {
        memset(m, 0, sizeof *m);
        return OK_ERR_NOMEM;
    }
    sums = (uint64_t *)(void *)blk;
    for (i = 0; i < m->stored_count; i++) sums[i] = get64(b + MF_HEAD + ib + strs + rec + (size_t)i * 8);
    m->sums = sums;
    s = (char *)blk + (size_t)m->stored_count * 8;
    memcpy(s, p, m->key_len);
    s[m->key_len] = 0;
    m->key = s;
    p += m->key_len;
    s += m->key_len + 1;
    memcpy(s, p, m->url_len);
    s[m->url_len] = 0;
    m->url = s;
    p += m->url_len;
    s += m->url_len + 1;
    memcpy(s, p, m->etag_len);
    s[m->etag_len] = 0;
    m->etag = s;
    p += m->etag_len;
    s += m->etag_len + 1;
    memcpy(s, p, m->lm_len);
    s[m->lm_len] = 0;
    m->last_modified = s;
    s += m->lm_len + 1;
    if (ib) memcpy(s, b + MF_HEAD, ib);
    m->integrity = (const uint8_t *)s;
    return OK_OK;
}

void ok_manifest_free(ok_manifest *m) {
    if (!m) return;
    ok_cache_free((void *)m->sums); /* the one block starts there */
    memset(m, 0, sizeof *m);
}

/* The manifest of an entry as it is now (pointing into the entry): what the
 * action queue encodes, so the queue needs the manifest and not the index. */
void ok_entry_to_manifest(const ok_entry *e, ok_manifest *m) {
    memset(m, 0, sizeof *m);
    m->state = e->state;
    m->form = e->form;
    m->flags = e->flags;
    m->chunk_size = e->chunk_size;
    m->chunk_count = e->chunk_count;
    m->stored_count = e->stored_count;
    m->integrity_alg = e->integ_alg;
    m->integrity_count = e->integ_count;
    m->report_len = e->report_len;
    m->gen = e->gen;
    m->total_size = e->total_size;
    m->last_used = e->last_used;
    m->hit_count = e->hit_count;
    m->report_sum = e->report_sum;
    memcpy(m->sha256, e->sha256, 32);
    m->form_status = e->form_status;
    m->form_reason = e->form_reason;
    m->create_us = e->create_us;
    m->orig_create_us = e->orig_create_us;
    m->rev_pairs = e->rev_pairs;
    m->rev_form_us = e->rev_form_us;
    m->rev_orig_us = e->rev_orig_us;
    memcpy(m->source_sha256, e->source_sha256, 32);
    m->integrity = e->integ;
    m->key = e->key;
    m->url = e->url;
    m->etag = e->etag;
    m->last_modified = e->lm;
    m->key_len = (uint32_t)strlen(e->key);
    m->url_len = (uint32_t)strlen(e->url);
    m->etag_len = (uint32_t)strlen(e->etag);
    m->lm_len = (uint32_t)strlen(e->lm);
    m->sums = e->sums;
}
