/* test_mma_sync.c - the NVIDIA tensor-core helpers (kg_mma_16x8x16,
 * kg_ldmatrix_x4/_x2 of templates/prelude_cuda.hip, emulated by
 * templates/prelude_sim.hip) and kg_async_copy, on the kernels of
 * test/unit/mma_sync_kernels.hip:
 *   - on the sim at wave 32: ldmatrix must hand lane l, for matrix q, word
 *     l % 4 of the row whose address lane 8q + l / 4 gave (.trans: the 16-bit
 *     elements l / 4 of the rows lanes 8q + 2 (l % 4) and + 1 gave); D = C + A * B of
 *     m16n8k16 f16 and bf16 must equal a float64 matmul, with fragments loaded
 *     by PTX's formulas and through kg_async_copy (zero fill included) and
 *     ldmatrix; every deliberately wrong mapping must give a mismatch;
 *   - the same source, behind prelude_cuda.hip, must compile with NVRTC for
 *     sm_90 (PTX holding the mma.sync, ldmatrix and cp.async forms, no local
 *     memory; and a cubin). Skipped with a note when NVRTC does not load.
 *
 * Inputs are q / 64 with q an integer in [-64, 64], exact in f16 and bf16,
 * so every partial sum is exact in f32 (see test_mma.c); the bound is still
 * relative, 1e-6 of |C| + sum |A * B|.
 *
 * Usage: test_mma_sync SIM_SO CUDA_SRC, SIM_SO the sim image of
 * mma_sync_kernels.hip, CUDA_SRC prelude_cuda.hip, common.hip and
 * mma_sync_kernels.hip in one file. Exit status 0 when every check passed. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile.h"
#include "kgrt_sim.h"
#include "test.h"
#include "sim_test.h"

#define PTR(p) ((unsigned long long)(uintptr_t)(p))

static char err[512];

static unsigned long long rng_state = 0x9e3779b97f4a7c15ull;
static unsigned rng_u32(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (unsigned)(rng_state >> 32);
}
static int rng_q(void) { /* an integer in [-64, 64] */
  return (int)(rng_u32() % 129u) - 64;
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

/* Runs `kernel` on one workgroup of one wave of 32. */
static int run(kgrt_sim_image_t *img, const char *kernel, const unsigned long long *args,
               const unsigned long long *bytes) {
  kgrt_sim_launch_t l;
  memset(&l, 0, sizeof l);
  l.kernel = kernel;
  l.entry = kgrt_sim_image_entry(img, kernel);
  CHECK(l.entry != NULL);
  if (l.entry == NULL)
    return -1;
  l.kernarg = (const unsigned char *)args;
  l.arg_bytes = bytes;
  l.grid_x = 1;
  l.block_x = 32;
  l.wave_size = 32;
  l.workers = 1;
  const int rc = kgrt_sim_run(&l, NULL, err, sizeof err);
  if (rc != 0)
    fprintf(stderr, "%s: %s\n", kernel, err);
  return rc;
}

/* ---- ldmatrix ---------------------------------------------------------------- */

/* The row of M whose address lane `lane` gives (k_ldsm). */
static unsigned ldsm_row(unsigned lane) {
  return (5u * lane + 3u) % 32u;
}

/* The 16-bit element e (0..7) of the row of M whose address lane `lane` gives. */
static unsigned ldsm_half(const unsigned *m, unsigned lane, unsigned e) {
  return (m[4 * ldsm_row(lane) + e / 2] >> (16 * (e % 2))) & 0xffffu;
}

/* Registers of k_ldsm's results that differ from PTX's layouts: plain, lane l
 * gets word l % 4 of matrix q's row l / 4; .trans, the elements of column
 * l / 4 in rows 2 (l % 4) and 2 (l % 4) + 1 (low and high half). */
static unsigned ldsm_mismatches(const unsigned *m, const unsigned *r4, const unsigned *r2,
                                const unsigned *t4, const unsigned *t2) {
  unsigned bad = 0;
  for (unsigned l = 0; l < 32; l++)
    for (unsigned q = 0; q < 4; q++) {
      const unsigned want = m[4 * ldsm_row(8 * q + l / 4) + l % 4];
      const unsigned rows = 8 * q + 2 * (l % 4);
      const unsigned want_t = ldsm_half(m, rows, l / 4) | ldsm_half(m, rows + 1, l / 4)
                                                              << 16;
      bad += r4[4 * l + q] != want;
      bad += t4[4 * l + q] != want_t;
      if (q < 2) {
        bad += r2[2 * l + q] != want;
        bad += t2[2 * l + q] != want_t;
      }
    }
  return bad;
}

