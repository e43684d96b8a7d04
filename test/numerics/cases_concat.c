/* cases_concat.c - references for concat (lua/ops/concat.lua): a and b
 * joined along a dim: in the middle ([R, 3, C] and [R, 5, C] along dim 2),
 * first ([3, C] and [4, C] along dim 1: no dims before it) and last ([R, C,
 * 2] and [R, C, 3] along -1), C the varying size. */
#include "kn.h"

/* y [outer, ia + ib] from a [outer, ia] and b [outer, ib]. */
static void concat(int64_t outer, int64_t ia, int64_t ib, const double *a,
                   const double *b, double *y) {
  for (int64_t o = 0; o < outer; o++) {
    for (int64_t j = 0; j < ia; j++)
      y[o * (ia + ib) + j] = a[o * ia + j];
    for (int64_t j = 0; j < ib; j++)
      y[o * (ia + ib) + ia + j] = b[o * ib + j];
  }
}

static void ref_mid(const kn_dims_t *d, const double *const *in, double *const *out) {
  concat(d->r, 3 * d->c, 5 * d->c, in[0], in[1], out[0]);
}
static void ref_first(const kn_dims_t *d, const double *const *in, double *const *out) {
  concat(1, 3 * d->c, 4 * d->c, in[0], in[1], out[0]);
}
static void ref_last(const kn_dims_t *d, const double *const *in, double *const *out) {
  concat(d->r * d->c, 2, 3, in[0], in[1], out[0]);
}

#define CASE(nm, call, as, bs, ys, ref)                                                  \
  {                                                                                      \
    nm, call, KN_ROWS, KN_FLOATS, 2, 1, {{as, KN_SAME, -2, 2}, {bs, KN_SAME, -2, 2}},    \
        {{ys, KN_SAME, 0, 0}}, ref, {0}, 0                                               \
  }

static const kn_case_t cases[] = {
    CASE("concat_mid", "concat($0, $1, {dim = 2})", "R,3,C", "R,5,C", "R,8,C", ref_mid),
    CASE("concat_first", "concat($0, $1, {dim = 1})", "3,C", "4,C", "7,C", ref_first),
    CASE("concat_last", "concat($0, $1)", "R,C,2", "R,C,3", "R,C,5", ref_last),
};

const kn_family_t kn_family_concat = {"concat", cases,
                                      (int)(sizeof cases / sizeof cases[0])};
