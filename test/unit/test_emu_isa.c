/* test_emu_isa.c - the emu device's instructions, class by class, against
 * AMD's definitions: the micro kernels of test_emu_isa_gfx1100.s and
 * test_emu_isa_gfx942.s (assembled by clang-19) run on the emu interpreter on
 * random inputs (special floats in the first lanes), and every lane's words
 * are checked against the RDNA3 / CDNA3 ISA guides' pseudo-code written out
 * here (transcendentals within the hardware's 1 ulp; matrix results against
 * float64 within f32 rounding, operands placed as the guides' register
 * layouts say). Regression cases for the emulator defects issue 50 names:
 * the MFMA 32x32 output layout (k_mfma32), s_getpc_b64 (k_getpc), the 1/(2 pi)
 * inline constant (k_inline_const), 24-bit multiplies (k_mul24), LDS stores
 * from accumulation registers (gfx942 k_lds), LDS loads of inactive lanes
 * (k_lds_inactive, k_lds), and the emu's own: a v_dual_ pair whose second
 * half reads the first's destination (k_vopd, the Q8_0 Llama's GEMM),
 * clamped u32 add/sub (k_clamp), wrapping LDS addresses (k_lds_addr), flat
 * accesses through the private aperture (k_flat_private, the f32 GEMM's),
 * v_div_scale of a denominator above 2^126 (k_fdiv, the bf16 SiLU's), SDWA
 * sext() sources (gfx942 k_sdwa, conv2d's). The
 * memory counters: vmcnt(N) proves the older loads returned (k_wait_order).
 * Kernels that must fail with a message naming the instruction: an
 * out-of-bounds store, an LDS load past the descriptor's LDS, an
 * unimplemented instruction, WMMA operands not repeated in lanes 16-31, and
 * loads used before their s_waitcnt (k_nowait_*).
 *
 *   test_emu_isa GFX1100.hsaco GFX942.hsaco */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kgrt_emu.h"
#include "kgrt_emu_run.h"

static int failures, checks;

/* ---- values ---- */

static float f_(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}
static uint32_t u_(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}
/* IEEE binary16 <-> float through the compiler's _Float16 (not kgrt's) */
static float h2f(uint32_t h) {
  _Float16 x;
  uint16_t b = (uint16_t)h;
  memcpy(&x, &b, 2);
  return (float)x;
}
static uint32_t f2h(float f) {
  _Float16 x = (_Float16)f;
  uint16_t b;
  memcpy(&b, &x, 2);
  return b;
}
static float bf2f(uint32_t h) {
  return f_((h & 0xffff) << 16);
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (uint32_t)(rng_state >> 16);
}
static float rndf(float lo, float hi) {
  return lo + (hi - lo) * (float)(rnd() & 0xffffff) / 16777216.0f;
}

/* Special f32 values, put in the first lanes of float inputs. */
static const uint32_t specials[] = {0x7fc00000, 0x7f800000, 0xff800000, 0x00000000,
                                    0x80000000, 0x00000123, 0x80400000, 0x3f800000,
                                    0x3f000000, 0xbfc00000, 0x4b800001, 0x7f7fffff};
#define NSPECIALS (sizeof specials / sizeof specials[0])

/* ---- a case ---- */

enum {
  IN_BITS,
  IN_FLOATS,
  IN_MIXED,
  IN_F16,
  IN_TINY,
  IN_MMA_F16,
  IN_MMA_BF16,
  IN_MMA_NOCOPY
};
/* a word's check: exact bits; f32 exact (any NaN for NaN); f32 within 1 ulp;
 * f32 with +0 == -0; two f16 halves exact (any NaN); the low f16 within 1
 * ulp and the high half exact */
enum { W_BITS = 'X', W_F = 'F', W_ULP = 'U', W_Z = 'Z', W_HH = 'H', W_HR = 'R' };

typedef struct emu_case emu_case_t;
typedef void (*ref_fn)(const emu_case_t *k, const uint32_t *in, uint32_t l, uint32_t W,
                       uint32_t want[4]);
struct emu_case {
  const char *arch, *kernel;
  int input;
  const char *modes; /* 4 word modes */
  ref_fn ref;        /* NULL: a matrix case or an error case */
  uint32_t table;    /* k_getpc: the .rodata table's first value */
  const char *error; /* a failing case: the text its message must hold */
};

typedef struct emu_ctx {
  kgrt_emu_mem_t *mem;
  kgrt_emu_image_t img;
  uint64_t in, out, kernarg;
} emu_ctx_t;

#define IN_BYTES (0x1000 + 64 * 64 * 4)
#define OUT_BYTES (64 * 16 * 4)

/* ---- references: the ISA guides' pseudo-code ---- */

