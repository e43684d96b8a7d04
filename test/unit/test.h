/* test.h - the smallest unit-test kit. CHECK(cond) counts a failure and prints
 * file:line and the expression; CHECK_EQ and CHECK_STR also print the values.
 * End main with `return TEST_DONE();`: nonzero when any check failed.
 * Include from one file per test program (the counters are static). */
#ifndef KG_TEST_H
#define KG_TEST_H

#include <stdio.h>
#include <stdlib.h>
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

/* The whole file at `path`, malloc'd (the caller frees it), with its size in
 * *out_size; NULL (and 0) when it cannot be read or is empty. */
static __attribute__((unused)) unsigned char *test_read_file(const char *path,
                                                             size_t *out_size) {
  *out_size = 0;
  FILE *f = fopen(path, "rb");
  if (f == NULL)
    return NULL;
  unsigned char *p = NULL;
  long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
  if (n > 0 && fseek(f, 0, SEEK_SET) == 0 && (p = malloc((size_t)n)) != NULL &&
      fread(p, 1, (size_t)n, f) != (size_t)n) {
    free(p);
    p = NULL;
  }
  fclose(f);
  if (p != NULL)
    *out_size = (size_t)n;
  return p;
}

#endif /* KG_TEST_H */
