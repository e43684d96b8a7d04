/* test.h - the smallest unit-test kit. CHECK(cond) counts a failure and prints
 * file:line and the expression; CHECK_EQ and CHECK_STR also print the values.
 * End main with `return TEST_DONE();`: nonzero when any check failed.
 * Include from one file per test program (the counters are static). */
#ifndef KG_TEST_H
#define KG_TEST_H

#include <stdio.h>
#include <string.h>

static int test_checks, test_failures;

#define TEST_FAIL_(...)                                                                  \
  (fprintf(stderr, "%s:%d: CHECK failed: ", __FILE__, __LINE__),                         \
   fprintf(stderr, __VA_ARGS__), fputc('\n', stderr), test_failures++)
#define CHECK(cond) ((void)(test_checks++, (cond) ? 0 : TEST_FAIL_("%s", #cond)))
#define CHECK_EQ(a, b)                                                                   \
  ((void)(test_checks++, (long long)(a) == (long long)(b)                                \
                             ? 0                                                         \
                             : TEST_FAIL_("%s == %s (%lld vs %lld)", #a, #b,             \
                                          (long long)(a), (long long)(b))))
#define CHECK_STR(a, b)                                                                  \
  ((void)(test_checks++,                                                                 \
          strcmp((a), (b)) == 0                                                          \
              ? 0                                                                        \
              : TEST_FAIL_("%s == %s (\"%s\" vs \"%s\")", #a, #b, (a), (b))))
#define TEST_DONE()                                                                      \
  (fprintf(stderr, "%s: %d checks, %d failed\n", __FILE__, test_checks, test_failures),  \
   test_failures != 0)

#endif /* KG_TEST_H */
