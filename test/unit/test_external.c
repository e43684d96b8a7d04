/* test_external.c - the caller's memory bound to a model's input and output
 * (kgrt_model_bind_device, kgrt_external.c) on the sim, whose device memory
 * is host memory: runs read x from the caller's buffer and write y into
 * another, with no kgrt_model_get_output, through graph replay and a change
 * of buffer after a graph was captured; unbinding puts the model's own
 * buffer back; every refusal has its status (misaligned, too small, a
 * weight, a state input, no such tensor, NULL, a run at other dims, a device
 * whose memory is its own). external.lua: y = x * w + 1.
 *
 * Usage: test_external (sim:gfx1100 and emu:gfx1100). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "external.h"
#include "kgrt.h"
#include "test.h"

enum { COLS = 64, TMAX = 8 };

static float w[COLS];

/* y[r, c] == x[r, c] * w[c] + 1 for rows 0 .. t. */
static int rows_ok(const float *x, const float *y, int t) {
  for (int i = 0; i < t * COLS; ++i)
    if (!(fabsf(y[i] - (x[i] * w[i % COLS] + 1.0f)) <= 1e-6f))
      return 0;
  return 1;
}

static void fill(float *x, int n, float base) {
  for (int i = 0; i < n; ++i)
    x[i] = base + (float)(i % 17) * 0.25f - (float)(i % 5);
}

static void poison(float *y, int n) {
  for (int i = 0; i < n; ++i)
    y[i] = NAN;
}

