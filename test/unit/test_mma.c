/* test_mma.c - the sim's matrix builtins (templates/prelude_sim.hip) on the
 * image built from test/unit/mma_kernels.hip: for WMMA 16x16x16 f16/bf16 at
 * wave 32 and MFMA 32x32x8 and 16x16x16 f16/bf16_1k at wave 64, D = A * B + C
 * through AMD's documented per-lane layouts must equal a float64 matmul; each
 * deliberately wrong lane mapping (B transposed or its lane groups swapped, D
 * rows in the other order, WMMA lanes 16-31 not a copy of 0-15) and an MFMA
 * run at wave 32 must give a detected mismatch.
 *
 * Inputs are q / 64 with q an integer in [-64, 64]: exact in f16 and bf16, and
 * every partial sum is a multiple of 2^-12 below 2^5, so the f32 result is
 * exact whatever the order of the additions; the bound is still relative
 * (1e-6 of |C| + sum |A * B|) so a hardware-ordered sum would pass too.
 *
 * Needs the path of mma_kernels.so in argv[1]. Gives exit status 0 when every
 * check passed. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kgrt_sim.h"
#include "test.h"
#include "sim_test.h"

#define PTR(p) ((unsigned long long)(uintptr_t)(p))

static char err[512];

static unsigned long long rng_state = 0x2545f4914f6cdd1dull;
static int rng_q(void) { /* an integer in [-64, 64] */
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (int)((rng_state >> 33) % 129u) - 64;
}

/* The bits of q / 64 (|q| <= 64) as f16 or bf16; exact in both. */
static unsigned short encode(int q, int bf16) {
  const float v = (float)q / 64.0f;
  if (bf16) {
    unsigned u;
    memcpy(&u, &v, sizeof u);
    return (unsigned short)(u >> 16);
  }
  if (q == 0)
    return 0;
  const unsigned sign = q < 0 ? 0x8000u : 0u;
  const unsigned a = (unsigned)abs(q); /* value a * 2^-6, a in 1..64: normal */
  int e = 0;
  while ((a >> (e + 1)) != 0)
    e++;
  const unsigned man = (a << (10 - e)) - 1024u; /* exact: a < 2^(e+1) */
  return (unsigned short)(sign | ((unsigned)(e - 6 + 15) << 10) | man);
}

typedef struct mma_case {
  const char *kernel;
  unsigned m, n, k; /* D is m x n, the reduction k */
  unsigned wave;
  int bf16;
  int wrong_modes; /* modes 1..wrong_modes are wrong mappings */
} mma_case_t;

static const mma_case_t cases[] = {
    {"k_wmma_f16", 16, 16, 16, 32, 0, 3},   {"k_wmma_bf16", 16, 16, 16, 32, 1, 3},
    {"k_mfma32_f16", 32, 32, 8, 64, 0, 2},  {"k_mfma16_f16", 16, 16, 16, 64, 0, 2},
    {"k_mfma32_bf16", 32, 32, 8, 64, 1, 2}, {"k_mfma16_bf16", 16, 16, 16, 64, 1, 2},
};

typedef struct mma_data {
  unsigned short a[32 * 16], b[16 * 32];
  int qa[32 * 16], qb[16 * 32];
  float c[32 * 32], d[32 * 32];
} mma_data_t;

/* Runs c's kernel in `mode` on one workgroup of one wave at `wave`. */
static int run(kgrt_sim_image_t *img, const mma_case_t *c, mma_data_t *x, long mode,
               unsigned wave) {
  unsigned long long args[5] = {PTR(x->a), PTR(x->b), PTR(x->c), PTR(x->d),
                                (unsigned long long)mode};
  const unsigned long long bytes[5] = {2ull * c->m * c->k, 2ull * c->k * c->n,
                                       4ull * c->m * c->n, 4ull * c->m * c->n, 0};
  kgrt_sim_launch_t l;
  memset(&l, 0, sizeof l);
  l.kernel = c->kernel;
  l.entry = kgrt_sim_image_entry(img, c->kernel);
  CHECK(l.entry != NULL);
  if (l.entry == NULL)
    return -1;
  l.kernarg = (const unsigned char *)args;
  l.arg_bytes = bytes;
  l.grid_x = 1;
  l.block_x = c->wave;
  l.wave_size = wave;
  l.workers = 1;
  for (unsigned i = 0; i < c->m * c->n; i++)
    x->d[i] = NAN; /* unwritten elements show as mismatches */
  const int rc = kgrt_sim_run(&l, NULL, err, sizeof err);
  if (rc != 0)
    fprintf(stderr, "%s: %s\n", c->kernel, err);
  return rc;
}

/* Elements of D that differ from C + A * B in float64 by more than the bound. */
static unsigned mismatches(const mma_case_t *c, const mma_data_t *x) {
  unsigned bad = 0;
  for (unsigned i = 0; i < c->m; i++)
    for (unsigned j = 0; j < c->n; j++) {
      double sum = x->c[i * c->n + j], mag = fabs(sum);
      for (unsigned k = 0; k < c->k; k++) {
        const double p = (x->qa[i * c->k + k] / 64.0) * (x->qb[k * c->n + j] / 64.0);
        sum += p;
        mag += fabs(p);
      }
      const double got = x->d[i * c->n + j];
      if (!(fabs(got - sum) <= 1e-6 * mag))
        bad++;
    }
  return bad;
}

static void test_case(kgrt_sim_image_t *img, const mma_case_t *c) {
  mma_data_t *x = calloc(1, sizeof *x);
  CHECK(x != NULL);
  if (x == NULL)
    return;
  for (unsigned i = 0; i < c->m * c->k; i++) {
    x->qa[i] = rng_q();
    x->a[i] = encode(x->qa[i], c->bf16);
  }
  for (unsigned i = 0; i < c->k * c->n; i++) {
    x->qb[i] = rng_q();
    x->b[i] = encode(x->qb[i], c->bf16);
  }
  for (unsigned i = 0; i < c->m * c->n; i++)
    x->c[i] = (float)rng_q() / 64.0f;

  CHECK_EQ(run(img, c, x, 0, c->wave), 0);
  const unsigned bad = mismatches(c, x);
  CHECK_EQ(bad, 0);
  printf("%-14s documented layout: %u of %u elements wrong\n", c->kernel, bad,
         c->m * c->n);

  for (long mode = 1; mode <= c->wrong_modes; mode++) {
    CHECK_EQ(run(img, c, x, mode, c->wave), 0);
    const unsigned wrong = mismatches(c, x);
    CHECK(wrong > 0);
    printf("%-14s wrong mapping %ld: %u of %u elements wrong\n", c->kernel, mode, wrong,
           c->m * c->n);
  }
  if (c->wave == 64) { /* MFMA needs wave 64: at 32 the lanes it reads are wrong */
    CHECK_EQ(run(img, c, x, 0, 32), 0);
    const unsigned wrong = mismatches(c, x);
    CHECK(wrong > 0);
    printf("%-14s at wave 32: %u of %u elements wrong\n", c->kernel, wrong, c->m * c->n);
  }
  free(x);
}

int main(int argc, char **argv) {
  size_t size = 0;
  void *bytes = NULL;
  kgrt_sim_image_t *img = test_sim_image_open(argc, argv, NULL, &bytes, &size);
  if (img == NULL)
    return argc != 2 ? 2 : TEST_DONE();
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    test_case(img, &cases[i]);
  kgrt_sim_image_unload(img);
  free(bytes);
  return TEST_DONE();
}