static void test_ldsm(kgrt_sim_image_t *img) {
  unsigned m[128], r4[128], r2[64], t4[128], t2[64];
  for (unsigned i = 0; i < 128; i++)
    m[i] = rng_u32();
  for (long mode = 0; mode <= 1; mode++) {
    memset(r4, 0xff, sizeof r4);
    memset(r2, 0xff, sizeof r2);
    memset(t4, 0xff, sizeof t4);
    memset(t2, 0xff, sizeof t2);
    const unsigned long long args[6] = {PTR(m),  PTR(r4), PTR(r2),
                                        PTR(t4), PTR(t2), (unsigned long long)mode};
    const unsigned long long bytes[6] = {sizeof m,  sizeof r4, sizeof r2,
                                         sizeof t4, sizeof t2, 0};
    const int rc = run(img, "k_ldsm", args, bytes);
    CHECK_EQ(rc, 0);
    const unsigned bad = ldsm_mismatches(m, r4, r2, t4, t2);
    if (mode == 0)
      CHECK_EQ(bad, 0);
    else
      CHECK(bad > 0);
    printf("%-16s %s: %u of 384 registers wrong\n", "k_ldsm",
           mode == 0 ? "documented layouts" : "wrong lane's address", bad);
  }
  /* Row addresses 4 bytes past 16-byte alignment: an error, not a read. */
  const unsigned long long args[6] = {PTR(m), PTR(r4), PTR(r2), PTR(t4), PTR(t2), 2};
  const unsigned long long bytes[6] = {sizeof m,  sizeof r4, sizeof r2,
                                       sizeof t4, sizeof t2, 0};
  fprintf(stderr, "(an out-of-bounds load of 16 bytes is expected next)\n");
  const int rc = run(img, "k_ldsm", args, bytes);
  CHECK(rc != 0);
  CHECK(strstr(err, "out-of-bounds load of 16 bytes") != NULL);
}

/* ---- mma.sync ---------------------------------------------------------------- */

typedef struct mma_sync_case {
  const char *kernel;
  int bf16;
  int wrong_modes; /* modes 1..wrong_modes are wrong mappings */
  int zero_fill;   /* takes arows < 16 (k_mma_ldsm_*) */
} mma_sync_case_t;

static const mma_sync_case_t cases[] = {
    {"k_mma_frag_f16", 0, 3, 0},
    {"k_mma_frag_bf16", 1, 3, 0},
    {"k_mma_ldsm_f16", 0, 5, 1},
    {"k_mma_ldsm_bf16", 1, 5, 1},
};

static const char *const mode_names[2][6] = {
    {"documented layout", "A registers 1, 2 swapped", "B registers swapped",
     "D stored by the wrong formula", "", ""},
    {"documented layout", "A registers 1, 2 swapped", "ldmatrix wrong lane's address",
     "B registers swapped", "no zero fill", "zero-filling copies skipped"},
};

/* A 16 x 16 row-major, B stored [n][k] (8 x 16), C and D 16 x 8 row-major. */
typedef struct mma_sync_data {
  unsigned short a[16 * 16], b[8 * 16];
  int qa[16 * 16], qb[8 * 16];
  float c[16 * 8], d[16 * 8];
} mma_sync_data_t;

/* Elements of D that differ from C + A * B in float64, rows of A from
 * `arows` on taken as zero, by more than the bound. */
static unsigned mma_mismatches(const mma_sync_data_t *x, long arows) {
  unsigned bad = 0;
  for (long i = 0; i < 16; i++)
    for (int j = 0; j < 8; j++) {
      double sum = x->c[i * 8 + j], mag = fabs(sum);
      for (int k = 0; k < 16 && i < arows; k++) {
        const double p = (x->qa[i * 16 + k] / 64.0) * (x->qb[j * 16 + k] / 64.0);
        sum += p;
        mag += fabs(p);
      }
      const double got = x->d[i * 8 + j];
      if (!(fabs(got - sum) <= 1e-6 * mag))
        bad++;
    }
  return bad;
}

static unsigned mma_run(kgrt_sim_image_t *img, const mma_sync_case_t *c,
                        mma_sync_data_t *x, long arows, long mode) {
  const unsigned long long args[6] = {PTR(x->a),
                                      PTR(x->b),
                                      PTR(x->c),
                                      PTR(x->d),
                                      (unsigned long long)arows,
                                      (unsigned long long)mode};
  const unsigned long long bytes[6] = {sizeof x->a, sizeof x->b, sizeof x->c,
                                       sizeof x->d, 0,           0};
  for (int i = 0; i < 16 * 8; i++)
    x->d[i] = NAN; /* unwritten elements show as mismatches */
  const int rc = run(img, c->kernel, args, bytes);
  CHECK_EQ(rc, 0);
  const unsigned bad = mma_mismatches(x, arows);
  printf("%-16s arows %2ld, %s: %u of 128 elements wrong\n", c->kernel, arows,
         mode_names[c->zero_fill][mode], bad);
  return bad;
}

