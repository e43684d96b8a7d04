/* cases_elementwise.c - references for the map ops (lua/ops/elementwise.lua):
 * float64 of the same formula, applied to the stored inputs. */
#include <math.h>

#include "kn.h"

#define UNARY(fn, expr)                                                                  \
  static void fn(const kn_dims_t *d, const double *const *in, double *const *out) {      \
    for (int64_t i = 0; i < d->n; i++) {                                                 \
      const double x = in[0][i];                                                         \
      out[0][i] = (expr);                                                                \
    }                                                                                    \
  }
#define BINARY(fn, expr)                                                                 \
  static void fn(const kn_dims_t *d, const double *const *in, double *const *out) {      \
    for (int64_t i = 0; i < d->n; i++) {                                                 \
      const double a = in[0][i], b = in[1][i];                                           \
      out[0][i] = (expr);                                                                \
    }                                                                                    \
  }

BINARY(ref_add, a + b)
BINARY(ref_mul, a *b)
UNARY(ref_silu, x / (1.0 + exp(-x)))
UNARY(ref_gelu, 0.5 * x * (1.0 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x))))
UNARY(ref_scale, x * -0.375)
UNARY(ref_copy, x)

#define X                                                                                \
  { "N", KN_SAME, -4, 4 }
#define Y                                                                                \
  { "N", KN_SAME, 0, 0 }
#define MAP1(nm, call, ref)                                                              \
  { nm, call, KN_FLAT, KN_FLOATS, 1, 1, {X}, {Y}, ref, {0}, 0 }
#define MAP2(nm, call, ref)                                                              \
  { nm, call, KN_FLAT, KN_FLOATS, 2, 1, {X, X}, {Y}, ref, {0}, 0 }
#define CAST(nm, to, dt)                                                                 \
  {                                                                                      \
    nm, "cast($0, " to ")", KN_FLAT, KN_FLOATS, 1, 1, {X}, {{"N", dt, 0, 0}}, ref_copy,  \
        {0}, 0                                                                           \
  }

static const kn_case_t cases[] = {
    MAP2("add", "$0 + $1", ref_add),
    MAP2("mul", "mul($0, $1)", ref_mul),
    MAP1("silu", "silu($0)", ref_silu),
    MAP1("gelu", "gelu($0)", ref_gelu),
    MAP1("scale", "scale($0, -0.375)", ref_scale),
    CAST("cast_f32", "f32", KGRT_DTYPE_F32),
    CAST("cast_f16", "f16", KGRT_DTYPE_F16),
    CAST("cast_bf16", "bf16", KGRT_DTYPE_BF16),
};

const kn_family_t kn_family_elementwise = {"elementwise", cases,
                                           (int)(sizeof cases / sizeof cases[0])};
