/* kgrt_emu_valu.c - the emu's vector integer unit: moves, logic, shifts,
 * integer add/sub/mul (24-bit forms included), carries into VCC or an SGPR
 * pair, v_cmp/v_cmpx of every type (floats with IEEE unordered rules), lane
 * reads and writes, and gfx9's SDWA byte and word selects, as AMD's RDNA3 and
 * CDNA3 ISA guides define them. Lanes outside EXEC keep their registers;
 * their bits of a written lane mask are 0.
 *
 * Needs kgrt_emu_run.h. Gives kgrt_emu_exec_valu. */
#include <math.h>

#include "kgrt_emu_run.h"

static inline uint32_t emu_sext24(uint32_t x) {
  return (uint32_t)((int32_t)(x << 8) >> 8);
}

static inline uint32_t emu_min(int32_t a, int32_t b) {
  return (uint32_t)(a < b ? a : b);
}
static inline uint32_t emu_max(int32_t a, int32_t b) {
  return (uint32_t)(a > b ? a : b);
}
static inline uint32_t emu_med3(int32_t a, int32_t b, int32_t c) {
  const int32_t lo = a < b ? a : b, hi = a < b ? b : a;
  return (uint32_t)(c < lo ? lo : c > hi ? hi : c);
}

static inline uint32_t emu_brev(uint32_t a) {
  uint32_t r = 0;
  for (int i = 0; i < 32; ++i)
    r |= ((a >> i) & 1u) << (31 - i);
  return r;
}

static inline uint32_t emu_perm(uint32_t a, uint32_t b, uint32_t sel) {
  const uint64_t v = (uint64_t)a << 32 | b;
  uint32_t r = 0;
  for (int i = 0; i < 4; ++i) {
    const uint32_t s = (sel >> (8 * i)) & 0xff;
    uint32_t byte;
    if (s < 8)
      byte = (uint32_t)(v >> (8 * s)) & 0xff;
    else if (s < 12) { /* the sign of byte 1, 3, 5 or 7, spread */
      static const int bit[4] = {15, 31, 47, 63};
      byte = (v >> bit[s - 8]) & 1 ? 0xff : 0;
    } else
      byte = s == 12 ? 0 : 0xff;
    r |= byte << (8 * i);
  }
  return r;
}

static inline uint32_t emu_bfe_u(uint32_t a, uint32_t off, uint32_t w) {
  off &= 31, w &= 31;
  return w == 0 ? 0 : (a >> off) & ((1u << w) - 1);
}
static inline uint32_t emu_bfe_i(uint32_t a, uint32_t off, uint32_t w) {
  off &= 31, w &= 31;
  if (w == 0)
    return 0;
  uint32_t v = (a >> off) & ((1u << w) - 1);
  return (uint32_t)((int32_t)(v << (32 - w)) >> (32 - w));
}

