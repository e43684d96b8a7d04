/* kgrt_emu_matrix.c - the emu's matrix instructions, with the register
 * layouts of AMD's RDNA3 and CDNA3 ISA guides:
 *   v_wmma_f32_16x16x16_{f16,bf16} (gfx11, wave32): lane l holds row l % 16 of
 *   A and column l % 16 of B, 16 values in 8 VGPRs (two a register, k = 2j,
 *   2j + 1), lanes 16-31 a copy of lanes 0-15 (an error otherwise); D and C:
 *   VGPR r of lane l is element (2r + l / 16, l % 16).
 *   v_mfma_f32_{32x32x8,16x16x16}_{f16,bf16} (gfx9, wave64): M = 32 or 16,
 *   G = 64 / M lane groups; lane l holds A[l % M][4 (l / M) + 0..3] and
 *   B[4 (l / M) + 0..3][l % M] in 2 VGPRs; D and C register r of lane l is
 *   element (4 G (r / 4) + 4 (l / M) + r % 4, l % M).
 * Products are summed in float, in k order (the hardware's order within a
 * k-block is not documented; the sums agree to rounding).
 *
 * Needs kgrt_emu_run.h. Gives kgrt_emu_exec_matrix. */
#include "kgrt_emu_run.h"
#include "kgrt_half.h"

static inline float emu_mma_in(uint32_t h, int bf16) {
  return bf16 ? kgrt_bf16_to_f32((uint16_t)h) : kgrt_f16_to_f32((uint16_t)h);
}

static int emu_wmma(kgrt_emu_ctx_t *c, kgrt_emu_wave_t *w, const kgrt_emu_inst_t *in,
                    int bf16) {
  if (w->W != 32)
    return kgrt_emu_fail(c, "WMMA needs wave32");
  const kgrt_emu_operand_t *D = &in->dst[0], *A = &in->src[0], *B = &in->src[1],
                           *C = &in->src[2];
  if (D->count != 8 || A->count != 8 || B->count != 8 || C->count != 8)
    return kgrt_emu_fail(c, "WMMA operands of the wrong size");
  /* wave32: lanes 16-31 must hold a copy of lanes 0-15's A and B (the ISA
   * guide's layout; the sim reads each half's own copy) */
  for (int j = 0; j < 8; ++j)
    for (int m = 0; m < 2; ++m) {
      kgrt_emu_vsrc_t S;
      kgrt_emu_vsrc(w, m == 0 ? A : B, j, &S);
      for (uint32_t l = 0; l < 16 && S.m != 0; ++l)
        if (S.p[l] != S.p[l + 16])
          return kgrt_emu_fail(c,
                               "WMMA %c operand: lane %u's register %d (0x%08x) is not "
                               "lane %u's (0x%08x): lanes 16-31 must repeat lanes 0-15",
                               m == 0 ? 'A' : 'B', l + 16, j, S.p[l + 16], l, S.p[l]);
    }
  float a[16][16], b[16][16], acc[8][32];
  for (uint32_t l = 0; l < 16; ++l)
    for (int j = 0; j < 8; ++j) {
      kgrt_emu_vsrc_t S;
      kgrt_emu_vsrc(w, A, j, &S);
      a[l][2 * j] = emu_mma_in(S.p[l & S.m], bf16);
      a[l][2 * j + 1] = emu_mma_in(S.p[l & S.m] >> 16, bf16);
      kgrt_emu_vsrc(w, B, j, &S);
      b[2 * j][l] = emu_mma_in(S.p[l & S.m], bf16);
      b[2 * j + 1][l] = emu_mma_in(S.p[l & S.m] >> 16, bf16);
    }
  for (int r = 0; r < 8; ++r) {
    kgrt_emu_vsrc_t S;
    kgrt_emu_vsrc(w, C, r, &S);
    for (uint32_t l = 0; l < 32; ++l) {
      const uint32_t row = 2u * (uint32_t)r + l / 16, col = l % 16;
      float s = kgrt_emu_f(S.p[l & S.m]);
      for (int k = 0; k < 16; ++k)
        s += a[row][k] * b[k][col];
      acc[r][l] = s;
    }
  }
  /* the whole wave writes D, whatever EXEC says */
  for (int r = 0; r < 8; ++r) {
    uint32_t *d = kgrt_emu_vdst(w, D, r);
    for (uint32_t l = 0; l < 32; ++l)
      d[l] = kgrt_emu_u(acc[r][l]);
  }
  return 0;
}

