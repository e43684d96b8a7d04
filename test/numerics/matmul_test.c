/* matmul_test.c - matmul (lua/ops/matmul.lua) against float64, for the M the
 * issue asks for: every case runs at M in {1, 3, 8, 17, 128, 257} (M is a
 * sym, max 257, so the plan picks GEMV for M <= 8 and GEMM above), with N
 * and K off the tiles (129, 4097), [K, N] and batched weights, and each
 * epilogue (bias, scale + silu, gelu + residual, the SwiGLU gate/up pair),
 * and a Llama attention block's QKV projection with RoPE and the KV write
 * (qkv_*: one GEMV at M <= 8 whose epilogue they are).
 * The inv_* cases are matmuls with invariant = true (one GEMV kernel for
 * every M <= 8, the matrix units' gemv_mma on sm_90a): at M = 3 and 8 each
 * also runs row 0 alone, whose output must be the same bytes as row 0's
 * among the others.
 * The small_m_* cases (--part split) set matmul's small_m = 64: at M = 17
 * and 64 their GEMM is the small-M one, which splits K on sm_90a where it
 * is the matmul alone or with an epilogue (a gate/up pair does not split),
 * and at M = 128 the GEMM of the range 65 .. 128, which splits K too (at
 * most 4 ways: the parts hold 8 splits of 64 rows); each run is done twice
 * (the same bytes; without an epilogue the second of x doubled, exactly
 * twice the values: the counts of finished splits are back to 0), at M =
 * 64 the first 9 and 17 rows alone must give the same bytes as among the
 * 64, and at M = 128 the first 65 as among the 128 (the splits add in a
 * fixed order).
 * The GEMV cases (splitk_*: a small N at a large K, where the waves of a
 * workgroup split K; kn_*: w [K, N]) run at M <= 8 only, their GEMM shapes
 * being what the other cases test; each of their runs is done twice and the
 * two outputs must be the same bytes (the split sums in a fixed order).
 * Built twice from this source:
 *   matmul_emit DTYPE OUT.lua       (MM_EMIT) writes the model for a dtype;
 *   matmul_<dt> [--full] [--part P] [--case NAME] DEVICE...  runs it:
 *     a fresh load per M (outputs start poisoned), random inputs and weights,
 *     every output compared with a float64 reference of the stored (rounded)
 *     inputs by NMSE (f32 1e-9, f16 1e-6, bf16 1e-4); NaN or inf fails.
 *     --part gemv runs only the small cases at M <= 8, --part gemm those at
 *     M > 8, --part real the real sizes, --part split the small_m cases
 *     (ctest runs the parts as tests of their own; split on sm_90a only,
 *     the target that splits K).
 * Each case has its own rows M<i> (the others run at one row). The real sizes
 * (4096 x 4096, 14336 x 4096) are a second model; without --full they run
 * only at M <= 8 (the GEMV path; GEMM at M = 257 over them is minutes on the
 * sim), --full runs them at every M. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kn.h"

typedef enum mm_epi {
  MM_PLAIN = 0,
  MM_BIAS,        /* y + b[n] */
  MM_SILU,        /* silu(0.5 y) */
  MM_GELU_RES,    /* gelu(y) + r[m, n] */
  MM_SWIGLU,      /* silu(x wg^T) * (x wu^T) */
  MM_NORM,        /* rmsnorm(x, g) w^T: the GEMV takes the norm in (its prologue) */
  MM_NORM_SWIGLU, /* silu(h wg^T) * (h wu^T), h = rmsnorm(x, g) */
  MM_SPLIT_NORM,  /* silu(h wg^T) * (h wu^T), h = rmsnorm(x + x wo^T, g), wo [K, K]:
                     at M > 8 the norm is split around the GEMMs (the one of wo
                     writes z and the sums, the gate/up pair scales its rows) */
  MM_SPLIT3,      /* q + 2 k + 3 v for q, k, v = split(x w^T), w [3N, K]: the
                     parts are matmuls over views of w's rows (at offsets) */
  MM_REGIONS,     /* q, k, v = split(x w^T, {N/2, N/4, N/4}) as three outputs:
                     three matmuls of one x with no epilogue, one GEMV of three
                     regions at M <= 8; checked as x w^T, their rows side by side */
  MM_QKV_ROPE,    /* q, k, v = split(x w^T) into heads; q and k rotated (RoPE, the
                     case's layout), k and v written into caches [2, KVH, 16, D] at
                     layer 1 and positions -1 .. 17 (some skipped, some repeated:
                     the last token wins); checked: q, then both whole caches */
} mm_epi_t;

typedef struct mm_case {
  const char *name;
  int64_t n, k;
  int kn;    /* w stored [K, N] */
  int batch; /* w [batch, N, K], x [batch, M, K]; 0: unbatched */
  mm_epi_t epi;
  int big;  /* a real size: every M only with --full */
  int gemv; /* a GEMV case: M <= 8 only, each run twice (the same bytes) */
  int heads, kv_heads, half; /* MM_QKV_ROPE: N = (heads + 2 kv_heads) D; half layout */
  int inv; /* matmul's invariant = true: row 0 alone gives the same bytes */
  /* matmul's small_m (a GEMM of its own for 9 .. small_m rows, which splits
   * K on sm_90a): part "split", run at M = 17, small_m and 2 small_m, each run
   * twice (see doubles), and at M = small_m its first 9 and 17 rows alone
   * give the same bytes, at 2 small_m its first small_m + 1 */
  int small_m;
} mm_case_t;

enum { QKV_SLOTS = 16 }; /* MM_QKV_ROPE's cache slots */

