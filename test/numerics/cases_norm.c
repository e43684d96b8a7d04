/* cases_norm.c - references for the normalisations (lua/ops/norm.lua):
 * rmsnorm, layernorm, their residual forms and groupnorm. */
#include <math.h>

#include "kgrt_half.h"
#include "kn.h"

/* v rounded to the dtype the model is built for (the residual's h). */
static double round_to(int dtype, double v) {
  switch (dtype) {
  case KGRT_DTYPE_F16:
    return kgrt_f16_to_f32(kgrt_f32_to_f16((float)v));
  case KGRT_DTYPE_BF16:
    return kgrt_bf16_to_f32(kgrt_f32_to_bf16((float)v));
  default:
    return (float)v;
  }
}

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

/* rows of n elements: y = (x - mean) / sqrt(var + eps) * w[ch] + b[ch], ch =
 * column / per_ch (w, b may be NULL). */
static void layer(int64_t rows, int64_t n, int64_t per_ch, int64_t groups,
                  const double *x, const double *w, const double *b, double eps,
                  double *y) {
  for (int64_t r = 0; r < rows; r++) {
    const double *xr = x + r * n;
    double mean = 0, var = 0;
    for (int64_t c = 0; c < n; c++)
      mean += xr[c];
    mean /= (double)n;
    for (int64_t c = 0; c < n; c++)
      var += (xr[c] - mean) * (xr[c] - mean);
    const double s = 1.0 / sqrt(var / (double)n + eps);
    for (int64_t c = 0; c < n; c++) {
      const int64_t ch = (r % groups) * (n / per_ch) + c / per_ch;
      y[r * n + c] = (xr[c] - mean) * s * (w ? w[ch] : 1.0) + (b ? b[ch] : 0.0);
    }
  }
}

static void ref_rmsnorm(const kn_dims_t *d, const double *const *in, double *const *out) {
  rms(d, in[0], in[1], 1e-5, out[0]);
}
static void ref_rmsnorm_plain(const kn_dims_t *d, const double *const *in,
                              double *const *out) {
  rms(d, in[0], NULL, 1e-3, out[0]);
}
static void ref_layernorm(const kn_dims_t *d, const double *const *in,
                          double *const *out) {
  layer(d->r, d->c, 1, 1, in[0], in[1], in[2], 1e-5, out[0]);
}
static void ref_layernorm_w(const kn_dims_t *d, const double *const *in,
                            double *const *out) {
  layer(d->r, d->c, 1, 1, in[0], in[1], NULL, 1e-5, out[0]);
}

/* out[1] = h = x + r rounded to the dtype; y = norm(h) from the rounded h. */
static void residual(const kn_dims_t *d, const double *const *in, double *const *out) {
  for (int64_t i = 0; i < d->r * d->c; i++)
    out[1][i] = round_to(d->dtype, in[0][i] + in[1][i]);
}
static void ref_rmsnorm_residual(const kn_dims_t *d, const double *const *in,
                                 double *const *out) {
  residual(d, in, out);
  rms(d, out[1], in[2], 1e-5, out[0]);
}
static void ref_layernorm_residual(const kn_dims_t *d, const double *const *in,
                                   double *const *out) {
  residual(d, in, out);
  layer(d->r, d->c, 1, 1, out[1], in[2], in[3], 1e-5, out[0]);
}

/* groupnorm on x [R, 9, C]: 3 groups of 3 channels of C elements. */
static void ref_groupnorm(const kn_dims_t *d, const double *const *in,
                          double *const *out) {
  layer(d->r * 3, 3 * d->c, d->c, 3, in[0], in[1], in[2], 1e-5, out[0]);
}

#define X                                                                                \
  { "R,C", KN_SAME, -3, 3 }
#define W                                                                                \
  { "C", KN_SAME, 0.5, 1.5 }
#define B                                                                                \
  { "C", KN_SAME, -1, 1 }
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
    {"layernorm",
     "layernorm($0, $1, $2)",
     KN_ROWS,
     KN_FLOATS,
     3,
     1,
     {X, W, B},
     {Y},
     ref_layernorm,
     {0},
     0},
    /* a mean far from 0 against the spread: E[x^2] - E[x]^2 would cancel */
    {"layernorm_offset",
     "layernorm($0, $1)",
     KN_ROWS,
     KN_FLOATS,
     2,
     1,
     {{"R,C", KN_SAME, 300, 302}, W},
     {Y},
     ref_layernorm_w,
     {0},
     0},
    {"rmsnorm_residual",
     "rmsnorm_residual($0, $1, $2)",
     KN_ROWS,
     KN_FLOATS,
     3,
     2,
     {X, X, W},
     {Y, Y},
     ref_rmsnorm_residual,
     {0},
     0},
    {"layernorm_residual",
     "layernorm_residual($0, $1, $2, $3)",
     KN_ROWS,
     KN_FLOATS,
     4,
     2,
     {X, X, W, B},
     {Y, Y},
     ref_layernorm_residual,
     {0},
     0},
    /* odd groups (3 channels of C each), a spatial size up to 64 x 64 */
    {"groupnorm",
     "groupnorm($0, $1, $2, {groups = 3})",
     KN_ROWS,
     KN_FLOATS,
     3,
     1,
     {{"R,9,C", KN_SAME, -3, 3}, {"9", KN_SAME, 0.5, 1.5}, {"9", KN_SAME, -1, 1}},
     {{"R,9,C", KN_SAME, 0, 0}},
     ref_groupnorm,
     {1, 7, 49, 4096, 1000},
     0},
};

const kn_family_t kn_family_norm = {"norm", cases, (int)(sizeof cases / sizeof cases[0])};
