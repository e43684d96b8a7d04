/* quant_matmul_test.c - matmul with GGUF quantized weights, the GEMV path
 * (lua/ops/matmul.lua, templates/gemv_q.hip), on a device:
 *   quant_matmul_test sim:gfx1100 [sim:gfx942 ...]
 * The model (quant_matmul.lua) multiplies x [M, K] (f32, f16, bf16) with w
 * [N, K] in Q8_0, Q4_0, Q4_K and Q6_K for four shapes, up to 4096 x 4096.
 * Weights are random floats with a random scale per 32 (so every block has
 * its own d, and the K-quants' sub-block scales and mins differ), encoded
 * with kgrt_gguf.h's encoders; x is random in (-1, 1). The reference is the
 * float64 sum over the weights decoded by kgrt_gguf.h (what the kernel must
 * dequantize, bit for bit) times x as stored. M = 1, 3 and 8 (rows 0 .. M-1
 * of the same x); the outputs start poisoned (sim: 0xff bytes, NaN), so a
 * missing store fails. Bound: NMSE <= 1e-6 (f32 sums over exact dequantized
 * weights); bf16 outputs 1e-4, since rounding y to bf16 alone gives about
 * 1e-5. Prints one line per format and x dtype with the worst NMSE; exit
 * status 1 on any failure. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kgrt.h"
#include "kgrt_gguf.h"
#include "kgrt_half.h"
#include "kn.h"
#include "quant_matmul.h"

enum { MMAX = 8, NFMT = 4, NDT = 3, NSHAPE = 4 };

static const struct {
  const char *name;
  kgrt_gguf_type_t type;
} fmts[NFMT] = {{"q8_0", KGRT_GGUF_TYPE_Q8_0},
                {"q4_0", KGRT_GGUF_TYPE_Q4_0},
                {"q4_k", KGRT_GGUF_TYPE_Q4_K},
                {"q6_k", KGRT_GGUF_TYPE_Q6_K}};

static const struct {
  const char *name;
  kgrt_dtype_t dtype;
  size_t size;
  double bound;
} dts[NDT] = {{"f32", KGRT_DTYPE_F32, 4, 1e-6},
              {"f16", KGRT_DTYPE_F16, 2, 1e-6},
              {"bf16", KGRT_DTYPE_BF16, 2, 1e-4}};

/* [N, K], as in the model */
static const int64_t shapes[NSHAPE][2] = {
    {37, 256}, {256, 512}, {129, 4352}, {4096, 4096}};

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static double unit(void) { /* [0, 1) */
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return (double)(z >> 11) / 9007199254740992.0;
}

typedef struct {
  void *host[NDT][NSHAPE];        /* x as stored, MMAX rows */
  double *val[NDT][NSHAPE];       /* the same values */
  double *ref[NFMT][NDT][NSHAPE]; /* y for MMAX rows, float64 */
} data_t;

/* Random weights for (f, s): n x k floats, each run of 32 scaled by 2^u,
 * u in [-4, 2); encoded, bound to the model, decoded for the references. */
static int make_weights(kgrt_model_t *m, int f, int s, data_t *d) {
  const int64_t n = shapes[s][0], k = shapes[s][1];
  float *w = malloc(sizeof(float) * (size_t)(n * k));
  const size_t bytes = kgrt_gguf_row_bytes(fmts[f].type, n * k);
  void *blocks = malloc(bytes);
  for (int64_t i = 0; i < n * k; i += 32) {
    const double scale = exp2(6 * unit() - 4);
    for (int e = 0; e < 32; e++)
      w[i + e] = (float)((2 * unit() - 1) * scale);
  }
  int rc = kgrt_gguf_quantize(fmts[f].type, w, blocks, n * k);
  rc |= kgrt_gguf_dequantize(fmts[f].type, blocks, w, n * k);
  char name[64];
  snprintf(name, sizeof name, "w_%s_%lldx%lld", fmts[f].name, (long long)n, (long long)k);
  kgrt_error_t err;
  if (rc == 0 && kgrt_model_set_weight(m, name, blocks, bytes, &err) != KGRT_STATUS_OK) {
    printf("FAIL set %s: %s\n", name, err.message);
    rc = 1;
  }
  for (int t = 0; t < NDT && rc == 0; t++) {
    double *y = d->ref[f][t][s] = malloc(sizeof(double) * (size_t)(MMAX * n));
    const double *x = d->val[t][s];
    for (int64_t r = 0; r < MMAX; r++)
      for (int64_t c = 0; c < n; c++) {
        double acc = 0;
        for (int64_t i = 0; i < k; i++)
          acc += x[r * k + i] * (double)w[c * k + i];
        y[r * n + c] = acc;
      }
  }
  free(w);
  free(blocks);
  return rc;
}

