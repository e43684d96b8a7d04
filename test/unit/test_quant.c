/* test_quant.c - the GGUF block formats Q8_0, Q4_0, Q4_K and Q6_K: the host
 * encoders and decoders (runtime/kgrt_gguf.h) and the device helpers
 * (templates/lib_quant.hip) run on the sim device through
 * test/unit/quant_kernels.hip. Hand-made blocks decode to hand-computed
 * values (Q4_0 nibble order, Q8_0 signs, Q4_K's packed 6-bit scales and mins
 * of sub-blocks 4..7, Q6_K's ql/qh interleave); ggml's reference rounding
 * (roundf for Q8_0, truncation of x/d + 8.5 for Q4_0); random rows quantized
 * on the host decode on the device bit-identically to the host decoder, by
 * element and by group of 32; the quantize -> dequantize error stays within
 * each format's bound.
 *
 * Needs the path of quant_kernels.so in argv[1]. Gives exit status 0 when
 * every check passed. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kgrt_gguf.h"
#include "kgrt_sim.h"
#include "test.h"
#include "sim_test.h"

static void *plain_alloc(void *user, size_t size) {
  (void)user;
  return malloc(size);
}
static void plain_free(void *user, void *p) {
  (void)user;
  free(p);
}
static const kgrt_allocator_t plain = {plain_alloc, plain_free, NULL};

#define PTR(p) ((unsigned long long)(uintptr_t)(p))

static unsigned long long rng_state = 0x243f6a8885a308d3ull;
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

static kgrt_sim_image_t *img;
static char err[512];

typedef struct format {
  kgrt_gguf_type_t type;
  const char *g32, *e1; /* kernels */
} format_t;

static const format_t q8_0 = {KGRT_GGUF_TYPE_Q8_0, "k_q8_0_g32", "k_q8_0_e1"};
static const format_t q4_0 = {KGRT_GGUF_TYPE_Q4_0, "k_q4_0_g32", "k_q4_0_e1"};
static const format_t q4_k = {KGRT_GGUF_TYPE_Q4_K, "k_q4k_g32", "k_q4k_e1"};
static const format_t q6_k = {KGRT_GGUF_TYPE_Q6_K, "k_q6k_g32", "k_q6k_e1"};

/* Runs `kernel` over `threads` threads (workgroups of 64, wave 32) with
 * (blocks, out, count); out holds n floats. */
static int run(const char *kernel, const void *blocks, size_t block_bytes, float *out,
               long n, long count, long threads) {
  unsigned long long args[3] = {PTR(blocks), PTR(out), (unsigned long long)count};
  unsigned long long bytes[3] = {block_bytes, (unsigned long long)n * sizeof(float), 0};
  kgrt_sim_launch_t l;
  memset(&l, 0, sizeof l);
  l.kernel = kernel;
  l.entry = kgrt_sim_image_entry(img, kernel);
  CHECK(l.entry != NULL);
  if (l.entry == NULL)
    return -1;
  l.kernarg = (const unsigned char *)args;
  l.arg_bytes = bytes;
  l.grid_x = (unsigned)((threads + 63) / 64);
  l.block_x = 64;
  l.wave_size = 32;
  l.workers = 2;
  int rc = kgrt_sim_run(&l, &plain, err, sizeof err);
  if (rc != 0)
    fprintf(stderr, "%s: %s\n", kernel, err);
  return rc;
}

/* Decodes n weights of `blocks` on the device both ways (by group of 32 and
 * by element) into by_group and by_elem. */
static void device_decode(const format_t *f, const void *blocks, long n, float *by_group,
                          float *by_elem) {
  const size_t bytes = kgrt_gguf_row_bytes(f->type, n);
  memset(by_group, 0xff, (size_t)n * sizeof(float)); /* NaN */
  memset(by_elem, 0xff, (size_t)n * sizeof(float));
  CHECK_EQ(run(f->g32, blocks, bytes, by_group, n, n / 32, n / 32), 0);
  CHECK_EQ(run(f->e1, blocks, bytes, by_elem, n, n, n), 0);
}

/* Host and device decodings of `blocks` all equal `want` (n values). */
static void check_decodes_to(const format_t *f, const void *blocks, long n,
                             const float *want) {
  float *host = malloc((size_t)n * sizeof *host), *g = malloc((size_t)n * sizeof *g),
        *e = malloc((size_t)n * sizeof *e);
  CHECK_EQ(kgrt_gguf_dequantize(f->type, blocks, host, n), 0);
  device_decode(f, blocks, n, g, e);
  int bad_host = 0, bad_g = 0, bad_e = 0;
  for (long i = 0; i < n; i++) {
    if (host[i] != want[i] && bad_host++ == 0)
      fprintf(stderr, "type %d host [%ld] = %g, want %g\n", f->type, i, host[i], want[i]);
    if (g[i] != want[i] && bad_g++ == 0)
      fprintf(stderr, "type %d group [%ld] = %g, want %g\n", f->type, i, g[i], want[i]);
    if (e[i] != want[i] && bad_e++ == 0)
      fprintf(stderr, "type %d elem [%ld] = %g, want %g\n", f->type, i, e[i], want[i]);
  }
  CHECK_EQ(bad_host, 0);
  CHECK_EQ(bad_g, 0);
  CHECK_EQ(bad_e, 0);
  free(host);
  free(g);
  free(e);
}