/* Every 32-bit integer operation of sources a, b, c (and lane l): X(op, expr). */
#define EMU_INT_OPS(X)                                                                   \
  X(V_MOV_B32, a)                                                                        \
  X(V_ACCVGPR_READ_B32, a)                                                               \
  X(V_ACCVGPR_WRITE_B32, a)                                                              \
  X(V_AND_B32, a &b)                                                                     \
  X(V_OR_B32, a | b)                                                                     \
  X(V_XOR_B32, a ^ b)                                                                    \
  X(V_NOT_B32, ~a)                                                                       \
  X(V_BFREV_B32, emu_brev(a))                                                            \
  X(V_AND_OR_B32, (a & b) | c)                                                           \
  X(V_OR3_B32, a | b | c)                                                                \
  X(V_LSHLREV_B32, b << (a & 31))                                                        \
  X(V_LSHRREV_B32, b >> (a & 31))                                                        \
  X(V_ASHRREV_I32, (uint32_t)((int32_t)b >> (a & 31)))                                   \
  X(V_LSHLREV_B16, ((b & 0xffff) << (a & 15)) & 0xffff)                                  \
  X(V_LSHRREV_B16, (b & 0xffff) >> (a & 15))                                             \
  X(V_ASHRREV_I16, (uint32_t)((int16_t)b >> (a & 15)) & 0xffff)                          \
  X(V_LSHL_ADD_U32, (a << (b & 31)) + c)                                                 \
  X(V_LSHL_OR_B32, (a << (b & 31)) | c)                                                  \
  X(V_ADD_LSHL_U32, (a + b) << (c & 31))                                                 \
  X(V_ADD3_U32, a + b + c)                                                               \
  X(V_XAD_U32, (a ^ b) + c)                                                              \
  X(V_BFE_U32, emu_bfe_u(a, b, c))                                                       \
  X(V_BFE_I32, emu_bfe_i(a, b, c))                                                       \
  X(V_PERM_B32, emu_perm(a, b, c))                                                       \
  X(V_ALIGNBIT_B32, (uint32_t)((((uint64_t)a << 32) | b) >> (c & 31)))                   \
  X(V_BFI_B32, (a & b) | (~a & c))                                                       \
  X(V_MAX_U16, (a & 0xffff) > (b & 0xffff) ? a & 0xffff : b & 0xffff)                    \
  X(V_MIN_U16, (a & 0xffff) < (b & 0xffff) ? a & 0xffff : b & 0xffff)                    \
  X(V_MAX_I16, (uint32_t)((int16_t)a > (int16_t)b ? a : b) & 0xffff)                     \
  X(V_MIN_I16, (uint32_t)((int16_t)a < (int16_t)b ? a : b) & 0xffff)                     \
  X(V_ADD_NC_U32, a + b)                                                                 \
  X(V_SUB_NC_U32, a - b)                                                                 \
  X(V_SUBREV_NC_U32, b - a)                                                              \
  X(V_ADD_NC_U16, (a + b) & 0xffff)                                                      \
  X(V_SUB_NC_U16, (a - b) & 0xffff)                                                      \
  X(V_SUBREV_NC_U16, (b - a) & 0xffff)                                                   \
  X(V_MUL_LO_U16, (a * b) & 0xffff)                                                      \
  X(V_MIN_I32, (int32_t)a < (int32_t)b ? a : b)                                          \
  X(V_MAX_I32, (int32_t)a > (int32_t)b ? a : b)                                          \
  X(V_MIN_U32, a < b ? a : b)                                                            \
  X(V_MAX_U32, a > b ? a : b)                                                            \
  X(V_MUL_LO_U32, a *b)                                                                  \
  X(V_MUL_HI_U32, (uint32_t)(((uint64_t)a * b) >> 32))                                   \
  X(V_MUL_U32_U24, (a & 0xffffff) * (b & 0xffffff))                                      \
  X(V_MUL_HI_U32_U24, (uint32_t)(((uint64_t)(a & 0xffffff) * (b & 0xffffff)) >> 32))     \
  X(V_MUL_I32_I24, emu_sext24(a) * emu_sext24(b))                                        \
  X(V_MUL_HI_I32_I24,                                                                    \
    (uint32_t)((uint64_t)((int64_t)(int32_t)emu_sext24(a) * (int32_t)emu_sext24(b)) >>   \
               32))                                                                      \
  X(V_MAD_U32_U24, (a & 0xffffff) * (b & 0xffffff) + c)                                  \
  X(V_MAD_I32_I24, emu_sext24(a) * emu_sext24(b) + c)                                    \
  X(V_MBCNT_LO_U32_B32,                                                                  \
    (uint32_t)__builtin_popcount(a &((1ull << (l & 31)) - 1)) * (l < 32) +               \
        (l >= 32 ? (uint32_t)__builtin_popcount(a) : 0) + b)                             \
  X(V_MED3_I32, emu_med3((int32_t)a, (int32_t)b, (int32_t)c))                            \
  X(V_MINMAX_I32, emu_max((int32_t)(emu_min((int32_t)a, (int32_t)b)), (int32_t)c))       \
  X(V_XOR3_B32, a ^ b ^ c)                                                               \
  X(V_MAD_U16, ((a & 0xffff) * (b & 0xffff) + c) & 0xffff)                               \
  X(V_MUL_HI_I32, (uint32_t)((uint64_t)((int64_t)(int32_t)a * (int32_t)b) >> 32))        \
  X(V_MBCNT_HI_U32_B32,                                                                  \
    (l >= 32 ? (uint32_t)__builtin_popcount(a & ((1ull << (l - 32)) - 1)) : 0) + b)

/* A 16-bit result's upper half: gfx11 keeps the register's, gfx9 writes 0. */
static int emu_is16(int op) {
  return op == KGRT_EMU_OP_V_LSHLREV_B16 || op == KGRT_EMU_OP_V_LSHRREV_B16 ||
         op == KGRT_EMU_OP_V_ASHRREV_I16 || op == KGRT_EMU_OP_V_ADD_NC_U16 ||
         op == KGRT_EMU_OP_V_SUB_NC_U16 || op == KGRT_EMU_OP_V_SUBREV_NC_U16 ||
         op == KGRT_EMU_OP_V_MUL_LO_U16 || op == KGRT_EMU_OP_V_MAD_U16 ||
         op == KGRT_EMU_OP_V_MAX_U16 || op == KGRT_EMU_OP_V_MIN_U16 ||
         op == KGRT_EMU_OP_V_MAX_I16 || op == KGRT_EMU_OP_V_MIN_I16;
}

