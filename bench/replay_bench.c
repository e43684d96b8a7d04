/* replay_bench.c - graph replay against launches one by one, on the 160
 * small kernels of models/replay_160.lua (one row of 256 f32 through 160
 * RMSNorms), in one process so the ratio is of the same run:
 *   1. correctness: the output replayed, launched one by one, and float64
 *      agree (replayed and launched bit for bit);
 *   2. host wall clock per run: batches of B runs queued back to back, then
 *      one 1 KiB read back (the wait), divided by B; median of the batches;
 *      replay and launches alternate batch by batch;
 *   3. kgrt_model_time (device events) of one run each way;
 *   4. kgrt_model_profile: the steps' device times and bytes summed.
 * Usage: replay_bench SPEC [BATCHES] (SPEC "cuda", "sim"; default 30). Prints
 * JSON lines, then a table. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kgrt.h"
#include "replay_160.h"

enum { COLS = 256, KERNELS = 160, BATCH = 20 };

static int ok(kgrt_status_t st, const kgrt_error_t *err, const char *what) {
  if (st != KGRT_STATUS_OK)
    fprintf(stderr, "replay_bench: %s: %s: %s\n", what, kgrt_status_name(st),
            err->message);
  return st == KGRT_STATUS_OK;
}

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* B runs queued, then the wait for them (the read back); us per run. */
static double batch_us(kgrt_model_t *m, float *y, kgrt_error_t *err, int *fine) {
  double t0 = now_us();
  for (int r = 0; r < BATCH && *fine; ++r)
    *fine = ok(kgrt_model_run(m, err), err, "run");
  if (*fine)
    *fine = ok(kgrt_model_get_output(m, "y", y, COLS * sizeof *y, err), err, "read");
  return (now_us() - t0) / BATCH;
}

