/* blocks_demo.c - a tiny product embedding kgrt: runs the kernel table kgen
 * generated from examples/blocks.lua on a device (default: the sim device),
 * with random inputs, and checks every output against a float64 reference.
 *
 *   blocks_demo [DEVICE] [T]      e.g. blocks_demo sim:gfx942 77
 *
 * The reference follows the model op by op in double and rounds to the
 * storage dtype wherever the plan stores a value (a kernel's output), so the
 * comparison measures the kernels' arithmetic, not the model's dtypes.
 * Exit status 0 when every output is within its bound (normalized mean squared
 * error: f32 1e-9, f16 1e-6, bf16 1e-4) and contains no NaN. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blocks.h"
#include "kgrt.h"
#include "kgrt_half.h"

enum { D = 1024 };

static double round_f16(double v) {
  return kgrt_f16_to_f32(kgrt_f32_to_f16((float)v));
}
static double round_bf16(double v) {
  return kgrt_bf16_to_f32(kgrt_f32_to_bf16((float)v));
}

/* ---- random inputs: xorshift64*, uniform in [-2, 2) */
static uint64_t rng = 0x9e3779b97f4a7c15ull;
static float uniform(void) {
  rng ^= rng >> 12;
  rng ^= rng << 25;
  rng ^= rng >> 27;
  uint64_t r = rng * 0x2545f4914f6cdd1dull;
  return (float)((double)(r >> 11) / 9007199254740992.0 * 4.0 - 2.0);
}

static void fill_f16(uint16_t *h, double *ref, size_t n) {
  for (size_t i = 0; i < n; i++) {
    h[i] = kgrt_f32_to_f16(uniform());
    ref[i] = kgrt_f16_to_f32(h[i]);
  }
}

