/* test_device_auto.c - the device spec "auto": the first of cuda, hip and
 * sim that opens. On this machine the answer is whatever cuda and hip say
 * when opened by name: where both are UNAVAILABLE (no GPU) auto is the sim,
 * whose name says so, and runs like it; where one opens, auto is that one.
 * Then its refusals: a ':' part, an option other than graphs, a bad value. */
#include <string.h>

#include "kgrt.h"
#include "test.h"

/* Whether `spec` opens here. */
static int opens(const char *spec) {
  kgrt_error_t err;
  kgrt_device_t *dev = NULL;
  kgrt_status_t st = kgrt_device_open(spec, NULL, &dev, &err);
  kgrt_device_close(dev);
  if (st != KGRT_STATUS_OK)
    fprintf(stderr, "%s: %s\n", spec, err.message);
  return st == KGRT_STATUS_OK;
}

int main(void) {
  kgrt_error_t err;
  kgrt_device_t *dev = NULL;
  const int cuda = opens("cuda"), hip = !cuda && opens("hip");
  const char *want = cuda ? "cuda:0" : hip ? "hip:0" : "sim";
  CHECK_EQ(kgrt_device_open("auto", NULL, &dev, &err), KGRT_STATUS_OK);
  fprintf(stderr, "auto: %s\n", kgrt_device_name(dev));
  CHECK(strncmp(kgrt_device_name(dev), want, strlen(want)) == 0);
  kgrt_device_close(dev);
  dev = NULL;
  /* graphs=0 reaches the device chosen (the sim names it) */
  CHECK_EQ(kgrt_device_open("auto,graphs=0", NULL, &dev, &err), KGRT_STATUS_OK);
  if (!cuda && !hip)
    CHECK_STR(kgrt_device_name(dev), "sim,graphs=0");
  kgrt_device_close(dev);
  dev = NULL;
  CHECK_EQ(kgrt_device_open("auto:0", NULL, &dev, &err), KGRT_STATUS_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "auto takes no ':' part") != NULL);
  CHECK(dev == NULL);
  CHECK_EQ(kgrt_device_open("auto,workers=2", NULL, &dev, &err),
           KGRT_STATUS_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "only graphs=0|1") != NULL);
  CHECK_EQ(kgrt_device_open("auto,graphs=2", NULL, &dev, &err),
           KGRT_STATUS_INVALID_ARGUMENT);
  CHECK_EQ(kgrt_device_open("auto,", NULL, &dev, &err), KGRT_STATUS_INVALID_ARGUMENT);
  CHECK(dev == NULL);
  return TEST_DONE();
}