static uint32_t sext24(uint32_t x) {
  return (uint32_t)((int32_t)(x << 8) >> 8);
}
static uint32_t bfe_u(uint32_t a, uint32_t off, uint32_t w) {
  return w == 0 ? 0 : (a >> off) & ((1u << w) - 1);
}
static uint32_t bfe_i(uint32_t a, uint32_t off, uint32_t w) {
  if (w == 0)
    return 0;
  const uint32_t v = (a >> off) & ((1u << w) - 1);
  return (v >> (w - 1)) & 1 ? v | ~((1u << w) - 1) : v;
}
static uint32_t perm(uint32_t s0, uint32_t s1, uint32_t sel) { /* V_PERM_B32 */
  const uint64_t d = (uint64_t)s0 << 32 | s1;
  uint32_t r = 0;
  for (int i = 0; i < 4; ++i) {
    const uint32_t s = (sel >> (8 * i)) & 0xff, bit[4] = {15, 31, 47, 63};
    uint32_t b;
    if (s >= 13)
      b = 0xff;
    else if (s == 12)
      b = 0;
    else if (s >= 8)
      b = (d >> bit[s - 8]) & 1 ? 0xff : 0;
    else
      b = (uint32_t)(d >> (8 * s)) & 0xff;
    r |= b << (8 * i);
  }
  return r;
}
/* clamp with DX10_CLAMP (the descriptors' default): NaN -> 0 */
static float clamp01(float x) {
  return isnan(x) ? 0.0f : x < 0 ? 0.0f : x > 1 ? 1.0f : x;
}
static uint32_t cvt_i32(float f) {
  return isnan(f)              ? 0
         : f >= 2147483648.0f  ? 0x7fffffffu
         : f <= -2147483648.0f ? 0x80000000u
                               : (uint32_t)(int32_t)f;
}
static uint32_t cvt_u32(float f) {
  return isnan(f) || f <= 0 ? 0 : f >= 4294967296.0f ? 0xffffffffu : (uint32_t)f;
}
static int fclass(uint32_t u, uint32_t mask) { /* V_CMP_CLASS_F32 */
  const float f = f_(u);
  int bit;
  if (isnan(f))
    bit = (u >> 22) & 1 ? 1 : 0;
  else if (isinf(f))
    bit = u >> 31 ? 2 : 9;
  else if (f == 0)
    bit = u >> 31 ? 5 : 6;
  else if ((u & 0x7f800000) == 0)
    bit = u >> 31 ? 4 : 7;
  else
    bit = u >> 31 ? 3 : 8;
  return (mask >> bit) & 1;
}

#define A in[4 * l]
#define B in[4 * l + 1]
#define C in[4 * l + 2]
#define D in[4 * l + 3]
#define REF(name)                                                                        \
  static void name(const emu_case_t *k, const uint32_t *in, uint32_t l, uint32_t W,      \
                   uint32_t w[4])

