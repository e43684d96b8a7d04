/* cases_softmax.c - references for softmax and log_softmax
 * (lua/ops/softmax.lua): scale, additive masks broadcast over leading dims,
 * causal masks (with rows masked whole: 0, or -inf for log_softmax). */
#include <math.h>

#include "kn.h"

typedef struct sm_opts {
  double scale;
  int log;
  const double *mask; /* additive, mask_rows rows of c, or NULL */
  int64_t mask_rows;
  int causal;     /* mask (i, j) when j > i % tq + offset */
  int64_t tq;     /* query rows (causal) */
  int64_t offset; /* INT64_MIN: c - tq */
} sm_opts_t;

static void softmax_rows(const kn_dims_t *d, int64_t rows, const double *x,
                         const sm_opts_t *o, double *y) {
  for (int64_t r = 0; r < rows; r++) {
    const double *xr = x + r * d->c;
    double *yr = y + r * d->c;
    const int64_t limit = o->causal ? r % o->tq + o->offset : d->c;
    double m = -INFINITY, s = 0;
    for (int64_t c = 0; c < d->c; c++) {
      yr[c] = c > limit ? -INFINITY : o->scale * xr[c];
      if (o->mask)
        yr[c] += o->mask[(r % o->mask_rows) * d->c + c];
      m = fmax(m, yr[c]);
    }
    for (int64_t c = 0; c < d->c; c++)
      s += isinf(yr[c]) ? 0.0 : exp(yr[c] - m);
    for (int64_t c = 0; c < d->c; c++) {
      const double f = yr[c];
      if (o->log)
        yr[c] = isinf(f) ? -INFINITY : f - m - log(s);
      else
        yr[c] = isinf(f) ? 0.0 : exp(f - m) / s;
    }
  }
}

static void ref_softmax(const kn_dims_t *d, const double *const *in, double *const *out) {
  const sm_opts_t o = {1.0, 0, NULL, 1, 0, 1, 0};
  softmax_rows(d, d->r, in[0], &o, out[0]);
}
static void ref_softmax_scaled(const kn_dims_t *d, const double *const *in,
                               double *const *out) {
  const sm_opts_t o = {0.125, 0, NULL, 1, 0, 1, 0};
  softmax_rows(d, d->r, in[0], &o, out[0]);
}
static void ref_log_softmax(const kn_dims_t *d, const double *const *in,
                            double *const *out) {
  const sm_opts_t o = {0.125, 1, NULL, 1, 0, 1, 0};
  softmax_rows(d, d->r, in[0], &o, out[0]);
}
/* x [R, C]: Tq = R, Tk = C, offset C - R (C = 1: rows 0 and 1 masked whole) */
static void ref_softmax_causal(const kn_dims_t *d, const double *const *in,
                               double *const *out) {
  const sm_opts_t o = {1.0, 0, NULL, 1, 1, d->r, d->c - d->r};
  softmax_rows(d, d->r, in[0], &o, out[0]);
}
/* x [2, R, C], mask [R, C], causal */
static void ref_log_softmax_mask_causal(const kn_dims_t *d, const double *const *in,
                                        double *const *out) {
  const sm_opts_t o = {0.5, 1, in[1], d->r, 1, d->r, d->c - d->r};
  softmax_rows(d, 2 * d->r, in[0], &o, out[0]);
}
/* x [R, C], mask [C], causal with offset R */
static void ref_softmax_mask_offset(const kn_dims_t *d, const double *const *in,
                                    double *const *out) {
  const sm_opts_t o = {1.0, 0, in[1], 1, 1, d->r, d->r};
  softmax_rows(d, d->r, in[0], &o, out[0]);
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
    {"log_softmax",
     "log_softmax($0, 0.125)",
     KN_ROWS,
     KN_FLOATS,
     1,
     1,
     {X},
     {Y},
     ref_log_softmax,
     {0},
     0},
    {"softmax_causal",
     "softmax($0, {causal = true})",
     KN_ROWS,
     KN_FLOATS,
     1,
     1,
     {X},
     {Y},
     ref_softmax_causal,
     {0},
     0},
    {"log_softmax_mask_causal",
     "log_softmax($0, $1, {causal = true, scale = 0.5})",
     KN_ROWS,
     KN_FLOATS,
     2,
     1,
     {{"2,R,C", KN_SAME, -8, 8}, {"R,C", KN_SAME, -4, 0}},
     {{"2,R,C", KN_SAME, 0, 0}},
     ref_log_softmax_mask_causal,
     {0},
     0},
    {"softmax_mask_offset",
     "softmax($0, $1, {causal = true, offset = R})",
     KN_ROWS,
     KN_FLOATS,
     2,
     1,
     {X, {"C", KN_SAME, -4, 0}},
     {Y},
     ref_softmax_mask_offset,
     {0},
     0},
};

const kn_family_t kn_family_softmax = {"softmax", cases,
                                       (int)(sizeof cases / sizeof cases[0])};
