/* cases_reduce.c - references for the reductions over the last dim
 * (lua/ops/reduce.lua). argmax/argmin compare exactly: the first index among
 * equal values, which f16 and bf16 inputs make common. */
#include <math.h>

#include "kn.h"

enum { RED_SUM, RED_MEAN, RED_MAX, RED_MIN, RED_ARGMAX, RED_ARGMIN };

static void reduce_rows(const kn_dims_t *d, int64_t rows, const double *x, int op,
                        double *y) {
  for (int64_t r = 0; r < rows; r++) {
    const double *xr = x + r * d->c;
    double acc = op == RED_SUM || op == RED_MEAN ? 0.0 : xr[0];
    int64_t at = 0;
    for (int64_t c = op == RED_SUM || op == RED_MEAN ? 0 : 1; c < d->c; c++) {
      if (op == RED_SUM || op == RED_MEAN)
        acc += xr[c];
      else if (op == RED_MAX || op == RED_ARGMAX ? xr[c] > acc : xr[c] < acc)
        acc = xr[c], at = c;
    }
    y[r] = op == RED_MEAN                         ? acc / (double)d->c
           : op == RED_ARGMAX || op == RED_ARGMIN ? (double)at
                                                  : acc;
  }
}

static void ref_sum(const kn_dims_t *d, const double *const *in, double *const *out) {
  reduce_rows(d, d->r, in[0], RED_SUM, out[0]);
}
static void ref_mean(const kn_dims_t *d, const double *const *in, double *const *out) {
  reduce_rows(d, d->r, in[0], RED_MEAN, out[0]);
}

static void ref_max_1d(const kn_dims_t *d, const double *const *in, double *const *out) {
  reduce_rows(d, 1, in[0], RED_MAX, out[0]);
}
static void ref_min(const kn_dims_t *d, const double *const *in, double *const *out) {
  reduce_rows(d, d->r, in[0], RED_MIN, out[0]);
}
static void ref_argmax(const kn_dims_t *d, const double *const *in, double *const *out) {
  reduce_rows(d, d->r, in[0], RED_ARGMAX, out[0]);
}
static void ref_argmin(const kn_dims_t *d, const double *const *in, double *const *out) {
  reduce_rows(d, d->r, in[0], RED_ARGMIN, out[0]);
}

#define X                                                                                \
  { "R,C", KN_SAME, -1, 3 }
/* a narrow range: many equal values at the extremes in f16 and bf16 */
#define X_TIES                                                                           \
  { "R,C", KN_SAME, -0.5, 0.5 }
#define Y                                                                                \
  { "R", KN_SAME, 0, 0 }
#define I                                                                                \
  { "R", KGRT_DTYPE_I32, 0, 0 }

static const kn_case_t cases[] = {
    {"sum", "sum($0)", KN_ROWS, KN_FLOATS, 1, 1, {X}, {Y}, ref_sum, {0}, 0},
    {"mean_keepdim",
     "mean($0, {keepdim = true})",
     KN_ROWS,
     KN_FLOATS,
     1,
     1,
     {X},
     {{"R,1", KN_SAME, 0, 0}},
     ref_mean,
     {0},
     0},
    /* a 1-D x: one row, result [1] */
    {"amax_1d",
     "amax($0)",
     KN_ROWS,
     KN_FLOATS,
     1,
     1,
     {{"C", KN_SAME, -1, 3}},
     {{"1", KN_SAME, 0, 0}},
     ref_max_1d,
     {0},
     0},
    {"amin", "amin($0)", KN_ROWS, KN_FLOATS, 1, 1, {X}, {Y}, ref_min, {0}, 0},
    {"argmax", "argmax($0)", KN_ROWS, KN_FLOATS, 1, 1, {X_TIES}, {I}, ref_argmax, {0}, 0},
    {"argmin", "argmin($0)", KN_ROWS, KN_FLOATS, 1, 1, {X_TIES}, {I}, ref_argmin, {0}, 0},
};

const kn_family_t kn_family_reduce = {"reduce", cases,
                                      (int)(sizeof cases / sizeof cases[0])};