static uint32_t emu_int_scalar(int op, uint32_t a, uint32_t b, uint32_t c, uint32_t l) {
  switch (op) {
#define EMU_SCALAR(e, expr)                                                              \
  case KGRT_EMU_OP_##e:                                                                  \
    return (expr);
    EMU_INT_OPS(EMU_SCALAR)
#undef EMU_SCALAR
  default:
    return 0;
  }
}

/* SDWA: a source's selected byte or word, zero- or (sext()) sign-extended. */
static inline uint32_t emu_sdwa_src(uint32_t v, int sel, int sext) {
  switch (sel) {
  case KGRT_EMU_SEL_BYTE0:
  case KGRT_EMU_SEL_BYTE1:
  case KGRT_EMU_SEL_BYTE2:
  case KGRT_EMU_SEL_BYTE3:
    v = (v >> (8 * (sel - KGRT_EMU_SEL_BYTE0))) & 0xff;
    return sext ? (uint32_t)(int32_t)(int8_t)v : v;
  case KGRT_EMU_SEL_WORD0:
  case KGRT_EMU_SEL_WORD1:
    v = sel == KGRT_EMU_SEL_WORD0 ? v & 0xffff : v >> 16;
    return sext ? (uint32_t)(int32_t)(int16_t)v : v;
  default:
    return v;
  }
}
/* SDWA: the result placed in the destination's selected part. */
static inline uint32_t emu_sdwa_dst(uint32_t old, uint32_t r, int sel, int unused) {
  uint32_t shift = 0, mask = 0xffffffff;
  if (sel >= KGRT_EMU_SEL_BYTE0 && sel <= KGRT_EMU_SEL_BYTE3)
    shift = 8u * (uint32_t)(sel - KGRT_EMU_SEL_BYTE0), mask = 0xff;
  else if (sel == KGRT_EMU_SEL_WORD0 || sel == KGRT_EMU_SEL_WORD1)
    shift = sel == KGRT_EMU_SEL_WORD1 ? 16 : 0, mask = 0xffff;
  if (mask == 0xffffffff)
    return r;
  const uint32_t part = (r & mask) << shift;
  if (unused == 2) /* UNUSED_PRESERVE */
    return (old & ~(mask << shift)) | part;
  if (unused == 1 && ((r >> (mask == 0xff ? 7 : 15)) & 1)) /* UNUSED_SEXT */
    return part | (shift + (mask == 0xff ? 8 : 16) < 32
                       ? ~0u << (shift + (mask == 0xff ? 8 : 16))
                       : 0);
  return part;
}

static int emu_fcmp(int cond, double a, double b) {
  const int un = isnan(a) || isnan(b);
  switch (cond) {
  case KGRT_EMU_CMP_F:
    return 0;
  case KGRT_EMU_CMP_T:
    return 1;
  case KGRT_EMU_CMP_LT:
    return a < b;
  case KGRT_EMU_CMP_EQ:
    return a == b;
  case KGRT_EMU_CMP_LE:
    return a <= b;
  case KGRT_EMU_CMP_GT:
    return a > b;
  case KGRT_EMU_CMP_LG:
    return a < b || a > b;
  case KGRT_EMU_CMP_GE:
    return a >= b;
  case KGRT_EMU_CMP_O:
    return !un;
  case KGRT_EMU_CMP_U:
    return un;
  case KGRT_EMU_CMP_NGE:
    return !(a >= b);
  case KGRT_EMU_CMP_NLG:
    return !(a < b || a > b);
  case KGRT_EMU_CMP_NGT:
    return !(a > b);
  case KGRT_EMU_CMP_NLE:
    return !(a <= b);
  case KGRT_EMU_CMP_NEQ:
  case KGRT_EMU_CMP_NE:
    return !(a == b);
  case KGRT_EMU_CMP_NLT:
    return !(a < b);
  default:
    return 0;
  }
}

static int emu_icmp(int cond, int64_t sa, int64_t sb, uint64_t ua, uint64_t ub, int sgn) {
  switch (cond) {
  case KGRT_EMU_CMP_F:
    return 0;
  case KGRT_EMU_CMP_T:
    return 1;
  case KGRT_EMU_CMP_LT:
    return sgn ? sa < sb : ua < ub;
  case KGRT_EMU_CMP_EQ:
    return ua == ub;
  case KGRT_EMU_CMP_LE:
    return sgn ? sa <= sb : ua <= ub;
  case KGRT_EMU_CMP_GT:
    return sgn ? sa > sb : ua > ub;
  case KGRT_EMU_CMP_NE:
  case KGRT_EMU_CMP_LG:
    return ua != ub;
  case KGRT_EMU_CMP_GE:
    return sgn ? sa >= sb : ua >= ub;
  default:
    return 0;
  }
}

