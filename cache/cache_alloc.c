/* Allocation for the cache core, with a fault-injection hook: tests fail the
 * n-th allocation and check that the call returns OK_ERR_NOMEM and leaves the
 * cache as it was. A live counter gives leak checks where ASan is absent. */
#include <stdlib.h>
#include <string.h>

#include "cache_internal.h"

static uint64_t g_fail_at; /* 0 = off; else fail when g_count reaches it */
static uint64_t g_count;
static int64_t g_live;

void ok_cache_test_fail_alloc(uint64_t n) { g_fail_at = n ? g_count + n : 0; }
uint64_t ok_cache_test_alloc_count(void) { return g_count; }
int64_t ok_cache_test_alloc_live(void) { return g_live; }

static int should_fail(void) {
    g_count++;
    if (g_fail_at && g_count == g_fail_at) {
        g_fail_at = 0;
        return 1;
    }
    return 0;
}

void *ok_cache_malloc(size_t n) {
    void *p;
    if (should_fail()) return NULL;
    p = malloc(n ? n : 1);
    if (p) g_live++;
    return p;
}

void *ok_cache_calloc(size_t n, size_t size) {
    void *p;
    if (should_fail()) return NULL;
    if (size && n > (size_t)-1 / size) return NULL;
    p = calloc(n ? n : 1, size ? size : 1);
    if (p) g_live++;
    return p;
}

/* Like realloc; a failure leaves p as it was. */
void *ok_cache_realloc(void *p, size_t n) {
    void *q;
    if (!p) return ok_cache_malloc(n);
    if (should_fail()) return NULL;
    q = realloc(p, n ? n : 1);
    return q;
}

void ok_cache_free(void *p) {
    if (!p) return;
    g_live--;
    free(p);
}

char *ok_cache_strndup(const char *s, size_t n) {
    char *d = ok_cache_malloc(n + 1);
    if (!d) return NULL;
    if (n) memcpy(d, s, n);
    d[n] = 0;
    return d;
}

char *ok_cache_strdup(const char *s) {
    if (!s) s = "";
    return ok_cache_strndup(s, strlen(s));
}