REF(r_salu_carry) {
  (void)k, (void)l, (void)W;
  const uint32_t a = in[0], b = in[1], c = in[2], d = in[3];
  w[0] = a + b;
  w[1] = c + d + (uint32_t)((uint64_t)a + b > 0xffffffffu);
  w[2] = a - b;
  w[3] = c - d - (uint32_t)(b > a);
}
REF(r_salu_misc) {
  (void)k, (void)l, (void)W;
  const uint32_t a = in[0], b = in[1] & 0x1f001f, c = in[2], d = in[3];
  w[0] = bfe_u(a, b & 31, b >> 16);
  w[1] = bfe_i(a, b & 31, b >> 16);
  w[2] = (uint32_t)(((uint64_t)c * d) >> 32) + ((int32_t)c < (int32_t)d);
  w[3] = (int32_t)c < (int32_t)d ? c : d;
}
REF(r_getpc) { /* w[0], w[1]: the entry, filled by the runner */
  (void)in, (void)W;
  w[2] = k->table + 7 * l;
  w[3] = 0;
}
REF(r_inline_const) {
  (void)W;
  w[0] = u_(f_(A) * f_(0x3e22f983)); /* 1/(2 pi): 0.15915494 rounded */
  w[1] = f2h(h2f(B) * h2f(0x3118));
  if (strcmp(k->arch, "gfx1100") == 0)
    w[1] &= 0xffff; /* the kernel masks it */
  w[2] = u_(fmaf(f_(C), 0.5f, -4.0f));
  w[3] = u_(1.0f + f_(D));
}
REF(r_mul24) {
  (void)W;
  const uint64_t pu = (uint64_t)(A & 0xffffff) * (B & 0xffffff);
  const int64_t ps = (int64_t)(int32_t)sext24(A) * (int32_t)sext24(B);
  w[0] = (uint32_t)pu;
  w[1] = (uint32_t)(pu >> 32);
  w[2] = (uint32_t)ps;
  if (strcmp(k->arch, "gfx1100") == 0)
    w[3] = (uint32_t)((uint64_t)ps >> 32);
  else
    w[3] = (uint32_t)pu + C; /* v_mad_u32_u24 */
}
REF(r_mad24) {
  (void)k, (void)W;
  w[0] = (A & 0xffffff) * (B & 0xffffff) + C;
  w[1] = sext24(A) * sext24(B) + C; /* the low 32 bits of the signed product */
  w[2] = C * D;
  w[3] = (uint32_t)(((uint64_t)C * D) >> 32);
}
REF(r_bits) {
  (void)k, (void)W;
  w[0] = bfe_u(A, B & 31, C & 31);
  w[1] = bfe_i(A, B & 31, C & 31);
  w[2] = perm(A, B, D);
  w[3] = (uint32_t)((((uint64_t)A << 32) | B) >> (C & 31));
}
REF(r_carry) {
  (void)k, (void)W;
  w[0] = A + C;
  w[1] = B + D + (uint32_t)((uint64_t)A + C > 0xffffffffu);
  w[2] = A - B;
  w[3] = B > A;
}
REF(r_clamp) {
  (void)k, (void)W;
  w[0] = A < B ? 0 : A - B;
  w[1] = (uint64_t)A + B > 0xffffffffu ? 0xffffffffu : A + B;
  w[2] = (C & 0xffff0000u) | ((A + B) & 0xffff);
  w[3] = (D & 0xffff0000u) | ((B << (A & 15)) & 0xffff);
}
REF(r_vopd) {
  (void)k, (void)W;
  w[0] = B;
  w[1] = A << 1;
  w[2] = u_(f_(D) + f_(D));
  w[3] = u_(f_(C) * f_(C)); /* v7's value before the pair: c */
}
REF(r_cmp) {
  (void)W;
  w[0] = A > B ? D : C;
  w[1] = !(f_(C) < f_(D));
  w[2] = (int32_t)A < (int32_t)B ? 7 : 0xffffffffu;
  w[3] = strcmp(k->arch, "gfx1100") == 0 ? (uint32_t)fclass(C, 0x1a4) : l;
}
REF(r_lanes) {
  (void)k;
  w[0] = in[4 * 5];
  w[1] = l == 9 ? in[4 * 5] : in[4 * 4 + 1];
  w[2] = in[4 * ((l + 3) % W) + 2];
  w[3] = l;
}
REF(r_lds_inactive) {
  (void)k, (void)W;
  const uint32_t dead = 0xdeadbeef, j = 4 * (l % 8);
  const int on = l % 2 == 0;
  w[0] = on ? A : dead;
  w[1] = on ? in[4 * j] : dead;
  w[2] = on ? in[4 * (j + 1)] : dead;
  w[3] = on ? in[4 * (j + 2)] : dead;
}
REF(r_lds_addr) {
  (void)k;
  uint32_t sum = 0;
  for (uint32_t i = 0; i < W; ++i)
    sum += in[4 * i + 3];
  w[0] = A;
  w[1] = B;
  w[2] = C;
  w[3] = sum;
}
REF(r_global) {
  (void)k, (void)W;
  w[0] = (A >> 8) & 0xff;
  w[1] = (uint32_t)(int32_t)(int16_t)(B >> 16);
  w[2] = (C & 0xffff) | (D & 0xffff) << 16;
  w[3] = B ^ D; /* the atomic's old value ^ the scratch word */
}
REF(r_f32) {
  (void)k, (void)W;
  w[0] = u_(fmaf(-f_(A), fabsf(f_(B)), f_(C)));
  const float c = f_(C), d = f_(D);
  w[1] = u_(isnan(c) ? d : isnan(d) ? c : c > d ? c : d);
  w[2] = u_((f_(A) * f_(B)) * 2.0f);
  w[3] = u_(clamp01(f_(C) + f_(D)));
}
static float fl(float x) { /* a denormal flushed to a signed zero */
  return fpclassify(x) == FP_SUBNORMAL ? copysignf(0.0f, x) : x;
}
REF(r_ftz) {
  (void)k, (void)W;
  w[0] = u_(fl(fl(f_(A)) * f_(B)));
  w[1] = u_(fl(0.0f + fl(f_(C))));
  w[2] = u_(fl(0.5f * fl(f_(A))));
  w[3] = u_(fl(fmaf(fl(f_(A)), f_(B), fl(f_(D)))));
}
REF(r_trans) {
  (void)k, (void)W;
  w[0] = u_((float)(1.0 / f_(A)));
  w[1] = u_((float)sqrt(fabs(f_(B))));
  w[2] = u_((float)exp2(f_(C)));
  w[3] = u_((float)log2(fabs(f_(D))));
}
REF(r_trans2) {
  (void)k, (void)W;
  const double pi2 = 6.283185307179586;
  w[0] = u_((float)(1.0 / sqrt(fabs(f_(A)))));
  w[1] = u_((float)sin(f_(B) * pi2));
  w[2] = u_((float)cos(f_(C) * pi2));
  w[3] = u_(ldexpf(f_(D), (int32_t)cvt_i32(f_(A))));
}
REF(r_cvt) {
  (void)k, (void)W;
  w[0] = cvt_i32(f_(A));
  w[1] = cvt_u32(f_(B));
  w[2] = u_((float)(int32_t)C);
  w[3] = u_(nearbyintf(f_(D)));
}
REF(r_f16) {
  (void)k, (void)W;
  w[0] = f2h(f_(A)) | (B & 0xffff0000u);
  w[1] = f2h(h2f(B) * h2f(C)) | f2h(h2f(B >> 16) * h2f(C >> 16)) << 16;
  w[2] = u_((float)((double)h2f(B) * h2f(C) + f_(D)));
  w[3] =
      u_((float)((double)h2f(B) * h2f(C) + (double)h2f(B >> 16) * h2f(C >> 16) + f_(D)));
}
REF(r_f16b) {
  (void)k, (void)W;
  w[0] = u_(h2f(B));
  w[1] = u_(h2f(B >> 16));
  w[2] = (C & 0xffff0000u) | f2h((float)((double)h2f(B) * h2f(C) + f_(D)));
  w[3] = (D & 0xffff0000u) | f2h(f_(A));
}
static float hmax(float a, float b) {
  return isnan(a) ? b : isnan(b) ? a : a > b ? a : b;
}
REF(r_f16c) {
  (void)k, (void)W;
  w[0] = f2h(h2f(B) - h2f(C)) | f2h(h2f(B >> 16) - h2f(C)) << 16;
  w[1] = f2h(hmax(h2f(B), h2f(C))) | f2h(hmax(h2f(B >> 16), h2f(C >> 16))) << 16;
  w[2] = (D & 0xffff0000u) | f2h(h2f(B) + h2f(C));
  w[3] = (A & 0xffff0000u) | f2h(1.0f / h2f(C));
}
REF(r_bits2) {
  (void)k, (void)W;
  const uint64_t x = (uint64_t)((int64_t)((uint64_t)C << 32 | B) >> (D & 63));
  w[0] = (A & B) | (~A & C);
  w[1] = (uint32_t)x;
  w[2] = (uint32_t)(x >> 32);
  w[3] = (uint32_t)(int32_t)(int16_t)in[0] & ~(1u << (in[1] & 31));
}
static uint32_t min_i16(uint32_t a, uint32_t b) {
  return (uint32_t)((int16_t)a < (int16_t)b ? a : b) & 0xffff;
}
static uint32_t max_u16(uint32_t a, uint32_t b) {
  return (a & 0xffff) > (b & 0xffff) ? a & 0xffff : b & 0xffff;
}
REF(r_int16) {
  (void)W;
  if (strcmp(k->arch, "gfx1100") == 0) {
    w[0] = (A & 0xffff0000u) | max_u16(B, C);
    w[1] = (A & 0xffff0000u) | min_i16(B, C);
    w[2] = (D & 0xffff0000u) | ((B * C) & 0xffff);
    w[3] = (D & 0xffff0000u) | ((B * C + A) & 0xffff);
  } else {
    w[0] = max_u16(A, B & 0xff);
    w[1] = max_u16(A, B);
    w[2] = min_i16(A, B);
    w[3] = (A * B + C) & 0xffff;
  }
}
REF(r_flat) {
  (void)k, (void)W;
  w[0] = B;
  w[1] = C & 0xff;
  w[2] = D;
  w[3] = A;
}
REF(r_sdwa) {
  (void)k, (void)W;
  w[0] = A + (uint32_t)(int32_t)(int8_t)(B & 0xff);
  w[1] = A + (uint32_t)(int32_t)(int16_t)(B >> 16);
  w[2] = A + ((B >> 8) & 0xff);
  w[3] = (((C >> 8) & 0xff) * D) & 0xffff;
}
REF(r_fdiv) {
  (void)k, (void)W;
  const uint32_t n = (A & 0x807fffffu) | 0x42800000u, d = (B & 0x807fffffu) | 0x7e800000u;
  w[0] = u_(f_(A) / f_(B));
  w[1] = u_(f_(n) / f_(d));
  w[2] = u_(f_(C) / f_(D));
  w[3] = d;
}
REF(r_flat_private) {
  (void)k, (void)W;
  w[0] = B;
  w[1] = C;
  w[2] = D;
  w[3] = A;
}
REF(r_wait_order) {
  (void)k, (void)W;
  w[0] = C;
  w[1] = D;
  w[2] = A;
  w[3] = B;
}
REF(r_d16) {
  (void)k, (void)W;
  w[0] = (A & 0xffff0000u) | B >> 16;
  w[1] = (B & 0xffff) | (C & 0xffff) << 16;
  w[2] = (A & 0xffff) | (B & 0xffff0000u); /* ds_store_b16, ds_store_b16_d16_hi */
  w[3] = (D & 0xffff) | (C & 0xffff0000u); /* global_store_d16_hi_b16 */
}
/* V_DIV_FIXUP_F16(S0 = q, S1 = den, S2 = num) */
static float fixup(float q, float den, float num) {
  const int neg = signbit(den) != signbit(num);
  if (isnan(num) || isnan(den))
    return NAN;
  if ((den == 0 && num == 0) || (isinf(den) && isinf(num)))
    return NAN;
  if (den == 0 || isinf(num))
    return neg ? -INFINITY : INFINITY;
  if (isinf(den) || num == 0)
    return neg ? -0.0f : 0.0f;
  return neg ? -fabsf(q) : fabsf(q);
}
/* gfx942 */
REF(r_f16g9) {
  (void)k, (void)W;
  w[0] = f2h(h2f(B) + h2f(C));
  w[1] = f2h(1.0f / h2f(B >> 16));
  w[2] = f2h(fixup(h2f(B), h2f(C), h2f(B)));
  w[3] = f2h(hmax(h2f(B), h2f(C)));
}
REF(r_int942) {
  (void)k, (void)W;
  w[0] = A + C;
  w[1] = B + D + (uint32_t)((uint64_t)A + C > 0xffffffffu);
  w[2] = (A + B) & 0xffff; /* gfx9 zeroes the upper half */
  w[3] = (D & 0xffff) | ((((A >> 8) & 0xff) + (B & 0xffff)) & 0xffff) << 16;
}
REF(r_wide) {
  (void)k, (void)W;
  const uint64_t r = (((uint64_t)B << 32 | A) << 3) + ((uint64_t)D << 32 | C);
  w[0] = (uint32_t)r;
  w[1] = (uint32_t)(r >> 32);
  w[2] = u_(fmaf(f_(A), f_(C), f_(A)));
  w[3] = u_(fmaf(f_(B), f_(D), f_(B)));
}
REF(r_wide2) {
  (void)k, (void)W;
  w[0] = u_(f_(B) * f_(C));
  w[1] = u_(f_(B) * f_(D));
  w[2] = C;
  w[3] = D;
}
REF(r_lds942) {
  (void)k, (void)W;
  const uint32_t dead = 0xdeadbeef;
  const int on = l % 2 == 0;
  w[0] = on ? A : dead;
  w[1] = dead;
  w[2] = on ? B : dead;
  w[3] = on ? C : dead;
}
REF(r_d16_942) { /* ds_write_b16 + ds_write_b16_d16_hi, global_store_short_d16_hi */
  (void)k, (void)W;
  w[0] = (A & 0xffff) | (B & 0xffff0000u);
  w[1] = B;
  w[2] = C;
  w[3] = (D & 0xffff) | (C & 0xffff0000u);
}
#undef A
#undef B
#undef C
#undef D

