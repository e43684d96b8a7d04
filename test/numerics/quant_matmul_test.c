/* quant_matmul_test.c - matmul with GGUF quantized weights (lua/ops/matmul.lua:
 * templates/gemv_q.hip for M <= 8, gemm.hip with QUANT above) on a device:
 *   quant_matmul_test [--full] [--part small|real|window] [--m M,...]
 *                     [--format F] DEVICE...
 * Three models: quant_matmul.lua multiplies x [M, K] (f32, f16, bf16) with w
 * [N, K] in Q8_0, Q4_0, Q4_K and Q6_K for ten small cases (N off the
 * GEMM tiles, K off its k tile, a fused bias + silu epilogue, a gate/up
 * pair, two products of one x as regions of one kernel, a small_m GEMM
 * whose K sm_90a splits, and such regions; see the model);
 * quant_matmul_real.lua does so with w [4096, 4096], each product with its
 * own rows; quant_matmul_window.lua (tensor-core targets only) with Q4_0 w
 * [2128, 8192], each product with its own rows: x does not fit the LDS of
 * gemv_qm.hip whole at 8 rows (its windows, XW), and 133 tasks of 16 rows
 * give most workgroups two. Weights are random floats with a random scale
 * per 32 (so every block has its own d, and the K-quants' sub-block scales
 * and mins differ),
 * encoded with kgrt_gguf.h's encoders; x (and the bias) random in (-1, 1),
 * bf16 x times a random 2^-12 .. 2^12 per run of 32 (gemv_qr's f16 sums of
 * Q4_0 overflow unless each block of x is scaled into range).
 * The reference is the float64 sum over the weights decoded by kgrt_gguf.h
 * (what the kernels must dequantize, bit for bit) times x as stored.
 * Each M in {1, 3, 8, 17, 128, 257} runs on a freshly loaded model (rows
 * 0 .. M-1 of the same x), so every output starts poisoned (sim: 0xff bytes,
 * NaN) and a missing store fails. The small cases run at every M; the real
 * ones at M <= 8 (the GEMV) and, with f16 x, at M = 17 (the GEMM; the others
 * at one row meanwhile): the GEMM over 4096 x 4096 is seconds per product on
 * the sim. --full runs every real product at every M (minutes). To keep each
 * ctest test short, --part runs one model only, --m only the listed M and
 * --format checks one format only (the real model's products not checked run
 * at one row).
 * Bound: NMSE <= 1e-6 (f32 sums; the GEMM rounds the dequantized weights to
 * f16 for f16 x, about 1e-7); bf16 1e-4, since rounding y (and the GEMM's
 * weights) to bf16 alone gives about 1e-5. Prints one line per output and M
 * with its NMSE; exit status 1 on any failure. */
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
#include "quant_matmul_real.h"
#ifdef KN_QUANT_WINDOW
#include "quant_matmul_window.h"
#endif

enum { MMAX = 257, NFMT = 4, NDT = 3 };

static const struct {
  const char *name;
  kgrt_gguf_type_t type;
  int block; /* weights per block */
} fmts[NFMT] = {{"q8_0", KGRT_GGUF_TYPE_Q8_0, 32},
                {"q4_0", KGRT_GGUF_TYPE_Q4_0, 32},
                {"q4_k", KGRT_GGUF_TYPE_Q4_K, 256},
                {"q6_k", KGRT_GGUF_TYPE_Q6_K, 256}};

static const struct {
  const char *name;
  kgrt_dtype_t dtype;
  size_t size;
  double bound;
} dts[NDT] = {{"f32", KGRT_DTYPE_F32, 4, 1e-6},
              {"f16", KGRT_DTYPE_F16, 2, 1e-6},
              {"bf16", KGRT_DTYPE_BF16, 2, 1e-4}};

/* As in the models: N, K for 32-weight blocks, K for 256-weight blocks. */
typedef struct qcase {
  const char *name;
  int64_t n, k32, k256;
  int bias_silu; /* y = silu(x w^T + b) */
  int real;      /* 1: quant_matmul_real.lua, 2: quant_matmul_window.lua */
  int fmt;       /* -1: every format; else only fmts[fmt] */
  int pair;      /* y = silu(x w^T) * (x w2^T): a gate/up pair */
  int regions;   /* y = x w^T and y2 = x w2^T: regions of one kernel */
} qcase_t;