static const mm_case_t cases[] = {
    {"small", 64, 64, 0, 0, MM_PLAIN, 0, 0, 0, 0, 0, 0, 0},
    {"n129_k4097", 129, 4097, 0, 0, MM_PLAIN, 0, 0, 0, 0, 0, 0, 0},
    {"n4097_k96", 4097, 96, 0, 0, MM_PLAIN, 0, 0, 0, 0, 0, 0, 0},
    {"kn_n136_k80", 136, 80, 1, 0, MM_PLAIN, 0, 0, 0, 0, 0, 0, 0},
    {"kn_n33_k47", 33, 47, 1, 0, MM_PLAIN, 0, 0, 0, 0, 0, 0, 0},
    {"batched3", 40, 72, 0, 3, MM_PLAIN, 0, 0, 0, 0, 0, 0, 0},
    {"bias", 96, 128, 0, 0, MM_BIAS, 0, 0, 0, 0, 0, 0, 0},
    {"scale_silu", 80, 64, 0, 0, MM_SILU, 0, 0, 0, 0, 0, 0, 0},
    {"gelu_residual", 72, 104, 0, 0, MM_GELU_RES, 0, 0, 0, 0, 0, 0, 0},
    {"swiglu", 144, 136, 0, 0, MM_SWIGLU, 0, 0, 0, 0, 0, 0, 0},
    {"norm", 96, 128, 0, 0, MM_NORM, 0, 0, 0, 0, 0, 0, 0},
    {"norm_swiglu", 144, 136, 0, 0, MM_NORM_SWIGLU, 0, 0, 0, 0, 0, 0, 0},
    {"split_norm", 144, 128, 0, 0, MM_SPLIT_NORM, 0, 0, 0, 0, 0, 0, 0},
    {"split3", 40, 72, 0, 0, MM_SPLIT3, 0, 0, 0, 0, 0, 0, 0},
    /* regions: split K (a small N), and whole columns on gfx1100 and sm_90a */
    {"regions_n96_k128", 96, 128, 0, 0, MM_REGIONS, 0, 1, 0, 0, 0, 0, 0},
    {"regions_n4608_k64", 4608, 64, 0, 0, MM_REGIONS, 0, 1, 0, 0, 0, 0, 0},
    /* the epilogue: split K (half layout), and whole columns on gfx1100 and
     * sm_90a (interleaved, GQA 4:1) */
    {"qkv_rope_half", 128, 64, 0, 0, MM_QKV_ROPE, 0, 0, 4, 2, 1, 0, 0},
    {"qkv_rope_wide", 3072, 64, 0, 0, MM_QKV_ROPE, 0, 0, 32, 8, 0, 0, 0},
    {"real_4096x4096", 4096, 4096, 0, 0, MM_PLAIN, 1, 0, 0, 0, 0, 0, 0},
    {"real_14336x4096", 14336, 4096, 0, 0, MM_PLAIN, 1, 0, 0, 0, 0, 0, 0},
    /* split K: whole columns would give under 4 workgroups per CU */
    {"splitk_n16_k4096", 16, 4096, 0, 0, MM_PLAIN, 0, 1, 0, 0, 0, 0, 0},
    {"splitk_n64_k4096_bias", 64, 4096, 0, 0, MM_BIAS, 0, 1, 0, 0, 0, 0, 0},
    {"splitk_n40_k4097", 40, 4097, 0, 0, MM_PLAIN, 0, 1, 0, 0, 0, 0, 0},
    {"splitk_n64_k4096_swiglu", 64, 4096, 0, 0, MM_SWIGLU, 0, 1, 0, 0, 0, 0, 0},
    {"splitk_n64_k4096_norm", 64, 4096, 0, 0, MM_NORM, 0, 1, 0, 0, 0, 0, 0},
    {"splitk_n48_k4096_norm_swiglu", 48, 4096, 0, 0, MM_NORM_SWIGLU, 0, 1, 0, 0, 0, 0, 0},
    /* w [K, N] (kn_n136_k80 and kn_n33_k47 above run it at M <= 8 too) */
    {"kn_n136_k80_bias", 136, 80, 1, 0, MM_BIAS, 0, 1, 0, 0, 0, 0, 0},
    {"kn_n80_k136_swiglu", 80, 136, 1, 0, MM_SWIGLU, 0, 1, 0, 0, 0, 0, 0},
    {"kn_n47_k33_gelu_res", 47, 33, 1, 0, MM_GELU_RES, 0, 1, 0, 0, 0, 0, 0},
    {"kn_real_4096x4096", 4096, 4096, 1, 0, MM_PLAIN, 1, 1, 0, 0, 0, 0, 0},
    /* invariant: N off the 16 columns of a workgroup, K from one chunk of 32
     * per wave to many, every fusion the batched Llama gives it */
    {"inv_n100_k1024_bias", 100, 1024, 0, 0, MM_BIAS, 0, 1, 0, 0, 0, 1, 0},
    {"inv_n48_k32", 48, 32, 0, 0, MM_PLAIN, 0, 1, 0, 0, 0, 1, 0},
    {"inv_norm_swiglu", 144, 256, 0, 0, MM_NORM_SWIGLU, 0, 1, 0, 0, 0, 1, 0},
    {"inv_norm", 96, 128, 0, 0, MM_NORM, 0, 1, 0, 0, 0, 1, 0},
    {"inv_regions", 96, 128, 0, 0, MM_REGIONS, 0, 1, 0, 0, 0, 1, 0},
    {"inv_gelu_residual", 72, 96, 0, 0, MM_GELU_RES, 0, 1, 0, 0, 0, 1, 0},
    {"inv_qkv_rope_half", 128, 64, 0, 0, MM_QKV_ROPE, 0, 1, 4, 2, 1, 1, 0},
    {"inv_qkv_rope_wide", 3072, 64, 0, 0, MM_QKV_ROPE, 0, 1, 32, 8, 0, 1, 0},
    /* small_m: split K where the matmul is alone or takes an epilogue
     * (N off the tile), no split for a gate/up pair */
    {"small_m_n72_k2048", 72, 2048, 0, 0, MM_PLAIN, 0, 0, 0, 0, 0, 0, 64},
    {"small_m_n64_k1536_gelu_res", 64, 1536, 0, 0, MM_GELU_RES, 0, 0, 0, 0, 0, 0, 64},
    {"small_m_swiglu", 64, 1024, 0, 0, MM_SWIGLU, 0, 0, 0, 0, 0, 0, 64},
};
enum { NCASES = (int)(sizeof cases / sizeof cases[0]), MMAX = 257 };

