/* cases_index.c - references for embedding, gather and scatter_add
 * (lua/ops/index.lua). Index ranges reach one past each end, so out-of-range
 * indices (0 results for embedding and gather, skipped by scatter_add) are
 * always exercised; scatter_add's small destinations make many duplicates. */
#include "kn.h"

/* table [v, dim], ids [n] -> [n, dim] */
static void embed(int64_t v, int64_t dim, int64_t n, const double *tab, const double *ids,
                  double *y) {
  for (int64_t r = 0; r < n; r++) {
    const int64_t id = (int64_t)ids[r];
    for (int64_t c = 0; c < dim; c++)
      y[r * dim + c] = id >= 0 && id < v ? tab[id * dim + c] : 0.0;
  }
}
static void ref_embedding(const kn_dims_t *d, const double *const *in,
                          double *const *out) {
  embed(11, d->c, d->r, in[0], in[1], out[0]);
}
static void ref_embedding_vocab(const kn_dims_t *d, const double *const *in,
                                double *const *out) {
  embed(d->c, 8, d->r * 4, in[0], in[1], out[0]);
}

/* x [rows, xc], idx [rows, ic]: y[r][j] = x[r][idx[r][j]] */
static void gather_last(int64_t rows, int64_t xc, int64_t ic, const double *x,
                        const double *idx, double *y) {
  for (int64_t r = 0; r < rows; r++)
    for (int64_t j = 0; j < ic; j++) {
      const int64_t k = (int64_t)idx[r * ic + j];
      y[r * ic + j] = k >= 0 && k < xc ? x[r * xc + k] : 0.0;
    }
}
/* x [v, m], idx [rows, m]: y[j][c] = x[idx[j][c]][c] */
static void gather_first(int64_t v, int64_t m, int64_t rows, const double *x,
                         const double *idx, double *y) {
  for (int64_t j = 0; j < rows; j++)
    for (int64_t c = 0; c < m; c++) {
      const int64_t k = (int64_t)idx[j * m + c];
      y[j * m + c] = k >= 0 && k < v ? x[k * m + c] : 0.0;
    }
}
static void ref_gather(const kn_dims_t *d, const double *const *in, double *const *out) {
  gather_last(d->r, 9, d->c, in[0], in[1], out[0]);
}
static void ref_gather0(const kn_dims_t *d, const double *const *in, double *const *out) {
  gather_first(9, d->c, d->r, in[0], in[1], out[0]);
}

/* x [rows, xc], idx/src [rows, ic]: y[r][idx[r][j]] += src[r][j] */
static void scatter_last(int64_t rows, int64_t xc, int64_t ic, const double *x,
                         const double *idx, const double *src, double *y) {
  for (int64_t i = 0; i < rows * xc; i++)
    y[i] = x[i];
  for (int64_t r = 0; r < rows; r++)
    for (int64_t j = 0; j < ic; j++) {
      const int64_t k = (int64_t)idx[r * ic + j];
      if (k >= 0 && k < xc)
        y[r * xc + k] += src[r * ic + j];
    }
}
/* x [v, m], idx/src [rows, m]: y[idx[j][c]][c] += src[j][c] */
static void scatter_first(int64_t v, int64_t m, int64_t rows, const double *x,
                          const double *idx, const double *src, double *y) {
  for (int64_t i = 0; i < v * m; i++)
    y[i] = x[i];
  for (int64_t j = 0; j < rows; j++)
    for (int64_t c = 0; c < m; c++) {
      const int64_t k = (int64_t)idx[j * m + c];
      if (k >= 0 && k < v)
        y[k * m + c] += src[j * m + c];
    }
}
static void ref_scatter(const kn_dims_t *d, const double *const *in, double *const *out) {
  scatter_last(d->r, 9, d->c, in[0], in[1], in[2], out[0]);
}
static void ref_scatter_wide(const kn_dims_t *d, const double *const *in,
                             double *const *out) {
  scatter_last(d->r, d->c, 5, in[0], in[1], in[2], out[0]);
}
static void ref_scatter0(const kn_dims_t *d, const double *const *in,
                         double *const *out) {
  scatter_first(9, d->c, d->r, in[0], in[1], in[2], out[0]);
}

#define F(shape)                                                                         \
  { shape, KN_SAME, -2, 2 }
#define I(shape, lo, hi)                                                                 \
  { shape, KGRT_DTYPE_I32, lo, hi }
#define Y(shape)                                                                         \
  { shape, KN_SAME, 0, 0 }

static const kn_case_t cases[] = {
    /* table [11, D = C] */
    {"embedding",
     "embedding($0, $1)",
     KN_ROWS,
     KN_FLOATS,
     2,
     1,
     {F("11,C"), I("R", -1, 11)},
     {Y("R,C")},
     ref_embedding,
     {0},
     0},
    /* table [V = C, 8], ids [R, 4] */
    {"embedding_vocab",
     "embedding($0, $1)",
     KN_ROWS,
     KN_FLOATS,
     2,
     1,
     {F("C,8"), I("R,4", -1, 8)},
     {Y("R,4,8")},
     ref_embedding_vocab,
     {0},
     0},
    /* x [R, 9], idx [R, C] */
    {"gather",
     "gather($0, $1)",
     KN_ROWS,
     KN_FLOATS,
     2,
     1,
     {F("R,9"), I("R,C", -1, 9)},
     {Y("R,C")},
     ref_gather,
     {0},
     0},
    /* x [9, C], idx [R, C] */
    {"gather_dim0",
     "gather($0, $1, {dim = 0})",
     KN_ROWS,
     KN_FLOATS,
     2,
     1,
     {F("9,C"), I("R,C", -1, 9)},
     {Y("R,C")},
     ref_gather0,
     {0},
     0},
    /* x [R, 9], idx and src [R, C]: many duplicates */
    {"scatter_add",
     "scatter_add($0, $1, $2)",
     KN_ROWS,
     KN_FLOATS,
     3,
     1,
     {F("R,9"), I("R,C", -1, 9), F("R,C")},
     {Y("R,9")},
     ref_scatter,
     {0},
     0},
    /* x [R, C], idx and src [R, 5]: C = 4097 takes two LDS tiles */
    {"scatter_add_wide",
     "scatter_add($0, $1, $2, {dim = -1})",
     KN_ROWS,
     KN_FLOATS,
     3,
     1,
     {F("R,C"), I("R,5", -1, 8), F("R,5")},
     {Y("R,C")},
     ref_scatter_wide,
     {0},
     0},
    /* x [9, C], idx and src [R, C] */
    {"scatter_add_dim0",
     "scatter_add($0, $1, $2, {dim = 0})",
     KN_ROWS,
     KN_FLOATS,
     3,
     1,
     {F("9,C"), I("R,C", -1, 9), F("R,C")},
     {Y("9,C")},
     ref_scatter0,
     {0},
     0},
};

const kn_family_t kn_family_index = {"index", cases,
                                     (int)(sizeof cases / sizeof cases[0])};
