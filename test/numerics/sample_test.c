/* sample_test.c - checks the sample op (lua/ops/sample.lua) on a device:
 *   sample_test sim:gfx1100 [RUNS]
 * sample_exact.lua: greedy, top-k = 1 and top-p = 1e-6 give the argmax (ties
 * to the lowest index) on f16 rows full of ties; on three rows of a 128256-token
 * bf16 and of an f32 vocabulary (one workgroup a row, and top-k split over
 * parts) and on the tied rows under top-k, each draw lies in the float64 kept
 * set and equals the draw a float64 reproduction of the op's definition
 * (Philox, inverse CDF in index order) makes; so do draws whose settings,
 * key and counter come row by row at run time (rt_*: greedy, top-k, top-p,
 * min-p and temperature mixed over the rows). sample_dist.lua: RUNS runs (default 20; 100
 * gives 10^5 draws) of 1000 rows of the same 64 logits, with seed (1234, run): every draw
 * is reproduced, the counts match the truncated softmax by a chi-square test at
 * significance 1e-3 (the statistic printed), temperature 0.5 fails the test against
 * temperature 1, the same seed gives the same ids and another seed other ids. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kgrt.h"
#include "kgrt_half.h"
#include "sample_dist.h"
#include "sample_exact.h"

enum {
  DIST_ROWS = 1000,
  DIST_V = 64,
  TIE_V = 64,
  BIG_ROWS = 3,
  BIG_V = 128256,
  ODD_V = 4112
};

static int failures;

static void check(int ok, const char *fmt, const char *what, double a, double b) {
  if (!ok) {
    printf("FAIL %s: ", what);
    printf(fmt, a, b);
    putchar('\n');
    failures++;
  }
}

/* ---- the float64 reproduction of the op's definition ---- */

typedef struct {
  uint32_t x, y, z, w;
} u32x4_t;