/* Does the case have a norm's weight g, a second weight wu (a gate/up
 * pair)? */
static inline int has_norm(mm_epi_t e) {
  return e == MM_NORM || e == MM_NORM_SWIGLU || e == MM_SPLIT_NORM;
}
/* Does case c output f32? MM_QKV_ROPE, and a small_m case without an
 * epilogue: its split sums stored unrounded (cast), so that any change in
 * the order they are added shows in the bytes. */
static inline int f32_out(const mm_case_t *c) {
  return c->epi == MM_QKV_ROPE || (c->small_m && c->epi == MM_PLAIN);
}
static inline int has_up(mm_epi_t e) {
  return e == MM_SWIGLU || e == MM_NORM_SWIGLU || e == MM_SPLIT_NORM;
}
static const int64_t ms[] = {1, 3, 8, 17, 128, 257};
enum { NMS = (int)(sizeof ms / sizeof ms[0]) };

#ifdef MM_EMIT
/* ---- the model ---- */

static void emit_case(FILE *f, int i, const mm_case_t *c, const char *dt) {
  fprintf(f, "do -- %s\n  local M = sym(\"M%d\", %d)\n", c->name, i, MMAX);
  if (c->batch)
    fprintf(f, "  local x = input(\"c%d_x\", %s, {%d, M, %lld})\n", i, dt, c->batch,
            (long long)c->k);
  else
    fprintf(f, "  local x = input(\"c%d_x\", %s, {M, %lld})\n", i, dt, (long long)c->k);
  const int64_t rows_w = c->epi == MM_SPLIT3 ? 3 * c->n : c->n; /* w's N */
  const int64_t d0 = c->kn ? c->k : rows_w, d1 = c->kn ? c->n : c->k;
  if (c->batch)
    fprintf(f, "  local w = weight(\"c%d_w\", %s, {%d, %lld, %lld})\n", i, dt, c->batch,
            (long long)d0, (long long)d1);
  else
    fprintf(f, "  local w = weight(\"c%d_w\", %s, {%lld, %lld})\n", i, dt, (long long)d0,
            (long long)d1);
  char small[32];
  snprintf(small, sizeof small, ", {small_m = %d}", c->small_m);
  const char *attrs = c->kn        ? ", {w_layout = \"kn\"}"
                      : c->inv     ? ", {invariant = true}"
                      : c->small_m ? small
                                   : "";
  switch (c->epi) {
  case MM_PLAIN:
    fprintf(f,
            f32_out(c) ? "  output(\"c%d_y\", cast(matmul(x, w%s), f32))\n"
                       : "  output(\"c%d_y\", matmul(x, w%s))\n",
            i, attrs);
    break;
  case MM_BIAS:
    fprintf(f, "  local b = weight(\"c%d_b\", %s, {%lld})\n", i, dt, (long long)c->n);
    fprintf(f, "  output(\"c%d_y\", add(matmul(x, w%s), b))\n", i, attrs);
    break;
  case MM_SILU:
    fprintf(f, "  output(\"c%d_y\", silu(scale(matmul(x, w%s), 0.5)))\n", i, attrs);
    break;
  case MM_GELU_RES:
    fprintf(f, "  local r = input(\"c%d_r\", %s, {M, %lld})\n", i, dt, (long long)c->n);
    fprintf(f, "  output(\"c%d_y\", add(gelu(matmul(x, w%s)), r))\n", i, attrs);
    break;
  case MM_SWIGLU:
    fprintf(f, "  local wu = weight(\"c%d_wu\", %s, {%lld, %lld})\n", i, dt,
            (long long)d0, (long long)d1);
    fprintf(f, "  output(\"c%d_y\", mul(silu(matmul(x, w%s)), matmul(x, wu%s)))\n", i,
            attrs, attrs);
    break;
  case MM_REGIONS:
    fprintf(f, "  local q, k, v = split(matmul(x, w%s), {%lld, %lld, %lld})\n", attrs,
            (long long)c->n / 2, (long long)c->n / 4, (long long)c->n / 4);
    fprintf(f,
            "  output(\"c%d_y\", q)\n  output(\"c%d_y1\", k)\n  output(\"c%d_y2\", v)\n",
            i, i, i);
    break;
  case MM_QKV_ROPE: {
    const int d = (int)(c->n / (c->heads + 2 * c->kv_heads));
    fprintf(f, "  local pos = input(\"c%d_pos\", i32, {M})\n", i);
    fprintf(f, "  local kc = input(\"c%d_kc\", %s, {2, %d, %d, %d})\n", i, dt,
            c->kv_heads, QKV_SLOTS, d);
    fprintf(f, "  local vc = input(\"c%d_vc\", %s, {2, %d, %d, %d})\n", i, dt,
            c->kv_heads, QKV_SLOTS, d);
    fprintf(f, "  local q, k, v = split(matmul(x, w%s), {%d, %d, %d})\n", attrs,
            c->heads * d, c->kv_heads * d, c->kv_heads * d);
    fprintf(f, "  local at = {layout = \"%s\"}\n", c->half ? "half" : "interleaved");
    fprintf(f, "  q = rope(reshape(q, {M, %d, %d}), pos, at)\n", c->heads, d);
    fprintf(f, "  k = rope(reshape(k, {M, %d, %d}), pos, at)\n", c->kv_heads, d);
    fprintf(f, "  kc = kv_append(kc, k, pos, {layer = 1})\n");
    fprintf(f, "  vc = kv_append(vc, reshape(v, {M, %d, %d}), pos, {layer = 1})\n",
            c->kv_heads, d);
    fprintf(f,
            "  output(\"c%d_y\", cast(q, f32))\n  output(\"c%d_y1\", cast(kc, f32))\n"
            "  output(\"c%d_y2\", cast(vc, f32))\n",
            i, i, i);
    break;
  }
  case MM_SPLIT3:
    fprintf(f, "  local q, k, v = split(matmul(x, w), {%lld, %lld, %lld})\n",
            (long long)c->n, (long long)c->n, (long long)c->n);
    fprintf(f, "  output(\"c%d_y\", q + k * 2.0 + v * 3.0)\n", i);
    break;
  case MM_NORM:
  case MM_NORM_SWIGLU:
  case MM_SPLIT_NORM:
    fprintf(f, "  local g = weight(\"c%d_g\", %s, {%lld})\n", i, dt, (long long)c->k);
    if (c->epi == MM_SPLIT_NORM) {
      fprintf(f, "  local wo = weight(\"c%d_wo\", %s, {%lld, %lld})\n", i, dt,
              (long long)c->k, (long long)c->k);
      fprintf(f, "  x = x + matmul(x, wo)\n");
    }
    fprintf(f, "  local h = rmsnorm(x, g, {eps = 1e-5%s})\n",
            c->epi == MM_SPLIT_NORM ? ", split = true" : "");
    if (c->epi == MM_NORM) {
      fprintf(f, "  output(\"c%d_y\", matmul(h, w%s))\n", i, attrs);
      break;
    }
    fprintf(f, "  local wu = weight(\"c%d_wu\", %s, {%lld, %lld})\n", i, dt,
            (long long)d0, (long long)d1);
    fprintf(f, "  output(\"c%d_y\", mul(silu(matmul(h, w%s)), matmul(h, wu%s)))\n", i,
            attrs, attrs);
    break;
  }
  fputs("end\n", f);
}