static const emu_case_t cases[] = {
    {"gfx1100", "k_salu_carry", IN_BITS, "XXXX", r_salu_carry, 0, NULL},
    {"gfx1100", "k_salu_misc", IN_BITS, "XXXX", r_salu_misc, 0, NULL},
    {"gfx1100", "k_getpc", IN_BITS, "XXXX", r_getpc, 0x1000, NULL},
    {"gfx1100", "k_inline_const", IN_FLOATS, "FHFF", r_inline_const, 0, NULL},
    {"gfx1100", "k_mul24", IN_BITS, "XXXX", r_mul24, 0, NULL},
    {"gfx1100", "k_mad24", IN_BITS, "XXXX", r_mad24, 0, NULL},
    {"gfx1100", "k_bits", IN_BITS, "XXXX", r_bits, 0, NULL},
    {"gfx1100", "k_carry", IN_BITS, "XXXX", r_carry, 0, NULL},
    {"gfx1100", "k_clamp", IN_BITS, "XXXX", r_clamp, 0, NULL},
    {"gfx1100", "k_vopd", IN_FLOATS, "XXFF", r_vopd, 0, NULL},
    {"gfx1100", "k_cmp", IN_MIXED, "XXXX", r_cmp, 0, NULL},
    {"gfx1100", "k_lanes", IN_BITS, "XXXX", r_lanes, 0, NULL},
    {"gfx1100", "k_lds_inactive", IN_BITS, "XXXX", r_lds_inactive, 0, NULL},
    {"gfx1100", "k_lds_addr", IN_BITS, "XXXX", r_lds_addr, 0, NULL},
    {"gfx1100", "k_global", IN_BITS, "XXXX", r_global, 0, NULL},
    {"gfx1100", "k_f32", IN_FLOATS, "FZFF", r_f32, 0, NULL},
    {"gfx1100", "k_ftz", IN_TINY, "FFFF", r_ftz, 0, NULL},
    {"gfx1100", "k_trans", IN_FLOATS, "UUUU", r_trans, 0, NULL},
    {"gfx1100", "k_trans2", IN_FLOATS, "UUUF", r_trans2, 0, NULL},
    {"gfx1100", "k_cvt", IN_FLOATS, "XXFF", r_cvt, 0, NULL},
    {"gfx1100", "k_f16", IN_F16, "HHFU", r_f16, 0, NULL},
    {"gfx1100", "k_f16b", IN_F16, "FFHH", r_f16b, 0, NULL},
    {"gfx1100", "k_f16c", IN_F16, "HHHR", r_f16c, 0, NULL},
    {"gfx1100", "k_bits2", IN_BITS, "XXXX", r_bits2, 0, NULL},
    {"gfx1100", "k_int16", IN_BITS, "XXXX", r_int16, 0, NULL},
    {"gfx1100", "k_d16", IN_BITS, "XXXX", r_d16, 0, NULL},
    {"gfx1100", "k_wmma_f16", IN_MMA_F16, NULL, NULL, 0, NULL},
    {"gfx1100", "k_wmma_bf16", IN_MMA_BF16, NULL, NULL, 0, NULL},
    {"gfx1100", "k_wmma_f16", IN_MMA_NOCOPY, NULL, NULL, 0,
     "WMMA B operand: lane 21's register 3 (0x"},
    {"gfx1100", "k_flat", IN_BITS, "XXXX", r_flat, 0, NULL},
    {"gfx1100", "k_flat_private", IN_BITS, "XXXX", r_flat_private, 0, NULL},
    {"gfx1100", "k_fdiv", IN_FLOATS, "FFFX", r_fdiv, 0, NULL},
    {"gfx1100", "k_wait_order", IN_BITS, "XXXX", r_wait_order, 0, NULL},
    {"gfx1100", "k_nowait_vm", IN_BITS, NULL, NULL, 0,
     "v_add_nc_u32_e32 v7, v6, v5: reads v6 before the load that writes it has returned "
     "(global_load_b32 v6, v10, s[6:7] offset:4 at +0x24): a missing s_waitcnt vmcnt"},
    {"gfx1100", "k_nowait_lgkm", IN_BITS, NULL, NULL, 0,
     "reads v5 before the load that writes it has returned (ds_load_b32 v5, v9 at "},
    {"gfx1100", "k_oob", IN_BITS, NULL, NULL, 0,
     "(+0x1c) global_store_b32 v10, v1, s[4:5] offset:2044: lane 0: out-of-bounds store"},
    {"gfx1100", "k_lds_oob", IN_BITS, NULL, NULL, 0,
     "ds_load_b32 v5, v9: lane 0: LDS access of 4 bytes at 1024, past the 1024 bytes"},
    {"gfx1100", "k_unknown", IN_BITS, NULL, NULL, 0,
     "the emu does not implement v_sad_u32"},
    {"gfx942", "k_getpc", IN_BITS, "XXXX", r_getpc, 0x2000, NULL},
    {"gfx942", "k_inline_const", IN_FLOATS, "FHFF", r_inline_const, 0, NULL},
    {"gfx942", "k_mul24", IN_BITS, "XXXX", r_mul24, 0, NULL},
    {"gfx942", "k_int", IN_BITS, "XXXX", r_int942, 0, NULL},
    {"gfx942", "k_wide", IN_FLOATS, "XXFF", r_wide, 0, NULL},
    {"gfx942", "k_wide2", IN_FLOATS, "FFXX", r_wide2, 0, NULL},
    {"gfx942", "k_int16", IN_BITS, "XXXX", r_int16, 0, NULL},
    {"gfx942", "k_f16", IN_F16, "HRHH", r_f16g9, 0, NULL},
    {"gfx942", "k_cmp", IN_MIXED, "XXXX", r_cmp, 0, NULL},
    {"gfx942", "k_lds", IN_BITS, "XXXX", r_lds942, 0, NULL},
    {"gfx942", "k_d16", IN_BITS, "XXXX", r_d16_942, 0, NULL},
    {"gfx942", "k_nowait", IN_BITS, NULL, NULL, 0,
     "reads v12 before the load that writes it has returned (ds_read_b32 v12, v16 at "},
    {"gfx942", "k_mfma32", IN_MMA_F16, NULL, NULL, 0, NULL},
    {"gfx942", "k_mfma16", IN_MMA_BF16, NULL, NULL, 0, NULL},
    {"gfx942", "k_sdwa", IN_BITS, "XXXX", r_sdwa, 0, NULL},
};
#define NCASES (sizeof cases / sizeof cases[0])

