/* llama_bench.h - what llama_decode.c and llama_batch.c share: the wall
 * clock, random weight bytes (no float math: 16 GB must fill in seconds),
 * the copy bandwidth that is their roofline's denominator, and a dim's
 * largest value. Static functions: one translation unit each. Needs
 * kgrt.h and copy_16384x8192.h first. */
#ifndef KGEN_BENCH_LLAMA_BENCH_H
#define KGEN_BENCH_LLAMA_BENCH_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

/* Random bytes of a weight: f32 norms near 1; f16/bf16 of magnitude 2^-7
 * with random signs and mantissas; Q8_0/Q4_0 blocks with a small f16 scale
 * and random quants. */
static void fill(kgrt_dtype_t dt, unsigned char *p, size_t bytes) {
  if (dt == KGRT_DTYPE_F32) {
    for (size_t i = 0; i + 4 <= bytes; i += 4) {
      uint32_t u = 0x3F800000u | (uint32_t)(next() & 0x7FFF); /* 1 + tiny */
      memcpy(p + i, &u, 4);
    }
    return;
  }
  for (size_t i = 0; i < bytes; i += 8) {
    uint64_t r = next();
    memcpy(p + i, &r, bytes - i < 8 ? bytes - i : 8);
  }
  if (dt == KGRT_DTYPE_BF16 || dt == KGRT_DTYPE_F16) {
    uint16_t base = dt == KGRT_DTYPE_BF16 ? 0x3C00 : 0x2000; /* 2^-7 */
    uint16_t keep = dt == KGRT_DTYPE_BF16 ? 0x807F : 0x83FF; /* sign, mantissa */
    for (size_t i = 0; i + 2 <= bytes; i += 2) {
      uint16_t h;
      memcpy(&h, p + i, 2);
      h = (uint16_t)(base | (h & keep));
      memcpy(p + i, &h, 2);
    }
  } else if (dt == KGRT_DTYPE_Q8_0 || dt == KGRT_DTYPE_Q4_0) {
    size_t block = dt == KGRT_DTYPE_Q8_0 ? 34 : 18;
    uint16_t d = dt == KGRT_DTYPE_Q8_0 ? 0x1C00 : 0x2000; /* 2^-8, 2^-7 */
    for (size_t i = 0; i + block <= bytes; i += block)
      memcpy(p + i, &d, 2);
  }
}

/* The copy bandwidth of a 256 MiB copy (models/copy_16384x8192.lua), GB/s
 * read + written, printed as a JSON line; 0 on failure (its message on
 * stderr). */
static double bench_copy(kgrt_device_t *dev) {
  kgrt_error_t err = {0};
  kgrt_model_t *m = NULL;
  double us = 0, gbps = 0;
  const size_t bytes = (size_t)16384 * 8192 * 2;
  void *host = calloc(1, bytes);
  if (host == NULL)
    return 0;
  if (kgrt_model_load(dev, &kgen_copy_16384x8192, &m, &err) == KGRT_STATUS_OK &&
      kgrt_model_set_input(m, "x", host, bytes, &err) == KGRT_STATUS_OK &&
      kgrt_model_time(m, 5, 20, &us, &err) == KGRT_STATUS_OK) {
    gbps = 2.0 * (double)bytes / (us * 1e-6) / 1e9;
    printf("{\"kind\": \"copy\", \"GBps\": %.1f, \"us\": %.2f}\n", gbps, us);
  } else {
    fprintf(stderr, "copy bandwidth: %s\n", err.message);
  }
  kgrt_model_unload(m);
  free(host);
  return gbps;
}

static size_t dim_value(const kgrt_model_table_t *t, kgrt_dim_t d) {
  return d.sym >= 0 ? (size_t)t->syms[d.sym].max : (size_t)d.value;
}

#endif