static double emu_fsrc(uint32_t bits, int type, const kgrt_emu_operand_t *o) {
  double x = type == KGRT_EMU_T_F16 ? kgrt_emu_f16_to_f32((uint16_t)bits)
                                    : (double)kgrt_emu_f(bits);
  if (o->abs)
    x = fabs(x);
  if (o->neg)
    x = -x;
  return x;
}

static int emu_class(uint32_t u, uint32_t mask) {
  const float f = kgrt_emu_f(u);
  const int neg = u >> 31;
  int bit;
  if (isnan(f))
    bit = (u & 0x400000) ? 1 : 0;
  else if (isinf(f))
    bit = neg ? 2 : 9;
  else if (f == 0)
    bit = neg ? 5 : 6;
  else if ((u & 0x7f800000) == 0)
    bit = neg ? 4 : 7;
  else
    bit = neg ? 3 : 8;
  return (mask >> bit) & 1;
}

/* The lanes' comparison results of rows a, b as type T under condition OP,
 * a byte a lane (vectorized), into m. */
#define EMU_CMP_ROWS(T, OP) KGRT_EMU_LANES(W, m[l] = (T)a[l] OP(T) b[l])

/* W bytes of 0 or 1 into a lane mask: eight at a time, by a multiply that
 * gathers each byte's low bit into the top byte. */
static inline uint64_t emu_pack_bits(const uint8_t *m, uint32_t W) {
  uint64_t bits = 0;
  for (uint32_t i = 0; i < W / 8; ++i) {
    uint64_t x;
    memcpy(&x, m + 8 * i, 8);
    bits |= ((x * 0x0102040810204080ull) >> 56) << (8 * i);
  }
  return bits;
}

/* The common comparisons without modifiers, lane by lane without a call:
 * 1 when done, 0 when the general path must run. */
static int emu_vcmp_fast(kgrt_emu_wave_t *w, const kgrt_emu_inst_t *in, uint64_t *out) {
  const int t = in->type;
  if (in->sdwa || in->src[0].neg || in->src[0].abs || in->src[1].neg || in->src[1].abs)
    return 0;
  const uint32_t W = w->W;
  uint32_t ba[64], bb[64];
  uint8_t m[64];
  if (t == KGRT_EMU_T_I32 || t == KGRT_EMU_T_U32 || t == KGRT_EMU_T_B32) {
    const uint32_t *a = kgrt_emu_row(w, &in->src[0], 0, ba);
    const uint32_t *b = kgrt_emu_row(w, &in->src[1], 0, bb);
    const int sg = t == KGRT_EMU_T_I32;
    switch (in->cmp) {
    case KGRT_EMU_CMP_EQ:
      EMU_CMP_ROWS(uint32_t, ==);
      break;
    case KGRT_EMU_CMP_NE:
    case KGRT_EMU_CMP_LG:
      EMU_CMP_ROWS(uint32_t, !=);
      break;
    case KGRT_EMU_CMP_LT:
      if (sg)
        EMU_CMP_ROWS(int32_t, <);
      else
        EMU_CMP_ROWS(uint32_t, <);
      break;
    case KGRT_EMU_CMP_LE:
      if (sg)
        EMU_CMP_ROWS(int32_t, <=);
      else
        EMU_CMP_ROWS(uint32_t, <=);
      break;
    case KGRT_EMU_CMP_GT:
      if (sg)
        EMU_CMP_ROWS(int32_t, >);
      else
        EMU_CMP_ROWS(uint32_t, >);
      break;
    case KGRT_EMU_CMP_GE:
      if (sg)
        EMU_CMP_ROWS(int32_t, >=);
      else
        EMU_CMP_ROWS(uint32_t, >=);
      break;
    default:
      return 0;
    }
  } else if (t == KGRT_EMU_T_F32) {
    const float *a = (const float *)(const void *)kgrt_emu_row(w, &in->src[0], 0, ba);
    const float *b = (const float *)(const void *)kgrt_emu_row(w, &in->src[1], 0, bb);
    switch (in->cmp) { /* IEEE: an unordered pair is false, its negation true */
    case KGRT_EMU_CMP_EQ:
      EMU_CMP_ROWS(float, ==);
      break;
    case KGRT_EMU_CMP_NEQ:
      EMU_CMP_ROWS(float, !=);
      break;
    case KGRT_EMU_CMP_LT:
      EMU_CMP_ROWS(float, <);
      break;
    case KGRT_EMU_CMP_LE:
      EMU_CMP_ROWS(float, <=);
      break;
    case KGRT_EMU_CMP_GT:
      EMU_CMP_ROWS(float, >);
      break;
    case KGRT_EMU_CMP_GE:
      EMU_CMP_ROWS(float, >=);
      break;
    default:
      return 0;
    }
  } else if ((t == KGRT_EMU_T_I64 || t == KGRT_EMU_T_U64) &&
             in->src[0].kind != KGRT_EMU_K && in->src[1].kind != KGRT_EMU_K) {
    uint32_t ca[64], cb[64];
    const uint32_t *alo = kgrt_emu_row(w, &in->src[0], 0, ba);
    const uint32_t *ahi = kgrt_emu_row(w, &in->src[0], 1, ca);
    const uint32_t *blo = kgrt_emu_row(w, &in->src[1], 0, bb);
    const uint32_t *bhi = kgrt_emu_row(w, &in->src[1], 1, cb);
    uint64_t a[64], b[64];
    const int sg = t == KGRT_EMU_T_I64;
    KGRT_EMU_LANES(W, a[l] = (uint64_t)ahi[l] << 32 | alo[l]);
    KGRT_EMU_LANES(W, b[l] = (uint64_t)bhi[l] << 32 | blo[l]);
    switch (in->cmp) {
    case KGRT_EMU_CMP_EQ:
      EMU_CMP_ROWS(uint64_t, ==);
      break;
    case KGRT_EMU_CMP_NE:
    case KGRT_EMU_CMP_LG:
      EMU_CMP_ROWS(uint64_t, !=);
      break;
    case KGRT_EMU_CMP_LT:
      if (sg)
        EMU_CMP_ROWS(int64_t, <);
      else
        EMU_CMP_ROWS(uint64_t, <);
      break;
    case KGRT_EMU_CMP_LE:
      if (sg)
        EMU_CMP_ROWS(int64_t, <=);
      else
        EMU_CMP_ROWS(uint64_t, <=);
      break;
    case KGRT_EMU_CMP_GT:
      if (sg)
        EMU_CMP_ROWS(int64_t, >);
      else
        EMU_CMP_ROWS(uint64_t, >);
      break;
    case KGRT_EMU_CMP_GE:
      if (sg)
        EMU_CMP_ROWS(int64_t, >=);
      else
        EMU_CMP_ROWS(uint64_t, >=);
      break;
    default:
      return 0;
    }
  } else {
    return 0;
  }
  *out = emu_pack_bits(m, W);
  return 1;
}