/* Runs the model with M rows; compares every output, keeping the worst. */
static int run_rows(kgrt_model_t *m, int64_t rows, const data_t *d,
                    double worst[NFMT][NDT]) {
  kgrt_error_t err;
  char name[64];
  int failed = 0;
  if (kgrt_model_set_dim(m, "M", rows, &err) != KGRT_STATUS_OK) {
    printf("FAIL set M = %lld: %s\n", (long long)rows, err.message);
    return 1;
  }
  for (int t = 0; t < NDT; t++)
    for (int s = 0; s < NSHAPE; s++) {
      snprintf(name, sizeof name, "x_%s_%lld", dts[t].name, (long long)shapes[s][1]);
      if (kgrt_model_set_input(m, name, d->host[t][s],
                               (size_t)(rows * shapes[s][1]) * dts[t].size,
                               &err) != KGRT_STATUS_OK) {
        printf("FAIL set %s: %s\n", name, err.message);
        return 1;
      }
    }
  if (kgrt_model_run(m, &err) != KGRT_STATUS_OK) {
    printf("FAIL run M = %lld: %s\n", (long long)rows, err.message);
    return 1;
  }
  for (int f = 0; f < NFMT; f++)
    for (int t = 0; t < NDT; t++)
      for (int s = 0; s < NSHAPE; s++) {
        const int64_t n = shapes[s][0], count = rows * n;
        snprintf(name, sizeof name, "y_%s_%s_%lldx%lld", fmts[f].name, dts[t].name,
                 (long long)n, (long long)shapes[s][1]);
        void *y = malloc((size_t)count * dts[t].size);
        if (kgrt_model_get_output(m, name, y, (size_t)count * dts[t].size, &err) !=
            KGRT_STATUS_OK) {
          printf("FAIL get %s: %s\n", name, err.message);
          free(y);
          failed = 1;
          continue;
        }
        const double *ref = d->ref[f][t][s];
        double e = 0, sum = 0;
        int64_t first_bad = -1;
        for (int64_t i = 0; i < count; i++) {
          const double v = kn_load(y, i, dts[t].dtype);
          if (!isfinite(v) && first_bad < 0)
            first_bad = i;
          e += (v - ref[i]) * (v - ref[i]);
          sum += ref[i] * ref[i];
        }
        const double nmse = first_bad >= 0 ? INFINITY : e / (sum > 0 ? sum : 1);
        if (!(nmse <= dts[t].bound)) {
          const int64_t i = first_bad >= 0 ? first_bad : 0;
          printf("FAIL %s M=%lld: nmse %.3e > %.0e (y[%lld, %lld] = %g, want %g)\n", name,
                 (long long)rows, nmse, dts[t].bound, (long long)(i / n),
                 (long long)(i % n), kn_load(y, i, dts[t].dtype), ref[i]);
          failed = 1;
        }
        if (nmse > worst[f][t] || isnan(nmse))
          worst[f][t] = nmse;
        free(y);
      }
  return failed;
}

static int run_device(const char *spec) {
  kgrt_error_t err;
  kgrt_device_t *dev = NULL;
  kgrt_model_t *m = NULL;
  if (kgrt_device_open(spec, NULL, &dev, &err) != KGRT_STATUS_OK ||
      kgrt_model_load(dev, &kgen_quant_matmul, &m, &err) != KGRT_STATUS_OK) {
    printf("FAIL %s: %s\n", spec, err.message);
    kgrt_device_close(dev);
    return 1;
  }
  printf("-- %s\n", kgrt_device_name(dev));
  data_t d;
  memset(&d, 0, sizeof d);
  rng_state = 0x9e3779b97f4a7c15ull; /* the same data on every device */
  for (int t = 0; t < NDT; t++)
    for (int s = 0; s < NSHAPE; s++) {
      const int64_t count = MMAX * shapes[s][1];
      d.host[t][s] = malloc((size_t)count * dts[t].size);
      d.val[t][s] = malloc(sizeof(double) * (size_t)count);
      for (int64_t i = 0; i < count; i++)
        d.val[t][s][i] = kn_store(d.host[t][s], i, dts[t].dtype, 2 * unit() - 1);
    }
  int failed = 0;
  for (int f = 0; f < NFMT; f++)
    for (int s = 0; s < NSHAPE; s++)
      failed |= make_weights(m, f, s, &d);
  double worst[NFMT][NDT] = {{0}};
  static const int64_t rows[] = {1, 3, 8};
  const int unbound = failed; /* no references without weights */
  for (int r = 0; r < 3 && !unbound; r++)
    failed |= run_rows(m, rows[r], &d, worst);
  for (int f = 0; f < NFMT; f++)
    for (int t = 0; t < NDT; t++)
      printf("%-4s quant matmul %-4s x %-4s M 1 3 8, %d shapes  worst nmse %.3e (bound "
             "%.0e)\n",
             worst[f][t] <= dts[t].bound ? "ok" : "FAIL", fmts[f].name, dts[t].name,
             NSHAPE, worst[f][t], dts[t].bound);
  for (int t = 0; t < NDT; t++)
    for (int s = 0; s < NSHAPE; s++) {
      free(d.host[t][s]);
      free(d.val[t][s]);
      for (int f = 0; f < NFMT; f++)
        free(d.ref[f][t][s]);
    }
  kgrt_model_unload(m);
  kgrt_device_close(dev);
  return failed;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s DEVICE...   (e.g. sim:gfx1100 sim:gfx942)\n", argv[0]);
    return 2;
  }
  int failed = 0;
  for (int a = 1; a < argc; a++)
    failed |= run_device(argv[a]);
  printf("quant matmul: %s\n", failed ? "FAILED" : "all outputs pass");
  return failed;
}