/* ---- hand-made blocks ---- */

/* Q4_0, d = 0.5 (f16 0x3800): qs[j] = j | (15 - j) << 4, so elements 0..15
 * are -4.0, -3.5, .., 3.5 and elements 16..31 are 3.5, 3.0, .., -4.0. */
static void test_q4_0_hand(void) {
  unsigned char b[18] = {0x00, 0x38};
  for (int j = 0; j < 16; j++)
    b[2 + j] = (unsigned char)(j | (15 - j) << 4);
  float want[32];
  for (int j = 0; j < 16; j++) {
    want[j] = -4.0f + 0.5f * (float)j;
    want[16 + j] = 3.5f - 0.5f * (float)j;
  }
  check_decodes_to(&q4_0, b, 32, want);
}

/* Q8_0, d = 0.25 (f16 0x3400): qs[i] = i - 16 as int8, qs[0] = -128, qs[31]
 * = 127. */
static void test_q8_0_hand(void) {
  unsigned char b[34] = {0x00, 0x34};
  float want[32];
  for (int i = 0; i < 32; i++) {
    b[2 + i] = (unsigned char)(i - 16);
    want[i] = 0.25f * (float)(i - 16);
  }
  b[2] = 0x80;
  want[0] = -32.0f;
  b[33] = 0x7f;
  want[31] = 31.75f;
  check_decodes_to(&q8_0, b, 32, want);
}

/* Q4_K, d = 1.0 (0x3c00), dmin = 0.5 (0x3800), scales sc = {1, 2, 3, 4, 33,
 * 47, 50, 63} and mins m = {5, 6, 7, 8, 17, 36, 60, 61}, packed by hand:
 *   bytes 0..3:  sc[0..3] | (sc[4..7] >> 4) << 6 = 0x81 0x82 0xc3 0xc4
 *   bytes 4..7:  m[0..3]  | (m[4..7] >> 4) << 6  = 0x45 0x86 0xc7 0xc8
 *   bytes 8..11: (sc[4..7] & 15) | (m[4..7] & 15) << 4 = 0x11 0x4f 0xc2 0xdf
 * qs[32 c + l] = (l & 15) | (15 - (l & 15)) << 4: sub-block 2c (low
 * nibbles) counts 0..15 twice, 2c + 1 (high nibbles) 15..0 twice. Element
 * 32 j + l is sc[j] q - 0.5 m[j]. */
static void test_q4_k_hand(void) {
  static const unsigned char head[16] = {0x00, 0x3c, 0x00, 0x38, 0x81, 0x82, 0xc3, 0xc4,
                                         0x45, 0x86, 0xc7, 0xc8, 0x11, 0x4f, 0xc2, 0xdf};
  static const int sc[8] = {1, 2, 3, 4, 33, 47, 50, 63},
                   m[8] = {5, 6, 7, 8, 17, 36, 60, 61};
  unsigned char *b = aligned_alloc(16, 144);
  memcpy(b, head, 16);
  for (int i = 0; i < 128; i++)
    b[16 + i] = (unsigned char)((i & 15) | (15 - (i & 15)) << 4);
  float want[256];
  for (int j = 0; j < 8; j++)
    for (int l = 0; l < 32; l++) {
      const int q = (j & 1) ? 15 - (l & 15) : (l & 15);
      want[32 * j + l] = (float)(sc[j] * q) - 0.5f * (float)m[j];
    }
  /* a few by hand: sub-block 5, l = 0: 47 * 15 - 18; sub-block 7, l = 1:
   * 63 * 14 - 30.5; sub-block 4, l = 2: 33 * 2 - 8.5 */
  CHECK(want[32 * 5 + 0] == 687.0f);
  CHECK(want[32 * 7 + 1] == 851.5f);
  CHECK(want[32 * 4 + 2] == 57.5f);
  check_decodes_to(&q4_k, b, 256, want);
  /* the header's scale/min reader agrees */
  for (int j = 0; j < 8; j++) {
    int s, mm;
    kgrt_gguf_q4k_scale_min(head + 4, j, &s, &mm);
    CHECK_EQ(s, sc[j]);
    CHECK_EQ(mm, m[j]);
  }
  free(b);
}