int main(int argc, char **argv) {
  if ((argc != 3 && argc != 4) || kn_dtype_parse(argv[1]) < 0 ||
      (argc == 4 && strcmp(argv[3], "real") != 0)) {
    fprintf(stderr, "usage: matmul_emit f32|f16|bf16 OUT.lua [real]\n");
    return 2;
  }
  const int real = argc == 4;
  FILE *f = fopen(argv[2], "w");
  if (!f) {
    perror(argv[2]);
    return 1;
  }
  fprintf(
      f, "-- Generated by matmul_emit (test/numerics/matmul_test.c): the %s cases, %s.\n",
      real ? "real-size" : "small", argv[1]);
  fputs("-- Case i has its own rows M<i>, so the others can run at one row.\n", f);
  for (int i = 0; i < NCASES; i++)
    if (cases[i].big == real)
      emit_case(f, i, &cases[i], argv[1]);
  return fclose(f) == 0 ? 0 : 1;
}

#else
/* ---- the run ---- */
#include "kgrt.h"
#include KN_HEADER
#include KN_REAL_HEADER

#define STR2(x) #x
#define STR(x) STR2(x)

static int dtype;
static uint64_t rng = 0x9e3779b97f4a7c15ull;

typedef kn_host_t host_t;

static host_t make_random(int64_t n, double lo, double hi) {
  return kn_host_random(dtype, n, lo, hi, &rng);
}

static double silu(double v) {
  return v / (1.0 + exp(-v));
}
static double gelu(double v) { /* tanh form, as the op library's gelu */
  return 0.5 * v * (1.0 + tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)));
}

/* out[b][m][n] = sum_k x[b][m][k] w[b][n][k] (w[b][k][n] with kn). */
static void ref_matmul(const mm_case_t *c, int64_t m_rows, const double *x,
                       const double *w, double *out) {
  const int nb = c->batch ? c->batch : 1;
  for (int b = 0; b < nb; b++)
    for (int64_t m = 0; m < m_rows; m++) {
      const double *xr = x + ((int64_t)b * m_rows + m) * c->k;
      for (int64_t n = 0; n < c->n; n++) {
        double s = 0;
        const double *wb = w + (int64_t)b * c->n * c->k;
        for (int64_t k = 0; k < c->k; k++)
          s += xr[k] * (c->kn ? wb[k * c->n + n] : wb[n * c->k + k]);
        out[((int64_t)b * m_rows + m) * c->n + n] = s;
      }
    }
}

static int failures, checked;

/* MM_QKV_ROPE: the head dim, and the elements of each cache */
static int qkv_d(const mm_case_t *c) {
  return (int)(c->n / (c->heads + 2 * c->kv_heads));
}
static int64_t qkv_cache(const mm_case_t *c) {
  return 2LL * c->kv_heads * QKV_SLOTS * qkv_d(c);
}

/* Pair i of a head of d rotated by pos * 10000^(-2i / d): (a, b) at
 * (i, i + d/2) (half) or (2i, 2i + 1). */
static void ref_rope(double *head, int d, int half, double pos) {
  for (int i = 0; i < d / 2; i++) {
    const double ang = pos * pow(10000.0, -2.0 * i / d);
    double *a = head + (half ? i : 2 * i), *b = head + (half ? i + d / 2 : 2 * i + 1);
    const double x = *a, y = *b;
    *a = x * cos(ang) - y * sin(ang);
    *b = y * cos(ang) + x * sin(ang);
  }
}

/* MM_QKV_ROPE's reference from xw [rows, N] (the product): q rotated
 * [rows, H D], then both caches at layer 1 (the tokens written in order,
 * out-of-range positions skipped), into ref. */
static void ref_qkv(const mm_case_t *c, int64_t rows, const double *xw, const double *pos,
                    const double *kc, const double *vc, double *ref) {
  const int d = qkv_d(c), h = c->heads, kvh = c->kv_heads;
  const int64_t cache = qkv_cache(c);
  double *q = ref, *k = ref + rows * h * d, *v = k + cache;
  memcpy(k, kc, (size_t)cache * sizeof *k);
  memcpy(v, vc, (size_t)cache * sizeof *v);
  double *row = malloc((size_t)c->n * sizeof *row);
  for (int64_t m = 0; m < rows; m++) {
    memcpy(row, xw + m * c->n, (size_t)c->n * sizeof *row);
    for (int j = 0; j < h + kvh; j++) /* q's heads, then k's */
      ref_rope(row + (int64_t)j * d, d, c->half, pos[m]);
    memcpy(q + m * h * d, row, (size_t)(h * d) * sizeof *q);
    const int64_t p = (int64_t)pos[m];
    for (int j = 0; j < kvh && p >= 0 && p < QKV_SLOTS; j++) {
      const int64_t at = ((int64_t)(kvh + j) * QKV_SLOTS + p) * d; /* layer 1 */
      memcpy(k + at, row + (int64_t)(h + j) * d, (size_t)d * sizeof *k);
      memcpy(v + at, row + (int64_t)(h + kvh + j) * d, (size_t)d * sizeof *v);
    }
  }
  free(row);
}