/* ---- the reference, op by op */
static double silu(double x) {
  return x / (1.0 + exp(-x));
}
static double gelu(double x) {
  return 0.5 * x * (1.0 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
}

static void rmsnorm_row(const double *x, const double *w, double eps, double *y) {
  double ss = 0;
  for (int c = 0; c < D; c++)
    ss += x[c] * x[c];
  double s = 1.0 / sqrt(ss / D + eps);
  for (int c = 0; c < D; c++)
    y[c] = x[c] * s * (w ? w[c] : 1.0);
}

static void softmax_row(const double *x, double scale, double *y) {
  double m = -INFINITY, sum = 0;
  for (int c = 0; c < D; c++)
    m = fmax(m, x[c] * scale);
  for (int c = 0; c < D; c++)
    sum += exp(x[c] * scale - m);
  for (int c = 0; c < D; c++)
    y[c] = exp(x[c] * scale - m) / sum;
}

/* NMSE of got against ref; NaN (or any non-finite value) fails. */
static int check(const char *name, const double *got, const double *ref, size_t n,
                 double bound) {
  double num = 0, den = 0;
  size_t bad = 0;
  for (size_t i = 0; i < n; i++) {
    if (!isfinite(got[i]))
      bad++;
    num += (got[i] - ref[i]) * (got[i] - ref[i]);
    den += ref[i] * ref[i];
  }
  double nmse = den > 0 ? num / den : num;
  int ok = bad == 0 && nmse <= bound;
  printf("  %-10s %8zu values  nmse %.3e  (bound %.0e)%s%s\n", name, n, nmse, bound,
         bad ? "  NON-FINITE VALUES" : "", ok ? "  ok" : "  FAIL");
  return ok;
}

#define TRY(call)                                                                        \
  do {                                                                                   \
    if ((call) != KGRT_STATUS_OK) {                                                      \
      fprintf(stderr, "blocks_demo: %s: %s\n", kgrt_status_name(err.status),             \
              err.message);                                                              \
      goto done;                                                                         \
    }                                                                                    \
  } while (0)

int main(int argc, char **argv) {
  const char *spec = argc > 1 ? argv[1] : "sim";
  long T = argc > 2 ? strtol(argv[2], NULL, 10) : 77;
  if (T < 1 || T > 256) {
    fprintf(stderr, "blocks_demo: T must be in 1..256\n");
    return 2;
  }
  size_t n = (size_t)T * D;
  kgrt_error_t err = {0};
  kgrt_device_t *dev = NULL;
  kgrt_model_t *model = NULL;
  int ok = 0;

  uint16_t *x = malloc(n * 2), *gate = malloc(n * 2), *up = malloc(n * 2),
           *w = malloc(D * 2);
  uint16_t *y = malloc(n * 2), *gn = malloc(n * 2);
  float *probs = malloc(n * 4);
  double *rx = malloc(n * 8), *rg = malloc(n * 8), *ru = malloc(n * 8),
         *rw = malloc(D * 8);
  double *ry = malloc(n * 8), *rp = malloc(n * 8), *rgn = malloc(n * 8),
         *tmp = malloc(n * 8);
  double *got = malloc(n * 8);
  fill_f16(x, rx, n);
  fill_f16(gate, rg, n);
  fill_f16(up, ru, n);
  fill_f16(w, rw, D);
  /* poison the host copies too: a short copy would show */
  memset(y, 0xff, n * 2);
  memset(gn, 0xff, n * 2);
  memset(probs, 0xff, n * 4);

  TRY(kgrt_device_open(spec, NULL, &dev, &err));
  TRY(kgrt_model_load(dev, &kgen_blocks, &model, &err));
  printf("blocks_demo: %s on %s, T = %ld\n", kgrt_model_arch(model),
         kgrt_device_name(dev), T);
  TRY(kgrt_model_set_dim(model, "T", T, &err));
  TRY(kgrt_model_set_weight(model, "norm_w", w, D * 2, &err));
  TRY(kgrt_model_set_input(model, "x", x, n * 2, &err));
  TRY(kgrt_model_set_input(model, "gate", gate, n * 2, &err));
  TRY(kgrt_model_set_input(model, "up", up, n * 2, &err));
  TRY(kgrt_model_run(model, &err));
  TRY(kgrt_model_get_output(model, "y", y, n * 2, &err));
  TRY(kgrt_model_get_output(model, "probs", probs, n * 4, &err));
  TRY(kgrt_model_get_output(model, "gelu_norm", gn, n * 2, &err));

  /* h = rmsnorm(x, w) stored f16; y = x + 0.5 * h * silu(gate) * up (one kernel) */
  for (long r = 0; r < T; r++) {
    rmsnorm_row(rx + r * D, rw, 1e-5, tmp + r * D);
    for (int c = 0; c < D; c++) {
      size_t i = (size_t)r * D + (size_t)c;
      double h = round_f16(tmp[i]);
      ry[i] = round_f16(rx[i] + h * silu(rg[i]) * ru[i] * 0.5);
    }
    softmax_row(ry + r * D, 0.125, rp + r * D);
    for (int c = 0; c < D; c++) /* g = cast(gelu(x), bf16), one kernel */
      tmp[(size_t)r * D + (size_t)c] = round_bf16(gelu(rx[(size_t)r * D + (size_t)c]));
    rmsnorm_row(tmp + r * D, NULL, 1e-6, rgn + r * D);
  }
  ok = 1;
  for (size_t i = 0; i < n; i++)
    got[i] = kgrt_f16_to_f32(y[i]);
  ok &= check("y", got, ry, n, 1e-6);
  for (size_t i = 0; i < n; i++)
    got[i] = probs[i];
  ok &= check("probs", got, rp, n, 1e-9);
  for (size_t i = 0; i < n; i++)
    got[i] = kgrt_bf16_to_f32(gn[i]);
  ok &= check("gelu_norm", got, rgn, n, 1e-4);
  printf("blocks_demo: %s\n",
         ok ? "all outputs match the float64 reference" : "MISMATCH");

done:
  kgrt_model_unload(model);
  kgrt_device_close(dev);
  free(x), free(gate), free(up), free(w), free(y), free(gn), free(probs);
  free(rx), free(rg), free(ru), free(rw), free(ry), free(rp), free(rgn), free(tmp),
      free(got);
  return ok ? 0 : 1;
}