/* Q6_K, d = 0.5 (0x3800), scales[i] = i + 1 but scales[6] = -3; ql, qh zero
 * (every q = 0 - 32) except:
 *   ql[33] = 0x5a: element 33 (low nibble, q = 10) and element 97 (high
 *     nibble, q = 5), both e = 1 of the first half;
 *   qh[40] = 0xe4 (bits 00 01 10 11 from the bottom): elements 136, 168,
 *     200, 232 (e = 8 of the second half) get high bits 0, 1, 2, 3. */
static void test_q6_k_hand(void) {
  unsigned char b[210];
  memset(b, 0, sizeof b);
  for (int i = 0; i < 16; i++)
    b[192 + i] = (unsigned char)(i + 1);
  b[192 + 6] = (unsigned char)-3;
  b[208] = 0x00;
  b[209] = 0x38;
  b[33] = 0x5a;
  b[128 + 40] = 0xe4;
  float want[256];
  for (int n = 0; n < 256; n++)
    want[n] = 0.5f * (float)(n / 16 == 6 ? -3 : n / 16 + 1) * -32.0f;
  want[33] = -33.0f;   /* 0.5 * 3 * (10 - 32) */
  want[97] = 40.5f;    /* 0.5 * -3 * (5 - 32) */
  want[136] = -144.0f; /* 0.5 * 9 * (0 - 32) */
  want[168] = -88.0f;  /* 0.5 * 11 * (16 - 32) */
  want[200] = 0.0f;    /* 0.5 * 13 * (32 - 32) */
  want[232] = 120.0f;  /* 0.5 * 15 * (48 - 32) */
  check_decodes_to(&q6_k, b, 256, want);
}

/* ---- ggml's reference rounding for Q8_0 and Q4_0 ---- */

static void test_reference_rounding(void) {
  /* Q8_0 with amax 127: d = 1, qs = roundf(x) (ties away from zero) */
  float x[32] = {127.0f, -2.5f, 2.5f, 0.49999997f, -0.5f, 1.5f};
  unsigned char b[34];
  kgrt_gguf_quantize_q8_0(x, b, 32);
  CHECK_EQ(b[0] | b[1] << 8, 0x3c00);
  CHECK_EQ((signed char)b[2], 127);
  CHECK_EQ((signed char)b[3], -3);
  CHECK_EQ((signed char)b[4], 3);
  CHECK_EQ((signed char)b[5], 0);
  CHECK_EQ((signed char)b[6], -1);
  CHECK_EQ((signed char)b[7], 2);
  /* Q4_0 with the largest magnitude -8: d = 1; nibble = min(15, trunc(x +
   * 8.5)) */
  float y[32] = {-8.0f, 7.9f, 0.5f, -0.5f, -0.51f, 3.49f};
  unsigned char c[18];
  kgrt_gguf_quantize_q4_0(y, c, 32);
  CHECK_EQ(c[0] | c[1] << 8, 0x3c00);
  CHECK_EQ(c[2] & 15, 0);
  CHECK_EQ(c[3] & 15, 15);
  CHECK_EQ(c[4] & 15, 9);
  CHECK_EQ(c[5] & 15, 8);
  CHECK_EQ(c[6] & 15, 7);
  CHECK_EQ(c[7] & 15, 11);
  CHECK_EQ(c[2] >> 4, 8); /* y[16] = 0 */
  /* an all-zero block stays zero */
  float z[256] = {0};
  unsigned char q[210];
  kgrt_gguf_quantize_q6_k(z, q, 256);
  float back[256];
  kgrt_gguf_dequantize_q6_k(q, back, 256);
  int nonzero = 0;
  for (int i = 0; i < 256; i++)
    nonzero += back[i] != 0.0f;
  CHECK_EQ(nonzero, 0);
}

static void test_sizes(void) {
  CHECK_EQ(kgrt_gguf_row_bytes(KGRT_GGUF_TYPE_Q8_0, 64), 68);
  CHECK_EQ(kgrt_gguf_row_bytes(KGRT_GGUF_TYPE_Q4_0, 4096), 128 * 18);
  CHECK_EQ(kgrt_gguf_row_bytes(KGRT_GGUF_TYPE_Q4_K, 512), 288);
  CHECK_EQ(kgrt_gguf_row_bytes(KGRT_GGUF_TYPE_Q6_K, 256), 210);
  CHECK_EQ(kgrt_gguf_row_bytes(KGRT_GGUF_TYPE_Q4_K, 255), 0);
  CHECK_EQ(kgrt_gguf_row_bytes(KGRT_GGUF_TYPE_Q8_0, 0), 0);
  CHECK_EQ(kgrt_gguf_row_bytes((kgrt_gguf_type_t)3, 256), 0);
  float x[32] = {0};
  unsigned char b[34];
  CHECK_EQ(kgrt_gguf_quantize(KGRT_GGUF_TYPE_Q8_0, x, b, 31), -1);
  CHECK_EQ(kgrt_gguf_dequantize(KGRT_GGUF_TYPE_Q6_K, b, x, 32), -1);
}