/* ---- checking ---- */

static int ulp_diff(uint32_t a, uint32_t b) {
  const int64_t x = (a >> 31) ? -(int64_t)(a & 0x7fffffff) : (int64_t)a;
  const int64_t y = (b >> 31) ? -(int64_t)(b & 0x7fffffff) : (int64_t)b;
  const int64_t d = x > y ? x - y : y - x;
  return d > 1000 ? 1000 : (int)d;
}

static int word_ok(char mode, uint32_t got, uint32_t want) {
  switch (mode) {
  case W_F:
  case W_ULP:
  case W_Z:
    if (isnan(f_(want)))
      return isnan(f_(got));
    if (mode == W_Z && f_(want) == 0 && f_(got) == 0)
      return 1;
    return mode == W_ULP ? ulp_diff(got, want) <= 1 : got == want;
  case W_HR: {
    const uint32_t g = got & 0xffff, x = want & 0xffff;
    if ((got >> 16) != (want >> 16))
      return 0;
    if (isnan(h2f(x)))
      return isnan(h2f(g));
    const int gi = g >> 15 ? -(int)(g & 0x7fff) : (int)g;
    const int xi = x >> 15 ? -(int)(x & 0x7fff) : (int)x;
    return gi - xi <= 1 && xi - gi <= 1;
  }
  case W_HH:
    for (int h = 0; h < 2; ++h) {
      const uint32_t g = (got >> (16 * h)) & 0xffff, x = (want >> (16 * h)) & 0xffff;
      if (isnan(h2f(x)) ? !isnan(h2f(g)) : g != x)
        return 0;
    }
    return 1;
  default:
    return got == want;
  }
}