/* Case i's result, ny elements: c<i>_y; for MM_REGIONS its three outputs
 * [rows, N/2], [rows, N/4], [rows, N/4] side by side in each row, as x w^T. */
static kgrt_status_t get_result(kgrt_model_t *model, int i, int64_t ny, void *out,
                                kgrt_error_t *err) {
  const mm_case_t *c = &cases[i];
  const size_t es = kn_dtype_size(f32_out(c) ? KGRT_DTYPE_F32 : dtype);
  char name[32];
  snprintf(name, sizeof name, "c%d_y", i);
  if (c->epi == MM_QKV_ROPE) { /* f32: q [rows, H D], then the two caches */
    const int64_t cache = qkv_cache(c), nq = ny - 2 * cache;
    kgrt_status_t st = kgrt_model_get_output(model, name, out, (size_t)nq * 4, err);
    snprintf(name, sizeof name, "c%d_y1", i);
    if (st == KGRT_STATUS_OK)
      st = kgrt_model_get_output(model, name, (float *)out + nq, (size_t)cache * 4, err);
    snprintf(name, sizeof name, "c%d_y2", i);
    if (st == KGRT_STATUS_OK)
      st = kgrt_model_get_output(model, name, (float *)out + nq + cache,
                                 (size_t)cache * 4, err);
    return st;
  }
  if (c->epi != MM_REGIONS)
    return kgrt_model_get_output(model, name, out, (size_t)ny * es, err);
  const int64_t rows = ny / c->n, cols[3] = {c->n / 2, c->n / 4, c->n / 4};
  const char *suffix[3] = {"", "1", "2"};
  kgrt_status_t st = KGRT_STATUS_OK;
  for (int r = 0, at = 0; r < 3 && st == KGRT_STATUS_OK; at += (int)cols[r], r++) {
    unsigned char *part = malloc((size_t)(rows * cols[r]) * es);
    snprintf(name, sizeof name, "c%d_y%s", i, suffix[r]);
    st = part ? kgrt_model_get_output(model, name, part, (size_t)(rows * cols[r]) * es,
                                      err)
              : KGRT_STATUS_OUT_OF_MEMORY;
    for (int64_t m = 0; m < rows && st == KGRT_STATUS_OK; m++)
      memcpy((unsigned char *)out + ((size_t)(m * c->n) + (size_t)at) * es,
             part + (size_t)(m * cols[r]) * es, (size_t)cols[r] * es);
    free(part);
  }
  return st;
}

static int set_bytes(kgrt_model_t *model, const char *name, const void *raw, size_t bytes,
                     int weight) {
  kgrt_error_t err;
  kgrt_status_t st = weight ? kgrt_model_set_weight(model, name, raw, bytes, &err)
                            : kgrt_model_set_input(model, name, raw, bytes, &err);
  if (st != KGRT_STATUS_OK) {
    printf("FAIL set %s: %s\n", name, err.message);
    failures++;
    return -1;
  }
  return 0;
}

static int set(kgrt_model_t *model, const char *name, const host_t *h, int weight) {
  return set_bytes(model, name, h->raw, (size_t)h->n * kn_dtype_size(dtype), weight);
}

/* Binds `bytes` zero bytes to `name` (0 in every dtype). */
static void set_zero_bytes(kgrt_model_t *model, const char *name, size_t bytes,
                           int weight) {
  static void *zeros;
  static size_t have;
  if (bytes > have) {
    free(zeros);
    zeros = calloc(1, bytes);
    have = bytes;
  }
  set_bytes(model, name, zeros, bytes, weight);
}

/* Binds `count` zero elements of the run's dtype to `name`. */
static void set_zeros(kgrt_model_t *model, const char *name, int64_t count, int weight) {
  set_zero_bytes(model, name, (size_t)count * kn_dtype_size(dtype), weight);
}

/* A case's operands at one M: x and w, the bias or residual (extra) and the
 * up weight (wu) where its epilogue has them; MM_QKV_ROPE's positions (i32)
 * and caches. */
typedef struct mm_data {
  host_t x, w, extra, wu, pos, kc, vc, wo;
} mm_data_t;

/* Binds case i's x as 2 x (exact in every dtype). */
static int set_doubled(kgrt_model_t *model, int i, const host_t *x) {
  char name[64];
  void *raw = malloc((size_t)x->n * kn_dtype_size(dtype));
  for (int64_t e = 0; e < x->n; e++)
    kn_store(raw, e, dtype, 2.0 * x->v[e]);
  snprintf(name, sizeof name, "c%d_x", i);
  const int rc = set_bytes(model, name, raw, (size_t)x->n * kn_dtype_size(dtype), 0);
  free(raw);
  return rc;
}

/* Is case c's second run (again) of x doubled, whose output must be exactly
 * twice the first's? A small_m case without an epilogue: doubling scales
 * every product, split part, sum and rounding exactly, and an output left
 * from the first run (a split's count not reset) shows. */
static int doubles(const mm_case_t *c) {
  return c->small_m && c->epi == MM_PLAIN;
}

/* Runs case i at M rows on a freshly loaded model (outputs start poisoned)
 * and copies its output (ny elements) to got; with `again`, runs it a second
 * time and copies that output there (MM_SPLIT_NORM: with x doubled, which
 * the norm takes out: the producer's sums must be new, nothing kept from
 * the first run; doubles(c): with x doubled). 0, or -1 after a FAIL line. */