/* ---- random rows: device == host, and the round-trip error ---- */

/* The largest error quantize -> dequantize may make at element i of block
 * `blk` (decoded figures; see kgrt_gguf.h for the quantizers). */
static double error_bound(kgrt_gguf_type_t type, const unsigned char *blk, int i) {
  const double d =
      fabs(kgrt_gguf_get_f16_(type == KGRT_GGUF_TYPE_Q6_K ? blk + 208 : blk));
  switch (type) {
  case KGRT_GGUF_TYPE_Q8_0: /* half a step, plus f16(d) off by 2^-11 over 127 steps */
    return 0.57 * d;
  case KGRT_GGUF_TYPE_Q4_0: /* a full step where x / d rounds to 16 and is clamped */
    return 1.01 * d;
  case KGRT_GGUF_TYPE_Q4_K: { /* half a step; clamped: 15 half-scale steps + half a min
                                 step */
    int s, m;
    kgrt_gguf_q4k_scale_min(blk + 4, i / 32, &s, &m);
    return 0.5 * d * s + 8.0 * d + 0.54 * fabs(kgrt_gguf_get_f16_(blk + 2));
  }
  case KGRT_GGUF_TYPE_Q6_K: /* a step at the top (x / s = 32 -> 31); clamped: 32 half
                               steps */
    return fabs(d * (double)kgrt_gguf_i8_(blk[192 + i / 16])) + 18.0 * d;
  }
  return 0.0;
}

static void test_random(const format_t *f, double max_nmse) {
  enum { n = 256 * 24 };
  float *x = malloc(n * sizeof *x), *host = malloc(n * sizeof *host),
        *g = malloc(n * sizeof *g), *e = malloc(n * sizeof *e);
  const size_t bytes = kgrt_gguf_row_bytes(f->type, n);
  unsigned char *blocks = aligned_alloc(16, (bytes + 15) / 16 * 16);
  for (int i = 0; i < n; i++) {
    /* a scale per 32 spanning 2^-6 .. 2^6; some blocks offset, one zero */
    const int grp = i / 32;
    const float mag = ldexpf(1.0f, (int)((unsigned)grp * 2654435761u >> 28) - 6);
    x[i] = grp == 5 ? 0.0f : rng_float(-mag, mag) + (grp % 7 == 3 ? 0.8f * mag : 0.0f);
  }
  x[1000] = 40.0f; /* an outlier */
  CHECK_EQ(kgrt_gguf_quantize(f->type, x, blocks, n), 0);
  CHECK_EQ(kgrt_gguf_dequantize(f->type, blocks, host, n), 0);
  device_decode(f, blocks, n, g, e);
  CHECK(memcmp(host, g, n * sizeof *g) == 0);
  CHECK(memcmp(host, e, n * sizeof *e) == 0);

  const int per = (int)kgrt_gguf_block_weights(f->type);
  const size_t bb = kgrt_gguf_block_bytes(f->type);
  double err2 = 0.0, sig2 = 0.0;
  int over = 0;
  for (int i = 0; i < n; i++) {
    const double diff = fabs((double)host[i] - (double)x[i]);
    const double bound = error_bound(f->type, blocks + (size_t)(i / per) * bb, i % per);
    if (diff > bound * (1.0 + 1e-6) && over++ == 0)
      fprintf(stderr, "type %d [%d]: x %g back %g, bound %g\n", f->type, i, x[i], host[i],
              bound);
    err2 += diff * diff;
    sig2 += (double)x[i] * x[i];
  }
  CHECK_EQ(over, 0);
  const double nmse = err2 / sig2;
  CHECK(nmse < max_nmse);
  fprintf(stderr, "type %2d: NMSE %.3g (bound %.3g)\n", f->type, nmse, max_nmse);
  free(x);
  free(host);
  free(g);
  free(e);
  free(blocks);
}

int main(int argc, char **argv) {
  size_t size = 0;
  void *bytes = NULL;
  img = test_sim_image_open(argc, argv, &plain, &bytes, &size);
  if (img == NULL)
    return argc != 2 ? 2 : TEST_DONE();
  test_sizes();
  test_q4_0_hand();
  test_q8_0_hand();
  test_q4_k_hand();
  test_q6_k_hand();
  test_reference_rounding();
  test_random(&q8_0, 5e-5);
  test_random(&q4_0, 1e-2);
  test_random(&q4_k, 1e-2);
  test_random(&q6_k, 1e-3);
  kgrt_sim_image_unload(img);
  free(bytes);
  return TEST_DONE();
}
