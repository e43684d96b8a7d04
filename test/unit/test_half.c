/* test_half.c - kgrt_half.h against the compiler's own conversions: every f16
 * bit pattern to float, float to f16 on every f16 value, every midpoint
 * between neighbours (ties to even) and random floats, against _Float16; bf16
 * against rounding done in double. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "kgrt_half.h"
#include "test.h"

static int same_f16(uint16_t a, uint16_t b) {
  int a_nan = (a & 0x7c00u) == 0x7c00u && (a & 0x3ffu);
  int b_nan = (b & 0x7c00u) == 0x7c00u && (b & 0x3ffu);
  return a_nan || b_nan ? a_nan && b_nan : a == b;
}

static uint16_t ref_f16(float f) {
  _Float16 h = (_Float16)f;
  uint16_t u;
  memcpy(&u, &h, 2);
  return u;
}

/* bf16 of f: nearest of the two bf16 neighbours in double, ties to even. */
static uint16_t ref_bf16(float f) {
  uint32_t u = kgrt_f32_bits(f);
  uint16_t lo = (uint16_t)(u >> 16), hi = (uint16_t)(lo + 1);
  double dl = fabs((double)f - kgrt_bf16_to_f32(lo));
  double vh = (hi & 0x7fffu) == 0x7f80u ? ldexp(f < 0 ? -1.0 : 1.0, 128) /* inf's place */
                                        : kgrt_bf16_to_f32(hi);
  double dh = fabs(vh - f);
  if ((u & 0xffffu) == 0)
    return lo;
  if (dl < dh || (dl == dh && !(lo & 1)))
    return lo;
  return hi;
}

int main(void) {
  int bad = 0;
  for (uint32_t h = 0; h < 65536; h++) {
    _Float16 r;
    uint16_t hb = (uint16_t)h;
    memcpy(&r, &hb, 2);
    float want = (float)r, got = kgrt_f16_to_f32(hb);
    if (!(isnan(want) ? isnan(got) : kgrt_f32_bits(want) == kgrt_f32_bits(got)))
      bad++;
    if (!same_f16(kgrt_f32_to_f16(got), hb))
      bad++;
    /* the midpoint to the next value up (same sign): ties to even */
    if ((hb & 0x7fffu) < 0x7bffu) {
      double mid =
          ((double)kgrt_f16_to_f32(hb) + kgrt_f16_to_f32((uint16_t)(hb + 1))) / 2;
      float fm = (float)mid;
      if ((double)fm == mid && !same_f16(kgrt_f32_to_f16(fm), ref_f16(fm)))
        bad++;
    }
  }
  CHECK_EQ(bad, 0);
  uint64_t s = 0x243f6a8885a308d3ull;
  int bad16 = 0, bad_bf = 0;
  for (int i = 0; i < 2000000; i++) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    float f = kgrt_bits_f32((uint32_t)s);
    if (!same_f16(kgrt_f32_to_f16(f), ref_f16(f)))
      bad16++;
    if (!isnan(f) && kgrt_f32_to_bf16(f) != ref_bf16(f))
      bad_bf++;
  }
  CHECK_EQ(bad16, 0);
  CHECK_EQ(bad_bf, 0);
  CHECK(isnan(kgrt_bf16_to_f32(kgrt_f32_to_bf16(NAN))));
  CHECK_EQ(kgrt_f32_to_f16(65520.0f), 0x7c00);
  CHECK_EQ(kgrt_f32_to_f16(65519.0f), 0x7bff);
  CHECK_EQ(kgrt_f32_to_f16(-1e-8f), 0x8000);
  return TEST_DONE();
}