static int run_model(kgrt_device_t *dev, int i, int64_t m_rows, const mm_data_t *in,
                     void *got, void *again, int64_t ny, const char *devname) {
  const mm_case_t *c = &cases[i];
  kgrt_error_t err;
  kgrt_model_t *model = NULL;
  char name[64];
  int bad = kgrt_model_load(dev, c->big ? &KN_REAL_TABLE : &KN_TABLE, &model, &err) !=
            KGRT_STATUS_OK;
  for (int j = 0; j < NCASES && !bad; j++) {
    snprintf(name, sizeof name, "M%d", j);
    if (cases[j].big == c->big)
      bad = kgrt_model_set_dim(model, name, j == i ? m_rows : 1, &err) != KGRT_STATUS_OK;
  }
  if (bad) {
    printf("FAIL %s: load: %s\n", devname, err.message);
    failures++;
    kgrt_model_unload(model);
    return -1;
  }
  /* every case's tensors must be bound for the plan to run: this case's get
   * its operands, the others zeros (their outputs are not checked here) */
  for (int j = 0; j < NCASES; j++) {
    const mm_case_t *o = &cases[j];
    const int64_t ob = o->batch ? o->batch : 1;
    if (j == i || o->big != c->big)
      continue;
    snprintf(name, sizeof name, "c%d_x", j);
    set_zeros(model, name, ob * o->k, 0);
    snprintf(name, sizeof name, "c%d_w", j);
    set_zeros(model, name, ob * o->n * o->k * (o->epi == MM_SPLIT3 ? 3 : 1), 1);
    snprintf(name, sizeof name, "c%d_b", j);
    if (o->epi == MM_BIAS)
      set_zeros(model, name, o->n, 1);
    snprintf(name, sizeof name, "c%d_r", j);
    if (o->epi == MM_GELU_RES)
      set_zeros(model, name, o->n, 0);
    snprintf(name, sizeof name, "c%d_wu", j);
    if (has_up(o->epi))
      set_zeros(model, name, o->n * o->k, 1);
    snprintf(name, sizeof name, "c%d_g", j);
    if (has_norm(o->epi))
      set_zeros(model, name, o->k, 1);
    snprintf(name, sizeof name, "c%d_wo", j);
    if (o->epi == MM_SPLIT_NORM)
      set_zeros(model, name, o->k * o->k, 1);
    if (o->epi == MM_QKV_ROPE) {
      snprintf(name, sizeof name, "c%d_pos", j);
      set_zero_bytes(model, name, 4, 0); /* one i32 */
      snprintf(name, sizeof name, "c%d_kc", j);
      set_zeros(model, name, qkv_cache(o), 0);
      snprintf(name, sizeof name, "c%d_vc", j);
      set_zeros(model, name, qkv_cache(o), 0);
    }
  }
  snprintf(name, sizeof name, "c%d_x", i);
  set(model, name, &in->x, 0);
  snprintf(name, sizeof name, "c%d_w", i);
  set(model, name, &in->w, 1);
  if (c->epi == MM_BIAS) {
    snprintf(name, sizeof name, "c%d_b", i);
    set(model, name, &in->extra, 1);
  } else if (c->epi == MM_GELU_RES) {
    snprintf(name, sizeof name, "c%d_r", i);
    set(model, name, &in->extra, 0);
  }
  if (has_up(c->epi)) {
    snprintf(name, sizeof name, "c%d_wu", i);
    set(model, name, &in->wu, 1);
  }
  if (has_norm(c->epi)) {
    snprintf(name, sizeof name, "c%d_g", i);
    set(model, name, &in->extra, 1);
  }
  if (c->epi == MM_SPLIT_NORM) {
    snprintf(name, sizeof name, "c%d_wo", i);
    set(model, name, &in->wo, 1);
  }
  if (c->epi == MM_QKV_ROPE) {
    snprintf(name, sizeof name, "c%d_pos", i);
    set_bytes(model, name, in->pos.raw, (size_t)in->pos.n * 4, 0);
    snprintf(name, sizeof name, "c%d_kc", i);
    set(model, name, &in->kc, 0);
    snprintf(name, sizeof name, "c%d_vc", i);
    set(model, name, &in->vc, 0);
  }
  int rc = 0;
  const int ran = kgrt_model_run(model, &err) == KGRT_STATUS_OK &&
                  get_result(model, i, ny, got, &err) == KGRT_STATUS_OK;
  if (ran && again && (c->epi == MM_SPLIT_NORM || doubles(c)) &&
      set_doubled(model, i, &in->x) != 0) {
    rc = -1; /* set_bytes said FAIL */
  } else if (!ran ||
             (again && (kgrt_model_run(model, &err) != KGRT_STATUS_OK ||
                        get_result(model, i, ny, again, &err) != KGRT_STATUS_OK))) {
    printf("FAIL %s %s M=%lld: %s\n", devname, c->name, (long long)m_rows, err.message);
    failures++;
    rc = -1;
  }
  kgrt_model_unload(model);
  return rc;
}

/* An invariant case (inv) run at M rows gave `got`: row 0 alone (its x, its
 * residual row, its position; the same weights and caches) must give the
 * same bytes for row 0 (MM_QKV_ROPE: row 0 of q). */
static void check_alone(kgrt_device_t *dev, int i, int64_t m_rows, const mm_data_t *in,
                        const void *got, const char *devname, int64_t sub) {
  const mm_case_t *c = &cases[i];
  const int qkv = c->epi == MM_QKV_ROPE;
  mm_data_t one = *in;
  one.x.n = sub * c->k;
  if (c->epi == MM_GELU_RES)
    one.extra.n = sub * c->n;
  if (qkv)
    one.pos.n = 1; /* (sub is 1) */
  const int64_t row = qkv ? (int64_t)c->heads * qkv_d(c) : sub * c->n;
  const int64_t ny = qkv ? row + 2 * qkv_cache(c) : row;
  const size_t es = kn_dtype_size(f32_out(c) ? KGRT_DTYPE_F32 : dtype);
  void *alone = malloc((size_t)ny * es);
  if (alone && run_model(dev, i, sub, &one, alone, NULL, ny, devname) == 0) {
    checked++;
    if (memcmp(alone, got, (size_t)row * es) != 0) {
      printf("FAIL %s %-23s M=%-4lld %s: rows 0 .. %lld alone differ from those among "
             "%lld\n",
             devname, c->name, (long long)m_rows, STR(KN_DTYPE), (long long)sub - 1,
             (long long)m_rows);
      failures++;
    } else {
      printf("ok   %s %-23s M=%-4lld %s: rows 0 .. %lld alone the same bytes\n", devname,
             c->name, (long long)m_rows, STR(KN_DTYPE), (long long)sub - 1);
    }
  }
  free(alone);
}

