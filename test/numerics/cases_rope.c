/* cases_rope.c - references for rope (lua/ops/rope.lua): the angle
 * pos * theta^(-2i / rot) computed in float64. x is [R tokens, H, D]; the
 * varying size C is the head count H (D fixed) or, in rope_dim, the head dim
 * D (even sizes only: 2, 6, 64, 4098, 1000). Positions go to 4095, and to
 * 131071 in rope_dim, where a plain float angle would be off by 0.01 rad.
 * rope_reshaped reaches rope through reshape views (lua/ops/layout.lua). */
#include <math.h>

#include "kn.h"

static void rope(int64_t tokens, int64_t heads, int64_t dim, int64_t rot, double theta,
                 int interleaved, const double *x, const double *pos, double *y) {
  const int64_t half = rot / 2;
  for (int64_t t = 0; t < tokens; t++)
    for (int64_t h = 0; h < heads; h++) {
      const double *xr = x + (t * heads + h) * dim;
      double *yr = y + (t * heads + h) * dim;
      for (int64_t i = 0; i < half; i++) {
        const double ang = pos[t] * pow(theta, -2.0 * (double)i / (double)rot);
        const int64_t i0 = interleaved ? 2 * i : i,
                      i1 = interleaved ? 2 * i + 1 : i + half;
        yr[i0] = xr[i0] * cos(ang) - xr[i1] * sin(ang);
        yr[i1] = xr[i1] * cos(ang) + xr[i0] * sin(ang);
      }
      for (int64_t i = rot; i < dim; i++)
        yr[i] = xr[i];
    }
}

static void ref_half(const kn_dims_t *d, const double *const *in, double *const *out) {
  rope(d->r, d->c, 16, 16, 10000.0, 0, in[0], in[1], out[0]);
}
static void ref_interleaved(const kn_dims_t *d, const double *const *in,
                            double *const *out) {
  rope(d->r, d->c, 16, 12, 10000.0, 1, in[0], in[1], out[0]);
}
static void ref_partial(const kn_dims_t *d, const double *const *in, double *const *out) {
  rope(d->r, d->c, 20, 12, 10000.0, 0, in[0], in[1], out[0]);
}
static void ref_dim(const kn_dims_t *d, const double *const *in, double *const *out) {
  rope(d->r, 2, d->c, d->c, 500000.0, 0, in[0], in[1], out[0]);
}

/* rope over 8-dim heads of x [R, C, 16] reshaped to [R, 2C, 8] (views: no
 * kernel moves data; the kernels around them read and write the buffers) */
static void ref_reshaped(const kn_dims_t *d, const double *const *in,
                         double *const *out) {
  rope(d->r, 2 * d->c, 8, 8, 10000.0, 0, in[0], in[1], out[0]);
}

#define POS(hi)                                                                          \
  { "R", KGRT_DTYPE_I32, 0, hi }

static const kn_case_t cases[] = {
    {"rope",
     "rope($0, $1)",
     KN_ROWS,
     KN_FLOATS,
     2,
     1,
     {{"R,C,16", KN_SAME, -2, 2}, POS(4095)},
     {{"R,C,16", KN_SAME, 0, 0}},
     ref_half,
     {0},
     0},
    {"rope_reshaped",
     "reshape(rope(reshape($0 * 1.0, {R, -1, 8}), $1), {R, -1, 16}) * 1.0",
     KN_ROWS,
     KN_FLOATS,
     2,
     1,
     {{"R,C,16", KN_SAME, -2, 2}, POS(4095)},
     {{"R,C,16", KN_SAME, 0, 0}},
     ref_reshaped,
     {0},
     0},
    {"rope_interleaved",
     "rope($0, $1, {layout = \"interleaved\", rotary_dim = 12})",
     KN_ROWS,
     KN_FLOATS,
     2,
     1,
     {{"R,C,16", KN_SAME, -2, 2}, POS(4095)},
     {{"R,C,16", KN_SAME, 0, 0}},
     ref_interleaved,
     {0},
     0},
    {"rope_partial",
     "rope($0, $1, {rotary_dim = 12})",
     KN_ROWS,
     KN_FLOATS,
     2,
     1,
     {{"R,C,20", KN_SAME, -2, 2}, POS(4095)},
     {{"R,C,20", KN_SAME, 0, 0}},
     ref_partial,
     {0},
     0},
    {"rope_dim",
     "rope($0, $1, {theta = 500000})",
     KN_ROWS,
     KN_FLOATS,
     2,
     1,
     {{"R,2,C", KN_SAME, -2, 2}, POS(131071)},
     {{"R,2,C", KN_SAME, 0, 0}},
     ref_dim,
     {2, 6, 64, 4098, 1000},
     0},
};

const kn_family_t kn_family_rope = {"rope", cases, (int)(sizeof cases / sizeof cases[0])};
