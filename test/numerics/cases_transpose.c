/* cases_transpose.c - references for transpose (lua/ops/transpose.lua):
 * y[b][j][i] = x[b][i][j] per matrix of the leading dims. The matrices are
 * 5 x C, C x 37 and C x 40 (C the varying size: 1000 and the other default
 * sizes are no multiple of the 32-element tile), with and without leading
 * dims (R, the run's rows). */
#include "kn.h"

static void transpose(int64_t batch, int64_t rows, int64_t cols, const double *x,
                      double *y) {
  for (int64_t b = 0; b < batch; b++)
    for (int64_t i = 0; i < rows; i++)
      for (int64_t j = 0; j < cols; j++)
        y[(b * cols + j) * rows + i] = x[(b * rows + i) * cols + j];
}

static void ref_wide(const kn_dims_t *d, const double *const *in, double *const *out) {
  transpose(d->r, 5, d->c, in[0], out[0]);
}
static void ref_tall(const kn_dims_t *d, const double *const *in, double *const *out) {
  transpose(d->r, d->c, 37, in[0], out[0]);
}
static void ref_one(const kn_dims_t *d, const double *const *in, double *const *out) {
  transpose(1, d->c, 40, in[0], out[0]);
}

#define CASE(nm, call, xs, ys, ref)                                                      \
  {                                                                                      \
    nm, call, KN_ROWS, KN_FLOATS, 1, 1, {{xs, KN_SAME, -2, 2}}, {{ys, KN_SAME, 0, 0}},   \
        ref, {0}, 0                                                                      \
  }

static const kn_case_t cases[] = {
    CASE("transpose_wide", "transpose($0)", "R,5,C", "R,C,5", ref_wide),
    CASE("transpose_tall", "transpose($0)", "R,C,37", "R,37,C", ref_tall),
    CASE("transpose_one", "transpose($0)", "C,40", "40,C", ref_one),
};

const kn_family_t kn_family_transpose = {"transpose", cases,
                                         (int)(sizeof cases / sizeof cases[0])};
