/* kgrt_emu_vfloat.c - the emu's vector float unit: f32 arithmetic and FMA,
 * the transcendental approximations (computed exactly here: the hardware's
 * are within 1 ulp), the division helpers (v_div_scale, v_div_fmas,
 * v_div_fixup), conversions, f16 and packed f16/f32 arithmetic, the mixed
 * f16/f32 FMAs and the dot product, with VOP3's neg/abs source modifiers,
 * clamp (DX10_CLAMP: a NaN clamps to 0) and output modifier, and f32
 * denormals flushed where the descriptor's FLOAT_DENORM_MODE_32 says, as AMD's
 * RDNA3 and CDNA3 ISA guides define them.
 *
 * Needs kgrt_emu_run.h. Gives kgrt_emu_exec_vfloat, kgrt_emu_is_vfloat. */
#include <math.h>

#include "kgrt_emu_run.h"

int kgrt_emu_is_vfloat(int op) {
  return (op >= KGRT_EMU_OP_V_ADD_F32 && op <= KGRT_EMU_OP_V_DOT2ACC_F32_F16);
}

/* f32 denormals to signed zero (the descriptor's FLOAT_DENORM_MODE_32) */
static inline float emu_flush(float x) {
  return (kgrt_emu_u(x) & 0x7f800000u) == 0 ? kgrt_emu_f(kgrt_emu_u(x) & 0x80000000u) : x;
}

static inline float emu_mod(const kgrt_emu_ctx_t *c, float x,
                            const kgrt_emu_operand_t *o) {
  if (c->ftz_in)
    x = emu_flush(x);
  if (o->abs)
    x = fabsf(x);
  if (o->neg)
    x = -x;
  return x;
}

static inline float emu_h(uint32_t bits, int hi) {
  return kgrt_emu_f16_to_f32((uint16_t)(hi ? bits >> 16 : bits));
}

static inline int emu_exp(float x) {
  return (int)((kgrt_emu_u(x) >> 23) & 0xff);
}

static float emu_div_scale(float s0, float s1, float s2, int *vcc) {
  *vcc = 0;
  if (s2 == 0 || s1 == 0)
    return NAN;
  const int e1 = emu_exp(s1), e2 = emu_exp(s2);
  if (e2 - e1 >= 96) {
    *vcc = 1;
    return s0 == s1 ? ldexpf(s0, 64) : s0;
  }
  if (e1 == 0) /* a denormal denominator */
    return ldexpf(s0, 64);
  /* the guide's "1.0 / 64'F(S1.f32) == DENORM.f64": the reciprocal an f32
   * denormal (|S1| > 2^126); then, unless the quotient is one too, both
   * operands are scaled down */
  const float r = 1.0f / s1, q = s2 / s1;
  if (emu_exp(r) == 0 && emu_exp(q) == 0) {
    *vcc = 1;
    return s0 == s1 ? ldexpf(s0, 64) : s0;
  }
  if (emu_exp(r) == 0)
    return ldexpf(s0, -64);
  if (emu_exp(q) == 0) {
    *vcc = 1;
    return s0 == s2 ? ldexpf(s0, 64) : s0;
  }
  if (e2 <= 23)
    return ldexpf(s0, 64);
  return s0;
}

static float emu_div_fixup(float q, float den, float num) {
  const int sign = signbit(den) != signbit(num);
  if (isnan(den))
    return den;
  if (isnan(num))
    return num;
  if ((den == 0 && num == 0) || (isinf(den) && isinf(num)))
    return NAN;
  if (den == 0 || isinf(num))
    return sign ? -INFINITY : INFINITY;
  if (isinf(den) || num == 0)
    return sign ? -0.0f : 0.0f;
  if (isnan(q))
    return sign ? -INFINITY : INFINITY;
  return sign ? -fabsf(q) : fabsf(q);
}

static float emu_rndne(float x) {
  float r = rintf(x); /* the default rounding mode: to nearest even */
  return r;
}