static u32x4_t philox4x32_10(u32x4_t c, uint32_t k0, uint32_t k1) {
  for (int r = 0; r < 10; r++) {
    if (r > 0) {
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    const uint64_t p0 = (uint64_t)0xD2511F53u * c.x, p1 = (uint64_t)0xCD9E8D57u * c.z;
    const u32x4_t n = {(uint32_t)(p1 >> 32) ^ c.y ^ k0, (uint32_t)p1,
                       (uint32_t)(p0 >> 32) ^ c.w ^ k1, (uint32_t)p0};
    c = n;
  }
  return c;
}

/* The op's uniform for a row under seed (s0, step). */
static double uniform(int32_t s0, int32_t step, uint32_t row) {
  const u32x4_t c = {row, (uint32_t)step, 0, 0};
  return (double)(philox4x32_10(c, (uint32_t)s0, 0).x >> 8) * 0x1p-24;
}

typedef struct {
  double temperature, top_p, min_p;
  int top_k;
} params_t;

static const double *g_keys;
static int by_value_then_index(const void *a, const void *b) {
  const int i = *(const int *)a, j = *(const int *)b;
  if (g_keys[i] != g_keys[j])
    return g_keys[i] > g_keys[j] ? -1 : 1;
  return i < j ? -1 : i > j;
}

/* w[i] = the weight of token i if kept, else 0. */
static void kept_weights(const double *x, int v, params_t p, double *w) {
  int *order = malloc(sizeof(int) * (size_t)v);
  double m = -INFINITY;
  for (int i = 0; i < v; i++) {
    order[i] = i;
    m = fmax(m, x[i] / p.temperature);
  }
  g_keys = x;
  qsort(order, (size_t)v, sizeof *order, by_value_then_index);
  int len = p.top_k > 0 && p.top_k < v ? p.top_k : v;
  for (int i = 0; i < v; i++)
    w[i] = exp(x[i] / p.temperature - m);
  if (p.top_p < 1) {
    double mass = 0, run = 0;
    for (int j = 0; j < len; j++)
      mass += w[order[j]];
    for (int j = 0; j < len; j++) {
      run += w[order[j]];
      if (run >= p.top_p * mass) {
        len = j + 1;
        break;
      }
    }
  }
  for (int j = len; j < v; j++)
    w[order[j]] = 0;
  for (int i = 0; i < v; i++)
    if (w[i] < p.min_p)
      w[i] = 0;
  free(order);
}

/* The first kept token whose running weight exceeds u times the kept total. */
static int draw(const double *w, int v, double u) {
  double total = 0, run = 0;
  int last = 0;
  for (int i = 0; i < v; i++)
    if (w[i] > 0) {
      total += w[i];
      last = i;
    }
  for (int i = 0; i < v; i++)
    if (w[i] > 0 && (run += w[i]) > u * total)
      return i;
  return last;
}

static int argmax(const double *x, int v) {
  int best = 0;
  for (int i = 1; i < v; i++)
    if (x[i] > x[best])
      best = i;
  return best;
}

/* ---- helpers ---- */

static uint64_t mix(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
static double unit(uint64_t *s) {
  return (double)(mix(s) >> 11) / 9007199254740992.0;
}

static int set_input(kgrt_model_t *m, const char *name, const void *p, size_t bytes) {
  kgrt_error_t err;
  if (kgrt_model_set_input(m, name, p, bytes, &err) != KGRT_STATUS_OK) {
    printf("FAIL set %s: %s\n", name, err.message);
    return 1;
  }
  return 0;
}
static int get_output(kgrt_model_t *m, const char *name, int32_t *p, size_t n) {
  kgrt_error_t err;
  if (kgrt_model_get_output(m, name, p, n * sizeof *p, &err) != KGRT_STATUS_OK) {
    printf("FAIL get %s: %s\n", name, err.message);
    return 1;
  }
  return 0;
}

/* ---- the exact model ---- */

static int run_exact(kgrt_device_t *dev) {
  kgrt_error_t err;
  kgrt_model_t *m = NULL;
  if (kgrt_model_load(dev, &kgen_sample_exact, &m, &err) != KGRT_STATUS_OK) {
    printf("FAIL load sample_exact: %s\n", err.message);
    return 1;
  }
  uint64_t rng = 7;
  /* f16 rows of small integers (ties everywhere); row 0 all equal */
  static uint16_t eh[TIE_V * TIE_V];
  static double e[TIE_V * TIE_V];
  for (int i = 0; i < TIE_V * TIE_V; i++) {
    const double v = i < TIE_V ? 2.0 : floor(unit(&rng) * 9) - 4;
    eh[i] = kgrt_f32_to_f16((float)v);
    e[i] = kgrt_f16_to_f32(eh[i]);
  }
  /* bf16 logits like a language model's: a few large, many small */
  uint16_t *bh = malloc(sizeof(uint16_t) * BIG_ROWS * BIG_V);
  double *big = malloc(sizeof(double) * BIG_ROWS * BIG_V);
  for (int i = 0; i < BIG_ROWS * BIG_V; i++) {
    const double g = unit(&rng) + unit(&rng) + unit(&rng) - 1.5;
    const double v = 4 * g + (unit(&rng) < 1e-3 ? 8 * unit(&rng) : 0);
    bh[i] = kgrt_f32_to_bf16((float)v);
    big[i] = kgrt_bf16_to_f32(bh[i]);
  }
  /* f32 logits of the same kind, distinct almost everywhere */
  float *fh = malloc(sizeof(float) * BIG_ROWS * BIG_V);
  double *bigf = malloc(sizeof(double) * BIG_ROWS * BIG_V);
  for (int i = 0; i < BIG_ROWS * BIG_V; i++) {
    const double g = unit(&rng) + unit(&rng) + unit(&rng) - 1.5;
    fh[i] = (float)(4 * g + (unit(&rng) < 1e-3 ? 8 * unit(&rng) : 0));
    bigf[i] = fh[i];
  }
  const int32_t seed1[1] = {99}, seed[2] = {4321, 17};
  /* run-time settings: per row temperature, top_k, top_p, min_p; a key and
   * a counter per row */
  static const float rt_set[6][4] = {{0, 0, 1, 0},           {1, 50, 0.9f, 0},
                                     {1.3f, 0, 0.5f, 0.05f}, {0.7f, 9, 0.6f, 0.1f},
                                     {1, 5, 1, 0},           {1, 1, 1, 0}};
  float rt_params[3 * 4], rt_tie_params[TIE_V * 4];
  int32_t rt_seed[3], rt_counter[3], rt_tie_seed[TIE_V], rt_tie_counter[TIE_V];
  for (int r = 0; r < TIE_V; r++) {
    memcpy(rt_tie_params + 4 * r, rt_set[(r + 3) % 6], sizeof rt_set[0]);
    rt_tie_seed[r] = 1000 + 7 * r;
    rt_tie_counter[r] = r % 5;
    if (r < 3) {
      memcpy(rt_params + 4 * r, rt_set[r], sizeof rt_set[0]);
      rt_seed[r] = 555 + r;
      rt_counter[r] = 40 + r;
    }
  }
  int rc = set_input(m, "rt_params", rt_params, sizeof rt_params) |
           set_input(m, "rt_seed", rt_seed, sizeof rt_seed) |
           set_input(m, "rt_counter", rt_counter, sizeof rt_counter) |
           set_input(m, "rt_tie_params", rt_tie_params, sizeof rt_tie_params) |
           set_input(m, "rt_tie_seed", rt_tie_seed, sizeof rt_tie_seed) |
           set_input(m, "rt_tie_counter", rt_tie_counter, sizeof rt_tie_counter) |
           set_input(m, "e", eh, sizeof eh) |
           set_input(m, "big", bh, sizeof(uint16_t) * BIG_ROWS * BIG_V) |
           set_input(m, "bigf", fh, sizeof(float) * BIG_ROWS * BIG_V) |
           set_input(m, "odd", fh, sizeof(float) * BIG_ROWS * ODD_V) |
           set_input(m, "seed1", seed1, sizeof seed1) |
           set_input(m, "seed", seed, sizeof seed);
  if (rc || kgrt_model_run(m, &err) != KGRT_STATUS_OK) {
    if (!rc)
      printf("FAIL run sample_exact: %s\n", err.message);
    kgrt_model_unload(m);
    free(bh), free(big), free(fh), free(bigf);
    return 1;
  }
  int32_t got[TIE_V];
  const char *const tie_outs[] = {"greedy", "top1", "tinyp"};
  for (int k = 0; k < 3; k++) {
    if (get_output(m, tie_outs[k], got, TIE_V)) {
      failures++;
      continue;
    }
    int bad = 0;
    for (int r = 0; r < TIE_V; r++)
      bad += got[r] != argmax(e + r * TIE_V, TIE_V);
    check(bad == 0, "%g of %g rows differ from the argmax", tie_outs[k], bad, TIE_V);
    printf("%-4s sample %-12s argmax on %d tied f16 rows\n", bad ? "FAIL" : "ok",
           tie_outs[k], TIE_V);
  }
  /* draws checked against the float64 reproduction: the bf16 rows, the f32
   * rows (split top-k, 63 parts of 2048 at k = 50, 16 of 8192 at k = 200;
   * odd_k: a last part of 16, fewer than k)
   * and the tied f16 rows (top-k boundaries inside runs of equal logits) */
  const struct {
    const char *name;
    const double *x;
    int rows, v;
    const int32_t *seed;
    params_t p;
  } draws[] = {{"big_k", big, BIG_ROWS, BIG_V, seed, {1, 1, 0, 50}},
               {"big_p", big, BIG_ROWS, BIG_V, seed, {0.8, 0.9, 0, 0}},
               {"big_kp", big, BIG_ROWS, BIG_V, seed, {1.3, 0.5, 0, 40}},
               {"big_greedy", big, BIG_ROWS, BIG_V, seed1, {0, 1, 0, 1}},
               {"bigf_kp", bigf, BIG_ROWS, BIG_V, seed, {1, 0.9, 0, 50}},
               {"bigf_k200", bigf, BIG_ROWS, BIG_V, seed, {1.1, 1, 0, 200}},
               {"odd_k", bigf, BIG_ROWS, ODD_V, seed, {1, 0.95, 0, 50}},
               {"tie_k", e, TIE_V, TIE_V, seed1, {1, 1, 0, 5}},
               {"tie_kpm", e, TIE_V, TIE_V, seed1, {0.7, 0.6, 0.1, 9}}};
  double *w = malloc(sizeof(double) * BIG_V);
  for (size_t k = 0; k < sizeof draws / sizeof *draws; k++) {
    int32_t ids[TIE_V];
    const int rows = draws[k].rows, v = draws[k].v;
    /* a one-word seed draws at step 0 */
    const int32_t s0 = draws[k].seed[0], s1 = draws[k].seed == seed ? seed[1] : 0;
    if (get_output(m, draws[k].name, ids, (size_t)rows)) {
      failures++;
      continue;
    }
    int bad = 0, kept_total = 0;
    for (int r = 0; r < rows; r++) {
      const double *x = draws[k].x + (size_t)r * (size_t)v;
      int want;
      if (draws[k].p.temperature == 0) {
        want = argmax(x, v);
        kept_total++;
      } else {
        kept_weights(x, v, draws[k].p, w);
        for (int i = 0; i < v; i++)
          kept_total += w[i] > 0;
        want = draw(w, v, uniform(s0, s1, (uint32_t)r));
        if (!(ids[r] >= 0 && ids[r] < v && w[ids[r]] > 0)) {
          check(0, "row %g: id %g is not in the kept set", draws[k].name, r, ids[r]);
          bad++;
          continue;
        }
      }
      if (ids[r] != want) {
        check(0, "row %g: id differs from the float64 draw %g", draws[k].name, r, want);
        bad++;
      }
    }
    printf("%-4s sample %-12s V=%d, %d rows, %d kept in all, ids %d %d %d\n",
           bad ? "FAIL" : "ok", draws[k].name, v, rows, kept_total, ids[0], ids[1],
           ids[2]);
  }
  /* the run-time settings: row r with its own settings, key and counter
   * (the uniform of counter (0, counter[r], 0, 0)) */
  const struct {
    const char *name;
    const double *x;
    int rows, v;
    const float *params;
    const int32_t *seed, *counter;
  } rts[] = {{"rt_bigf", bigf, BIG_ROWS, BIG_V, rt_params, rt_seed, rt_counter},
             {"rt_tie", e, TIE_V, TIE_V, rt_tie_params, rt_tie_seed, rt_tie_counter}};
  for (size_t k = 0; k < sizeof rts / sizeof *rts; k++) {
    int32_t ids[TIE_V];
    const int rows = rts[k].rows, v = rts[k].v;
    if (get_output(m, rts[k].name, ids, (size_t)rows)) {
      failures++;
      continue;
    }
    int bad = 0, greedy = 0;
    for (int r = 0; r < rows; r++) {
      const double *x = rts[k].x + (size_t)r * (size_t)v;
      const float *q = rts[k].params + 4 * r;
      const params_t p = {q[0], q[2], q[3], (int)q[1]};
      int want;
      if (p.temperature == 0) {
        want = argmax(x, v);
        greedy++;
      } else {
        kept_weights(x, v, p, w);
        want = draw(w, v, uniform(rts[k].seed[r], rts[k].counter[r], 0));
      }
      if (ids[r] != want) {
        check(0, "row %g: id differs from the float64 draw %g", rts[k].name, r, want);
        bad++;
      }
    }
    printf("%-4s sample %-12s V=%d, %d rows of run-time settings (%d greedy), ids %d %d "
           "%d\n",
           bad ? "FAIL" : "ok", rts[k].name, v, rows, greedy, ids[0], ids[1], ids[2]);
  }
  free(w);
  free(bh), free(big), free(fh), free(bigf);
  kgrt_model_unload(m);
  return 0;
}

/* ---- the distribution model ---- */

/* The chi-square critical value at significance 1e-3 (Wilson-Hilferty). */
static double chi2_crit(int df) {
  const double z = 3.090232, h = 2.0 / (9.0 * df);
  return df * pow(1 - h + z * sqrt(h), 3);
}

/* Chi-square statistic of counts against weights w (pooling expected < 5);
 * *df gets the degrees of freedom, *outside the draws outside the kept set. */
static double chi2(const long *counts, const double *w, int v, long n, int *df,
                   long *outside) {
  double total = 0, stat = 0, pe = 0;
  long po = 0;
  int bins = 0;
  *outside = 0;
  for (int i = 0; i < v; i++)
    total += w[i];
  for (int i = 0; i < v; i++) {
    if (w[i] <= 0) {
      *outside += counts[i];
      continue;
    }
    const double e = n * w[i] / total;
    if (e < 5) {
      pe += e, po += counts[i];
      continue;
    }
    stat += (counts[i] - e) * (counts[i] - e) / e;
    bins++;
  }
  if (pe > 0) {
    stat += (po - pe) * (po - pe) / pe;
    bins++;
  }
  *df = bins > 1 ? bins - 1 : 1;
  return stat;
}

static int run_dist(kgrt_device_t *dev, int runs) {
  kgrt_error_t err;
  kgrt_model_t *m = NULL;
  if (kgrt_model_load(dev, &kgen_sample_dist, &m, &err) != KGRT_STATUS_OK) {
    printf("FAIL load sample_dist: %s\n", err.message);
    return 1;
  }
  enum { OUTS = 6 };
  const struct {
    const char *name;
    params_t p;
  } outs[OUTS] = {{"plain", {1, 1, 0, 0}},     {"temp", {0.5, 1, 0, 0}},
                  {"topk", {1, 1, 0, 10}},     {"topp", {1, 0.8, 0, 0}},
                  {"minp", {0.8, 1, 0.05, 0}}, {"mixed", {1, 0.9, 0.02, 20}}};
  static float xf[DIST_ROWS * DIST_V];
  double x[DIST_V];
  uint64_t rng = 11;
  for (int i = 0; i < DIST_V; i++)
    x[i] = (float)(6 * unit(&rng) - 3);
  for (int r = 0; r < DIST_ROWS; r++)
    for (int i = 0; i < DIST_V; i++)
      xf[r * DIST_V + i] = (float)x[i];
  double w[OUTS][DIST_V];
  for (int k = 0; k < OUTS; k++)
    kept_weights(x, DIST_V, outs[k].p, w[k]);
  long(*counts)[DIST_V] = calloc(OUTS, sizeof *counts);
  long mismatched[OUTS] = {0};
  static int32_t ids[DIST_ROWS], first[DIST_ROWS], second[DIST_ROWS];
  int rc = set_input(m, "x", xf, sizeof xf);
  for (int run = 0; run <= runs && !rc; run++) {
    /* the extra last run repeats run 0's seed */
    const int32_t seed[2] = {1234, run == runs ? 0 : run};
    rc |= set_input(m, "seed", seed, sizeof seed);
    if (!rc && kgrt_model_run(m, &err) != KGRT_STATUS_OK) {
      printf("FAIL run sample_dist: %s\n", err.message);
      rc = 1;
    }
    for (int k = 0; k < OUTS && !rc; k++) {
      rc |= get_output(m, outs[k].name, ids, DIST_ROWS);
      if (k == 0 && run == 0)
        memcpy(first, ids, sizeof ids);
      if (k == 0 && run == 1)
        memcpy(second, ids, sizeof ids);
      if (k == 0 && run == runs) {
        const int same = memcmp(first, ids, sizeof ids) == 0;
        const int differ = memcmp(first, second, sizeof ids) != 0;
        check(same, "%g%g: seed (1234, 0) twice gave different ids", "reproducible", 0,
              0);
        check(differ, "%g%g: seeds (1234, 0) and (1234, 1) gave the same ids", "seeds", 0,
              0);
        printf("%-4s sample reproducible: same seed same ids %s, another seed other ids "
               "%s\n",
               same && differ ? "ok" : "FAIL", same ? "yes" : "no",
               differ ? "yes" : "no");
      }
      if (run == runs)
        continue;
      for (int r = 0; r < DIST_ROWS; r++) {
        if (ids[r] < 0 || ids[r] >= DIST_V) {
          check(0, "id %g out of range (row %g)", outs[k].name, ids[r], r);
          continue;
        }
        counts[k][ids[r]]++;
        mismatched[k] +=
            ids[r] != draw(w[k], DIST_V, uniform(seed[0], seed[1], (uint32_t)r));
      }
    }
  }
  const long n = (long)runs * DIST_ROWS;
  for (int k = 0; k < OUTS && !rc; k++) {
    int df;
    long outside;
    const double stat = chi2(counts[k], w[k], DIST_V, n, &df, &outside);
    const double crit = chi2_crit(df);
    /* float32 weights vs float64: a draw may differ where u sits within
     * rounding of a boundary; allow 1 in 10^4 */
    const int ok = stat <= crit && outside == 0 && mismatched[k] * 10000 <= n;
    check(ok, "chi2 %g (critical %g) or draws outside / not reproduced", outs[k].name,
          stat, crit);
    printf(
        "%-4s sample %-6s %ld draws: chi2 %.2f, df %d, critical(1e-3) %.2f, outside %ld, "
        "not reproduced %ld\n",
        ok ? "ok" : "FAIL", outs[k].name, n, stat, df, crit, outside, mismatched[k]);
  }
  if (!rc) { /* temperature 0.5 draws against the temperature 1 distribution */
    int df;
    long outside;
    const double stat = chi2(counts[1], w[0], DIST_V, n, &df, &outside);
    check(stat > chi2_crit(df), "chi2 %g <= %g: temperature changed nothing",
          "temp_vs_plain", stat, chi2_crit(df));
    printf("%-4s sample temp 0.5 vs the temperature 1 softmax: chi2 %.1f > %.2f\n",
           stat > chi2_crit(df) ? "ok" : "FAIL", stat, chi2_crit(df));
  }
  free(counts);
  kgrt_model_unload(m);
  return rc;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s DEVICE [RUNS]   (e.g. sim:gfx1100 100)\n", argv[0]);
    return 2;
  }
  const int runs = argc > 2 ? atoi(argv[2]) : 20;
  /* the Philox-4x32-10 known answer (Random123's kat_vectors, zero counter and key) */
  const u32x4_t kat = philox4x32_10((u32x4_t){0, 0, 0, 0}, 0, 0);
  check(kat.x == 0x6627e8d5u && kat.y == 0xe169c58du && kat.z == 0xbc57ac4cu &&
            kat.w == 0x9b00dbd8u,
        "%g %g", "philox known answer", kat.x, kat.y);
  kgrt_error_t err;
  kgrt_device_t *dev = NULL;
  if (kgrt_device_open(argv[1], NULL, &dev, &err) != KGRT_STATUS_OK) {
    printf("FAIL %s: %s\n", argv[1], err.message);
    return 1;
  }
  int rc = run_exact(dev);
  rc |= run_dist(dev, runs > 1 ? runs : 2);
  kgrt_device_close(dev);
  printf("sample %s: %s\n", argv[1], rc || failures ? "FAILED" : "all checks pass");
  return rc || failures ? 1 : 0;
}
