/* cases_sketch.c - references for lua/ops/sketch.lua: the count sketch with
 * the hash its template defines (kg_hash32, lowbias32), summed in float64. */
#include <stdint.h>

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
};

const kn_family_t kn_family_sketch = {"sketch", cases,
                                      (int)(sizeof cases / sizeof cases[0])};