static int emu_mfma(kgrt_emu_ctx_t *c, kgrt_emu_wave_t *w, const kgrt_emu_inst_t *in,
                    int M, int bf16) {
  if (w->W != 64)
    return kgrt_emu_fail(c, "MFMA needs wave64");
  if (in->sign & 0x80)
    return kgrt_emu_fail(c, "MFMA with cbsz, abid or blgp is not emulated");
  const int G = 64 / M, K = 4 * G, R = M * M / 64;
  const kgrt_emu_operand_t *D = &in->dst[0], *A = &in->src[0], *B = &in->src[1],
                           *C = &in->src[2];
  if (D->count != R || A->count != 2 || B->count != 2 ||
      (C->kind != KGRT_EMU_K && C->count != R))
    return kgrt_emu_fail(c, "MFMA operands of the wrong size");
  float a[32][16], b[16][32], acc[16][64];
  for (uint32_t l = 0; l < 64; ++l)
    for (int j = 0; j < 2; ++j) {
      kgrt_emu_vsrc_t S;
      const uint32_t g = l / (uint32_t)M, i = l % (uint32_t)M;
      kgrt_emu_vsrc(w, A, j, &S);
      a[i][4 * g + 2 * j] = emu_mma_in(S.p[l & S.m], bf16);
      a[i][4 * g + 2 * j + 1] = emu_mma_in(S.p[l & S.m] >> 16, bf16);
      kgrt_emu_vsrc(w, B, j, &S);
      b[4 * g + 2 * j][i] = emu_mma_in(S.p[l & S.m], bf16);
      b[4 * g + 2 * j + 1][i] = emu_mma_in(S.p[l & S.m] >> 16, bf16);
    }
  for (int r = 0; r < R; ++r) {
    kgrt_emu_vsrc_t S;
    kgrt_emu_vsrc(w, C, C->kind == KGRT_EMU_K ? 0 : r, &S);
    for (uint32_t l = 0; l < 64; ++l) {
      const uint32_t row = 4u * (uint32_t)G * (uint32_t)(r / 4) + 4u * (l / (uint32_t)M) +
                           (uint32_t)(r % 4);
      const uint32_t col = l % (uint32_t)M;
      float s = kgrt_emu_f(S.p[l & S.m]);
      for (int k = 0; k < K; ++k)
        s += a[row][k] * b[k][col];
      acc[r][l] = s;
    }
  }
  for (int r = 0; r < R; ++r) {
    uint32_t *d = kgrt_emu_vdst(w, D, r);
    for (uint32_t l = 0; l < 64; ++l)
      d[l] = kgrt_emu_u(acc[r][l]);
  }
  return 0;
}

int kgrt_emu_exec_matrix(kgrt_emu_ctx_t *c, kgrt_emu_wave_t *w,
                         const kgrt_emu_inst_t *in) {
  switch (in->opc) {
  case KGRT_EMU_OP_V_WMMA_F32_16X16X16_F16:
    return emu_wmma(c, w, in, 0);
  case KGRT_EMU_OP_V_WMMA_F32_16X16X16_BF16:
    return emu_wmma(c, w, in, 1);
  case KGRT_EMU_OP_V_MFMA_F32_32X32X8_F16:
    return emu_mfma(c, w, in, 32, 0);
  case KGRT_EMU_OP_V_MFMA_F32_32X32X8_BF16:
    return emu_mfma(c, w, in, 32, 1);
  case KGRT_EMU_OP_V_MFMA_F32_16X16X16_F16:
    return emu_mfma(c, w, in, 16, 0);
  case KGRT_EMU_OP_V_MFMA_F32_16X16X16_BF16:
    return emu_mfma(c, w, in, 16, 1);
  default:
    return kgrt_emu_fail(c, "not a matrix operation");
  }
}
