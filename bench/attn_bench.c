/* attn_bench.c - attention at the attention issue's shapes on a device,
 * checked, then timed (bench/models/attn_*.lua):
 *   attn_bench [DEVICE] [REPS]        e.g. attn_bench cuda 100
 * prefill: one sequence of 4096 tokens, 32 query heads over 8 KV heads, D
 * 128, bf16, causal; decode: one token over a 32768-key KV cache, same
 * heads; read: a pure read of the decode's 128 MiB of K and V (row sums), its
 * floor. Each model gets random inputs (q in [-3, 3], k and v in [-1, 1]),
 * runs once, and sampled output rows are compared with float64 attention of
 * the stored inputs (NMSE, bf16 bound 1e-4; every element finite); then
 * kgrt_model_time (20 warm-up runs, the median of REPS, each run behind an
 * L2-evicting write, as triton's do_bench times the peers). One JSON object
 * per line: {"op", "us", "TFLOPs" or "GBps", "check", "nmse"}; FLOPs are
 * 4 T S H D, halved under the causal mask, as the peers count them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kgrt.h"
#include "kgrt_half.h"

#include "attn_decode.h"
#include "attn_prefill.h"
#include "attn_read.h"

enum { H = 32, KVH = 8, D = 128, G = H / KVH };

static uint64_t rng = 0x2545f4914f6cdd1dull;

static double uniform(double lo, double hi) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return lo + (hi - lo) * (double)(rng >> 11) * 0x1p-53;
}

/* n random bf16 values in [lo, hi): their bits, and their values in *vals */
static uint16_t *random_bf16(size_t n, double lo, double hi, double **vals) {
  uint16_t *b = malloc(n * sizeof *b);
  double *v = malloc(n * sizeof *v);
  for (size_t i = 0; i < n; i++) {
    b[i] = kgrt_f32_to_bf16((float)uniform(lo, hi));
    v[i] = kgrt_bf16_to_f32(b[i]);
  }
  *vals = v;
  return b;
}

static int failures;

static int ok(kgrt_status_t st, const kgrt_error_t *err, const char *what) {
  if (st == KGRT_STATUS_OK)
    return 1;
  printf("{\"op\": \"%s\", \"error\": \"%s\"}\n", what, err->message);
  failures++;
  return 0;
}

/* Row (t, h) of causal attention, query position pos: keys j <= pos; key j
 * of KV head kh at k[j * kstride + kh * hstride]. */
static void ref_row(const double *q, const double *k, const double *v, long pos,
                    long kstride, long hstride, int kh, double *y) {
  double m = -INFINITY, l = 0;
  double *s = malloc((size_t)(pos + 1) * sizeof *s);
  for (long j = 0; j <= pos; j++) {
    double dot = 0;
    for (int e = 0; e < D; e++)
      dot += q[e] * k[j * kstride + kh * hstride + e];
    s[j] = dot / sqrt((double)D);
    m = s[j] > m ? s[j] : m;
  }
  for (int e = 0; e < D; e++)
    y[e] = 0;
  for (long j = 0; j <= pos; j++) {
    const double p = exp(s[j] - m);
    l += p;
    for (int e = 0; e < D; e++)
      y[e] += p * v[j * kstride + kh * hstride + e];
  }
  for (int e = 0; e < D; e++)
    y[e] /= l;
  free(s);
}

/* Compares rows `rows` (each H heads of D) of the bf16 output with the
 * reference; prints nothing, returns the NMSE (NAN when an element is not
 * finite). */
static double check_rows(const uint16_t *y, const long *rows, int nrows, const double *q,
                         const double *k, const double *v, long tq, long sk, long kstride,
                         long hstride) {
  double se = 0, ss = 0, ref[D];
  for (int i = 0; i < nrows; i++)
    for (int h = 0; h < H; h++) {
      const long t = rows[i];
      ref_row(q + (t * H + h) * D, k, v, t + sk - tq, kstride, hstride, h / G, ref);
      for (int e = 0; e < D; e++) {
        const double g = kgrt_bf16_to_f32(y[(t * H + h) * D + e]);
        if (!isfinite(g))
          return NAN;
        se += (g - ref[e]) * (g - ref[e]);
        ss += ref[e] * ref[e];
      }
    }
  return se / ss;
}

static void report(const char *op, double us, double flops, double bytes, double nmse,
                   int checked) {
  const int pass = checked && nmse <= 1e-4;
  if (!pass)
    failures++;
  printf("{\"op\": \"%s\", \"us\": %.2f", op, us);
  if (flops > 0)
    printf(", \"TFLOPs\": %.1f", flops / us * 1e-6);
  if (bytes > 0)
    printf(", \"GBps\": %.1f", bytes / us * 1e-3);
  printf(", \"check\": \"%s\", \"nmse\": %.3e}\n", pass ? "ok" : "FAIL", nmse);
  fflush(stdout);
}

