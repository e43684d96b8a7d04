/* kgrt_half.h - host conversions between float and the 16-bit dtypes a kgen
 * model may use (f16: IEEE binary16; bf16: the top half of a binary32), for
 * products that fill inputs and read outputs. Header-only, C99 and C++.
 * Rounding is to nearest even; NaN stays NaN (quiet); f16 overflow gives inf
 * and f16 subnormals are exact, as the kernels' own conversions do. */
#ifndef KGRT_HALF_H
#define KGRT_HALF_H

#include <stdint.h>
#include <string.h>

static inline float kgrt_bits_f32(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

static inline uint32_t kgrt_f32_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

static inline float kgrt_f16_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 31u, man = h & 1023u;
  if (exp == 31)
    return kgrt_bits_f32(sign | 0x7f800000u | (man << 13));
  if (exp != 0)
    return kgrt_bits_f32(sign | ((exp + 112) << 23) | (man << 13));
  /* zero or subnormal: man * 2^-24, exact in float */
  float f = (float)man * 5.9604644775390625e-8f;
  return sign ? -f : f;
}

static inline uint16_t kgrt_f32_to_f16(float f) {
  uint32_t u = kgrt_f32_bits(f);
  uint32_t sign = (u >> 16) & 0x8000u;
  uint32_t a = u & 0x7fffffffu;
  if (a > 0x7f800000u) /* NaN */
    return (uint16_t)(sign | 0x7e00u | ((a >> 13) & 0x3ffu));
  if (a >= 0x477ff000u) /* rounds to 65520 or more: inf */
    return (uint16_t)(sign | 0x7c00u);
  if (a < 0x38800000u) { /* below 2^-14: subnormal or zero in f16 */
    /* adding 0.5 moves the value's bits so that the f16 subnormal's mantissa
     * is the low bits of the sum, rounded to nearest even by the FPU */
    float sum = kgrt_bits_f32(a) + 0.5f;
    return (uint16_t)(sign | (kgrt_f32_bits(sum) - 0x3f000000u));
  }
  uint32_t r = a + 0xfffu + ((a >> 13) & 1u);
  return (uint16_t)(sign | ((r - 0x38000000u) >> 13));
}

static inline float kgrt_bf16_to_f32(uint16_t b) {
  return kgrt_bits_f32((uint32_t)b << 16);
}

static inline uint16_t kgrt_f32_to_bf16(float f) {
  uint32_t u = kgrt_f32_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u)
    return (uint16_t)((u >> 16) | 0x40u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return (uint16_t)(u >> 16);
}

#endif /* KGRT_HALF_H */