static int emu_vcmp(kgrt_emu_ctx_t *c, kgrt_emu_wave_t *w, const kgrt_emu_inst_t *in) {
  (void)c;
  const uint64_t exec = kgrt_emu_exec_mask(w);
  const int t = in->type, wide = t == KGRT_EMU_T_I64 || t == KGRT_EMU_T_U64;
  uint64_t r = 0;
  if (in->opc == KGRT_EMU_OP_V_CMP && emu_vcmp_fast(w, in, &r)) {
    r &= exec;
  } else {
    kgrt_emu_vsrc_t A, B;
    kgrt_emu_vsrc(w, &in->src[0], 0, &A);
    kgrt_emu_vsrc(w, &in->src[1], 0, &B);
    for (uint32_t l = 0; l < w->W; ++l) {
      if (!((exec >> l) & 1))
        continue;
      uint32_t a = A.p[l & A.m], b = B.p[l & B.m];
      if (in->sdwa)
        a = emu_sdwa_src(a, in->src_sel[0], in->src[0].sext),
        b = emu_sdwa_src(b, in->src_sel[1], in->src[1].sext);
      int bit;
      if (in->opc == KGRT_EMU_OP_V_CMP_CLASS_F32)
        bit = emu_class(kgrt_emu_u((float)emu_fsrc(a, KGRT_EMU_T_F32, &in->src[0])), b);
      else if (t == KGRT_EMU_T_F32 || t == KGRT_EMU_T_F16)
        bit = emu_fcmp(in->cmp, emu_fsrc(a, t, &in->src[0]), emu_fsrc(b, t, &in->src[1]));
      else if (wide) {
        const uint64_t ua = kgrt_emu_v64(w, &in->src[0], l),
                       ub = kgrt_emu_v64(w, &in->src[1], l);
        bit = emu_icmp(in->cmp, (int64_t)ua, (int64_t)ub, ua, ub, t == KGRT_EMU_T_I64);
      } else if (t == KGRT_EMU_T_I16 || t == KGRT_EMU_T_U16) {
        bit = emu_icmp(in->cmp, (int16_t)a, (int16_t)b, a & 0xffff, b & 0xffff,
                       t == KGRT_EMU_T_I16);
      } else {
        bit = emu_icmp(in->cmp, (int32_t)a, (int32_t)b, a, b, t == KGRT_EMU_T_I32);
      }
      r |= (uint64_t)bit << l;
    }
  }
  if (in->cmpx)
    kgrt_emu_set_exec(w, r);
  if (in->ndst > 0)
    kgrt_emu_sw64(w, &in->dst[0], r);
  return 0;
}

/* Carry-out operations: dst[0] the sum, dst[1] the lane mask of carries
 * (lanes outside EXEC: 0). */