int main(int argc, char **argv) {
  const char *spec = argc > 1 ? argv[1] : "cuda";
  const int batches = argc > 2 ? atoi(argv[2]) : 30;
  kgrt_error_t err;
  kgrt_device_t *dev = NULL;
  kgrt_model_t *m = NULL;
  if (!ok(kgrt_device_open(spec, NULL, &dev, &err), &err, spec))
    return 1;
  kgrt_memory_t mem;
  if (!ok(kgrt_model_memory(dev, &kgen_replay_160, &mem, &err), &err, "memory") ||
      !ok(kgrt_model_load(dev, &kgen_replay_160, &m, &err), &err, "load"))
    return 1;
  float x[COLS], y_replay[COLS], y_launch[COLS];
  uint32_t s = 12345;
  for (int i = 0; i < COLS; ++i) {
    s = s * 1664525u + 1013904223u;
    x[i] = (float)((double)(s >> 8) / (double)(1u << 23) - 1.0);
  }
  int fine = ok(kgrt_model_set_dim(m, "T", 1, &err), &err, "dim") &&
             ok(kgrt_model_set_input(m, "x", x, sizeof x, &err), &err, "input");
  const int replays = kgrt_model_replay(m);

  /* 1. correctness */
  fine =
      fine && ok(kgrt_model_run(m, &err), &err, "run") &&
      ok(kgrt_model_get_output(m, "y", y_replay, sizeof y_replay, &err), &err, "out") &&
      ok(kgrt_model_set_replay(m, 0, &err), &err, "replay off") &&
      ok(kgrt_model_run(m, &err), &err, "run") &&
      ok(kgrt_model_get_output(m, "y", y_launch, sizeof y_launch, &err), &err, "out");
  double ref[COLS], worst = 0;
  for (int i = 0; i < COLS; ++i)
    ref[i] = x[i];
  for (int k = 0; k < KERNELS; ++k) {
    double ss = 0;
    for (int i = 0; i < COLS; ++i)
      ss += ref[i] * ref[i];
    const double r = 1.0 / sqrt(ss / COLS + 1e-6);
    for (int i = 0; i < COLS; ++i)
      ref[i] *= r;
  }
  for (int i = 0; i < COLS; ++i)
    worst = fmax(worst, fabs((double)y_replay[i] - ref[i]));
  const int same = memcmp(y_replay, y_launch, sizeof y_replay) == 0;
  printf("{\"check\": \"replay_160\", \"device\": \"%s\", \"replay\": %d, "
         "\"replayed_equals_launched\": %d, \"max_abs_err_vs_f64\": %.3g}\n",
         kgrt_device_name(dev), replays, same, worst);
  fine = fine && same && worst < 1e-4;

  /* 2. host wall clock, alternating */
  double *a = calloc((size_t)batches, sizeof *a), *b = calloc((size_t)batches, sizeof *b);
  for (int w = 0; w < 3 && fine; ++w) { /* warm up both ways (and capture) */
    fine = ok(kgrt_model_set_replay(m, replays, &err), &err, "replay");
    batch_us(m, y_replay, &err, &fine);
    fine = fine && ok(kgrt_model_set_replay(m, 0, &err), &err, "replay off");
    batch_us(m, y_launch, &err, &fine);
  }
  for (int i = 0; i < batches && fine; ++i) {
    fine = ok(kgrt_model_set_replay(m, replays, &err), &err, "replay");
    a[i] = batch_us(m, y_replay, &err, &fine);
    fine = fine && ok(kgrt_model_set_replay(m, 0, &err), &err, "replay off");
    b[i] = batch_us(m, y_launch, &err, &fine);
  }
  const double wall_replay = median(a, batches), wall_launch = median(b, batches);

  /* 3. device events, each way */
  double ev_replay = 0, ev_launch = 0;
  fine = fine && ok(kgrt_model_set_replay(m, replays, &err), &err, "replay") &&
         ok(kgrt_model_time(m, 10, 101, &ev_replay, &err), &err, "time") &&
         ok(kgrt_model_set_replay(m, 0, &err), &err, "replay off") &&
         ok(kgrt_model_time(m, 10, 101, &ev_launch, &err), &err, "time");

  /* 4. the profile: per-step device times and bytes */
  kgrt_step_profile_t *p = calloc(KERNELS, sizeof *p);
  uint32_t n = 0;
  double sum_us = 0;
  uint64_t sum_bytes = 0;
  fine = fine && ok(kgrt_model_profile(m, 21, p, KERNELS, &n, &err), &err, "profile");
  for (uint32_t i = 0; fine && i < n; ++i) {
    sum_us += p[i].us;
    sum_bytes += p[i].bytes;
  }
  if (fine) {
    printf("{\"bench\": \"replay_160\", \"device\": \"%s\", \"kernels\": %d, "
           "\"batch\": %d, \"batches\": %d, \"wall_us_replay\": %.2f, "
           "\"wall_us_launch\": %.2f, \"wall_ratio\": %.3f, \"event_us_replay\": %.2f, "
           "\"event_us_launch\": %.2f, \"event_ratio\": %.3f, \"profile_steps\": %u, "
           "\"profile_us_sum\": %.2f, \"profile_bytes_sum\": %llu, "
           "\"memory_bytes\": %llu}\n",
           kgrt_device_name(dev), KERNELS, BATCH, batches, wall_replay, wall_launch,
           wall_replay / wall_launch, ev_replay, ev_launch, ev_replay / ev_launch, n,
           sum_us, (unsigned long long)sum_bytes, (unsigned long long)mem.total);
    printf(
        "\n| %s, %d kernels | replayed | launched one by one | ratio |\n"
        "| --- | --- | --- | --- |\n"
        "| host wall clock per run (batches of %d, median of %d) | %.1f us | %.1f us | "
        "%.3f |\n"
        "| device events per run (kgrt_model_time, median of 101) | %.1f us | %.1f us "
        "| %.3f |\n"
        "| kgrt_model_profile: sum of the %u steps' times | | %.1f us | |\n",
        kgrt_device_name(dev), KERNELS, BATCH, batches, wall_replay, wall_launch,
        wall_replay / wall_launch, ev_replay, ev_launch, ev_replay / ev_launch, n,
        sum_us);
  }
  free(p);
  free(a);
  free(b);
  kgrt_model_unload(m);
  kgrt_device_close(dev);
  return fine ? 0 : 1;
}
