/* cases_norm.c - references for the normalisations (lua/ops/norm.lua). */
#include <math.h>

#include "kn.h"

static void rms(const kn_dims_t *d, const double *x, const double *w, double eps,
                double *y) {
  for (int64_t r = 0; r < d->r; r++) {
    const double *xr = x + r * d->c;
    double ss = 0;
    for (int64_t c = 0; c < d->c; c++)
      ss += xr[c] * xr[c];
    const double s = 1.0 / sqrt(ss / (double)d->c + eps);
    for (int64_t c = 0; c < d->c; c++)
      y[r * d->c + c] = xr[c] * s * (w ? w[c] : 1.0);
  }
}

static void ref_rmsnorm(const kn_dims_t *d, const double *const *in, double *const *out) {
  rms(d, in[0], in[1], 1e-5, out[0]);
}
static void ref_rmsnorm_plain(const kn_dims_t *d, const double *const *in,
                              double *const *out) {
  rms(d, in[0], NULL, 1e-3, out[0]);
}

#define X                                                                                \
  { "R,C", KN_SAME, -3, 3 }
#define W                                                                                \
  { "C", KN_SAME, 0.5, 1.5 }
#define Y                                                                                \
  { "R,C", KN_SAME, 0, 0 }

static const kn_case_t cases[] = {
    {"rmsnorm",
     "rmsnorm($0, $1)",
     KN_ROWS,
     KN_FLOATS,
     2,
     1,
     {X, W},
     {Y},
     ref_rmsnorm,
     {0},
     0},
    {"rmsnorm_noweight",
     "rmsnorm($0, {eps = 1e-3})",
     KN_ROWS,
     KN_FLOATS,
     1,
     1,
     {X},
     {Y},
     ref_rmsnorm_plain,
     {0},
     0},
};

const kn_family_t kn_family_norm = {"norm", cases, (int)(sizeof cases / sizeof cases[0])};
