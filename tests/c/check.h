/* Minimal test harness shared by every C unit test.
 * Tests are plain programs: main() runs cases, CHECK records failures, and the
 * exit status is what ctest reads. It compiles unchanged for native, WASI and
 * Emscripten, so it uses nothing but stdio. */
#ifndef ORTKEEP_TEST_CHECK_H
#define ORTKEEP_TEST_CHECK_H

#include <stdio.h>
#include <string.h>

static int check_failures = 0;
static int check_count = 0;

#define CHECK(cond)                                                                  \
    do {                                                                             \
        check_count++;                                                               \
        if (!(cond)) {                                                               \
            check_failures++;                                                        \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                            \
    } while (0)

#define CHECK_EQ_INT(a, b)                                                                                   \
    do {                                                                                                     \
        long long check_a_ = (long long)(a), check_b_ = (long long)(b);                                      \
        check_count++;                                                                                       \
        if (check_a_ != check_b_) {                                                                          \
            check_failures++;                                                                                \
            fprintf(stderr, "%s:%d: CHECK_EQ_INT failed: %s == %s (%lld vs %lld)\n", __FILE__, __LINE__, #a, \
                    #b, check_a_, check_b_);                                                                 \
        }                                                                                                    \
    } while (0)

#define CHECK_EQ_STR(a, b)                                                                        \
    do {                                                                                          \
        const char *check_a_ = (a), *check_b_ = (b);                                              \
        check_count++;                                                                            \
        if (!check_a_ || !check_b_ || strcmp(check_a_, check_b_) != 0) {                          \
            check_failures++;                                                                     \
            fprintf(stderr, "%s:%d: CHECK_EQ_STR failed: \"%s\" vs \"%s\"\n", __FILE__, __LINE__, \
                    check_a_ ? check_a_ : "(null)", check_b_ ? check_b_ : "(null)");              \
        }                                                                                         \
    } while (0)

/* Call at the end of main(). A program that ran no check fails: a test
 * that cannot fail is a defect. */
#define CHECK_DONE()                                                              \
    (printf("%s: %d checks, %d failed\n", __FILE__, check_count, check_failures), \
     (check_failures || check_count == 0) ? 1 : 0)

#endif