/* Runs case i at M rows on random operands and compares its output with the
 * float64 reference; a GEMV case runs twice and the two outputs must be the
 * same bytes (the first, from poisoned outputs, is the one compared). */
static void run_case(kgrt_device_t *dev, int i, int64_t m_rows, const char *devname) {
  const mm_case_t *c = &cases[i];
  const int nb = c->batch ? c->batch : 1;
  const int64_t rows = nb * m_rows;
  mm_data_t in = {make_random(rows * c->k, -1, 1),
                  make_random(nb * c->n * c->k * (c->epi == MM_SPLIT3 ? 3 : 1), -1, 1),
                  {0},
                  {0},
                  {0},
                  {0},
                  {0},
                  {0}};
  if (c->epi == MM_QKV_ROPE) { /* positions -1 .. 17 over 16 slots */
    in.pos = kn_host_random(KGRT_DTYPE_I32, m_rows, -2, QKV_SLOTS + 2, &rng);
    in.kc = make_random(qkv_cache(c), -1, 1);
    in.vc = make_random(qkv_cache(c), -1, 1);
  }
  if (c->epi == MM_BIAS)
    in.extra = make_random(c->n, -1, 1);
  else if (c->epi == MM_GELU_RES)
    in.extra = make_random(m_rows * c->n, -1, 1);
  if (has_up(c->epi))
    in.wu = make_random(c->n * c->k, -1, 1);
  if (has_norm(c->epi))
    in.extra = make_random(c->k, 0.5, 1.5); /* the norm's weight g */
  if (c->epi == MM_SPLIT_NORM)
    in.wo = make_random(c->k * c->k, -0.25, 0.25);

  /* MM_QKV_ROPE checks q and both caches, as f32 */
  const int qkv = c->epi == MM_QKV_ROPE;
  const int out_dtype = f32_out(c) ? KGRT_DTYPE_F32 : dtype;
  const int64_t ny = qkv ? rows * c->heads * qkv_d(c) + 2 * qkv_cache(c) : rows * c->n;
  double *ref = malloc((size_t)(ny > rows * c->n ? ny : rows * c->n) * sizeof *ref);
  /* the norm's operand (MM_SPLIT_NORM: x + x wo^T) and result, unrounded:
   * h = x rsqrt(mean(x^2) + eps) g */
  double *h = malloc((size_t)(rows * c->k) * sizeof *h);
  double *xs = malloc((size_t)(rows * c->k) * sizeof *xs);
  for (int64_t r = 0; r < rows; r++)
    for (int64_t k = 0; k < c->k; k++) {
      double s = in.x.v[r * c->k + k];
      for (int64_t j = 0; c->epi == MM_SPLIT_NORM && j < c->k; j++)
        s += in.x.v[r * c->k + j] * in.wo.v[k * c->k + j];
      xs[r * c->k + k] = s;
    }
  for (int64_t r = 0; r < rows; r++) {
    double ss = 0;
    for (int64_t k = 0; k < c->k; k++)
      ss += xs[r * c->k + k] * xs[r * c->k + k];
    const int norm = has_norm(c->epi);
    const double rstd = norm ? 1.0 / sqrt(ss / (double)c->k + 1e-5) : 1.0;
    for (int64_t k = 0; k < c->k; k++)
      h[r * c->k + k] = xs[r * c->k + k] * rstd * (norm ? in.extra.v[k] : 1.0);
  }
  free(xs);
  ref_matmul(c, m_rows, h, in.w.v, ref);
  if (c->epi == MM_SPLIT3) { /* q + 2 k + 3 v: w's rows n .. 2n - 1 and 2n .. 3n - 1 */
    double *part = malloc((size_t)ny * sizeof *part);
    for (int j = 1; j < 3; j++) {
      ref_matmul(c, m_rows, h, in.w.v + (int64_t)j * c->n * c->k, part);
      for (int64_t e = 0; e < ny; e++)
        ref[e] += (j + 1) * part[e];
    }
    free(part);
  }
  if (has_up(c->epi)) {
    double *up = malloc((size_t)ny * sizeof *up);
    ref_matmul(c, m_rows, h, in.wu.v, up);
    for (int64_t e = 0; e < ny; e++)
      ref[e] = silu(ref[e]) * up[e];
    free(up);
  }
  free(h);
  for (int64_t e = 0; e < ny && !has_up(c->epi); e++) {
    if (c->epi == MM_BIAS)
      ref[e] += in.extra.v[e % c->n];
    else if (c->epi == MM_SILU)
      ref[e] = silu(0.5 * ref[e]);
    else if (c->epi == MM_GELU_RES)
      ref[e] = gelu(ref[e]) + in.extra.v[e];
  }

  if (qkv) {
    double *xw = malloc((size_t)(rows * c->n) * sizeof *xw);
    memcpy(xw, ref, (size_t)(rows * c->n) * sizeof *xw);
    ref_qkv(c, rows, xw, in.pos.v, in.kc.v, in.vc.v, ref);
    free(xw);
  }
  const size_t bytes = (size_t)ny * kn_dtype_size(out_dtype);
  void *got = malloc(bytes),
       *again = c->gemv || c->small_m || c->epi == MM_SPLIT_NORM ? malloc(bytes) : NULL;
  if (run_model(dev, i, m_rows, &in, got, again, ny, devname) == 0) {
    double se = 0, ss = 0;
    int64_t bad = -1;
    for (int64_t e = 0; e < ny; e++) {
      const double g = kn_load(got, e, out_dtype);
      if (!isfinite(g) && bad < 0)
        bad = e;
      se += (g - ref[e]) * (g - ref[e]);
      ss += ref[e] * ref[e];
    }
    const double bound = dtype == KGRT_DTYPE_F32   ? 1e-9
                         : dtype == KGRT_DTYPE_F16 ? 1e-6
                                                   : 1e-4;
    const double nmse = ss > 0 ? se / ss : se;
    /* a second run: the same bytes; MM_SPLIT_NORM's (of 2 x, whose norm
     * moves by its epsilon only) within the bound of the first */
    double se2 = 0;
    for (int64_t e = 0; again && c->epi == MM_SPLIT_NORM && e < ny; e++) {
      const double g = kn_load(again, e, out_dtype), f = kn_load(got, e, out_dtype);
      se2 += isfinite(g) ? (g - f) * (g - f) : INFINITY;
    }
    int twice = 1;
    for (int64_t e = 0; again && doubles(c) && e < ny; e++)
      twice = twice && kn_load(again, e, out_dtype) == 2.0 * kn_load(got, e, out_dtype);
    const int same = !again || (c->epi == MM_SPLIT_NORM ? se2 / (ss > 0 ? ss : 1) <= bound
                                : doubles(c)            ? twice
                                                        : memcmp(got, again, bytes) == 0);
    checked++;
    if (bad >= 0 || !(nmse <= bound) || !same) {
      printf("FAIL %s %-23s M=%-4lld %s: nmse %.3e (bound %.0e)", devname, c->name,
             (long long)m_rows, STR(KN_DTYPE), nmse, bound);
      if (bad >= 0)
        printf(", element %lld is %g", (long long)bad, kn_load(got, bad, out_dtype));
      if (!same)
        printf(", a second run gave other %s",
               c->epi == MM_SPLIT_NORM ? "values (of 2 x)"
               : doubles(c)            ? "values than twice the first (of 2 x)"
                                       : "bytes");
      putchar('\n');
      failures++;
    } else {
      printf("ok   %s %-23s M=%-4lld %s: nmse %.3e%s\n", devname, c->name,
             (long long)m_rows, STR(KN_DTYPE), nmse,
             !again                    ? ""
             : c->epi == MM_SPLIT_NORM ? ", again of 2 x"
             : doubles(c)              ? ", again of 2 x: twice the values"
                                       : ", twice the same");
      if (c->inv && m_rows > 1)
        check_alone(dev, i, m_rows, &in, got, devname, 1);
      if (c->small_m && m_rows == c->small_m) {
        check_alone(dev, i, m_rows, &in, got, devname, 9);
        check_alone(dev, i, m_rows, &in, got, devname, 17);
      }
      if (c->small_m && m_rows == 2 * c->small_m)
        check_alone(dev, i, m_rows, &in, got, devname, c->small_m + 1);
    }
  }
  free(got);
  free(again);
  free(ref);
  kn_host_free(&in.x);
  kn_host_free(&in.w);
  if (in.extra.raw)
    kn_host_free(&in.extra);
  if (in.wu.raw)
    kn_host_free(&in.wu);
  if (in.wo.raw)
    kn_host_free(&in.wo);
  if (qkv) {
    kn_host_free(&in.pos);
    kn_host_free(&in.kc);
    kn_host_free(&in.vc);
  }
}