static const qcase_t cases[] = {
    {"n37", 37, 256, 256, 0, 0, -1, 0, 0},
    {"n256", 256, 512, 512, 0, 0, -1, 0, 0},
    {"n129", 129, 2304, 2304, 0, 0, -1, 0, 0},
    {"koff", 40, 96, 1280, 0, 0, -1, 0, 0},
    {"bias_silu", 72, 256, 256, 1, 0, -1, 0, 0},
    {"k17", 24, 4352, 4352, 0, 0, -1, 0, 0},
    {"swiglu", 37, 256, 256, 0, 0, -1, 1, 0},
    {"regions", 48, 768, 768, 0, 0, -1, 0, 1},
    {"small_m", 129, 2304, 2304, 0, 0, -1, 0, 0},
    {"small_regions", 129, 2048, 2048, 0, 0, -1, 0, 1},
    {"window", 2128, 8192, 8192, 0, 2, 1, 0, 0},
    {"real", 4096, 4096, 4096, 0, 1, -1, 0, 0},
};
enum { NCASE = (int)(sizeof cases / sizeof cases[0]) };

static const int64_t ms[] = {1, 3, 8, 17, 128, 257};
enum { NMS = (int)(sizeof ms / sizeof ms[0]) };

static int64_t case_k(int c, int f) {
  return fmts[f].block == 32 ? cases[c].k32 : cases[c].k256;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static double unit(void) { /* [0, 1) */
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return (double)(z >> 11) / 9007199254740992.0;
}

/* x for each dtype and K (MMAX rows, as stored and as doubles); per case and
 * format the encoded weights; per case, format and dtype the bias and the
 * reference (rows of y as many as it runs with). */
typedef struct xdata {
  int64_t k;
  int small; /* an input of the small model (x_<dtype>_<K>) */
  void *host[NDT];
  double *val[NDT];
} xdata_t;

typedef struct data {
  xdata_t x[NCASE * 2];
  int num_x;
  void *blocks[NCASE][NFMT][2]; /* w, and w2 for a pair or regions */
  size_t bytes[NCASE][NFMT];
  void *bias[NCASE][NFMT][NDT];
  double *ref[NCASE][NFMT][NDT][2]; /* y, and y2 for regions */
} data_t;

static const xdata_t *find_x(const data_t *d, int64_t k) {
  for (int i = 0; i < d->num_x; i++)
    if (d->x[i].k == k)
      return &d->x[i];
  return NULL;
}

static void make_x(data_t *d, int64_t k, int small) {
  if (find_x(d, k))
    return;
  xdata_t *x = &d->x[d->num_x++];
  x->k = k;
  x->small = small;
  for (int t = 0; t < NDT; t++) {
    const int64_t count = MMAX * k;
    x->host[t] = malloc((size_t)count * dts[t].size);
    x->val[t] = malloc(sizeof(double) * (size_t)count);
    double scale = 1;
    for (int64_t i = 0; i < count; i++) {
      if (dts[t].dtype == KGRT_DTYPE_BF16 && i % 32 == 0)
        scale = exp2(24 * unit() - 12);
      x->val[t][i] = kn_store(x->host[t], i, dts[t].dtype, (2 * unit() - 1) * scale);
    }
  }
}

static double silu(double v) {
  return v / (1.0 + exp(-v));
}

static int failures, checked, full, only_fmt = -1;
static unsigned m_mask = (1u << NMS) - 1; /* bit s: ms[s] runs (--m) */

/* Does case c take format f? */
static int has_fmt(int c, int f) {
  return cases[c].fmt < 0 || cases[c].fmt == f;
}

/* The model of part p (0 small, 1 real, 2 window), NULL where not built. */
static const kgrt_model_table_t *model_of(int p) {
#ifdef KN_QUANT_WINDOW
  if (p == 2)
    return &kgen_quant_matmul_window;
#endif
  return p == 0 ? &kgen_quant_matmul : p == 1 ? &kgen_quant_matmul_real : NULL;
}

/* Is output (c, f, t) checked at ms[s]? The small cases at every M; the real
 * ones at M <= 8, and with f16 x at 17 too; with --full, every M; with
 * --format, only that format's. */
static int runs_at(int c, int f, int t, int s) {
  if ((only_fmt >= 0 && f != only_fmt) || !(m_mask >> s & 1) || !has_fmt(c, f))
    return 0;
  return !cases[c].real || full || ms[s] <= 8 ||
         (ms[s] == 17 && dts[t].dtype == KGRT_DTYPE_F16 && cases[c].real == 1);
}

/* The most rows output (c, f, t) runs with (its reference's rows). */
static int64_t max_rows(int c, int f, int t) {
  int64_t rows = 0;
  for (int s = 0; s < NMS; s++)
    if (runs_at(c, f, t, s) && ms[s] > rows)
      rows = ms[s];
  return rows;
}

/* Random weights for case c, format f: n x k floats, each run of 32 scaled by
 * 2^u, u in [-4, 2); encoded into *blocks, then decoded into w. */
static int make_weight(int c, int f, void **blocks, float *w) {
  const int64_t n = cases[c].n, k = case_k(c, f);
  *blocks = malloc(kgrt_gguf_row_bytes(fmts[f].type, n * k));
  for (int64_t i = 0; i < n * k; i += 32) {
    const double scale = exp2(6 * unit() - 4);
    for (int e = 0; e < 32; e++)
      w[i + e] = (float)((2 * unit() - 1) * scale);
  }
  return kgrt_gguf_quantize(fmts[f].type, w, *blocks, n * k) |
         kgrt_gguf_dequantize(fmts[f].type, *blocks, w, n * k);
}

/* Case c, format f: its weights (two for a pair or regions), and (when
 * `used`) the references over the rows of x each dtype runs with; biases
 * for bias_silu. */
static int make_case(int c, int f, int used, data_t *d) {
  const int64_t n = cases[c].n, k = case_k(c, f);
  float *w[2] = {malloc(sizeof(float) * (size_t)(n * k)), NULL};
  int rc = make_weight(c, f, &d->blocks[c][f][0], w[0]);
  if (cases[c].pair || cases[c].regions) {
    w[1] = malloc(sizeof(float) * (size_t)(n * k));
    rc |= make_weight(c, f, &d->blocks[c][f][1], w[1]);
  }
  d->bytes[c][f] = kgrt_gguf_row_bytes(fmts[f].type, n * k);
  const xdata_t *xd = find_x(d, k);
  for (int t = 0; t < NDT && rc == 0; t++) {
    double *b = NULL;
    if (cases[c].bias_silu) {
      d->bias[c][f][t] = malloc((size_t)n * dts[t].size);
      b = malloc(sizeof(double) * (size_t)n);
      for (int64_t i = 0; i < n; i++)
        b[i] = kn_store(d->bias[c][f][t], i, dts[t].dtype, 2 * unit() - 1);
    }
    const int64_t rows = used ? max_rows(c, f, t) : 0;
    double *y = d->ref[c][f][t][0] = malloc(sizeof(double) * (size_t)(rows * n + 1));
    double *y2 = cases[c].regions ? (d->ref[c][f][t][1] =
                                         malloc(sizeof(double) * (size_t)(rows * n + 1)))
                                  : NULL;
    const double *x = xd->val[t];
    for (int64_t r = 0; r < rows; r++)
      for (int64_t j = 0; j < n; j++) {
        double acc[2] = {0, 0};
        for (int p = 0; p < (w[1] ? 2 : 1); p++)
          for (int64_t i = 0; i < k; i++)
            acc[p] += x[r * k + i] * (double)w[p][j * k + i];
        y[r * n + j] = cases[c].pair ? silu(acc[0]) * acc[1]
                       : b           ? silu(acc[0] + b[j])
                                     : acc[0];
        if (y2)
          y2[r * n + j] = acc[1];
      }
    free(b);
  }
  free(w[0]);
  free(w[1]);
  return rc;
}

/* The rows output (c, f, t) has in the run for ms[s]: a real one that does
 * not run at ms[s] takes one row meanwhile. */
static int64_t rows_of(int c, int f, int t, int s) {
  return runs_at(c, f, t, s) ? ms[s] : 1;
}

/* Loads the model of part `real` afresh, binds everything and runs it for ms[s];
 * compares each output that runs at ms[s]. */
static void run_at(kgrt_device_t *dev, const char *devname, int real, int s,
                   const data_t *d) {
  kgrt_error_t err;
  kgrt_model_t *m = NULL;
  char name[64];
  int bad = kgrt_model_load(dev, model_of(real), &m, &err) != KGRT_STATUS_OK;
  if (!bad && !real)
    bad = kgrt_model_set_dim(m, "M", ms[s], &err) != KGRT_STATUS_OK;
  for (int c = 0; c < NCASE && !bad; c++) {
    if (cases[c].real != real)
      continue;
    for (int f = 0; f < NFMT && !bad; f++) {
      if (!has_fmt(c, f))
        continue;
      for (int p = 0; p < (cases[c].pair || cases[c].regions ? 2 : 1) && !bad; p++) {
        snprintf(name, sizeof name, "%s_%s_%s", p ? "w2" : "w", fmts[f].name,
                 cases[c].name);
        bad = kgrt_model_set_weight(m, name, d->blocks[c][f][p], d->bytes[c][f], &err) !=
              KGRT_STATUS_OK;
      }
      for (int t = 0; t < NDT && !bad; t++) {
        if (cases[c].bias_silu) {
          snprintf(name, sizeof name, "b_%s_%s_%s", fmts[f].name, dts[t].name,
                   cases[c].name);
          bad = kgrt_model_set_weight(m, name, d->bias[c][f][t],
                                      (size_t)cases[c].n * dts[t].size,
                                      &err) != KGRT_STATUS_OK;
        }
        if (real && !bad) { /* each product its own rows and x */
          const int64_t rows = rows_of(c, f, t, s);
          const xdata_t *x = find_x(d, case_k(c, f));
          snprintf(name, sizeof name, "M_%s_%s_%s", fmts[f].name, dts[t].name,
                   cases[c].name);
          bad = kgrt_model_set_dim(m, name, rows, &err) != KGRT_STATUS_OK;
          snprintf(name, sizeof name, "x_%s_%s_%s", fmts[f].name, dts[t].name,
                   cases[c].name);
          bad = bad || kgrt_model_set_input(m, name, x->host[t],
                                            (size_t)(rows * x->k) * dts[t].size,
                                            &err) != KGRT_STATUS_OK;
        }
      }
    }
  }
  for (int i = 0; i < d->num_x && !bad && !real; i++)
    for (int t = 0; t < NDT && !bad; t++) {
      const int64_t k = d->x[i].k;
      if (!d->x[i].small)
        continue;
      snprintf(name, sizeof name, "x_%s_%lld", dts[t].name, (long long)k);
      bad =
          kgrt_model_set_input(m, name, d->x[i].host[t],
                               (size_t)(ms[s] * k) * dts[t].size, &err) != KGRT_STATUS_OK;
    }
  if (bad || kgrt_model_run(m, &err) != KGRT_STATUS_OK) {
    printf("FAIL %s: %s %s M = %lld: %s\n", devname, bad ? "load" : "run",
           real == 2 ? "window"
           : real    ? "real"
                     : "small",
           (long long)ms[s], err.message);
    failures++;
    kgrt_model_unload(m);
    return;
  }
  for (int c = 0; c < NCASE; c++) {
    if (cases[c].real != real)
      continue;
    for (int f = 0; f < NFMT; f++)
      for (int t = 0; t < NDT; t++)
        for (int o = 0; o < (cases[c].regions ? 2 : 1); o++) {
          if (!runs_at(c, f, t, s))
            continue;
          const int64_t n = cases[c].n, rows = ms[s], count = rows * n;
          snprintf(name, sizeof name, "%s_%s_%s_%s", o ? "y2" : "y", fmts[f].name,
                   dts[t].name, cases[c].name);
          void *y = malloc((size_t)count * dts[t].size);
          checked++;
          if (kgrt_model_get_output(m, name, y, (size_t)count * dts[t].size, &err) !=
              KGRT_STATUS_OK) {
            printf("FAIL %s get %s: %s\n", devname, name, err.message);
            free(y);
            failures++;
            continue;
          }
          const double *ref = d->ref[c][f][t][o];
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
            printf("FAIL %s %-22s M=%-3lld nmse %.3e > %.0e (%s[%lld, %lld] = %g, want "
                   "%g)\n",
                   devname, name, (long long)rows, nmse, dts[t].bound, o ? "y2" : "y",
                   (long long)(i / n), (long long)(i % n), kn_load(y, i, dts[t].dtype),
                   ref[i]);
            failures++;
          } else {
            printf("ok   %s %-22s M=%-3lld nmse %.3e\n", devname, name, (long long)rows,
                   nmse);
          }
          free(y);
        }
  }
  kgrt_model_unload(m);
}