static int emu_carry(kgrt_emu_wave_t *w, const kgrt_emu_inst_t *in) {
  const uint64_t exec = kgrt_emu_exec_mask(w);
  const uint32_t W = w->W;
  uint32_t ba[64], bb[64], r[64];
  const uint32_t *a = kgrt_emu_row(w, &in->src[0], 0, ba);
  const uint32_t *b = kgrt_emu_row(w, &in->src[1], 0, bb);
  const uint64_t cin = in->nsrc > 2 ? kgrt_emu_mask(w, &in->src[2]) : 0;
  uint64_t co = 0;
  switch (in->opc) {
  case KGRT_EMU_OP_V_ADD_CO_U32:
  case KGRT_EMU_OP_V_ADD_CO_CI_U32:
    KGRT_EMU_LANES(W, {
      const uint64_t x = (uint64_t)a[l] + b[l] + ((cin >> l) & 1);
      r[l] = (uint32_t)x;
      co |= (x >> 32) << l;
    });
    break;
  case KGRT_EMU_OP_V_SUB_CO_U32:
  case KGRT_EMU_OP_V_SUB_CO_CI_U32:
    KGRT_EMU_LANES(W, {
      const uint64_t ci = (cin >> l) & 1;
      r[l] = (uint32_t)(a[l] - b[l] - ci);
      co |= (uint64_t)(b[l] + ci > a[l]) << l;
    });
    break;
  default: /* the reversed subtractions */
    KGRT_EMU_LANES(W, {
      const uint64_t ci = (cin >> l) & 1;
      r[l] = (uint32_t)(b[l] - a[l] - ci);
      co |= (uint64_t)(a[l] + ci > b[l]) << l;
    });
    break;
  }
  kgrt_emu_put(kgrt_emu_vdst(w, &in->dst[0], 0), r, exec, W);
  kgrt_emu_sw64(w, &in->dst[1], co & exec);
  return 0;
}

static int emu_mad64(kgrt_emu_wave_t *w, const kgrt_emu_inst_t *in) {
  const uint64_t exec = kgrt_emu_exec_mask(w);
  kgrt_emu_vsrc_t A, B;
  kgrt_emu_vsrc(w, &in->src[0], 0, &A);
  kgrt_emu_vsrc(w, &in->src[1], 0, &B);
  uint32_t *D0 = kgrt_emu_vdst(w, &in->dst[0], 0), *D1 = kgrt_emu_vdst(w, &in->dst[0], 1);
  uint64_t co = 0;
  for (uint32_t l = 0; l < w->W; ++l) {
    if (!((exec >> l) & 1))
      continue;
    const uint32_t a = A.p[l & A.m], b = B.p[l & B.m];
    const uint64_t cc = kgrt_emu_v64(w, &in->src[2], l);
    uint64_t r;
    int cout;
    if (in->opc == KGRT_EMU_OP_V_MAD_U64_U32) {
      const unsigned __int128 x = (unsigned __int128)((uint64_t)a * b) + cc;
      r = (uint64_t)x;
      cout = (x >> 64) != 0;
    } else {
      const __int128 x = (__int128)((int64_t)(int32_t)a * (int32_t)b) + (int64_t)cc;
      r = (uint64_t)x;
      cout = x > INT64_MAX || x < INT64_MIN;
    }
    D0[l] = (uint32_t)r, D1[l] = (uint32_t)(r >> 32);
    co |= (uint64_t)cout << l;
  }
  kgrt_emu_sw64(w, &in->dst[1], co);
  return 0;
}

static int emu_shift64(kgrt_emu_wave_t *w, const kgrt_emu_inst_t *in) {
  const uint64_t exec = kgrt_emu_exec_mask(w);
  uint32_t *D0 = kgrt_emu_vdst(w, &in->dst[0], 0), *D1 = kgrt_emu_vdst(w, &in->dst[0], 1);
  for (uint32_t l = 0; l < w->W; ++l) {
    if (!((exec >> l) & 1))
      continue;
    uint64_t r;
    switch (in->opc) {
    case KGRT_EMU_OP_V_LSHLREV_B64:
      r = kgrt_emu_v64(w, &in->src[1], l) << (kgrt_emu_v64(w, &in->src[0], l) & 63);
      break;
    case KGRT_EMU_OP_V_LSHRREV_B64:
      r = kgrt_emu_v64(w, &in->src[1], l) >> (kgrt_emu_v64(w, &in->src[0], l) & 63);
      break;
    case KGRT_EMU_OP_V_ASHRREV_I64:
      r = (uint64_t)((int64_t)kgrt_emu_v64(w, &in->src[1], l) >>
                     (kgrt_emu_v64(w, &in->src[0], l) & 63));
      break;
    case KGRT_EMU_OP_V_LSHL_ADD_U64:
      r = (kgrt_emu_v64(w, &in->src[0], l) << (kgrt_emu_v64(w, &in->src[1], l) & 7)) +
          kgrt_emu_v64(w, &in->src[2], l);
      break;
    default: /* V_MOV_B64 */
      r = kgrt_emu_v64(w, &in->src[0], l);
      break;
    }
    D0[l] = (uint32_t)r, D1[l] = (uint32_t)(r >> 32);
  }
  return 0;
}

