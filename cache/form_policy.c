/* The forms' decisions taken from JS's facts (form_policy.h). */
#include <stdio.h>
#include <string.h>

#include "form_policy.h"
#include "ok_load.h"

static const char *const LEVELS[] = {"basic", "extended", "layout", "all"};

/* A name that may stand in a key: printable, none of the key's separators. */
static int keyable(const char *s) {
    if (!*s) return 0;
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f || *s == '|' || *s == ';' || *s == '=') return 0;
    return 1;
}

ok_status ok_form_context(const char *ort_version, const char *eps, const char *level, uint32_t facts,
                          char *out, size_t cap, uint32_t *off) {
    size_t i;
    int known = 0, n;
    if (!ort_version || !eps || !out || !off) return OK_ERR_INVALID_ARG;
    if (cap) out[0] = '\0';
    if (!(facts & OK_FORM_LOAD_STORABLE)) {
        *off = OK_FORMS_OFF_NOT_STORED;
        return OK_OK;
    }
    if (!level || !*level) level = "all";
    for (i = 0; i < sizeof LEVELS / sizeof LEVELS[0]; i++) known |= strcmp(level, LEVELS[i]) == 0;
    if (!known) { /* 'disabled' or a level onnxruntime does not know */
        *off = OK_FORMS_OFF_LEVEL;
        return OK_OK;
    }
    if (facts & OK_FORM_LOAD_OWN_WRITER) {
        *off = OK_FORMS_OFF_OWN_WRITER;
        return OK_OK;
    }
    *off = OK_FORMS_OFF_CONTEXT;
    if (!keyable(ort_version) || !keyable(eps)) return OK_OK;
    n = snprintf(out, cap, "ort=%s;ep=%s;level=%s", ort_version, eps, level);
    if (n < 0 || (size_t)n >= cap || (size_t)n >= OK_FORM_MAX_CONTEXT) {
        if (cap) out[0] = '\0';
        return OK_OK;
    }
    *off = OK_FORMS_OFF_NONE;
    return OK_OK;
}

uint32_t ok_form_best_us(const uint32_t *samples, uint32_t n) {
    uint32_t best = UINT32_MAX, i;
    if (!samples) return best;
    for (i = 0; i < n; i++)
        if (samples[i] < best) best = samples[i];
    return best;
}

uint32_t ok_form_probe_verdict(uint32_t probe) {
    if (!(probe & OK_PROBE_CREATED)) return OK_VERDICT_FAILED;
    if (!(probe & OK_PROBE_REFERENCE_RAN)) return OK_VERDICT_UNVERIFIABLE;
    /* a form that cannot run what its original runs is not that model */
    if (!(probe & OK_PROBE_FORM_RAN)) return OK_VERDICT_DIFFERS;
    return (probe & OK_PROBE_EQUAL) ? OK_VERDICT_EQUAL : OK_VERDICT_DIFFERS;
}

uint32_t ok_form_pick_prepared(const uint32_t *facts, const uint32_t *create_us, uint32_t n) {
    uint32_t best = OK_PREPARED_NONE, i;
    if (!facts || !create_us) return best;
    for (i = 0; i < n; i++) {
        if ((facts[i] & OK_PREPARED_ALL) != OK_PREPARED_ALL) continue;
        if (best == OK_PREPARED_NONE || create_us[i] < create_us[best]) best = i;
    }
    return best;
}