int main(int argc, char **argv) {
  int first = 1, part = -1; /* -1: every model built; 0: small; 1: real; 2: window */
  setvbuf(stdout, NULL, _IOLBF, 0);
  for (; first < argc && argv[first][0] == '-'; first++) {
    if (strcmp(argv[first], "--full") == 0)
      full = 1;
    else if (strcmp(argv[first], "--part") == 0 && first + 1 < argc &&
             (strcmp(argv[first + 1], "small") == 0 ||
              strcmp(argv[first + 1], "real") == 0 ||
              (strcmp(argv[first + 1], "window") == 0 && model_of(2)))) {
      first++;
      part = strcmp(argv[first], "window") == 0 ? 2 : strcmp(argv[first], "real") == 0;
    } else if (strcmp(argv[first], "--m") == 0 && first + 1 < argc) {
      /* a comma-separated subset of ms */
      char *end = argv[++first];
      m_mask = 0;
      while (*end) {
        const long long v = strtoll(end, &end, 10);
        int known = 0;
        for (int s = 0; s < NMS; s++)
          if (ms[s] == v) {
            m_mask |= 1u << s;
            known = 1;
          }
        if (!known || (*end != ',' && *end != '\0'))
          break;
        end += *end == ',';
      }
      if (*end || m_mask == 0)
        first = argc;
    } else if (strcmp(argv[first], "--format") == 0 && first + 1 < argc) {
      first++;
      for (int f = 0; f < NFMT; f++)
        if (strcmp(argv[first], fmts[f].name) == 0)
          only_fmt = f;
      if (only_fmt < 0)
        first = argc;
    } else
      first = argc; /* usage */
  }
  if (first >= argc) {
    fprintf(stderr,
            "usage: %s [--full] [--part small|real|window] [--m M,...] [--format "
            "q8_0|q4_0|q4_k|q6_k] "
            "DEVICE...\n",
            argv[0]);
    return 2;
  }
  /* the same data on every device */
  data_t d;
  memset(&d, 0, sizeof d);
  for (int c = 0; c < NCASE; c++)
    for (int f = 0; f < NFMT; f++)
      if (has_fmt(c, f) && model_of(cases[c].real))
        make_x(&d, case_k(c, f), !cases[c].real);
  for (int c = 0; c < NCASE; c++)
    for (int f = 0; f < NFMT; f++)
      if (has_fmt(c, f) && model_of(cases[c].real) &&
          make_case(c, f, part < 0 || part == cases[c].real, &d)) {
        printf("FAIL encoding %s %s\n", cases[c].name, fmts[f].name);
        return 1;
      }
  for (int a = first; a < argc; a++) {
    kgrt_device_t *dev = NULL;
    kgrt_error_t err;
    if (kgrt_device_open(argv[a], NULL, &dev, &err) != KGRT_STATUS_OK) {
      printf("FAIL %s: %s\n", argv[a], err.message);
      failures++;
      continue;
    }
    for (int real = 0; real < 3; real++)
      for (int s = 0; s < NMS && (part < 0 || part == real) && model_of(real); s++) {
        int any = !real && (m_mask >> s & 1);
        for (int c = 0; c < NCASE; c++)
          for (int f = 0; f < NFMT; f++)
            for (int t = 0; t < NDT; t++)
              any |= cases[c].real == real && runs_at(c, f, t, s);
        if (any)
          run_at(dev, argv[a], real, s, &d);
      }
    kgrt_device_close(dev);
  }
  for (int c = 0; c < NCASE; c++)
    for (int f = 0; f < NFMT; f++) {
      free(d.blocks[c][f][0]);
      free(d.blocks[c][f][1]);
      for (int t = 0; t < NDT; t++) {
        free(d.bias[c][f][t]);
        free(d.ref[c][f][t][0]);
        free(d.ref[c][f][t][1]);
      }
    }
  for (int i = 0; i < d.num_x; i++)
    for (int t = 0; t < NDT; t++) {
      free(d.x[i].host[t]);
      free(d.x[i].val[t]);
    }
  printf("quant matmul: %d checked, %s\n", checked, failures ? "FAILED" : "all pass");
  return failures ? 1 : 0;
}
