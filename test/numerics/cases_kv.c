/* cases_kv.c - references for kv_append (lua/ops/kv.lua). The cache is bound
 * as an input (the harness binds every tensor with set_input) and read back
 * through cast(updated, f32), which runs after the in-place append. Positions
 * run from -1 to 8 (kv_append, S = C) or to 5 (kv_append_dim, S = 5), so some
 * are out of range (skipped) and, with 3 tokens, some repeat (the last token
 * wins). */
#include <string.h>

#include "kn.h"

static void append(int64_t layers, int64_t kvh, int64_t slots, int64_t dim, int64_t layer,
                   int64_t tokens, const double *cache, const double *nw,
                   const double *pos, double *y) {
  memcpy(y, cache, (size_t)(layers * kvh * slots * dim) * sizeof *y);
  for (int64_t t = 0; t < tokens; t++) {
    const int64_t p = (int64_t)pos[t];
    if (p < 0 || p >= slots)
      continue;
    for (int64_t h = 0; h < kvh; h++)
      memcpy(y + ((layer * kvh + h) * slots + p) * dim, nw + (t * kvh + h) * dim,
             (size_t)dim * sizeof *y);
  }
}

/* cache [2, 2, S = C, 8], layer 1 */
static void ref_slots(const kn_dims_t *d, const double *const *in, double *const *out) {
  append(2, 2, d->c, 8, 1, d->r, in[0], in[1], in[2], out[0]);
}
/* cache [1, 2, 5, D = C], layer 0 */
static void ref_dim(const kn_dims_t *d, const double *const *in, double *const *out) {
  append(1, 2, 5, d->c, 0, d->r, in[0], in[1], in[2], out[0]);
}

static const kn_case_t cases[] = {
    {"kv_append",
     "cast(kv_append($0, $1, $2, {layer = 1}), f32)",
     KN_ROWS,
     KN_FLOATS,
     3,
     1,
     {{"2,2,C,8", KN_SAME, -2, 2},
      {"R,2,8", KN_SAME, -2, 2},
      {"R", KGRT_DTYPE_I32, -1, 8}},
     {{"2,2,C,8", KGRT_DTYPE_F32, 0, 0}},
     ref_slots,
     {0},
     0},
    {"kv_append_dim",
     "cast(kv_append($0, $1, $2), f32)",
     KN_ROWS,
     KN_FLOATS,
     3,
     1,
     {{"1,2,5,C", KN_SAME, -2, 2},
      {"R,2,C", KN_SAME, -2, 2},
      {"R", KGRT_DTYPE_I32, -1, 5}},
     {{"1,2,5,C", KGRT_DTYPE_F32, 0, 0}},
     ref_dim,
     {0},
     0},
};

const kn_family_t kn_family_kv = {"kv", cases, (int)(sizeof cases / sizeof cases[0])};
