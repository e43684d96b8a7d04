/* cases_resample.c - references for upsample (lua/ops/resample.lua), written
 * as PyTorch's upsample_nearest2d / upsample_bilinear2d (align_corners=False)
 * compute them: source = max((o + 0.5) / 2 - 0.5, 0), neighbour clamped.
 * The varying size C is W (H = 3) or H (W = 6); "R,2,6,C,2" is [R, 2, 6, 2C]. */
#include <math.h>

#include "kn.h"

static void src_index(int64_t o, int64_t in, int64_t *i0, int64_t *i1, double *l1) {
  double s = (o + 0.5) * 0.5 - 0.5;
  if (s < 0)
    s = 0;
  *i0 = (int64_t)floor(s);
  *i1 = *i0 + (*i0 < in - 1 ? 1 : 0);
  *l1 = s - (double)*i0;
}

static void upsample(int64_t images, int64_t h, int64_t w, int bilinear, const double *x,
                     double *y) {
  for (int64_t n = 0; n < images; n++)
    for (int64_t oy = 0; oy < 2 * h; oy++)
      for (int64_t ox = 0; ox < 2 * w; ox++) {
        const double *xi = x + n * h * w;
        double v;
        if (!bilinear) {
          v = xi[(oy / 2) * w + ox / 2];
        } else {
          int64_t y0, y1, x0, x1;
          double ly, lx;
          src_index(oy, h, &y0, &y1, &ly);
          src_index(ox, w, &x0, &x1, &lx);
          v = (1 - ly) * ((1 - lx) * xi[y0 * w + x0] + lx * xi[y0 * w + x1]) +
              ly * ((1 - lx) * xi[y1 * w + x0] + lx * xi[y1 * w + x1]);
        }
        y[(n * 2 * h + oy) * 2 * w + ox] = v;
      }
}

static void ref_nearest(const kn_dims_t *d, const double *const *in, double *const *out) {
  upsample(d->r * 2, 3, d->c, 0, in[0], out[0]);
}
static void ref_bilinear(const kn_dims_t *d, const double *const *in,
                         double *const *out) {
  upsample(d->r * 2, 3, d->c, 1, in[0], out[0]);
}
static void ref_nearest_tall(const kn_dims_t *d, const double *const *in,
                             double *const *out) {
  upsample(d->r, d->c, 6, 0, in[0], out[0]);
}
static void ref_bilinear_tall(const kn_dims_t *d, const double *const *in,
                              double *const *out) {
  upsample(d->r, d->c, 6, 1, in[0], out[0]);
}

#define CASE(nm, call, xs, ys, ref)                                                      \
  {                                                                                      \
    nm, call, KN_ROWS, KN_FLOATS, 1, 1, {{xs, KN_SAME, -2, 2}}, {{ys, KN_SAME, 0, 0}},   \
        ref, {0}, 0                                                                      \
  }

static const kn_case_t cases[] = {
    CASE("upsample_nearest", "upsample($0)", "R,2,3,C", "R,2,6,C,2", ref_nearest),
    CASE("upsample_bilinear", "upsample($0, {mode = \"bilinear\"})", "R,2,3,C",
         "R,2,6,C,2", ref_bilinear),
    CASE("upsample_nearest_tall", "upsample($0, {mode = \"nearest\", scale = 2})",
         "R,1,C,6", "R,1,C,2,12", ref_nearest_tall),
    CASE("upsample_bilinear_tall", "upsample($0, {mode = \"bilinear\"})", "R,1,C,6",
         "R,1,C,2,12", ref_bilinear_tall),
};

const kn_family_t kn_family_resample = {"resample", cases,
                                        (int)(sizeof cases / sizeof cases[0])};