static void bench_prefill(kgrt_device_t *dev, unsigned reps, const char *name,
                          const kgrt_model_table_t *table) {
  const long T = 4096, S = 4096;
  kgrt_error_t err;
  kgrt_model_t *m = NULL;
  if (!ok(kgrt_model_load(dev, table, &m, &err), &err, name))
    return;
  double *qv, *kv, *vv;
  uint16_t *q = random_bf16((size_t)T * H * D, -3, 3, &qv);
  uint16_t *k = random_bf16((size_t)S * KVH * D, -1, 1, &kv);
  uint16_t *v = random_bf16((size_t)S * KVH * D, -1, 1, &vv);
  const size_t ybytes = (size_t)T * H * D * 2;
  uint16_t *y = malloc(ybytes);
  double us = 0;
  if (ok(kgrt_model_set_input(m, "q", q, (size_t)T * H * D * 2, &err), &err,
         "prefill q") &&
      ok(kgrt_model_set_input(m, "k", k, (size_t)S * KVH * D * 2, &err), &err,
         "prefill k") &&
      ok(kgrt_model_set_input(m, "v", v, (size_t)S * KVH * D * 2, &err), &err,
         "prefill v") &&
      ok(kgrt_model_run(m, &err), &err, "prefill run") &&
      ok(kgrt_model_get_output(m, "y", y, ybytes, &err), &err, "prefill output")) {
    static const long rows[] = {0, 1, 63, 64, 1000, 2047, 2048, 4095};
    const double nmse = check_rows(y, rows, 8, qv, kv, vv, T, S, KVH * D, D);
    if (ok(kgrt_model_time(m, 20, reps, &us, &err), &err, "prefill time"))
      report(name, us, 4.0 * T * S * H * D / 2, 0, nmse, 1);
  }
  kgrt_model_unload(m);
  free(q), free(k), free(v), free(y), free(qv), free(kv), free(vv);
}

static void bench_decode(kgrt_device_t *dev, unsigned reps, const char *name,
                         const kgrt_model_table_t *table, long ctx) {
  const long S = 32768; /* the cache's slots; ctx of them are the context */
  kgrt_error_t err;
  kgrt_model_t *m = NULL;
  if (!ok(kgrt_model_load(dev, table, &m, &err), &err, name))
    return;
  double *qv, *kv, *vv;
  uint16_t *q = random_bf16((size_t)H * D, -3, 3, &qv);
  uint16_t *k = random_bf16((size_t)KVH * S * D, -1, 1, &kv);
  uint16_t *v = random_bf16((size_t)KVH * S * D, -1, 1, &vv);
  const size_t kvbytes = (size_t)KVH * S * D * 2;
  uint16_t y[H * D];
  double us = 0;
  if (ok(kgrt_model_set_input(m, "q", q, (size_t)H * D * 2, &err), &err, "decode q") &&
      ok(kgrt_model_set_input(m, "kc", k, kvbytes, &err), &err, "decode kc") &&
      ok(kgrt_model_set_input(m, "vc", v, kvbytes, &err), &err, "decode vc") &&
      ok(kgrt_model_run(m, &err), &err, "decode run") &&
      ok(kgrt_model_get_output(m, "y", y, sizeof y, &err), &err, "decode output")) {
    static const long rows[] = {0};
    /* the cache [1, KVH, S, D]: key j of head kh at (kh S + j) D */
    const double nmse = check_rows(y, rows, 1, qv, kv, vv, 1, ctx, D, S * D);
    if (ok(kgrt_model_time(m, 20, reps, &us, &err), &err, "decode time"))
      report(name, us, 0, 2.0 * kvbytes * ctx / S, nmse, 1);
  }
  kgrt_model_unload(m);
  free(q), free(k), free(v), free(qv), free(kv), free(vv);
}

static void bench_read(kgrt_device_t *dev, unsigned reps) {
  const long R = 8192, C = 8192;
  kgrt_error_t err;
  kgrt_model_t *m = NULL;
  if (!ok(kgrt_model_load(dev, &kgen_attn_read, &m, &err), &err, "attn_read"))
    return;
  double *xv;
  uint16_t *x = random_bf16((size_t)R * C, -1, 1, &xv);
  uint16_t *y = malloc((size_t)R * 2);
  double us = 0;
  if (ok(kgrt_model_set_input(m, "x", x, (size_t)R * C * 2, &err), &err, "read x") &&
      ok(kgrt_model_run(m, &err), &err, "read run") &&
      ok(kgrt_model_get_output(m, "y", y, (size_t)R * 2, &err), &err, "read output")) {
    double se = 0, ss = 0;
    for (long r = 0; r < R; r += 97) {
      double s = 0;
      for (long c = 0; c < C; c++)
        s += xv[r * C + c];
      const double g = kgrt_bf16_to_f32(y[r]);
      se += isfinite(g) ? (g - s) * (g - s) : INFINITY;
      ss += s * s;
    }
    if (ok(kgrt_model_time(m, 20, reps, &us, &err), &err, "read time"))
      report("attn_decode_pure_read_same_bytes", us, 0, 2.0 * R * C, se / ss, 1);
  }
  kgrt_model_unload(m);
  free(x), free(y), free(xv);
}

/* The tables timed: the target's own tiles (and variants while tuning). */
typedef struct variant {
  const char *name;
  const kgrt_model_table_t *table;
  long ctx; /* decode: the context the model gives (0: 32768) */
} variant_t;
static const variant_t prefills[] = {
    {"attn_prefill_gqa_4096_causal", &kgen_attn_prefill, 0},
};
static const variant_t decodes[] = {
    {"attn_decode_gqa_32768", &kgen_attn_decode, 0},
};

int main(int argc, char **argv) {
  const char *spec = argc > 1 ? argv[1] : "cuda";
  const unsigned reps = argc > 2 ? (unsigned)atoi(argv[2]) : 100;
  setvbuf(stdout, NULL, _IOLBF, 0);
  kgrt_device_t *dev = NULL;
  kgrt_error_t err;
  if (!ok(kgrt_device_open(spec, NULL, &dev, &err), &err, spec))
    return 1;
  for (size_t i = 0; i < sizeof prefills / sizeof prefills[0]; i++)
    bench_prefill(dev, reps, prefills[i].name, prefills[i].table);
  for (size_t i = 0; i < sizeof decodes / sizeof decodes[0]; i++)
    bench_decode(dev, reps, decodes[i].name, decodes[i].table,
                 decodes[i].ctx ? decodes[i].ctx : 32768);
  bench_read(dev, reps);
  kgrt_device_close(dev);
  return failures ? 1 : 0;
}
