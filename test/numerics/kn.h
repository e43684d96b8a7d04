/* kn.h - the op numerics harness: cases, shapes, references.
 *
 * A case is one op call, written as Lua ("rmsnorm($0, $1, {eps = 1e-5})"; $T
 * is the dtype the model is built for),
 * with the shapes and value ranges of its operands and results and a float64
 * reference in C. kn_emit writes, per dtype, a model that instantiates every
 * case at every size; kgen builds it for gfx1100 and gfx942; kn_run runs it on
 * the sim device through kgrt, once per size index (a fresh load, so outputs
 * start poisoned), and compares every result with the reference: normalized
 * mean squared error within the dtype's bound for floats, exact for i32, and
 * any NaN or inf where the reference is finite fails (an infinite reference
 * must be matched exactly).
 *
 * Shapes are strings over three dims: N (a sym: the flat length of a FLAT
 * case, the same N for every FLAT case of a run), R (a sym: rows, ROWS cases)
 * and C (a constant per instance: a ROWS case's row length), e.g. "R,C", "C",
 * "N", "R", "R,4,C". A new op joins by adding a case and its reference to a
 * cases_<family>.c file (and the family to kn_families in kn_cases.c). */
#ifndef KN_H
#define KN_H

#include <stddef.h>
#include <stdint.h>

#include "kgrt_table.h"

enum { KN_SIZES = 5, KN_ROWS_RUN = 3, KN_MAX_IN = 6, KN_MAX_OUT = 2 };

/* The sizes every case runs at: N for FLAT cases, C for ROWS cases unless the
 * case gives its own. 1000 is not a multiple of any block x vector width. */
extern const int64_t kn_default_sizes[KN_SIZES];

typedef enum kn_layout {
  KN_FLAT = 0, /* one instance; N varies per run */
  KN_ROWS = 1, /* one instance per size (C constant); R = KN_ROWS_RUN */
} kn_layout_t;

#define KN_SAME (-1) /* a tensor spec's dtype: the dtype the model is built for */

typedef struct kn_tensor_spec {
  const char *shape; /* "R,C", "N", ... (see above) */
  int dtype;         /* KN_SAME or a kgrt_dtype_t */
  double lo, hi;     /* inputs: uniform range (i32: integers lo..hi) */
} kn_tensor_spec_t;

/* The dims of one instance in one run, and the kgrt dtype the model is built
 * for (a reference that rounds an intermediate to it, as the op does). */
typedef struct kn_dims {
  int64_t n, r, c;
  int dtype;
} kn_dims_t;

/* Fills out[k] (as many elements as output k's shape has) from in[k]. Values
 * are the inputs exactly as stored (already rounded to their dtype). */
typedef void (*kn_ref_fn)(const kn_dims_t *d, const double *const *in,
                          double *const *out);

typedef struct kn_case {
  const char *name; /* for reports: "rmsnorm", "cast_f16" */
  const char *call; /* Lua; $k is input k; may return several results */
  kn_layout_t layout;
  unsigned dtypes; /* bit d set: built for kgrt dtype d */
  int num_in, num_out;
  kn_tensor_spec_t in[KN_MAX_IN];
  kn_tensor_spec_t out[KN_MAX_OUT];
  kn_ref_fn ref;
  int64_t sizes[KN_SIZES]; /* ROWS: its own C values; all 0: the defaults */
  double bound;            /* NMSE bound, 0: the output dtype's default */
} kn_case_t;

#define KN_FLOATS                                                                        \
  ((1u << KGRT_DTYPE_F32) | (1u << KGRT_DTYPE_F16) | (1u << KGRT_DTYPE_BF16))

typedef struct kn_family {
  const char *name;
  const kn_case_t *cases;
  int num_cases;
} kn_family_t;

extern const kn_family_t *const kn_families[];
extern const int kn_num_families;

/* "f32", "f16", "bf16", "i32"; -1 for anything else. */
const char *kn_dtype_name(int dtype);
int kn_dtype_parse(const char *name);

/* Bytes per element of a kgrt dtype; element i of a host buffer of `dtype`
 * stored from v (rounded to nearest even; returns the stored value) and read
 * back as a double. */
size_t kn_dtype_size(int dtype);
double kn_store(void *host, int64_t i, int dtype, double v);
double kn_load(const void *host, int64_t i, int dtype);

/* A host tensor for the dedicated op tests (matmul_test.c, conv_test.c):
 * n values as stored in a dtype (raw) and as doubles (v). kn_host_random
 * fills it from *state (xorshift64), uniform in [lo, hi), each value rounded
 * to the dtype as stored. */
typedef struct kn_host {
  void *raw;
  double *v;
  int64_t n;
} kn_host_t;
double kn_uniform(uint64_t *state, double lo, double hi);
kn_host_t kn_host_random(int dtype, int64_t n, double lo, double hi, uint64_t *state);
void kn_host_free(kn_host_t *h);

/* The size of a case's instance `s` (its C, or N for FLAT cases). */
int64_t kn_case_size(const kn_case_t *c, int s);
/* Number of elements of a shape string at dims d; -1 on a malformed shape. */
int64_t kn_shape_numel(const char *shape, const kn_dims_t *d);
/* Instance name: "c<family>_<case>" plus "_s<size index>" for ROWS cases. */
void kn_instance_name(char *buf, size_t cap, int family, int index, const kn_case_t *c,
                      int s);

#endif /* KN_H */
