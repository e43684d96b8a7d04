/* cases_sort.c - references for lua/ops/sort.lua: a stable float64 sort of
 * (value, index) pairs; the indices are compared exactly. */
#include <stdlib.h>

#include "kn.h"

typedef struct {
  double v;
  int64_t i;
} kn_pair_t;

static int pair_asc(const void *a, const void *b) {
  const kn_pair_t *p = a, *q = b;
  if (p->v != q->v)
    return p->v < q->v ? -1 : 1;
  return p->i < q->i ? -1 : p->i > q->i;
}
static int pair_desc(const void *a, const void *b) {
  const kn_pair_t *p = a, *q = b;
  if (p->v != q->v)
    return p->v > q->v ? -1 : 1;
  return p->i < q->i ? -1 : p->i > q->i;
}

static void argsort_rows(const kn_dims_t *d, const double *x, int desc, double *y) {
  kn_pair_t *p = malloc(sizeof *p * (size_t)d->c);
  for (int64_t r = 0; r < d->r; r++) {
    for (int64_t c = 0; c < d->c; c++)
      p[c].v = x[r * d->c + c], p[c].i = c;
    qsort(p, (size_t)d->c, sizeof *p, desc ? pair_desc : pair_asc);
    for (int64_t c = 0; c < d->c; c++)
      y[r * d->c + c] = (double)p[c].i;
  }
  free(p);
}

static void ref_argsort(const kn_dims_t *d, const double *const *in, double *const *out) {
  argsort_rows(d, in[0], 0, out[0]);
}
static void ref_argsort_desc(const kn_dims_t *d, const double *const *in,
                             double *const *out) {
  argsort_rows(d, in[0], 1, out[0]);
}

/* few distinct values in f16/bf16 over [-4, 4]: many ties */
#define X                                                                                \
  { "R,C", KN_SAME, -4, 4 }
#define IDS                                                                              \
  { "R,C", KGRT_DTYPE_I32, 0, 0 }

static const kn_case_t cases[] = {
    {"argsort", "argsort($0)", KN_ROWS, KN_FLOATS, 1, 1, {X}, {IDS}, ref_argsort, {0}, 0},
    {"argsort_desc",
     "argsort($0, {descending = true})",
     KN_ROWS,
     KN_FLOATS,
     1,
     1,
     {X},
     {IDS},
     ref_argsort_desc,
     {0},
     0},
};

const kn_family_t kn_family_sort = {"sort", cases, (int)(sizeof cases / sizeof cases[0])};
