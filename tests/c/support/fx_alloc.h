/* Test-side allocation that aborts on failure (fx_alloc.c). */
#ifndef ORTKEEP_TEST_FX_ALLOC_H
#define ORTKEEP_TEST_FX_ALLOC_H

#include <stddef.h>

void *fx_malloc(size_t n);
char *fx_strn(const char *s, size_t n);

#endif