/* The part (--part) a run of case c at M rows belongs to: the real sizes, or
 * the small cases' GEMV (M <= 8) or GEMM half. */
static const char *part_of(const mm_case_t *c, int64_t m_rows) {
  if (c->big)
    return "real";
  if (c->small_m)
    return "split";
  return m_rows <= 8 ? "gemv" : "gemm";
}

int main(int argc, char **argv) {
  int full = 0, first = 1;
  const char *part = NULL;
  const char *only = NULL;
  setvbuf(stdout, NULL, _IOLBF, 0);
  for (; first < argc && argv[first][0] == '-'; first++) {
    if (strcmp(argv[first], "--full") == 0)
      full = 1;
    else if (strcmp(argv[first], "--part") == 0 && first + 1 < argc &&
             (strcmp(argv[first + 1], "gemv") == 0 ||
              strcmp(argv[first + 1], "gemm") == 0 ||
              strcmp(argv[first + 1], "real") == 0 ||
              strcmp(argv[first + 1], "split") == 0))
      part = argv[++first];
    else if (strcmp(argv[first], "--case") == 0 && first + 1 < argc)
      only = argv[++first];
    else
      first = argc; /* usage */
  }
  if (first >= argc) {
    fprintf(stderr,
            "usage: matmul_%s [--full] [--part gemv|gemm|real|split] [--case NAME] "
            "DEVICE...\n",
            STR(KN_DTYPE));
    return 2;
  }
  dtype = kn_dtype_parse(STR(KN_DTYPE));
  for (int a = first; a < argc; a++) {
    kgrt_device_t *dev = NULL;
    kgrt_error_t err;
    if (kgrt_device_open(argv[a], NULL, &dev, &err) != KGRT_STATUS_OK) {
      printf("FAIL %s: %s\n", argv[a], err.message);
      failures++;
      continue;
    }
    for (int i = 0; i < NCASES; i++) {
      const int64_t small[] = {17, cases[i].small_m, 2 * cases[i].small_m};
      const int64_t *mi = cases[i].small_m ? small : ms;
      const int nm = cases[i].small_m ? 3 : NMS;
      for (int s = 0; s < nm; s++)
        if ((mi[s] <= 8 || cases[i].small_m ||
             (!cases[i].gemv && (!cases[i].big || full))) &&
            (!part || strcmp(part, part_of(&cases[i], mi[s])) == 0) &&
            (!only || strcmp(only, cases[i].name) == 0))
          run_case(dev, i, mi[s], argv[a]);
    }
    kgrt_device_close(dev);
  }
  printf("matmul %s: %d checked, %s\n", STR(KN_DTYPE), checked,
         failures ? "FAILED" : "all pass");
  return failures ? 1 : 0;
}
#endif
