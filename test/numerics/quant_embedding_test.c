/* quant_embedding_test.c - embedding over tables in GGUF block formats
 * (quant_embedding.lua): random rows, each run of 32 scaled by 2^u, u in
 * [-4, 2), encoded by runtime/kgrt_gguf.h; ids drawn from [-2, 39) over 37
 * rows, so some are out of range (rows of zeros) and many repeat. Every
 * element must equal the host decoder's value rounded to the result's dtype,
 * bit for bit (the kernel's products are exact, lib_quant.hip), and a row
 * out of range must be zeros; outputs start poisoned on sim (0xff bytes:
 * NaN), so an element never written fails. Usage: quant_embedding_test
 * DEVICE... Returns nonzero when a check fails. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kgrt.h"
#include "kgrt_gguf.h"
#include "kn.h"
#include "quant_embedding.h"

enum { V = 37, T = 50, NFMT = 4, NDIM = 2, NDT = 3 };

static const struct {
  const char *name;
  kgrt_gguf_type_t type;
} fmts[NFMT] = {{"q8_0", KGRT_GGUF_TYPE_Q8_0},
                {"q4_0", KGRT_GGUF_TYPE_Q4_0},
                {"q4_k", KGRT_GGUF_TYPE_Q4_K},
                {"q6_k", KGRT_GGUF_TYPE_Q6_K}};
static const int64_t dims[NDIM] = {768, 8448};
static const struct {
  const char *name;
  kgrt_dtype_t dtype;
  size_t size;
} dts[NDT] = {
    {"f32", KGRT_DTYPE_F32, 4}, {"f16", KGRT_DTYPE_F16, 2}, {"bf16", KGRT_DTYPE_BF16, 2}};

static uint64_t rng_state = 0x2545f4914f6cdd1dull;
static double unit(void) { /* [0, 1) */
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (double)(rng_state >> 11) * 0x1.0p-53;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s DEVICE...\n", argv[0]);
    return 2;
  }
  int32_t ids[T];
  for (int r = 0; r < T; r++)
    ids[r] = (int32_t)(unit() * (V + 4)) - 2;
  ids[0] = -1; /* both ends out of range, and the last row, always */
  ids[1] = V;
  ids[2] = V - 1;
  void *blocks[NFMT][NDIM];
  size_t bytes[NFMT][NDIM];
  float *deq[NFMT][NDIM];
  for (int f = 0; f < NFMT; f++)
    for (int k = 0; k < NDIM; k++) {
      const int64_t n = V * dims[k];
      float *w = malloc(sizeof(float) * (size_t)n);
      for (int64_t i = 0; i < n; i += 32) {
        const double scale = exp2(6 * unit() - 4);
        for (int e = 0; e < 32; e++)
          w[i + e] = (float)((2 * unit() - 1) * scale);
      }
      bytes[f][k] = kgrt_gguf_row_bytes(fmts[f].type, n);
      blocks[f][k] = malloc(bytes[f][k]);
      if (kgrt_gguf_quantize(fmts[f].type, w, blocks[f][k], n) ||
          kgrt_gguf_dequantize(fmts[f].type, blocks[f][k], w, n)) {
        printf("FAIL encoding %s\n", fmts[f].name);
        return 1;
      }
      deq[f][k] = w;
    }
  int failures = 0, checked = 0;
  for (int a = 1; a < argc; a++) {
    kgrt_device_t *dev = NULL;
    kgrt_model_t *m = NULL;
    kgrt_error_t err;
    char name[64];
    int bad = kgrt_device_open(argv[a], NULL, &dev, &err) != KGRT_STATUS_OK ||
              kgrt_model_load(dev, &kgen_quant_embedding, &m, &err) != KGRT_STATUS_OK ||
              kgrt_model_set_dim(m, "T", T, &err) != KGRT_STATUS_OK ||
              kgrt_model_set_input(m, "ids", ids, sizeof ids, &err) != KGRT_STATUS_OK;
    for (int f = 0; f < NFMT && !bad; f++)
      for (int k = 0; k < NDIM && !bad; k++) {
        snprintf(name, sizeof name, "tab_%s_%lld", fmts[f].name, (long long)dims[k]);
        bad = kgrt_model_set_weight(m, name, blocks[f][k], bytes[f][k], &err) !=
              KGRT_STATUS_OK;
      }
    if (bad || kgrt_model_run(m, &err) != KGRT_STATUS_OK) {
      printf("FAIL %s: %s\n", argv[a], err.message);
      failures++;
      kgrt_model_unload(m);
      kgrt_device_close(dev);
      continue;
    }
    for (int f = 0; f < NFMT; f++)
      for (int k = 0; k < NDIM; k++)
        for (int t = 0; t < NDT; t++) {
          const int64_t d = dims[k], count = T * d;
          void *y = malloc((size_t)count * dts[t].size), *want = malloc(dts[t].size);
          snprintf(name, sizeof name, "y_%s_%lld_%s", fmts[f].name, (long long)d,
                   dts[t].name);
          checked++;
          if (kgrt_model_get_output(m, name, y, (size_t)count * dts[t].size, &err) !=
              KGRT_STATUS_OK) {
            printf("FAIL %s get %s: %s\n", argv[a], name, err.message);
            failures++;
            free(y);
            free(want);
            continue;
          }
          int64_t wrong = 0, first = -1;
          for (int64_t i = 0; i < count; i++) {
            const int32_t id = ids[i / d];
            const double ref = id >= 0 && id < V ? deq[f][k][id * d + i % d] : 0.0;
            const double exp = kn_store(want, 0, dts[t].dtype, ref);
            const double got = kn_load(y, i, dts[t].dtype);
            if (!(got == exp) ||
                memcmp((char *)y + i * (int64_t)dts[t].size, want, dts[t].size) != 0) {
              if (first < 0)
                first = i;
              wrong++;
            }
          }
          printf("%s %s %s: %lld of %lld elements differ from the host decoder%s\n",
                 wrong ? "FAIL" : "ok", argv[a], name, (long long)wrong, (long long)count,
                 wrong ? "" : " (bit for bit)");
          if (wrong) {
            printf("  first at %lld (id %d): got %g\n", (long long)first, ids[first / d],
                   kn_load(y, first, dts[t].dtype));
            failures++;
          }
          free(y);
          free(want);
        }
    kgrt_model_unload(m);
    kgrt_device_close(dev);
  }
  for (int f = 0; f < NFMT; f++)
    for (int k = 0; k < NDIM; k++) {
      free(blocks[f][k]);
      free(deq[f][k]);
    }
  printf("quant embedding: %d checked, %s\n", checked, failures ? "FAILED" : "all pass");
  return failures ? 1 : 0;
}
