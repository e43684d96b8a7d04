/* cases_matmul.c - references for matmul (lua/ops/matmul.lua): y = x . w^T
 * with w stored [N, K], x of R (3) or 1 rows (the GEMV path), K = C. */
#include "kn.h"

/* y[m, n] = sum_k x[m, k] w[n, k] for m < rows, n < cols, k < d->c. */
static void gemv(const kn_dims_t *d, int64_t rows, int64_t cols, const double *const *in,
                 double *const *out) {
  for (int64_t m = 0; m < rows; m++)
    for (int64_t n = 0; n < cols; n++) {
      double s = 0;
      for (int64_t k = 0; k < d->c; k++)
        s += in[0][m * d->c + k] * in[1][n * d->c + k];
      out[0][m * cols + n] = s;
    }
}

static void ref_matmul_37(const kn_dims_t *d, const double *const *in,
                          double *const *out) {
  gemv(d, d->r, 37, in, out);
}
static void ref_matmul_256(const kn_dims_t *d, const double *const *in,
                           double *const *out) {
  gemv(d, d->r, 256, in, out);
}
static void ref_matmul_m1(const kn_dims_t *d, const double *const *in,
                          double *const *out) {
  gemv(d, 1, 36, in, out);
}

static const kn_case_t cases[] = {
    /* N = 37: one column per workgroup */
    {"matmul_n37",
     "matmul($0, $1)",
     KN_ROWS,
     KN_FLOATS,
     2,
     1,
     {{"R,C", KN_SAME, -1, 1}, {"37,C", KN_SAME, -1, 1}},
     {{"R,37", KN_SAME, 0, 0}},
     ref_matmul_37,
     {0},
     0},
    /* N = 256: 4 waves of 2 columns per workgroup */
    {"matmul_n256",
     "matmul($0, $1)",
     KN_ROWS,
     KN_FLOATS,
     2,
     1,
     {{"R,C", KN_SAME, -1, 1}, {"256,C", KN_SAME, -1, 1}},
     {{"R,256", KN_SAME, 0, 0}},
     ref_matmul_256,
     {0},
     0},
    /* one row (M = 1, a constant), N = 36: 2 waves of 2 columns */
    {"matmul_m1",
     "matmul($0, $1)",
     KN_ROWS,
     KN_FLOATS,
     2,
     1,
     {{"1,C", KN_SAME, -1, 1}, {"36,C", KN_SAME, -1, 1}},
     {{"1,36", KN_SAME, 0, 0}},
     ref_matmul_m1,
     {0},
     0},
};

const kn_family_t kn_family_matmul = {"matmul", cases,
                                      (int)(sizeof cases / sizeof cases[0])};
