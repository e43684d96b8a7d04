/* test_sim.c - the sim engine (runtime/kgrt_sim.c) on the hand-written image
 * test/unit/sim_kernels.hip: block reductions right at their wave size and
 * wrong at the other; out-of-bounds loads and stores reported with kernel,
 * workgroup, thread and address (the lowest failing workgroup, whatever the
 * workers); divergent barriers and shuffles reported at once, never hung;
 * shuffles across exited lanes and partial waves; every f16 bit pattern
 * through the software conversions; map, rmsnorm and softmax against float64
 * and identical for any number of workers; LDS private to each workgroup;
 * image loading and launch checks; every allocation freed. Prints the cost of
 * a context switch (not asserted: machines differ).
 *
 * Needs the path of sim_kernels.so in argv[1] (the test build compiles it from
 * kgrt_sim_abi.h + prelude_sim.hip + common.hip + sim_kernels.hip). Gives exit
 * status 0 when every check passed. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* clock_gettime */
#endif
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kgrt_sim.h"
#include "test.h"
#include "sim_test.h"

/* ---- an allocator that counts, so leaks show ---- */

static long live_allocs;

static void *count_alloc(void *user, size_t size) {
  (void)user;
  void *p = malloc(size);
  if (p != NULL)
    live_allocs++;
  return p;
}
static void count_free(void *user, void *p) {
  (void)user;
  if (p != NULL)
    live_allocs--;
  free(p);
}
static const kgrt_allocator_t counting = {count_alloc, count_free, NULL};

/* ---- helpers ---- */

#define PTR(p) ((unsigned long long)(uintptr_t)(p))

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static unsigned long long rng_state = 0x9e3779b97f4a7c15ull;
static unsigned rng_u32(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (unsigned)(rng_state >> 32);
}
/* uniform in [lo, hi) */
static float rng_float(float lo, float hi) {
  return lo + (hi - lo) * (float)(rng_u32() >> 8) * (1.0f / 16777216.0f);
}

