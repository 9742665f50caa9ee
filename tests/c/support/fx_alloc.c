/* Allocation for the test support: a failure aborts the test (never the
 * code under test). */
#include <stdlib.h>
#include <string.h>

#include "fx_alloc.h"

void *fx_malloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) abort();
    return p;
}

char *fx_strn(const char *s, size_t n) {
    char *d = fx_malloc(n + 1);
    if (n) memcpy(d, s, n);
    d[n] = 0;
    return d;
}
