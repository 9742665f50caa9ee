/* Reads a whole file for the tests that compare readers on real model
 * files (NULL if it cannot be read; one spare byte so an empty file still
 * gets a buffer). Tests only: the core does no I/O. */
#ifndef ORTKEEP_TEST_SLURP_H
#define ORTKEEP_TEST_SLURP_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint8_t *slurp(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    uint8_t *b;
    long len;
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
        fclose(f);
        return NULL;
    }
    b = malloc((size_t)len + 1);
    if (b && fread(b, 1, (size_t)len, f) != (size_t)len) {
        free(b);
        b = NULL;
    }
    fclose(f);
    *n = (size_t)len;
    return b;
}

#endif