static void fill(int kind, uint32_t *in, uint32_t words) {
  for (uint32_t i = 0; i < words; ++i) {
    const uint32_t lane = (i % 0x1000) / 4, w = i % 4;
    switch (kind) {
    case IN_FLOATS:
      in[i] =
          lane < NSPECIALS && w != 1 ? specials[(lane + w) % NSPECIALS] : u_(rndf(-8, 8));
      break;
    case IN_MIXED: /* a, b bits (some equal), c, d floats */
      if (w < 2)
        in[i] = lane % 5 == 0 && w == 1 ? in[i - 1] : rnd();
      else
        in[i] = lane < NSPECIALS ? specials[(lane + w) % NSPECIALS] : u_(rndf(-8, 8));
      break;
    case IN_F16: /* a, d floats; b, c two f16 each */
      if (w == 1 || w == 2)
        in[i] = f2h(rndf(-4, 4)) | f2h(rndf(-4, 4)) << 16;
      else
        in[i] = u_(rndf(-8, 8));
      break;
    case IN_TINY: /* a, c, d near the denormal range; b in [-4, 4] */
      in[i] = w == 1 ? u_(rndf(-4, 4)) : (rnd() & 0x807fffffu) | (rnd() % 3) << 23;
      break;
    default:
      in[i] = rnd();
    }
  }
}

/* ---- running ---- */

static const kgrt_emu_kernel_t *find_kernel(const emu_ctx_t *e, const char *name) {
  for (uint32_t i = 0; i < e->img.num_kernels; ++i)
    if (strcmp(e->img.kernels[i].name, name) == 0)
      return &e->img.kernels[i];
  return NULL;
}

static int launch(emu_ctx_t *e, const kgrt_emu_kernel_t *k, uint32_t block,
                  uint32_t out_bytes, char *err, size_t err_size) {
  const uint64_t args[2] = {e->out, e->in};
  memcpy((void *)(uintptr_t)e->kernarg, args, sizeof args);
  kgrt_emu_range_t r[4] = {
      {e->out, e->out + out_bytes, 1, 0},
      {e->in, e->in + IN_BYTES, 1, 1},
      {e->kernarg, e->kernarg + sizeof args, 0, -1},
      {e->img.alloc_addr, e->img.alloc_addr + e->img.span, 0, -2},
  };
  for (int i = 0; i < 4; ++i) /* sorted by lo */
    for (int j = i + 1; j < 4; ++j)
      if (r[j].lo < r[i].lo) {
        kgrt_emu_range_t t = r[i];
        r[i] = r[j];
        r[j] = t;
      }
  kgrt_emu_launch_t l = {.image = &e->img,
                         .kernel = k,
                         .grid_x = 1,
                         .block_x = block,
                         .kernarg = e->kernarg,
                         .ranges = r,
                         .num_ranges = 4,
                         .workers = 1};
  uint64_t insts = 0;
  return kgrt_emu_run(&l, NULL, &insts, NULL, err, err_size);
}

