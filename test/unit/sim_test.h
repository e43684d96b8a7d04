/* sim_test.h - for unit tests that run a hand-built sim image (a host shared
 * object of kernels, see test/CMakeLists.txt): loads the image the test's one
 * argument names. Include after test.h, in one file per test program. */
#ifndef KG_SIM_TEST_H
#define KG_SIM_TEST_H

#include "kgrt_sim.h"
#include "test.h"

/* argv[1] read and loaded with `alloc` (NULL: malloc). Returns the image, with
 * the file's bytes in *out_bytes and *out_size (free them after unloading), or
 * NULL after printing why (usage, unreadable file, a load error: the latter
 * two also count as failed checks). */
static __attribute__((unused)) kgrt_sim_image_t *
test_sim_image_open(int argc, char **argv, const kgrt_allocator_t *alloc,
                    void **out_bytes, size_t *out_size) {
  static char why[512];
  *out_bytes = NULL;
  *out_size = 0;
  if (argc != 2) {
    fprintf(stderr, "usage: %s KERNELS.so\n", argv[0]);
    return NULL;
  }
  void *bytes = test_read_file(argv[1], out_size);
  CHECK(bytes != NULL);
  if (bytes == NULL)
    return NULL;
  kgrt_sim_image_t *img = NULL;
  CHECK_EQ(kgrt_sim_image_load(bytes, *out_size, alloc, &img, why, sizeof why), 0);
  if (img == NULL) {
    fprintf(stderr, "%s: %s\n", argv[1], why);
    free(bytes);
    return NULL;
  }
  *out_bytes = bytes;
  return img;
}

#endif /* KG_SIM_TEST_H */
