/* cases_softmax.c - references for softmax (lua/ops/softmax.lua). */
#include <math.h>

#include "kn.h"

static void softmax_rows(const kn_dims_t *d, const double *x, double scale, double *y) {
  for (int64_t r = 0; r < d->r; r++) {
    const double *xr = x + r * d->c;
    double m = -INFINITY, s = 0;
    for (int64_t c = 0; c < d->c; c++)
      m = fmax(m, scale * xr[c]);
    for (int64_t c = 0; c < d->c; c++)
      s += exp(scale * xr[c] - m);
    for (int64_t c = 0; c < d->c; c++)
      y[r * d->c + c] = exp(scale * xr[c] - m) / s;
  }
}

static void ref_softmax(const kn_dims_t *d, const double *const *in, double *const *out) {
  softmax_rows(d, in[0], 1.0, out[0]);
}
static void ref_softmax_scaled(const kn_dims_t *d, const double *const *in,
                               double *const *out) {
  softmax_rows(d, in[0], 0.125, out[0]);
}

#define X                                                                                \
  { "R,C", KN_SAME, -8, 8 }
#define Y                                                                                \
  { "R,C", KN_SAME, 0, 0 }

static const kn_case_t cases[] = {
    {"softmax", "softmax($0)", KN_ROWS, KN_FLOATS, 1, 1, {X}, {Y}, ref_softmax, {0}, 0},
    {"softmax_scale",
     "softmax($0, 0.125)",
     KN_ROWS,
     KN_FLOATS,
     1,
     1,
     {X},
     {Y},
     ref_softmax_scaled,
     {0},
     0},
};

const kn_family_t kn_family_softmax = {"softmax", cases,
                                       (int)(sizeof cases / sizeof cases[0])};