static int emu_lane_op(kgrt_emu_ctx_t *c, kgrt_emu_wave_t *w, const kgrt_emu_inst_t *in) {
  const uint64_t exec = kgrt_emu_exec_mask(w);
  kgrt_emu_vsrc_t A;
  switch (in->opc) {
  case KGRT_EMU_OP_V_READFIRSTLANE_B32: {
    kgrt_emu_vsrc(w, &in->src[0], 0, &A);
    const uint32_t l = exec ? (uint32_t)__builtin_ctzll(exec) : 0;
    kgrt_emu_sw32(w, &in->dst[0], A.p[l & A.m]);
    return 0;
  }
  case KGRT_EMU_OP_V_READLANE_B32: {
    kgrt_emu_vsrc(w, &in->src[0], 0, &A);
    const uint32_t l = kgrt_emu_s32(w, &in->src[1]) & (w->W - 1);
    kgrt_emu_sw32(w, &in->dst[0], A.p[l & A.m]);
    return 0;
  }
  case KGRT_EMU_OP_V_WRITELANE_B32: {
    const uint32_t l = kgrt_emu_s32(w, &in->src[1]) & (w->W - 1);
    kgrt_emu_vdst(w, &in->dst[0], 0)[l] = kgrt_emu_s32(w, &in->src[0]);
    return 0;
  }
  default:
    return kgrt_emu_fail(c, "not a lane operation");
  }
}

/* v_cndmask_b32 with its float modifiers, and SDWA forms: the slow path. */
static int emu_general(kgrt_emu_wave_t *w, const kgrt_emu_inst_t *in) {
  const uint64_t exec = kgrt_emu_exec_mask(w);
  kgrt_emu_vsrc_t A, B, C;
  kgrt_emu_vsrc(w, &in->src[0], 0, &A);
  kgrt_emu_vsrc(w, in->nsrc > 1 ? &in->src[1] : &in->src[0], 0, &B);
  kgrt_emu_vsrc(w, in->nsrc > 2 ? &in->src[2] : &in->src[0], 0, &C);
  uint32_t *D = kgrt_emu_vdst(w, &in->dst[0], 0);
  const uint64_t mask =
      in->opc == KGRT_EMU_OP_V_CNDMASK_B32 ? kgrt_emu_mask(w, &in->src[2]) : 0;
  for (uint32_t l = 0; l < w->W; ++l) {
    if (!((exec >> l) & 1))
      continue;
    uint32_t a = A.p[l & A.m], b = B.p[l & B.m], cc = C.p[l & C.m];
    if (in->opc == KGRT_EMU_OP_V_CNDMASK_B32) {
      for (int i = 0; i < 2; ++i) {
        uint32_t *x = i == 0 ? &a : &b;
        if (in->src[i].abs)
          *x &= 0x7fffffff;
        if (in->src[i].neg)
          *x ^= 0x80000000;
      }
      D[l] = (mask >> l) & 1 ? b : a;
      continue;
    }
    if (in->sdwa)
      a = emu_sdwa_src(a, in->src_sel[0], in->src[0].sext),
      b = emu_sdwa_src(b, in->src_sel[1], in->src[1].sext);
    uint32_t r = emu_int_scalar(in->opc, a, b, cc, l);
    D[l] = in->sdwa ? emu_sdwa_dst(D[l], r, in->dst_sel, in->dst_unused) : r;
  }
  return 0;
}

/* Unsigned add and sub with clamp: saturated at 0 and 2^32 - 1. */
static int emu_clamped(kgrt_emu_wave_t *w, const kgrt_emu_inst_t *in) {
  const uint64_t exec = kgrt_emu_exec_mask(w);
  kgrt_emu_vsrc_t A, B;
  kgrt_emu_vsrc(w, &in->src[0], 0, &A);
  kgrt_emu_vsrc(w, &in->src[1], 0, &B);
  uint32_t *D = kgrt_emu_vdst(w, &in->dst[0], 0);
  for (uint32_t l = 0; l < w->W; ++l) {
    if (!((exec >> l) & 1))
      continue;
    const int64_t a = A.p[l & A.m], b = B.p[l & B.m];
    const int64_t r = in->opc == KGRT_EMU_OP_V_ADD_NC_U32   ? a + b
                      : in->opc == KGRT_EMU_OP_V_SUB_NC_U32 ? a - b
                                                            : b - a;
    D[l] = r < 0 ? 0 : r > 0xffffffffll ? 0xffffffffu : (uint32_t)r;
  }
  return 0;
}