/* The matrix cases: D = A B + C placed per the ISA guides' layouts. */
static void run_matrix(emu_ctx_t *e, const emu_case_t *c, const kgrt_emu_kernel_t *k,
                       uint32_t *in, uint32_t *out) {
  const int bf16 = c->input == IN_MMA_BF16;
  const int nocopy = c->input == IN_MMA_NOCOPY; /* B's lanes 16-31 not a copy */
  const int wmma = strncmp(c->kernel, "k_wmma", 6) == 0;
  const int M = wmma ? 16 : strcmp(c->kernel, "k_mfma32") == 0 ? 32 : 16;
  const int K = wmma ? 16 : 256 / M, W = wmma ? 32 : 64;
  uint32_t a[32][16], b[16][32]; /* 16-bit elements */
  float cm[32][32];
  for (int i = 0; i < M; ++i)
    for (int kk = 0; kk < K; ++kk) {
      const float x = rndf(-2, 2), y = rndf(-2, 2);
      a[i][kk] = bf16 ? u_(x) >> 16 : f2h(x);
      b[kk][i] = bf16 ? u_(y) >> 16 : f2h(y);
    }
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < M; ++j)
      cm[i][j] = rndf(-4, 4);
  memset(in, 0, IN_BYTES);
  for (int l = 0; l < W; ++l) {
    if (wmma) { /* RDNA3: lane l holds row l % 16 of A and column l % 16 of B,
                 * two k a register; C/D VGPR r of lane l: (2r + l / 16, l % 16) */
      for (int j = 0; j < 8; ++j) {
        in[24 * l + j] = a[l % 16][2 * j] | a[l % 16][2 * j + 1] << 16;
        in[24 * l + 8 + j] = b[2 * j][l % 16] | b[2 * j + 1][l % 16] << 16;
        if (nocopy && l == 21 && j == 3)
          in[24 * l + 8 + j] ^= 0x00010000;
        in[24 * l + 16 + j] = u_(cm[2 * j + l / 16][l % 16]);
      }
    } else { /* CDNA3: A[i][k] in lane i + M (k / 4), element k % 4; B[k][j] in
              * lane j + M (k / 4); D[i][j] register r = i % 4 + 4 (i / (4 G)) of
              * lane j + M ((i / 4) % G), G = 64 / M */
      const int G = 64 / M, g = l / M, col = l % M;
      for (int j = 0; j < 2; ++j) {
        in[4 * l + j] = a[col][4 * g + 2 * j] | a[col][4 * g + 2 * j + 1] << 16;
        in[4 * l + 2 + j] = b[4 * g + 2 * j][col] | b[4 * g + 2 * j + 1][col] << 16;
      }
      for (int r = 0; r < M * M / 64; ++r)
        in[0x400 + (M * M / 64) * l + r] = u_(cm[4 * G * (r / 4) + 4 * g + r % 4][col]);
    }
  }
  memcpy((void *)(uintptr_t)e->in, in, IN_BYTES);
  memset((void *)(uintptr_t)e->out, 0xff, OUT_BYTES);
  char err[512] = "";
  checks++;
  const int rc = launch(e, k, (uint32_t)W, OUT_BYTES, err, sizeof err);
  if (c->error != NULL) {
    if (rc == 0 || strstr(err, c->error) == NULL) {
      printf("FAIL %s %s: wanted an error holding '%s', got %s\n", c->arch, c->kernel,
             c->error, rc == 0 ? "success" : err);
      failures++;
    }
    return;
  }
  if (rc != 0) {
    printf("FAIL %s %s: %s\n", c->arch, c->kernel, err);
    failures++;
    return;
  }
  memcpy(out, (void *)(uintptr_t)e->out, OUT_BYTES);
  int bad = 0;
  const int R = wmma ? 8 : M * M / 64;
  for (int l = 0; l < W && bad < 3; ++l)
    for (int r = 0; r < R && bad < 3; ++r) {
      int i, j;
      if (wmma)
        i = 2 * r + l / 16, j = l % 16;
      else
        i = 4 * (64 / M) * (r / 4) + 4 * (l / M) + r % 4, j = l % M;
      double want = cm[i][j], mag = fabs(cm[i][j]);
      for (int kk = 0; kk < K; ++kk) {
        const double p = (double)(bf16 ? bf2f(a[i][kk]) : h2f(a[i][kk])) *
                         (bf16 ? bf2f(b[kk][j]) : h2f(b[kk][j]));
        want += p;
        mag += fabs(p);
      }
      const double got = f_(out[R * l + r]);
      if (!(fabs(got - want) <= 4e-7 * mag * K + 1e-30)) {
        printf("FAIL %s %s: lane %d register %d (D[%d][%d]): %.9g, want %.9g\n", c->arch,
               c->kernel, l, r, i, j, got, want);
        bad++;
      }
    }
  failures += bad > 0;
}

