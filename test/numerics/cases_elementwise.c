/* cases_elementwise.c - references for the map ops (lua/ops/elementwise.lua):
 * float64 of the same formula, applied to the stored inputs. Broadcast cases
 * use ROWS shapes: a [R, C] with b [C] or [1]. */
#include <math.h>

#include "kn.h"

#define UNARY(fn, expr)                                                                  \
  static void fn(const kn_dims_t *d, const double *const *in, double *const *out) {      \
    for (int64_t i = 0; i < d->n; i++) {                                                 \
      const double x = in[0][i];                                                         \
      out[0][i] = (expr);                                                                \
    }                                                                                    \
  }
/* b broadcast: element i of the result reads b[i % numel(b)] */
#define BINARY(fn, expr, nb)                                                             \
  static void fn(const kn_dims_t *d, const double *const *in, double *const *out) {      \
    const int64_t m = (nb);                                                              \
    for (int64_t i = 0; i < d->n; i++) {                                                 \
      const double a = in[0][i], b = in[1][i % m];                                       \
      out[0][i] = (expr);                                                                \
    }                                                                                    \
  }

static double gelu_tanh(double x) {
  return 0.5 * x * (1.0 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
}

UNARY(ref_exp, exp(x))
UNARY(ref_log, log(x))
UNARY(ref_sqrt, sqrt(x))
UNARY(ref_rsqrt, 1.0 / sqrt(x))
UNARY(ref_recip, 1.0 / x)
UNARY(ref_neg, -x)
UNARY(ref_abs, fabs(x))
UNARY(ref_sqr, x *x)
UNARY(ref_tanh, tanh(x))
UNARY(ref_sin, sin(x))
UNARY(ref_cos, cos(x))
UNARY(ref_sigmoid, 1.0 / (1.0 + exp(-x)))
UNARY(ref_relu, x > 0 ? x : 0.0)
UNARY(ref_silu, x / (1.0 + exp(-x)))
UNARY(ref_gelu, gelu_tanh(x))
UNARY(ref_gelu_erf, 0.5 * x * (1.0 + erf(x / sqrt(2.0))))
UNARY(ref_scale, x * -0.375)
UNARY(ref_affine, x * 1.5 - 0.25)
UNARY(ref_clamp, x < -1.5 ? -1.5 : (x > 0.75 ? 0.75 : x))
UNARY(ref_clamp_max_exp, exp(x) > 2.25 ? 2.25 : exp(x))
UNARY(ref_copy, x)
UNARY(ref_trunc, trunc(x))

static void ref_fill(const kn_dims_t *d, const double *const *in, double *const *out) {
  (void)in;
  for (int64_t i = 0; i < d->n; i++)
    out[0][i] = 0.75;
}

BINARY(ref_add, a + b, d->n)
BINARY(ref_swiglu, a / (1.0 + exp(-a)) * b, d->n)
BINARY(ref_sub, a - b, d->n)
BINARY(ref_mul, a *b, d->n)
BINARY(ref_div, a / b, d->n)
BINARY(ref_min, fmin(a, b), d->n)
BINARY(ref_max, fmax(a, b), d->n)
BINARY(ref_add_row, a + b, d->c)
BINARY(ref_mul_row, a *b, d->c)
BINARY(ref_sub_scalar, a - b, 1)

static void ref_where(const kn_dims_t *d, const double *const *in, double *const *out) {
  for (int64_t i = 0; i < d->n; i++)
    out[0][i] = in[0][i] != 0 ? in[1][i] : in[2][i % d->c];
}

#define X                                                                                \
  { "N", KN_SAME, -4, 4 }
#define XP                                                                               \
  { "N", KN_SAME, 0.125, 4 }
#define Y                                                                                \
  { "N", KN_SAME, 0, 0 }
#define MAP1(nm, call, ref, x)                                                           \
  { nm, call, KN_FLAT, KN_FLOATS, 1, 1, {x}, {Y}, ref, {0}, 0 }
#define MAP2(nm, call, ref, b)                                                           \
  { nm, call, KN_FLAT, KN_FLOATS, 2, 1, {X, b}, {Y}, ref, {0}, 0 }
#define XR                                                                               \
  { "R,C", KN_SAME, -4, 4 }
#define YR                                                                               \
  { "R,C", KN_SAME, 0, 0 }
#define BC                                                                               \
  { "C", KN_SAME, -4, 4 }
#define B1                                                                               \
  { "1", KN_SAME, -4, 4 }
#define ROW2(nm, call, ref, b)                                                           \
  { nm, call, KN_ROWS, KN_FLOATS, 2, 1, {XR, b}, {YR}, ref, {0}, 0 }
#define CAST(nm, to, dt)                                                                 \
  {                                                                                      \
    nm, "cast($0, " to ")", KN_FLAT, KN_FLOATS, 1, 1, {X}, {{"N", dt, 0, 0}}, ref_copy,  \
        {0}, 0                                                                           \
  }

static const kn_case_t cases[] = {
    MAP1("exp", "exp($0)", ref_exp, X),
    MAP1("log", "log($0)", ref_log, XP),
    MAP1("sqrt", "sqrt($0)", ref_sqrt, XP),
    MAP1("rsqrt", "rsqrt($0)", ref_rsqrt, XP),
    MAP1("recip", "recip($0)", ref_recip, XP),
    MAP1("neg", "-$0", ref_neg, X),
    MAP1("abs", "abs($0)", ref_abs, X),
    MAP1("sqr", "sqr($0)", ref_sqr, X),
    MAP1("tanh", "tanh($0)", ref_tanh, X),
    MAP1("sin", "sin($0)", ref_sin, X),
    MAP1("cos", "cos($0)", ref_cos, X),
    MAP1("sigmoid", "sigmoid($0)", ref_sigmoid, X),
    MAP1("relu", "relu($0)", ref_relu, X),
    MAP1("silu", "silu($0)", ref_silu, X),
    MAP1("gelu", "gelu($0)", ref_gelu, X),
    MAP1("gelu_erf", "gelu_erf($0)", ref_gelu_erf, X),
    MAP1("scale", "scale($0, -0.375)", ref_scale, X),
    MAP1("affine", "affine($0, {mul = 1.5, add = -0.25})", ref_affine, X),
    MAP1("clamp", "clamp($0, {min = -1.5, max = 0.75})", ref_clamp, X),
    MAP1("clamp_max", "clamp(exp($0), {max = 2.25})", ref_clamp_max_exp, X),
    MAP2("add", "$0 + $1", ref_add, X),
    MAP2("sub", "$0 - $1", ref_sub, X),
    MAP2("mul", "mul($0, $1)", ref_mul, X),
    MAP2("div", "$0 / $1", ref_div, XP),
    MAP2("min", "min($0, $1)", ref_min, X),
    MAP2("swiglu", "silu($0) * $1", ref_swiglu, X),
    MAP2("max", "max($0, $1)", ref_max, X),
    ROW2("add_row", "$0 + $1", ref_add_row, BC),
    ROW2("mul_row", "$1 * $0", ref_mul_row, BC),
    ROW2("sub_scalar", "sub($0, $1)", ref_sub_scalar, B1),
    {"where",
     "where($0, $1, $2)",
     KN_ROWS,
     KN_FLOATS,
     3,
     1,
     {{"R,C", KGRT_DTYPE_I32, 0, 1}, XR, BC},
     {YR},
     ref_where,
     {0},
     0},
    {"fill",
     "fill{shape = {N}, value = 0.75, dtype = $T}",
     KN_FLAT,
     KN_FLOATS,
     0,
     1,
     {{0}},
     {Y},
     ref_fill,
     {0},
     0},
    CAST("cast_f32", "f32", KGRT_DTYPE_F32),
    CAST("cast_f16", "f16", KGRT_DTYPE_F16),
    CAST("cast_bf16", "bf16", KGRT_DTYPE_BF16),
    {"cast_i32",
     "cast($0, i32)",
     KN_FLAT,
     KN_FLOATS,
     1,
     1,
     {{"N", KN_SAME, -300, 300}},
     {{"N", KGRT_DTYPE_I32, 0, 0}},
     ref_trunc,
     {0},
     0},
    {"cast_from_i32",
     "cast($0, $T)",
     KN_FLAT,
     KN_FLOATS,
     1,
     1,
     {{"N", KGRT_DTYPE_I32, -3000, 3000}},
     {Y},
     ref_copy,
     {0},
     0},
};

const kn_family_t kn_family_elementwise = {"elementwise", cases,
                                           (int)(sizeof cases / sizeof cases[0])};