static void test_mma(kgrt_sim_image_t *img, const mma_sync_case_t *c) {
  mma_sync_data_t *x = calloc(1, sizeof *x);
  CHECK(x != NULL);
  if (x == NULL)
    return;
  for (int i = 0; i < 16 * 16; i++) {
    x->qa[i] = rng_q();
    x->a[i] = encode(x->qa[i], c->bf16);
  }
  for (int i = 0; i < 8 * 16; i++) {
    x->qb[i] = rng_q();
    x->b[i] = encode(x->qb[i], c->bf16);
  }
  for (int i = 0; i < 16 * 8; i++)
    x->c[i] = (float)rng_q() / 64.0f;

  /* (CHECK_EQ evaluates its operands again to print them: no calls in it.) */
  const unsigned bad = mma_run(img, c, x, 16, 0);
  CHECK_EQ(bad, 0);
  const long arows = c->zero_fill ? 11 : 16; /* A rows 11-15 zero-filled */
  if (c->zero_fill) {
    const unsigned bad_fill = mma_run(img, c, x, arows, 0);
    CHECK_EQ(bad_fill, 0);
  }
  for (long mode = 1; mode <= c->wrong_modes; mode++) {
    const unsigned wrong = mma_run(img, c, x, arows, mode);
    CHECK(wrong > 0);
  }
  free(x);
}

/* ---- NVRTC ------------------------------------------------------------------- */

static int has(const kg_buf_t *b, const char *s) {
  return b->len > 0 && strstr(b->data, s) != NULL;
}

/* The kernels behind prelude_cuda.hip, compiled for sm_90 to PTX and cubin. */
static void test_nvrtc(const char *path) {
  const char *used = kg_nvrtc_describe();
  if (strstr(used, "not found") != NULL) {
    fprintf(stderr, "note: %s: skipping the sm_90 compile\n", used);
    return;
  }
  size_t len = 0;
  char *src = (char *)test_read_file(path, &len);
  CHECK(src != NULL);
  if (src == NULL)
    return;
  kg_compile_opts_t o;
  memset(&o, 0, sizeof o);
  o.arch = "sm_90";
  o.triple = "nvptx64-nvidia-cuda";
  o.platform = "cuda";
  o.compiler = KG_COMPILER_NVRTC;
  kg_diag_t diag;
  diag.msg[0] = '\0';
  kg_buf_t ptx;
  kg_buf_init(&ptx);
  const int rc_ptx = kg_nvrtc_compile(&o, src, len, KG_ARTIFACT_ASM, &ptx, &diag);
  CHECK_EQ(rc_ptx, 0);
  if (diag.msg[0])
    fprintf(stderr, "%s\n", diag.msg);
  static const char *const want[] = {
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
      "ldmatrix.sync.aligned.m8n8.x4.shared.b16",
      "ldmatrix.sync.aligned.m8n8.x2.shared.b16",
      "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16",
      "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16",
      "cp.async.cg.shared.global [%r",
      "], 16, %r",
      "cp.async.ca.shared.global [%r",
      "], 8, %r",
      "], 4, %r",
      "cp.async.commit_group;",
      "cp.async.wait_group 1;",
      "cp.async.wait_group 0;",
  };
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    const int found = has(&ptx, want[i]);
    CHECK(found);
    if (!found)
      fprintf(stderr, "  PTX lacks '%s'\n", want[i]);
  }
  CHECK(!has(&ptx, ".local")); /* fragments stay in registers */
  kg_buf_free(&ptx);

  kg_buf_t cubin;
  kg_buf_init(&cubin);
  diag.msg[0] = '\0';
  const int rc_cubin =
      kg_nvrtc_compile(&o, src, len, KG_ARTIFACT_CODE_OBJECT, &cubin, &diag);
  CHECK_EQ(rc_cubin, 0);
  if (diag.msg[0])
    fprintf(stderr, "%s\n", diag.msg);
  /* ELF, e_machine EM_CUDA (190) */
  CHECK(cubin.len > 64 && memcmp(cubin.data, "\177ELF", 4) == 0 &&
        (unsigned char)cubin.data[18] == 190);
  printf("nvrtc sm_90: PTX and a cubin of %zu bytes (%s)\n", cubin.len, used);
  kg_buf_free(&cubin);
  free(src);
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s KERNELS.so KERNELS.cu\n", argv[0]);
    return 2;
  }
  size_t size = 0;
  void *bytes = NULL;
  kgrt_sim_image_t *img = test_sim_image_open(2, argv, NULL, &bytes, &size);
  if (img != NULL) {
    test_ldsm(img);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
      test_mma(img, &cases[i]);
    kgrt_sim_image_unload(img);
    free(bytes);
  }
  test_nvrtc(argv[2]);
  return TEST_DONE();
}