/* The output modifier, clamp (a NaN clamps to 0 in DX10_CLAMP mode, else
 * stays NaN) and the flush of a denormal result. */
static inline float emu_out(const kgrt_emu_ctx_t *c, const kgrt_emu_inst_t *in, float r) {
  if (in->omod_mul)
    r *= in->omod_mul == 1 ? 0.5f : (float)in->omod_mul;
  if (in->clamp)
    r = r != r ? (c->dx10_clamp ? 0.0f : r) : r < 0 ? 0 : r > 1 ? 1 : r;
  return c->ftz_out ? emu_flush(r) : r;
}

/* IEEE max and min: a NaN source gives the other; -0 < +0 */
static inline float emu_max(float a, float b) {
  return isnan(a) ? b : isnan(b) ? a : (a > b || (a == b && !signbit(a))) ? a : b;
}
static inline float emu_min(float a, float b) {
  return isnan(a) ? b : isnan(b) ? a : (a < b || (a == b && signbit(a))) ? a : b;
}

/* f32 results of one lane: X(op, expr) with a, b, d the modified sources. */
static float emu_f32_op(int op, float a, float b, float cc, float dd) {
  switch (op) {
  case KGRT_EMU_OP_V_ADD_F32:
    return a + b;
  case KGRT_EMU_OP_V_SUB_F32:
    return a - b;
  case KGRT_EMU_OP_V_SUBREV_F32:
    return b - a;
  case KGRT_EMU_OP_V_TRUNC_F32:
    return truncf(a);
  case KGRT_EMU_OP_V_MUL_F32:
    return a * b;
  case KGRT_EMU_OP_V_MAX_F32:
    return emu_max(a, b);
  case KGRT_EMU_OP_V_MIN_F32:
    return emu_min(a, b);
  case KGRT_EMU_OP_V_FMAC_F32:
    return fmaf(a, b, dd);
  case KGRT_EMU_OP_V_FMA_F32:
  case KGRT_EMU_OP_V_FMAMK_F32:
  case KGRT_EMU_OP_V_FMAAK_F32:
    return fmaf(a, b, cc);
  case KGRT_EMU_OP_V_EXP_F32:
    return exp2f(a);
  case KGRT_EMU_OP_V_LOG_F32:
    return log2f(a);
  case KGRT_EMU_OP_V_RCP_F32:
  case KGRT_EMU_OP_V_RCP_IFLAG_F32:
    return 1.0f / a;
  case KGRT_EMU_OP_V_RSQ_F32:
    return 1.0f / sqrtf(a);
  case KGRT_EMU_OP_V_SQRT_F32:
    return sqrtf(a);
  case KGRT_EMU_OP_V_SIN_F32: /* the input in revolutions */
    return (float)sin((double)a * 6.283185307179586);
  case KGRT_EMU_OP_V_COS_F32:
    return (float)cos((double)a * 6.283185307179586);
  case KGRT_EMU_OP_V_RNDNE_F32:
    return emu_rndne(a);
  case KGRT_EMU_OP_V_DIV_FIXUP_F32:
    return emu_div_fixup(a, b, cc);
  default:
    return NAN;
  }
}

/* v_fma_mix*: source i as f32, or f16 from the half op_sel picks. */
static inline float emu_mix_src(const kgrt_emu_ctx_t *c, const kgrt_emu_inst_t *in, int i,
                                uint32_t bits) {
  float x =
      (in->op_sel_hi >> i) & 1 ? emu_h(bits, (in->op_sel >> i) & 1) : kgrt_emu_f(bits);
  return emu_mod(c, x, &in->src[i]);
}

