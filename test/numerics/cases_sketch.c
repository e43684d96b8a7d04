/* cases_sketch.c - references for lua/ops/sketch.lua: the count sketch and
 * the subsampled randomized Hadamard transform with the hash, signs and
 * permutation their templates define (kg_hash32, lowbias32), in float64. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "kn.h"

static uint32_t hash32(uint32_t v) {
  v ^= v >> 16;
  v *= 0x7feb352du;
  v ^= v >> 15;
  v *= 0x846ca68bu;
  v ^= v >> 16;
  return v;
}

static void countsketch(const kn_dims_t *d, const double *x, uint32_t width,
                        uint32_t seed, double *y) {
  const uint32_t key = hash32(seed);
  for (int64_t r = 0; r < d->r; r++) {
    for (uint32_t b = 0; b < width; b++)
      y[r * width + b] = 0;
    for (int64_t j = 0; j < d->c; j++) {
      const uint32_t v = hash32((uint32_t)j ^ key);
      y[r * width + v % width] += (v & 0x80000000u ? -1 : 1) * x[r * d->c + j];
    }
  }
}

static void ref_countsketch(const kn_dims_t *d, const double *const *in,
                            double *const *out) {
  countsketch(d, in[0], 37, 5, out[0]);
}
static void ref_countsketch_wide(const kn_dims_t *d, const double *const *in,
                                 double *const *out) {
  countsketch(d, in[0], 1500, 123456789, out[0]);
}

/* srht (templates/srht.hip): y[k] = (H D x)[pi(k)] / sqrt(m), H the
 * unnormalised Sylvester Hadamard matrix of order P, by an O(P log P) FWHT. */
static void srht(const kn_dims_t *d, const double *x, uint32_t m, uint32_t seed,
                 double *y) {
  uint32_t p = 1, logp = 0;
  while (p < (uint64_t)d->c) {
    p *= 2;
    logp++;
  }
  const uint32_t key = hash32(seed), shift = logp / 2 + 1;
  double *z = malloc(p * sizeof *z);
  if (!z)
    abort();
  for (int64_t r = 0; r < d->r; r++) {
    for (uint32_t j = 0; j < p; j++)
      z[j] = j < d->c ? (hash32(j ^ key) >> 31 ? -1 : 1) * x[r * d->c + j] : 0;
    for (uint32_t len = 1; len < p; len *= 2)
      for (uint32_t i = 0; i < p; i += 2 * len)
        for (uint32_t q = i; q < i + len; q++) {
          const double a = z[q], b = z[q + len];
          z[q] = a + b;
          z[q + len] = a - b;
        }
    for (uint32_t k = 0; k < m; k++) {
      uint32_t v = k;
      for (uint32_t t = 1; t <= 4; t++) {
        const uint32_t kt = hash32(key + t);
        v = ((v ^ kt) * (kt | 1u)) & (p - 1);
        v ^= v >> shift;
      }
      y[r * m + k] = z[v] / sqrt((double)m);
    }
  }
  free(z);
}

static void ref_srht_m1(const kn_dims_t *d, const double *const *in, double *const *out) {
  srht(d, in[0], 1, 3, out[0]);
}
static void ref_srht(const kn_dims_t *d, const double *const *in, double *const *out) {
  srht(d, in[0], 5, 11, out[0]);
}
static void ref_srht_wide(const kn_dims_t *d, const double *const *in,
                          double *const *out) {
  srht(d, in[0], 1000, 123456789, out[0]);
}

#define X                                                                                \
  { "R,C", KN_SAME, -2, 2 }

static const kn_case_t cases[] = {
    {"countsketch",
     "countsketch($0, {width = 37, seed = 5})",
     KN_ROWS,
     KN_FLOATS,
     1,
     1,
     {X},
     {{"R,37", KN_SAME, 0, 0}},
     ref_countsketch,
     {0},
     0},
    {"countsketch_wide",
     "countsketch($0, {width = 1500, seed = 123456789})",
     KN_ROWS,
     KN_FLOATS,
     1,
     1,
     {X},
     {{"R,1500", KN_SAME, 0, 0}},
     ref_countsketch_wide,
     {0},
     0},
    {"srht_m1",
     "srht($0, {out = 1, seed = 3})",
     KN_ROWS,
     KN_FLOATS,
     1,
     1,
     {X},
     {{"R,1", KN_SAME, 0, 0}},
     ref_srht_m1,
     {0},
     0},
    {"srht",
     "srht($0, {out = 5, seed = 11})",
     KN_ROWS,
     KN_FLOATS,
     1,
     1,
     {X},
     {{"R,5", KN_SAME, 0, 0}},
     ref_srht,
     {5, 7, 64, 4097, 1000},
     0},
    {"srht_wide",
     "srht($0, {out = 1000, seed = 123456789})",
     KN_ROWS,
     KN_FLOATS,
     1,
     1,
     {X},
     {{"R,1000", KN_SAME, 0, 0}},
     ref_srht_wide,
     {1000, 1025, 4097, 16384, 2000},
     0},
};

const kn_family_t kn_family_sketch = {"sketch", cases,
                                      (int)(sizeof cases / sizeof cases[0])};