static unsigned f32_bits(float f) {
  unsigned u;
  memcpy(&u, &f, sizeof u);
  return u;
}
static float bits_f32(unsigned u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

/* The f16 value of bits h, decoded independently of the prelude. */
static double ref_f16(unsigned h) {
  const int e = (int)((h >> 10) & 31u), m = (int)(h & 1023u);
  double v;
  if (e == 0)
    v = ldexp(m, -24);
  else if (e == 31)
    v = m != 0 ? NAN : INFINITY;
  else
    v = ldexp(1024 + m, e - 25);
  return (h & 0x8000u) != 0 ? -v : v;
}
static int f16_is_nan(unsigned h) {
  return (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu) != 0;
}

/* float -> f16 bits, nearest with ties to even, by search over the f16 values
 * (NaN: any NaN; callers check that separately). */
static unsigned ref_to_f16(float f) {
  const unsigned sign = signbit(f) ? 0x8000u : 0u;
  const double a = fabs((double)f);
  if (isnan(f))
    return sign | 0x7e00u;
  if (a >= 65520.0) /* 65504 + half an ulp, and the tie goes to even (inf) */
    return sign | 0x7c00u;
  unsigned lo = 0, hi = 0x7bff;
  while (lo < hi) {
    unsigned mid = (lo + hi + 1) / 2;
    if (ref_f16(mid) <= a)
      lo = mid;
    else
      hi = mid - 1;
  }
  if (lo < 0x7bff) {
    const double below = a - ref_f16(lo), above = ref_f16(lo + 1) - a;
    if (above < below || (above == below && (lo & 1u) != 0))
      lo++;
  }
  return sign | lo;
}

static float bf16_to_f32(unsigned short b) {
  return bits_f32((unsigned)b << 16);
}

typedef struct call {
  const char *kernel;
  unsigned grid, block, wave, workers;
  unsigned long long args[4];  /* pointers (PTR) or i64, at 8-byte slots */
  unsigned long long bytes[4]; /* buffer sizes, 0 for i64 */
} call_t;

static char err[512];

/* Runs `c` on `img`; err holds the message. */
static int run(kgrt_sim_image_t *img, const call_t *c) {
  kgrt_sim_launch_t l;
  memset(&l, 0, sizeof l);
  l.kernel = c->kernel;
  l.entry = kgrt_sim_image_entry(img, c->kernel);
  CHECK(l.entry != NULL);
  l.kernarg = (const unsigned char *)c->args;
  l.arg_bytes = c->bytes;
  l.grid_x = c->grid;
  l.block_x = c->block;
  l.wave_size = c->wave;
  l.workers = c->workers;
  return kgrt_sim_run(&l, &counting, err, sizeof err);
}

/* ---- (a) block sums are exact at their own wave size only ---- */

/* Groups of 256 whose every output equals the float64 sum of their inputs. */
static unsigned sums_right(const float *x, const float *out, unsigned groups) {
  unsigned right = 0;
  for (unsigned g = 0; g < groups; g++) {
    double sum = 0.0, sum_abs = 0.0;
    for (unsigned t = 0; t < 256; t++) {
      sum += x[g * 256 + t];
      sum_abs += fabs(x[g * 256 + t]);
    }
    int ok = 1;
    for (unsigned t = 0; t < 256; t++)
      ok &= fabs(out[g * 256 + t] - sum) <= 1e-6 * sum_abs;
    right += (unsigned)ok;
  }
  return right;
}

static void test_block_sum_wave(kgrt_sim_image_t *img) {
  enum { groups = 64, n = groups * 256 };
  float *x = malloc(n * sizeof *x), *out = malloc(n * sizeof *out);
  for (unsigned i = 0; i < n; i++)
    x[i] = rng_float(-1.0f, 1.0f) + (i % 3 == 0 ? 4.0f : 0.0f);
  const struct {
    const char *kernel;
    unsigned wave;
    int right;
  } cases[] = {
      {"k_bsum32", 32, 1},
      {"k_bsum32", 64, 0},
      {"k_bsum64", 64, 1},
      {"k_bsum64", 32, 0},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    call_t c = {cases[k].kernel,
                groups,
                256,
                cases[k].wave,
                0,
                {PTR(x), PTR(out)},
                {n * sizeof *x, n * sizeof *out}};
    memset(out, 0xff, n * sizeof *out); /* NaN */
    CHECK_EQ(run(img, &c), 0);
    const unsigned right = sums_right(x, out, groups);
    if (cases[k].right)
      CHECK_EQ(right, groups);
    else
      CHECK_EQ(right, 0);
  }
  free(x);
  free(out);
}

/* ---- (b) out-of-bounds accesses ---- */

static void test_out_of_bounds(kgrt_sim_image_t *img) {
  char want[512];
  float *out = malloc(100 * sizeof *out);
  call_t c = {"k_oob_store", 2, 64, 32, 0, {PTR(out), 100}, {100 * sizeof *out, 0}};
  for (unsigned workers = 1; workers <= 2; workers++) {
    c.workers = workers;
    CHECK_EQ(run(img, &c), -1);
    snprintf(
        want, sizeof want,
        "kernel k_oob_store: workgroup 1 thread 36: out-of-bounds store of 4 bytes at "
        "0x%llx (buffer 0x%llx, 400 bytes)",
        PTR(out + 100), PTR(out));
    CHECK_STR(err, want);
  }
  /* thread 0 reads x[-1] */
  float *x = calloc(1000, sizeof *x), *y = malloc(64000 * sizeof *y);
  call_t under = {"k_oob_under", 1, 64, 32, 1, {PTR(x), PTR(y)}, {4000, 64000 * 4}};
  CHECK_EQ(run(img, &under), -1);
  snprintf(want, sizeof want,
           "kernel k_oob_under: workgroup 0 thread 0: out-of-bounds load of 4 bytes at "
           "0x%llx (buffer 0x%llx, 4000 bytes)",
           PTR(x) - 4, PTR(x));
  CHECK_STR(err, want);
  /* workgroups 15.. all fail; 15 is reported however the workers race */
  call_t load = {"k_oob_load", 1000, 64, 64, 2, {PTR(x), PTR(y)}, {4000, 64000 * 4}};
  snprintf(want, sizeof want,
           "kernel k_oob_load: workgroup 15 thread 40: out-of-bounds load of 4 bytes at "
           "0x%llx (buffer 0x%llx, 4000 bytes)",
           PTR(x + 1000), PTR(x));
  for (int rep = 0; rep < 5; rep++) {
    CHECK_EQ(run(img, &load), -1);
    CHECK_STR(err, want);
  }
  free(out);
  free(x);
  free(y);
}

/* ---- (c) divergence: reported, not waited for ---- */

static void test_divergence(kgrt_sim_image_t *img) {
  float *out = calloc(64, sizeof *out);
  call_t c = {"k_diverge", 3, 64, 32, 0, {PTR(out)}, {64 * sizeof *out}};
  double t0 = now_s();
  CHECK_EQ(run(img, &c), -1);
  double took = now_s() - t0;
  CHECK(took < 5.0);
  CHECK_STR(err, "kernel k_diverge: workgroup 0: barrier reached by 32 of 64 threads "
                 "(threads 32..63 exited)");

  unsigned *u = calloc(1024, sizeof *u);
  call_t s = {"k_shfl_diverge", 1, 32, 32, 1, {PTR(u)}, {1024 * sizeof *u}};
  t0 = now_s();
  CHECK_EQ(run(img, &s), -1);
  CHECK(now_s() - t0 < 5.0);
  CHECK_STR(err,
            "kernel k_shfl_diverge: workgroup 0: wave 0: shuffle reached by 16 of 32 "
            "lanes (threads 16..31 wait at a barrier)");

  call_t e = {"k_shfl_exited", 1, 32, 32, 1, {PTR(u)}, {1024 * sizeof *u}};
  CHECK_EQ(run(img, &e), -1);
  CHECK_STR(err, "kernel k_shfl_exited: workgroup 0 thread 0: shuffle reads lane 8, "
                 "which has exited");
  free(out);
  free(u);
}

/* ---- shuffles: any wave size, exits completing a shuffle, partial waves ---- */

static void test_shuffle(kgrt_sim_image_t *img) {
  unsigned *u = malloc(2048 * sizeof *u);
  for (unsigned wave = 1; wave <= 64; wave *= 2) {
    call_t c = {"k_shfl_rev", 2, 1024, wave, 0, {PTR(u)}, {2048 * sizeof *u}};
    CHECK_EQ(run(img, &c), 0);
    unsigned bad = 0;
    for (unsigned i = 0; i < 2048; i++) {
      const unsigned t = i % 1024, lane = t & (wave - 1);
      bad += u[i] != t - lane + (wave - 1 - lane);
    }
    CHECK_EQ(bad, 0);
  }
  /* 48 threads at wave 32: lanes 16..31 of wave 1 do not exist */
  call_t part_wave = {"k_shfl_rev", 1, 48, 32, 1, {PTR(u)}, {2048 * sizeof *u}};
  CHECK_EQ(run(img, &part_wave), -1);
  CHECK_STR(err, "kernel k_shfl_rev: workgroup 0 thread 32: shuffle reads lane 31, which "
                 "does not exist (workgroup of 48 threads, wave 32)");
  /* lanes 0..7 shuffle twice among themselves after the others exited */
  memset(u, 0xff, 2048 * sizeof *u);
  call_t part = {"k_shfl_part", 1, 32, 32, 1, {PTR(u)}, {2048 * sizeof *u}};
  CHECK_EQ(run(img, &part), 0);
  for (unsigned t = 0; t < 8; t++)
    CHECK_EQ(u[t], 10 * t + 1);
  CHECK_EQ(u[8], 0xffffffffu);
  free(u);
}

/* ---- (d) f16 in software: every bit pattern ---- */

static void test_f16(kgrt_sim_image_t *img) {
  enum { n = 65536 + 5 }; /* 5 more: the map's tail path */
  unsigned short *h = malloc(n * sizeof *h), *h2 = malloc(n * sizeof *h2);
  float *f = malloc(n * sizeof *f);
  for (unsigned i = 0; i < n; i++)
    h[i] = (unsigned short)i;
  const unsigned grid = (n + 256 * 8 - 1) / (256 * 8);

  /* f16 -> float -> f16 gives the same bits, NaN gives NaN of that sign */
  call_t c = {"k_map_h2h", grid, 256, 32, 0, {PTR(h), PTR(h2), n}, {n * 2, n * 2, 0}};
  CHECK_EQ(run(img, &c), 0);
  unsigned bad = 0;
  for (unsigned i = 0; i < n; i++) {
    if (f16_is_nan(h[i]))
      bad += !f16_is_nan(h2[i]) || (h2[i] & 0x8000u) != (h[i] & 0x8000u);
    else
      bad += h2[i] != h[i];
  }
  CHECK_EQ(bad, 0);

  /* f16 -> float exactly */
  call_t c2 = {"k_map_h2f", grid, 256, 64, 0, {PTR(h), PTR(f), n}, {n * 2, n * 4, 0}};
  CHECK_EQ(run(img, &c2), 0);
  bad = 0;
  for (unsigned i = 0; i < n; i++) {
    const double want = ref_f16(h[i]);
    if (isnan(want))
      bad += !isnan(f[i]);
    else
      bad += (double)f[i] != want || !signbit(f[i]) != !signbit(want);
  }
  CHECK_EQ(bad, 0);
  free(h);
  free(h2);
  free(f);

  /* float -> f16: every f16 value, the midpoints between neighbours (ties),
   * the floats next to them, and random bit patterns (NaN, inf, subnormals) */
  enum { m = 31744 * 2 * 4 + 200000 };
  float *x = malloc(m * sizeof *x);
  unsigned short *y = malloc(m * sizeof *y);
  unsigned k = 0;
  for (unsigned b = 0; b < 0x7c00; b++) {
    for (int s = 0; s < 2; s++) {
      const double v = ref_f16(b), next = b < 0x7bff ? ref_f16(b + 1) : 65536.0;
      const float mid = (float)((v + next) / 2); /* exact in float */
      x[k++] = (float)(s ? -v : v);
      x[k++] = s ? -mid : mid;
      x[k++] = nextafterf(s ? -mid : mid, 0.0f);
      x[k++] = nextafterf(s ? -mid : mid, s ? -INFINITY : INFINITY);
    }
  }
  while (k < m)
    x[k++] = bits_f32(rng_u32());
  call_t c3 = {"k_map_f2h",         (m + 1023) / 1024, 256, 32, 0,
               {PTR(x), PTR(y), m}, {m * 4, m * 2, 0}};
  CHECK_EQ(run(img, &c3), 0);
  bad = 0;
  for (unsigned i = 0; i < m; i++) {
    if (isnan(x[i]))
      bad += !f16_is_nan(y[i]);
    else if (y[i] != ref_to_f16(x[i])) {
      if (bad < 5)
        fprintf(stderr, "  f32 0x%08x -> f16 0x%04x, want 0x%04x\n", f32_bits(x[i]), y[i],
                ref_to_f16(x[i]));
      bad++;
    }
  }
  CHECK_EQ(bad, 0);
  free(x);
  free(y);
}

/* ---- map, rmsnorm, softmax against float64; (e) any number of workers ---- */

static void test_swiglu(kgrt_sim_image_t *img) {
  enum { n = 100003 };
  unsigned short *a = malloc(n * 2), *b = malloc(n * 2), *y = malloc(n * 2);
  for (unsigned i = 0; i < n; i++) {
    a[i] = (unsigned short)ref_to_f16(rng_float(-8.0f, 8.0f));
    b[i] = (unsigned short)ref_to_f16(rng_float(-2.0f, 2.0f));
  }
  call_t c = {
      "k_map_swiglu",          (n + 1023) / 1024, 128, 32, 0, {PTR(a), PTR(b), PTR(y), n},
      {n * 2, n * 2, n * 2, 0}};
  CHECK_EQ(run(img, &c), 0);
  unsigned bad = 0;
  for (unsigned i = 0; i < n; i++) {
    const double x0 = ref_f16(a[i]), x1 = ref_f16(b[i]);
    const double want = x0 / (1.0 + exp(-x0)) * x1;
    bad += fabs(bf16_to_f32(y[i]) - want) > 1.0 / 256 * fabs(want) + 1e-6;
  }
  CHECK_EQ(bad, 0);
  free(a);
  free(b);
  free(y);
}

static void test_rows(kgrt_sim_image_t *img) {
  enum { rows = 300, cols = 1024, srows = 129, scols = 2048 };
  unsigned short *x = malloc(rows * cols * 2), *w = malloc(cols * 2);
  unsigned short *y = malloc(rows * cols * 2), *y1 = malloc(rows * cols * 2);
  for (unsigned i = 0; i < rows * cols; i++)
    x[i] = (unsigned short)ref_to_f16(rng_float(-3.0f, 3.0f));
  for (unsigned i = 0; i < cols; i++)
    w[i] = (unsigned short)ref_to_f16(rng_float(0.5f, 1.5f));
  call_t c = {"k_rmsnorm_w32",
              rows,
              256,
              32,
              1,
              {PTR(x), PTR(w), PTR(y1)},
              {rows * cols * 2, cols * 2, rows * cols * 2}};
  CHECK_EQ(run(img, &c), 0);
  unsigned bad = 0;
  for (unsigned r = 0; r < rows; r++) {
    double ss = 0.0;
    for (unsigned i = 0; i < cols; i++)
      ss += ref_f16(x[r * cols + i]) * ref_f16(x[r * cols + i]);
    const double scale = 1.0 / sqrt(ss / cols + 1e-5);
    for (unsigned i = 0; i < cols; i++) {
      const double want = ref_f16(x[r * cols + i]) * scale * ref_f16(w[i]);
      bad += fabs(ref_f16(y1[r * cols + i]) - want) > 1.0 / 1024 * fabs(want) + 1e-6;
    }
  }
  CHECK_EQ(bad, 0);
  /* 20 workers: more than the sim's pool of fiber stacks keeps (16), so
   * some map stacks of their own */
  const unsigned workers[] = {2, 3, 0, 20};
  for (size_t k = 0; k < sizeof workers / sizeof workers[0]; k++) {
    memset(y, 0, rows * cols * 2);
    c.workers = workers[k];
    c.args[2] = PTR(y);
    CHECK_EQ(run(img, &c), 0);
    CHECK(memcmp(y, y1, rows * cols * 2) == 0);
  }

  float *sx = malloc(srows * scols * sizeof *sx);
  unsigned short *sy = malloc(srows * scols * 2), *sy1 = malloc(srows * scols * 2);
  for (unsigned i = 0; i < srows * scols; i++)
    sx[i] = rng_float(-40.0f, 40.0f);
  call_t s = {"k_softmax_w64",
              srows,
              256,
              64,
              1,
              {PTR(sx), PTR(sy1)},
              {srows * scols * 4, srows * scols * 2}};
  CHECK_EQ(run(img, &s), 0);
  bad = 0;
  for (unsigned r = 0; r < srows; r++) {
    const float *row = sx + r * scols;
    double mx = -INFINITY, sum = 0.0;
    for (unsigned i = 0; i < scols; i++)
      mx = fmax(mx, 0.125 * row[i]);
    for (unsigned i = 0; i < scols; i++)
      sum += exp(0.125 * row[i] - mx);
    for (unsigned i = 0; i < scols; i++) {
      const double want = exp(0.125 * row[i] - mx) / sum;
      bad += fabs(bf16_to_f32(sy1[r * scols + i]) - want) > 1.0 / 128 * want + 1e-12;
    }
  }
  CHECK_EQ(bad, 0);
  for (unsigned k = 2; k <= 3; k++) {
    memset(sy, 0, srows * scols * 2);
    s.workers = k;
    s.args[1] = PTR(sy);
    CHECK_EQ(run(img, &s), 0);
    CHECK(memcmp(sy, sy1, srows * scols * 2) == 0);
  }
  free(x);
  free(w);
  free(y);
  free(y1);
  free(sx);
  free(sy);
  free(sy1);
}

/* ---- (f) LDS belongs to one workgroup ---- */

static void test_lds_per_group(kgrt_sim_image_t *img) {
  enum { groups = 1000 };
  unsigned *out = malloc(groups * 64 * sizeof *out);
  memset(out, 0xff, groups * 64 * sizeof *out);
  call_t c = {"k_lds_id", groups, 64, 32, 2, {PTR(out)}, {groups * 64 * sizeof *out}};
  CHECK_EQ(run(img, &c), 0);
  unsigned bad = 0;
  for (unsigned i = 0; i < groups * 64; i++)
    bad += out[i] != i / 64;
  CHECK_EQ(bad, 0);
  free(out);
}

/* ---- images and launches ---- */

static void test_image_and_launch(const void *bytes, size_t size) {
  kgrt_sim_image_t *a = NULL, *b = NULL, *bad = (kgrt_sim_image_t *)&err;
  CHECK_EQ(kgrt_sim_image_load("not an ELF file", 15, &counting, &bad, err, sizeof err),
           -1);
  CHECK(bad == NULL);
  CHECK(strncmp(err, "sim image: ", 11) == 0);
  CHECK_EQ(kgrt_sim_image_load(bytes, 0, &counting, &bad, err, sizeof err), -1);

  /* two loads are two images, though the memfd number is reused */
  CHECK_EQ(kgrt_sim_image_load(bytes, size, &counting, &a, err, sizeof err), 0);
  CHECK_EQ(kgrt_sim_image_load(bytes, size, NULL, &b, err, sizeof err), 0);
  CHECK(a != NULL && b != NULL);
  if (a == NULL || b == NULL)
    return;
  CHECK(kgrt_sim_image_entry(a, "k_diverge") != kgrt_sim_image_entry(b, "k_diverge"));
  CHECK(kgrt_sim_image_entry(a, "k_nope") == NULL);
  CHECK(kgrt_sim_image_entry(a, "k_diverge") != NULL);
  kgrt_sim_image_unload(a);
  unsigned *u = malloc(64 * sizeof *u);
  call_t ok = {"k_shfl_rev", 1, 64, 64, 1, {PTR(u)}, {64 * sizeof *u}};
  CHECK_EQ(run(b, &ok), 0);
  CHECK_EQ(u[0], 63);

  call_t c = ok;
  c.block = 0;
  CHECK_EQ(run(b, &c), -1);
  CHECK_STR(err, "kernel k_shfl_rev: workgroup of 0 threads (must be 1..1024)");
  c.block = 1025;
  CHECK_EQ(run(b, &c), -1);
  c = ok;
  c.wave = 48;
  CHECK_EQ(run(b, &c), -1);
  CHECK_STR(err, "kernel k_shfl_rev: wave size 48 (must be a power of two up to 64)");
  c.wave = 128;
  CHECK_EQ(run(b, &c), -1);
  c.wave = 0;
  CHECK_EQ(run(b, &c), -1);
  c = ok;
  c.grid = 0;
  CHECK_EQ(run(b, &c), 0);
  kgrt_sim_launch_t none;
  memset(&none, 0, sizeof none);
  none.kernel = "k_x";
  none.grid_x = none.block_x = 1;
  none.wave_size = 32;
  CHECK_EQ(kgrt_sim_run(&none, NULL, err, sizeof err), -1);
  CHECK_STR(err, "kernel k_x: no sim entry");
  kgrt_sim_image_unload(b);
  free(u);
}

/* ---- the cost of a context switch ---- */

static void measure_switch(kgrt_sim_image_t *img) {
  const long barriers = 2000;
  call_t c = {"k_barriers", 1, 256, 32, 1, {(unsigned long long)barriers}, {0}};
  CHECK_EQ(run(img, &c), 0); /* warm up */
  double t0 = now_s();
  CHECK_EQ(run(img, &c), 0);
  double took = now_s() - t0;
  /* per barrier, 255 fibers wait and each switches to the next one */
  const double switches = 255.0 * (double)barriers;
  printf("context switch: %.1f ns (%.0f switches in %.3f s, barrier of 256: %.2f us)\n",
         1e9 * took / switches, switches, took, 1e6 * took / (double)barriers);

  enum { rows = 2000 };
  float *x = calloc(rows * 256, sizeof *x), *y = malloc(rows * 256 * sizeof *y);
  call_t s = {"k_bsum32", rows, 256, 32, 1, {PTR(x), PTR(y)}, {rows * 1024, rows * 1024}};
  t0 = now_s();
  CHECK_EQ(run(img, &s), 0);
  took = now_s() - t0;
  printf("k_bsum32: %d workgroups of 256 on 1 worker: %.2f us each\n", rows,
         1e6 * took / rows);
  free(x);
  free(y);
}

int main(int argc, char **argv) {
  size_t size = 0;
  void *bytes = NULL;
  kgrt_sim_image_t *img = test_sim_image_open(argc, argv, &counting, &bytes, &size);
  if (img == NULL)
    return argc != 2 ? 2 : TEST_DONE();
  test_block_sum_wave(img);
  test_out_of_bounds(img);
  test_divergence(img);
  test_shuffle(img);
  test_f16(img);
  test_swiglu(img);
  test_rows(img);
  test_lds_per_group(img);
  test_image_and_launch(bytes, size);
  if (getenv("KG_TEST_QUICK") == NULL)
    measure_switch(img);
  kgrt_sim_image_unload(img);
  free(bytes);
  CHECK_EQ(live_allocs, 0);
  return TEST_DONE();
}