static int emu_packed(const kgrt_emu_ctx_t *c, kgrt_emu_wave_t *w,
                      const kgrt_emu_inst_t *in) {
  const uint64_t exec = kgrt_emu_exec_mask(w);
  const int op = in->opc;
  const uint32_t W = w->W;
  if (op == KGRT_EMU_OP_V_PK_MUL_F16 || op == KGRT_EMU_OP_V_PK_ADD_F16 ||
      op == KGRT_EMU_OP_V_PK_MAX_F16) {
    /* each half: op_sel (op_sel_hi) picks source i's half, neg_lo (neg_hi)
     * negates it; a constant is one f16 for both halves */
    kgrt_emu_vsrc_t S[2];
    kgrt_emu_vsrc(w, &in->src[0], 0, &S[0]);
    kgrt_emu_vsrc(w, &in->src[1], 0, &S[1]);
    uint32_t *D = kgrt_emu_vdst(w, &in->dst[0], 0);
    for (uint32_t l = 0; l < W; ++l) {
      if (!((exec >> l) & 1))
        continue;
      float x[2][2]; /* [half][source] */
      for (int i = 0; i < 2; ++i) {
        const uint32_t u = S[i].p[l & S[i].m];
        const int k = in->src[i].kind == KGRT_EMU_K;
        x[0][i] = emu_h(u, !k && ((in->op_sel >> i) & 1));
        x[1][i] = emu_h(u, !k && ((in->op_sel_hi >> i) & 1));
        if ((in->neg_lo >> i) & 1)
          x[0][i] = -x[0][i];
        if ((in->neg_hi >> i) & 1)
          x[1][i] = -x[1][i];
      }
      uint32_t r = 0;
      for (int h = 0; h < 2; ++h) {
        const float a = x[h][0], b = x[h][1];
        float v = op == KGRT_EMU_OP_V_PK_MUL_F16   ? a * b
                  : op == KGRT_EMU_OP_V_PK_ADD_F16 ? a + b
                                                   : emu_max(a, b);
        r |= (uint32_t)kgrt_emu_f32_to_f16(emu_out(c, in, v)) << (16 * h);
      }
      D[l] = r;
    }
    return 0;
  }
  /* v_pk_{fma,add,mul}_f32: register pairs, op_sel picks each source's dword */
  kgrt_emu_vsrc_t S[3][2];
  const int n = in->nsrc;
  for (int i = 0; i < n; ++i)
    for (int h = 0; h < 2; ++h)
      kgrt_emu_vsrc(w, &in->src[i], in->src[i].kind == KGRT_EMU_K ? 0 : h, &S[i][h]);
  uint32_t *D0 = kgrt_emu_vdst(w, &in->dst[0], 0), *D1 = kgrt_emu_vdst(w, &in->dst[0], 1);
  for (uint32_t l = 0; l < W; ++l) {
    if (!((exec >> l) & 1))
      continue;
    float lo[3], hi[3];
    for (int i = 0; i < n; ++i) {
      lo[i] =
          kgrt_emu_f(S[i][(in->op_sel >> i) & 1].p[l & S[i][(in->op_sel >> i) & 1].m]);
      hi[i] = kgrt_emu_f(
          S[i][(in->op_sel_hi >> i) & 1].p[l & S[i][(in->op_sel_hi >> i) & 1].m]);
      if ((in->neg_lo >> i) & 1)
        lo[i] = -lo[i];
      if ((in->neg_hi >> i) & 1)
        hi[i] = -hi[i];
    }
    float rl, rh;
    if (op == KGRT_EMU_OP_V_PK_FMA_F32)
      rl = fmaf(lo[0], lo[1], lo[2]), rh = fmaf(hi[0], hi[1], hi[2]);
    else if (op == KGRT_EMU_OP_V_PK_ADD_F32)
      rl = lo[0] + lo[1], rh = hi[0] + hi[1];
    else
      rl = lo[0] * lo[1], rh = hi[0] * hi[1];
    D0[l] = kgrt_emu_u(emu_out(c, in, rl));
    D1[l] = kgrt_emu_u(emu_out(c, in, rh));
  }
  return 0;
}

