/* cases_sample.c - references for lua/ops/sample.lua: greedy and top-k = 1
 * are the argmax (ties to the lowest index); a seeded draw (top-p 0.9,
 * temperature 0.7) is reproduced from the op's definition in float64
 * (Philox-4x32-10 uniform, inverse CDF over the kept tokens in index order).
 * The distribution of draws is checked by sample_test.c. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "kn.h"

static void ref_argmax(const kn_dims_t *d, const double *const *in, double *const *out) {
  for (int64_t r = 0; r < d->r; r++) {
    const double *x = in[0] + r * d->c;
    int64_t best = 0;
    for (int64_t c = 1; c < d->c; c++)
      if (x[c] > x[best])
        best = c;
    out[0][r] = (double)best;
  }
}

static uint32_t philox_first(uint32_t c0, uint32_t c1, uint32_t k0) {
  uint32_t x = c0, y = c1, z = 0, w = 0, k1 = 0;
  for (int r = 0; r < 10; r++) {
    if (r > 0) {
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    const uint64_t p0 = (uint64_t)0xD2511F53u * x, p1 = (uint64_t)0xCD9E8D57u * z;
    const uint32_t nx = (uint32_t)(p1 >> 32) ^ y ^ k0, nz = (uint32_t)(p0 >> 32) ^ w ^ k1;
    y = (uint32_t)p1, w = (uint32_t)p0, x = nx, z = nz;
  }
  return x;
}

static const double *sort_keys;
static int by_value_then_index(const void *a, const void *b) {
  const int64_t i = *(const int64_t *)a, j = *(const int64_t *)b;
  if (sort_keys[i] != sort_keys[j])
    return sort_keys[i] > sort_keys[j] ? -1 : 1;
  return i < j ? -1 : i > j;
}

/* sample($0, $1, {temperature = 0.7, top_p = 0.9}), seed $1 = [s0, step] */
static void ref_draw(const kn_dims_t *d, const double *const *in, double *const *out) {
  const double t = 0.7, top_p = 0.9;
  int64_t *order = malloc(sizeof(int64_t) * (size_t)d->c);
  double *w = malloc(sizeof(double) * (size_t)d->c);
  for (int64_t r = 0; r < d->r; r++) {
    const double *x = in[0] + r * d->c;
    double m = -INFINITY, mass = 0, run = 0;
    for (int64_t c = 0; c < d->c; c++) {
      order[c] = c;
      m = fmax(m, x[c] / t);
    }
    for (int64_t c = 0; c < d->c; c++)
      mass += (w[c] = exp(x[c] / t - m));
    sort_keys = x;
    qsort(order, (size_t)d->c, sizeof *order, by_value_then_index);
    int64_t len = d->c;
    for (int64_t j = 0; j < d->c; j++)
      if ((run += w[order[j]]) >= top_p * mass) {
        len = j + 1;
        break;
      }
    for (int64_t j = len; j < d->c; j++)
      w[order[j]] = 0;
    double total = 0;
    int64_t last = 0;
    for (int64_t c = 0; c < d->c; c++)
      if (w[c] > 0)
        total += w[c], last = c;
    const uint32_t bits = philox_first((uint32_t)r, (uint32_t)(int32_t)in[1][1],
                                       (uint32_t)(int32_t)in[1][0]);
    const double u = (double)(bits >> 8) * 0x1p-24;
    out[0][r] = (double)last;
    run = 0;
    for (int64_t c = 0; c < d->c; c++)
      if (w[c] > 0 && (run += w[c]) > u * total) {
        out[0][r] = (double)c;
        break;
      }
  }
  free(order);
  free(w);
}

#define X                                                                                \
  { "R,C", KN_SAME, -8, 8 }
#define SEED1                                                                            \
  { "1", KGRT_DTYPE_I32, -100000, 100000 }
#define SEED2                                                                            \
  { "2", KGRT_DTYPE_I32, 0, 100000 }
#define IDS                                                                              \
  { "R", KGRT_DTYPE_I32, 0, 0 }

static const kn_case_t cases[] = {
    {"sample_greedy",
     "sample($0, $1, {temperature = 0})",
     KN_ROWS,
     KN_FLOATS,
     2,
     1,
     {X, SEED1},
     {IDS},
     ref_argmax,
     {0},
     0},
    {"sample_top1",
     "sample($0, $1, {top_k = 1})",
     KN_ROWS,
     KN_FLOATS,
     2,
     1,
     {X, SEED1},
     {IDS},
     ref_argmax,
     {0},
     0},
    {"sample_draw",
     "sample($0, $1, {temperature = 0.7, top_p = 0.9})",
     KN_ROWS,
     KN_FLOATS,
     2,
     1,
     {X, SEED2},
     {IDS},
     ref_draw,
     {0},
     0},
};

const kn_family_t kn_family_sample = {"sample", cases,
                                      (int)(sizeof cases / sizeof cases[0])};