int kgrt_emu_exec_valu(kgrt_emu_ctx_t *c, kgrt_emu_wave_t *w, const kgrt_emu_inst_t *in) {
  const int op = in->opc;
  switch (op) {
  case KGRT_EMU_OP_V_CMP:
  case KGRT_EMU_OP_V_CMP_CLASS_F32:
    return emu_vcmp(c, w, in);
  case KGRT_EMU_OP_V_ADD_CO_U32:
  case KGRT_EMU_OP_V_SUB_CO_U32:
  case KGRT_EMU_OP_V_SUBREV_CO_U32:
  case KGRT_EMU_OP_V_ADD_CO_CI_U32:
  case KGRT_EMU_OP_V_SUB_CO_CI_U32:
  case KGRT_EMU_OP_V_SUBREV_CO_CI_U32:
    return emu_carry(w, in);
  case KGRT_EMU_OP_V_MAD_U64_U32:
  case KGRT_EMU_OP_V_MAD_I64_I32:
    return emu_mad64(w, in);
  case KGRT_EMU_OP_V_LSHLREV_B64:
  case KGRT_EMU_OP_V_LSHRREV_B64:
  case KGRT_EMU_OP_V_ASHRREV_I64:
  case KGRT_EMU_OP_V_LSHL_ADD_U64:
  case KGRT_EMU_OP_V_MOV_B64:
    return emu_shift64(w, in);
  case KGRT_EMU_OP_V_READFIRSTLANE_B32:
  case KGRT_EMU_OP_V_READLANE_B32:
  case KGRT_EMU_OP_V_WRITELANE_B32:
    return emu_lane_op(c, w, in);
  case KGRT_EMU_OP_V_CNDMASK_B32:
    if (!in->sdwa && !in->src[0].neg && !in->src[0].abs && !in->src[1].neg &&
        !in->src[1].abs) {
      const uint64_t exec = kgrt_emu_exec_mask(w), m = kgrt_emu_mask(w, &in->src[2]);
      uint32_t ba[64], bb[64], r[64];
      const uint32_t *a = kgrt_emu_row(w, &in->src[0], 0, ba);
      const uint32_t *b = kgrt_emu_row(w, &in->src[1], 0, bb);
      KGRT_EMU_LANES(w->W, r[l] = (m >> l) & 1 ? b[l] : a[l]);
      kgrt_emu_put(kgrt_emu_vdst(w, &in->dst[0], 0), r, exec, w->W);
      return 0;
    }
    return emu_general(w, in);
  default:
    break;
  }
  if (in->sdwa)
    return emu_general(w, in);
  if (in->clamp && (op == KGRT_EMU_OP_V_ADD_NC_U32 || op == KGRT_EMU_OP_V_SUB_NC_U32 ||
                    op == KGRT_EMU_OP_V_SUBREV_NC_U32))
    return emu_clamped(w, in);
  if (in->ndst != 1 || (in->dst[0].kind != KGRT_EMU_V && in->dst[0].kind != KGRT_EMU_A))
    return kgrt_emu_fail(c, "unexpected operands");
  const uint64_t exec = kgrt_emu_exec_mask(w);
  const uint32_t W = w->W;
  uint32_t ba[64], bb[64], bc[64], r[64];
  const uint32_t *a_ = kgrt_emu_row(w, &in->src[0], 0, ba);
  const uint32_t *b_ = in->nsrc > 1 ? kgrt_emu_row(w, &in->src[1], 0, bb) : a_;
  const uint32_t *c_ = in->nsrc > 2 ? kgrt_emu_row(w, &in->src[2], 0, bc) : a_;
  uint32_t *D = kgrt_emu_vdst(w, &in->dst[0], 0);
  switch (op) {
#define EMU_FAST(e, expr)                                                                \
  case KGRT_EMU_OP_##e:                                                                  \
    KGRT_EMU_LANES(W, {                                                                  \
      const uint32_t a = a_[l], b = b_[l], c = c_[l];                                    \
      (void)a, (void)b, (void)c;                                                         \
      r[l] = (expr);                                                                     \
    });                                                                                  \
    break;
    EMU_INT_OPS(EMU_FAST)
#undef EMU_FAST
  default:
    return kgrt_emu_fail(c, "not a vector integer operation");
  }
  if (emu_is16(op) && !c->gfx9) /* gfx11 keeps the upper half */
    KGRT_EMU_LANES(W, r[l] = (D[l] & 0xffff0000u) | r[l]);
  kgrt_emu_put(D, r, exec, W);
  return 0;
}