int kgrt_emu_exec_vfloat(kgrt_emu_ctx_t *c, kgrt_emu_wave_t *w,
                         const kgrt_emu_inst_t *in) {
  const uint64_t exec = kgrt_emu_exec_mask(w);
  const int op = in->opc;
  const uint32_t W = w->W;
  if (op == KGRT_EMU_OP_V_PK_MUL_F16 || op == KGRT_EMU_OP_V_PK_ADD_F16 ||
      op == KGRT_EMU_OP_V_PK_MAX_F16 || op == KGRT_EMU_OP_V_PK_FMA_F32 ||
      op == KGRT_EMU_OP_V_PK_ADD_F32 || op == KGRT_EMU_OP_V_PK_MUL_F32)
    return emu_packed(c, w, in);
  if (in->ndst < 1)
    return kgrt_emu_fail(c, "unexpected operands");
  kgrt_emu_vsrc_t A, B, C;
  kgrt_emu_vsrc(w, &in->src[0], 0, &A);
  kgrt_emu_vsrc(w, in->nsrc > 1 ? &in->src[1] : &in->src[0], 0, &B);
  kgrt_emu_vsrc(w, in->nsrc > 2 ? &in->src[2] : &in->src[0], 0, &C);
  uint32_t *D = kgrt_emu_vdst(w, &in->dst[0], 0);
  const kgrt_emu_operand_t *o0 = &in->src[0], *o1 = &in->src[1], *o2 = &in->src[2];
  const int plain = !o0->neg && !o0->abs && !o1->neg && !o1->abs && !o2->neg &&
                    !o2->abs && !in->clamp && !in->omod_mul && !in->sdwa && !c->ftz_in &&
                    !c->ftz_out;
  /* the hot f32 forms without modifiers */
  if (plain && (op == KGRT_EMU_OP_V_ADD_F32 || op == KGRT_EMU_OP_V_MUL_F32 ||
                op == KGRT_EMU_OP_V_FMAC_F32 || op == KGRT_EMU_OP_V_FMA_F32 ||
                op == KGRT_EMU_OP_V_SUB_F32)) {
    for (uint32_t l = 0; l < W; ++l) {
      if (!((exec >> l) & 1))
        continue;
      const float a = kgrt_emu_f(A.p[l & A.m]), b = kgrt_emu_f(B.p[l & B.m]);
      float r = op == KGRT_EMU_OP_V_ADD_F32    ? a + b
                : op == KGRT_EMU_OP_V_MUL_F32  ? a * b
                : op == KGRT_EMU_OP_V_SUB_F32  ? a - b
                : op == KGRT_EMU_OP_V_FMAC_F32 ? fmaf(a, b, kgrt_emu_f(D[l]))
                                               : fmaf(a, b, kgrt_emu_f(C.p[l & C.m]));
      D[l] = kgrt_emu_u(r);
    }
    return 0;
  }
  if (op == KGRT_EMU_OP_V_DIV_SCALE_F32) {
    uint64_t vcc = 0;
    for (uint32_t l = 0; l < W; ++l) {
      if (!((exec >> l) & 1))
        continue;
      int v;
      D[l] = kgrt_emu_u(emu_div_scale(emu_mod(c, kgrt_emu_f(A.p[l & A.m]), o0),
                                      emu_mod(c, kgrt_emu_f(B.p[l & B.m]), o1),
                                      emu_mod(c, kgrt_emu_f(C.p[l & C.m]), o2), &v));
      vcc |= (uint64_t)v << l;
    }
    kgrt_emu_sw64(w, &in->dst[1], vcc);
    return 0;
  }
  const uint64_t vcc =
      w->W == 64 ? (uint64_t)w->s[106] | (uint64_t)w->s[107] << 32 : w->s[106];
  for (uint32_t l = 0; l < W; ++l) {
    if (!((exec >> l) & 1))
      continue;
    const uint32_t ua = A.p[l & A.m], ub = B.p[l & B.m], uc = C.p[l & C.m];
    switch (op) {
    case KGRT_EMU_OP_V_DIV_FMAS_F32: {
      float r = fmaf(emu_mod(c, kgrt_emu_f(ua), o0), emu_mod(c, kgrt_emu_f(ub), o1),
                     emu_mod(c, kgrt_emu_f(uc), o2));
      if ((vcc >> l) & 1)
        r = ldexpf(r, emu_exp(kgrt_emu_f(uc)) > 127 ? 64 : -64);
      D[l] = kgrt_emu_u(emu_out(c, in, r));
      break;
    }
    case KGRT_EMU_OP_V_LDEXP_F32:
      D[l] =
          kgrt_emu_u(emu_out(c, in, ldexpf(emu_mod(c, kgrt_emu_f(ua), o0), (int32_t)ub)));
      break;
    case KGRT_EMU_OP_V_CVT_F32_F16: {
      uint32_t x = ua;
      int hi = in->op_sel & 1;
      if (in->sdwa)
        hi = in->src_sel[0] == KGRT_EMU_SEL_WORD1;
      D[l] = kgrt_emu_u(emu_out(c, in, emu_mod(c, emu_h(x, hi), o0)));
      break;
    }
    case KGRT_EMU_OP_V_CVT_F16_F32: {
      const uint32_t h =
          kgrt_emu_f32_to_f16(emu_out(c, in, emu_mod(c, kgrt_emu_f(ua), o0)));
      if (in->op_sel & 8) /* the high half */
        D[l] = (D[l] & 0xffff) | h << 16;
      else
        D[l] = c->gfx9 ? h : (D[l] & 0xffff0000u) | h;
      break;
    }
    case KGRT_EMU_OP_V_CVT_F32_I32: {
      uint32_t x = ua;
      if (in->sdwa && in->src_sel[0] >= KGRT_EMU_SEL_BYTE0) /* selected, sign-extended */
        x = in->src_sel[0] >= KGRT_EMU_SEL_WORD0
                ? (uint32_t)(int32_t)(int16_t)(x >> (in->src_sel[0] == KGRT_EMU_SEL_WORD1
                                                         ? 16
                                                         : 0))
                : (uint32_t)(int32_t)(int8_t)(x >> (8 * (in->src_sel[0] -
                                                         KGRT_EMU_SEL_BYTE0)));
      D[l] = kgrt_emu_u((float)(int32_t)x);
      break;
    }
    case KGRT_EMU_OP_V_CVT_F32_U32:
      D[l] = kgrt_emu_u((float)ua);
      break;
    case KGRT_EMU_OP_V_CVT_I32_F32: {
      const float f = emu_mod(c, kgrt_emu_f(ua), o0);
      D[l] = isnan(f)              ? 0
             : f >= 2147483647.0f  ? 0x7fffffffu
             : f <= -2147483648.0f ? 0x80000000u
                                   : (uint32_t)(int32_t)f;
      break;
    }
    case KGRT_EMU_OP_V_CVT_U32_F32: {
      const float f = emu_mod(c, kgrt_emu_f(ua), o0);
      D[l] = isnan(f) || f <= 0 ? 0 : f >= 4294967295.0f ? 0xffffffffu : (uint32_t)f;
      break;
    }
    case KGRT_EMU_OP_V_CVT_F32_UBYTE0:
      D[l] = kgrt_emu_u((float)(ua & 0xff));
      break;
    case KGRT_EMU_OP_V_CVT_F32_UBYTE2:
      D[l] = kgrt_emu_u((float)((ua >> 16) & 0xff));
      break;
    case KGRT_EMU_OP_V_PACK_B32_F16: {
      const float lo = emu_mod(c, emu_h(ua, in->op_sel & 1), o0);
      const float hi = emu_mod(c, emu_h(ub, (in->op_sel >> 1) & 1), o1);
      D[l] = (uint32_t)kgrt_emu_f32_to_f16(lo) | (uint32_t)kgrt_emu_f32_to_f16(hi) << 16;
      break;
    }
    case KGRT_EMU_OP_V_MUL_F16:
    case KGRT_EMU_OP_V_ADD_F16:
    case KGRT_EMU_OP_V_SUB_F16:
    case KGRT_EMU_OP_V_MAX_F16:
    case KGRT_EMU_OP_V_RCP_F16:
    case KGRT_EMU_OP_V_DIV_FIXUP_F16: {
      /* f16 sources (op_sel, or SDWA's WORD_1, picks the high half), computed
       * in f32: one rounding to f16 is then exact for + - * (24 >= 2 * 11 + 2) */
      const int s0hi = in->sdwa ? in->src_sel[0] == KGRT_EMU_SEL_WORD1 : in->op_sel & 1;
      const int s1hi =
          in->sdwa ? in->src_sel[1] == KGRT_EMU_SEL_WORD1 : (in->op_sel >> 1) & 1;
      const float a = emu_mod(c, emu_h(ua, s0hi), o0),
                  b = emu_mod(c, emu_h(ub, s1hi), o1);
      float r;
      switch (op) {
      case KGRT_EMU_OP_V_MUL_F16:
        r = a * b;
        break;
      case KGRT_EMU_OP_V_ADD_F16:
        r = a + b;
        break;
      case KGRT_EMU_OP_V_SUB_F16:
        r = a - b;
        break;
      case KGRT_EMU_OP_V_MAX_F16:
        r = emu_max(a, b);
        break;
      case KGRT_EMU_OP_V_RCP_F16:
        r = 1.0f / a;
        break;
      default:
        r = emu_div_fixup(a, b, emu_mod(c, emu_h(uc, (in->op_sel >> 2) & 1), o2));
        break;
      }
      const uint32_t h = kgrt_emu_f32_to_f16(emu_out(c, in, r));
      D[l] = in->op_sel & 8 ? (D[l] & 0xffff) | h << 16
             : c->gfx9      ? h
                            : (D[l] & 0xffff0000u) | h;
      break;
    }
    case KGRT_EMU_OP_V_FMA_MIX_F32:
    case KGRT_EMU_OP_V_FMA_MIXLO_F16:
    case KGRT_EMU_OP_V_FMA_MIXHI_F16: {
      const double r = (double)emu_mix_src(c, in, 0, ua) * emu_mix_src(c, in, 1, ub) +
                       (double)emu_mix_src(c, in, 2, uc);
      if (op == KGRT_EMU_OP_V_FMA_MIX_F32) {
        D[l] = kgrt_emu_u(emu_out(c, in, (float)r));
      } else {
        /* one rounding, to f16 (through f32 only when that is exact enough) */
        const uint32_t h = kgrt_emu_f32_to_f16(emu_out(c, in, (float)r));
        D[l] = op == KGRT_EMU_OP_V_FMA_MIXLO_F16 ? (D[l] & 0xffff0000u) | h
                                                 : (D[l] & 0xffff) | h << 16;
      }
      break;
    }
    case KGRT_EMU_OP_V_DOT2ACC_F32_F16: {
      const double r = (double)emu_h(ua, 0) * emu_h(ub, 0) +
                       (double)emu_h(ua, 1) * emu_h(ub, 1) + (double)kgrt_emu_f(D[l]);
      D[l] = kgrt_emu_u((float)r);
      break;
    }
    default: {
      const float a = emu_mod(c, kgrt_emu_f(ua), o0), b = emu_mod(c, kgrt_emu_f(ub), o1);
      const float cc = emu_mod(c, kgrt_emu_f(uc), o2);
      const float dd = c->ftz_in ? emu_flush(kgrt_emu_f(D[l])) : kgrt_emu_f(D[l]);
      D[l] = kgrt_emu_u(emu_out(c, in, emu_f32_op(op, a, b, cc, dd)));
      break;
    }
    }
  }
  return 0;
}