int main(void) {
  kgrt_error_t err;
  kgrt_device_t *dev = NULL;
  kgrt_model_t *m = NULL;
  const size_t bytes4 = 4 * COLS * sizeof(float);
  float *x = aligned_alloc(256, TMAX * COLS * sizeof(float));
  float *y = aligned_alloc(256, TMAX * COLS * sizeof(float));
  float *y2 = aligned_alloc(256, TMAX * COLS * sizeof(float));
  float host[4 * COLS];
  CHECK(x != NULL && y != NULL && y2 != NULL);
  if (x == NULL || y == NULL || y2 == NULL)
    return TEST_DONE();
  for (int c = 0; c < COLS; ++c)
    w[c] = 0.5f + (float)c / 64.0f;

  CHECK_EQ(kgrt_device_open("sim:gfx1100", NULL, &dev, &err), KGRT_STATUS_OK);
  CHECK_EQ(kgrt_model_load(dev, &kgen_external, &m, &err), KGRT_STATUS_OK);
  if (m == NULL) {
    fprintf(stderr, "%s\n", err.message);
    return TEST_DONE();
  }
  CHECK_EQ(kgrt_model_set_dim(m, "T", 4, &err), KGRT_STATUS_OK);
  CHECK_EQ(kgrt_model_set_weight(m, "w", w, sizeof w, &err), KGRT_STATUS_OK);
  CHECK_EQ(kgrt_model_bind_device(m, "x", x, bytes4, &err), KGRT_STATUS_OK);
  CHECK_EQ(kgrt_model_bind_device(m, "y", y, TMAX * COLS * sizeof(float), &err),
           KGRT_STATUS_OK);
  /* the input is read where it lies at the run, not copied at binding */
  fill(x, 4 * COLS, 1.0f);
  poison(y, TMAX * COLS);
  CHECK_EQ(kgrt_model_run(m, &err), KGRT_STATUS_OK);
  CHECK_EQ(kgrt_model_wait(m, &err), KGRT_STATUS_OK);
  CHECK(rows_ok(x, y, 4));
  CHECK(isnan(y[4 * COLS])); /* nothing past the tensor */
  /* the second run replays the graph: the same memory */
  fill(x, 4 * COLS, -3.0f);
  CHECK_EQ(kgrt_model_run(m, &err), KGRT_STATUS_OK);
  CHECK_EQ(kgrt_model_replay(m), 1);
  CHECK(rows_ok(x, y, 4));
  /* get_output reads the caller's memory */
  CHECK_EQ(kgrt_model_get_output(m, "y", host, bytes4, &err), KGRT_STATUS_OK);
  CHECK(memcmp(host, y, bytes4) == 0);
  /* another buffer after a graph was captured: the next run writes there */
  poison(y, TMAX * COLS);
  poison(y2, TMAX * COLS);
  CHECK_EQ(kgrt_model_bind_device(m, "y", y2, bytes4, &err), KGRT_STATUS_OK);
  CHECK_EQ(kgrt_model_get_output(m, "y", host, bytes4, &err),
           KGRT_STATUS_FAILED_PRECONDITION); /* a new binding needs a run */
  CHECK_EQ(kgrt_model_run(m, &err), KGRT_STATUS_OK);
  CHECK(rows_ok(x, y2, 4));
  CHECK(isnan(y[0]));
  /* back in the model's own buffers: x unbound until set again */
  CHECK_EQ(kgrt_model_unbind_device(m, "y", &err), KGRT_STATUS_OK);
  CHECK_EQ(kgrt_model_unbind_device(m, "x", &err), KGRT_STATUS_OK);
  CHECK_EQ(kgrt_model_run(m, &err), KGRT_STATUS_FAILED_PRECONDITION);
  CHECK(strstr(err.message, "input x is not bound") != NULL);
  fill(host, 4 * COLS, 2.0f);
  memcpy(x, host, bytes4);
  CHECK_EQ(kgrt_model_set_input(m, "x", host, bytes4, &err), KGRT_STATUS_OK);
  poison(y2, TMAX * COLS);
  CHECK_EQ(kgrt_model_run(m, &err), KGRT_STATUS_OK);
  CHECK(isnan(y2[0]));
  CHECK_EQ(kgrt_model_get_output(m, "y", host, bytes4, &err), KGRT_STATUS_OK);
  CHECK(rows_ok(x, host, 4));

  /* refusals */
  CHECK_EQ(kgrt_model_bind_device(m, "x", (char *)x + 16, bytes4, &err),
           KGRT_STATUS_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "not aligned to 256 bytes") != NULL);
  CHECK_EQ(kgrt_model_bind_device(m, "y", y, bytes4 - 4, &err), KGRT_STATUS_OUT_OF_RANGE);
  CHECK(strstr(err.message, "output y is 1024 bytes") != NULL);
  CHECK_EQ(kgrt_model_bind_device(m, "w", y, bytes4, &err), KGRT_STATUS_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "w is a weight") != NULL);
  CHECK_EQ(kgrt_model_bind_device(m, "z", y, bytes4, &err), KGRT_STATUS_NOT_FOUND);
  CHECK_EQ(kgrt_model_bind_device(m, "y", NULL, bytes4, &err),
           KGRT_STATUS_INVALID_ARGUMENT);
  CHECK_EQ(kgrt_model_unbind_device(m, "z", &err), KGRT_STATUS_NOT_FOUND);
  CHECK_EQ(kgrt_model_wait(NULL, &err), KGRT_STATUS_INVALID_ARGUMENT);
  /* bound at T = 4: a run at T = 2 needs both bound again */
  CHECK_EQ(kgrt_model_bind_device(m, "y", y, bytes4, &err), KGRT_STATUS_OK);
  CHECK_EQ(kgrt_model_set_dim(m, "T", 2, &err), KGRT_STATUS_OK);
  CHECK_EQ(kgrt_model_set_input(m, "x", host, bytes4 / 2, &err), KGRT_STATUS_OK);
  CHECK_EQ(kgrt_model_run(m, &err), KGRT_STATUS_FAILED_PRECONDITION);
  CHECK(strstr(err.message, "output y was bound to the caller's memory at 1024 bytes") !=
        NULL);
  CHECK_EQ(kgrt_model_bind_device(m, "y", y, bytes4 / 2, &err), KGRT_STATUS_OK);
  CHECK_EQ(kgrt_model_run(m, &err), KGRT_STATUS_OK);
  CHECK(rows_ok(host, y, 2));
  kgrt_model_unload(m);

  /* a state input lives in the model's own buffer */
  m = NULL;
  CHECK_EQ(kgrt_model_load(dev, &kgen_decode, &m, &err), KGRT_STATUS_OK);
  CHECK_EQ(kgrt_model_bind_device(m, "kc", y, TMAX * COLS * sizeof(float), &err),
           KGRT_STATUS_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "input kc is state") != NULL);
  kgrt_model_unload(m);
  kgrt_device_close(dev);

  /* the emu's memory is its own region */
  dev = NULL, m = NULL;
  CHECK_EQ(kgrt_device_open("emu:gfx1100", NULL, &dev, &err), KGRT_STATUS_OK);
  CHECK_EQ(kgrt_model_load(dev, &kgen_external, &m, &err), KGRT_STATUS_OK);
  CHECK_EQ(kgrt_model_set_dim(m, "T", 4, &err), KGRT_STATUS_OK);
  CHECK_EQ(kgrt_model_bind_device(m, "x", x, bytes4, &err), KGRT_STATUS_UNAVAILABLE);
  kgrt_model_unload(m);
  kgrt_device_close(dev);
  free(x);
  free(y);
  free(y2);
  return TEST_DONE();
}