static void run_case(emu_ctx_t *e, const emu_case_t *c) {
  const kgrt_emu_kernel_t *k = find_kernel(e, c->kernel);
  static uint32_t in[IN_BYTES / 4], out[OUT_BYTES / 4];
  if (k == NULL) {
    printf("FAIL %s %s: no such kernel\n", c->arch, c->kernel);
    failures++;
    return;
  }
  if (c->input >= IN_MMA_F16) {
    run_matrix(e, c, k, in, out);
    return;
  }
  const uint32_t W = k->wave_size;
  fill(c->input, in, IN_BYTES / 4);
  memcpy((void *)(uintptr_t)e->in, in, IN_BYTES);
  memset((void *)(uintptr_t)e->out, 0xff, OUT_BYTES);
  char err[512] = "";
  const int rc = launch(e, k, W, W * 16, err, sizeof err);
  checks++;
  if (c->error != NULL) {
    if (rc == 0 || strstr(err, c->error) == NULL) {
      printf("FAIL %s %s: wanted an error holding '%s', got %s\n", c->arch, c->kernel,
             c->error, rc == 0 ? "success" : err);
      failures++;
    }
    return;
  }
  if (rc != 0) {
    printf("FAIL %s %s: %s\n", c->arch, c->kernel, err);
    failures++;
    return;
  }
  memcpy(out, (void *)(uintptr_t)e->out, W * 16);
  int bad = 0;
  for (uint32_t l = 0; l < W; ++l) {
    uint32_t want[4];
    c->ref(c, in, l, W, want);
    if (c->ref == r_getpc) {
      want[0] = (uint32_t)k->entry;
      want[1] = (uint32_t)(k->entry >> 32);
    }
    for (int i = 0; i < 4; ++i)
      if (!word_ok(c->modes[i], out[4 * l + i], want[i]) && bad++ < 4)
        printf("FAIL %s %s: lane %u word %d: 0x%08x, want 0x%08x (inputs 0x%08x 0x%08x "
               "0x%08x 0x%08x)\n",
               c->arch, c->kernel, l, i, out[4 * l + i], want[i], in[4 * l],
               in[4 * l + 1], in[4 * l + 2], in[4 * l + 3]);
  }
  if (c->ref == r_global) /* the atomic added b to the lane's own b */
    for (uint32_t l = 0; l < W; ++l) {
      const uint32_t now = ((const uint32_t *)(uintptr_t)e->in)[4 * l + 1];
      if (now != 2 * in[4 * l + 1] && bad++ < 4)
        printf("FAIL %s %s: lane %u: memory after the atomic add 0x%08x, want 0x%08x\n",
               c->arch, c->kernel, l, now, 2 * in[4 * l + 1]);
    }
  failures += bad > 0;
}

static unsigned char *read_file(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (f == NULL)
    return NULL;
  unsigned char *buf = NULL;
  long n = -1;
  if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
      (buf = malloc((size_t)n)) != NULL && fread(buf, 1, (size_t)n, f) != (size_t)n) {
    free(buf);
    buf = NULL;
  }
  fclose(f);
  *size = (size_t)n;
  return buf;
}

static int run_arch(const char *path, const char *arch) {
  size_t size = 0;
  unsigned char *image = read_file(path, &size);
  if (image == NULL) {
    fprintf(stderr, "test_emu_isa: %s: cannot read it\n", path);
    return -1;
  }
  const char *names[NCASES];
  uint32_t n = 0;
  for (size_t i = 0; i < NCASES; ++i) {
    uint32_t j = 0;
    while (j < n && strcmp(names[j], cases[i].kernel) != 0)
      ++j;
    if (strcmp(cases[i].arch, arch) == 0 && j == n)
      names[n++] = cases[i].kernel;
  }
  emu_ctx_t e = {0};
  char err[512] = "";
  int rc = kgrt_emu_mem_create((uint64_t)64 << 20, NULL, &e.mem, err, sizeof err);
  if (rc == 0)
    rc = kgrt_emu_image_load(image, size, names, n, e.mem, NULL, &e.img, err, sizeof err);
  for (uint32_t i = 0; rc == 0 && i < e.img.num_kernels; ++i) {
    kgrt_emu_code_t *code = calloc(1, sizeof *code);
    rc = code == NULL || kgrt_emu_decode_kernel(&e.img, &e.img.kernels[i], NULL, code,
                                                err, sizeof err) != 0
             ? -1
             : 0;
    e.img.kernels[i].code = code;
  }
  if (rc == 0) {
    e.in = kgrt_emu_mem_alloc(e.mem, IN_BYTES);
    e.out = kgrt_emu_mem_alloc(e.mem, OUT_BYTES);
    e.kernarg = kgrt_emu_mem_alloc(e.mem, 256);
    rc = e.in && e.out && e.kernarg ? 0 : -1;
  }
  if (rc != 0) {
    printf("FAIL %s: %s\n", path, err);
    failures++;
  } else {
    for (size_t i = 0; i < NCASES; ++i)
      if (strcmp(cases[i].arch, arch) == 0)
        run_case(&e, &cases[i]);
  }
  for (uint32_t i = 0; i < e.img.num_kernels; ++i)
    if (e.img.kernels[i].code != NULL) {
      kgrt_emu_code_free(e.img.kernels[i].code, NULL);
      free(e.img.kernels[i].code);
    }
  if (e.img.kernels != NULL)
    kgrt_emu_image_unload(&e.img, e.mem, NULL);
  if (e.mem != NULL)
    kgrt_emu_mem_destroy(e.mem);
  free(image);
  return rc;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: test_emu_isa GFX1100.hsaco GFX942.hsaco\n");
    return 2;
  }
  run_arch(argv[1], "gfx1100");
  run_arch(argv[2], "gfx942");
  printf("test_emu_isa: %d kernels checked, %d failed\n", checks, failures);
  return failures == 0 && checks > 0 ? 0 : 1;
}
