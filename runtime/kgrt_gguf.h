/* kgrt_gguf.h - host encoders and decoders for the GGUF (ggml) block formats
 * kgen kernels read as quantized weights: Q8_0, Q4_0, Q4_K and Q6_K. A product
 * uses it to prepare weights; tests use it as the reference the device
 * helpers (templates/lib_quant.hip) must match bit for bit. Header-only, C99
 * and C++; no allocation, no libm.
 *
 * Layouts follow ggml (ggml/src/ggml-common.h: block_q8_0, block_q4_0,
 * block_q4_K, block_q6_K; ggml/src/ggml-quants.c: the dequantize_row_* and
 * quantize_row_*_ref functions, get_scale_min_k4). Blocks are written byte by
 * byte, little-endian, so the bytes are the same on any host:
 *   Q8_0  32 weights, 34 bytes: f16 d, int8 qs[32];       w = qs[i] d
 *   Q4_0  32 weights, 18 bytes: f16 d, qs[16] (nibbles);  w = (nib - 8) d;
 *         elements 0..15 are the low nibbles of qs[0..15], 16..31 the high.
 *   Q4_K 256 weights, 144 bytes: f16 d, f16 dmin, scales[12] (eight 6-bit
 *         scales and eight 6-bit mins, packed as get_scale_min_k4 reads
 *         them), qs[128]; sub-block j (32 weights): w = d sc_j q - dmin m_j;
 *         sub-blocks 2c, 2c+1 are the low, high nibbles of qs[32c..32c+31].
 *   Q6_K 256 weights, 210 bytes: ql[128], qh[64], int8 scales[16], f16 d;
 *         w = d scales[n / 16] (q - 32), q = 4 bits of ql | 2 bits of qh << 4
 *         (element n = 128 h + 32 k + e: ql[64 h + 32 (k & 1) + e] nibble
 *         k >> 1, qh[32 h + e] bits 2k..2k+1).
 *
 * Quantizers (finite inputs): Q8_0 and Q4_0 are ggml's reference quantizers
 * (quantize_row_q8_0_ref, quantize_row_q4_0_ref), so they give ggml's bytes.
 * Q4_K and Q6_K are simpler than ggml's (which search for the scales with
 * make_qkx2_quants / make_qx_quants): each sub-block's scale comes from its
 * range (Q4_K: (max - min(0, min)) / 15 and -min(0, min); Q6_K: the
 * largest-magnitude value / -32), then, as ggml does, the scales are
 * quantized against the super-block's largest and every weight is rounded to
 * nearest with the stored scales and clamped. The blocks are valid GGUF and
 * decode with any GGUF reader; their error is somewhat above ggml's. */
#ifndef KGRT_GGUF_H
#define KGRT_GGUF_H

#include <stddef.h>
#include <stdint.h>

#include "kgrt_half.h"
#include "kgrt_table.h"

/* ggml's type ids (enum ggml_type), as GGUF tensor infos carry them. */
typedef enum kgrt_gguf_type {
  KGRT_GGUF_TYPE_Q4_0 = 2,
  KGRT_GGUF_TYPE_Q8_0 = 8,
  KGRT_GGUF_TYPE_Q4_K = 12,
  KGRT_GGUF_TYPE_Q6_K = 14
} kgrt_gguf_type_t;

/* The GGUF type of a kgen weight dtype (KGRT_DTYPE_Q8_0 ...: how a model's
 * quantized weight is to be encoded); 0 for a plain dtype. */
static inline kgrt_gguf_type_t kgrt_gguf_type_of(kgrt_dtype_t dtype) {
  switch (dtype) {
  case KGRT_DTYPE_Q8_0:
    return KGRT_GGUF_TYPE_Q8_0;
  case KGRT_DTYPE_Q4_0:
    return KGRT_GGUF_TYPE_Q4_0;
  case KGRT_DTYPE_Q4_K:
    return KGRT_GGUF_TYPE_Q4_K;
  case KGRT_DTYPE_Q6_K:
    return KGRT_GGUF_TYPE_Q6_K;
  default:
    return (kgrt_gguf_type_t)0;
  }
}

/* Weights per block and bytes per block. */
#define KGRT_GGUF_Q8_0_WEIGHTS 32
#define KGRT_GGUF_Q8_0_BYTES 34
#define KGRT_GGUF_Q4_0_WEIGHTS 32
#define KGRT_GGUF_Q4_0_BYTES 18
#define KGRT_GGUF_Q4_K_WEIGHTS 256
#define KGRT_GGUF_Q4_K_BYTES 144
#define KGRT_GGUF_Q6_K_WEIGHTS 256
#define KGRT_GGUF_Q6_K_BYTES 210

/* Weights per block of `type`; 0 for a type this header does not know. */
static inline int64_t kgrt_gguf_block_weights(kgrt_gguf_type_t type) {
  switch (type) {
  case KGRT_GGUF_TYPE_Q8_0:
    return KGRT_GGUF_Q8_0_WEIGHTS;
  case KGRT_GGUF_TYPE_Q4_0:
    return KGRT_GGUF_Q4_0_WEIGHTS;
  case KGRT_GGUF_TYPE_Q4_K:
    return KGRT_GGUF_Q4_K_WEIGHTS;
  case KGRT_GGUF_TYPE_Q6_K:
    return KGRT_GGUF_Q6_K_WEIGHTS;
  }
  return 0;
}

/* Bytes per block of `type`; 0 for a type this header does not know. */
static inline size_t kgrt_gguf_block_bytes(kgrt_gguf_type_t type) {
  switch (type) {
  case KGRT_GGUF_TYPE_Q8_0:
    return KGRT_GGUF_Q8_0_BYTES;
  case KGRT_GGUF_TYPE_Q4_0:
    return KGRT_GGUF_Q4_0_BYTES;
  case KGRT_GGUF_TYPE_Q4_K:
    return KGRT_GGUF_Q4_K_BYTES;
  case KGRT_GGUF_TYPE_Q6_K:
    return KGRT_GGUF_Q6_K_BYTES;
  }
  return 0;
}

/* Bytes of n weights of `type`; 0 when n is not a positive multiple of the
 * block or the type is unknown. */
static inline size_t kgrt_gguf_row_bytes(kgrt_gguf_type_t type, int64_t n) {
  const int64_t w = kgrt_gguf_block_weights(type);
  if (w == 0 || n <= 0 || n % w != 0)
    return 0;
  return (size_t)(n / w) * kgrt_gguf_block_bytes(type);
}

/* ---- small helpers (internal) ---- */

/* Round to nearest, ties to even (ggml's nearest_int) for |x| < 2^22: adding
 * 1.5 * 2^23 leaves the rounded integer in the low mantissa bits. Beyond
 * that (the ratios of huge or subnormal scales, inf) it saturates at
 * +-2^22, and NaN gives 0, so callers' clamps see a value of the right sign. */
static inline int kgrt_gguf_nearest_(float x) {
  if (!(x > -4194304.0f && x < 4194304.0f))
    return x > 0.0f ? 4194304 : x < 0.0f ? -4194304 : 0;
  const float v = x + 12582912.0f;
  return (int)(kgrt_f32_bits(v) & 0x7fffffu) - 0x400000;
}

/* roundf (ties away from zero) for |x| < 2^30, exact in double; saturates
 * at +-2^30 beyond (inf included), NaN gives 0. */
static inline int kgrt_gguf_round_(float x) {
  if (!(x > -1073741824.0f && x < 1073741824.0f))
    return x > 0.0f ? 1073741824 : x < 0.0f ? -1073741824 : 0;
  return x >= 0.0f ? (int)((double)x + 0.5) : -(int)(0.5 - (double)x);
}

/* x clamped to [lo, hi]; NaN gives `nan`. */
static inline float kgrt_gguf_clamp_(float x, float lo, float hi, float nan) {
  return x >= lo ? (x <= hi ? x : hi) : x < lo ? lo : nan;
}

static inline float kgrt_gguf_abs_(float x) {
  return x < 0.0f ? -x : x;
}

static inline void kgrt_gguf_put_f16_(uint8_t *p, float f) {
  const uint16_t h = kgrt_f32_to_f16(f);
  p[0] = (uint8_t)(h & 0xffu);
  p[1] = (uint8_t)(h >> 8);
}

static inline float kgrt_gguf_get_f16_(const uint8_t *p) {
  return kgrt_f16_to_f32((uint16_t)(p[0] | p[1] << 8));
}

/* Byte as int8. */
static inline int kgrt_gguf_i8_(uint8_t v) {
  return (int)(v ^ 0x80u) - 128;
}

/* Q4_K: scale and min of sub-block j (0..7) from the 12 packed bytes. */
static inline void kgrt_gguf_q4k_scale_min(const uint8_t *scales, int j, int *out_sc,
                                           int *out_m) {
  if (j < 4) {
    *out_sc = scales[j] & 63;
    *out_m = scales[j + 4] & 63;
  } else {
    *out_sc = (scales[j + 4] & 15) | (scales[j - 4] >> 6) << 4;
    *out_m = (scales[j + 4] >> 4) | (scales[j] >> 6) << 4;
  }
}

/* ---- Q8_0 ---- */

/* n weights (a multiple of 32) into n / 32 blocks at out. */
static inline void kgrt_gguf_quantize_q8_0(const float *x, void *out, int64_t n) {
  uint8_t *b = (uint8_t *)out;
  for (int64_t blk = 0; blk < n / 32; blk++, x += 32, b += KGRT_GGUF_Q8_0_BYTES) {
    float amax = 0.0f;
    for (int i = 0; i < 32; i++)
      amax = kgrt_gguf_abs_(x[i]) > amax ? kgrt_gguf_abs_(x[i]) : amax;
    const float d = amax / 127.0f;
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    kgrt_gguf_put_f16_(b, d);
    /* |x id| <= 127 but where 1 / d overflows (d subnormal: f16(d) is 0) */
    for (int i = 0; i < 32; i++)
      b[2 + i] = (uint8_t)(int8_t)kgrt_gguf_round_(
          kgrt_gguf_clamp_(x[i] * id, -127.0f, 127.0f, 0.0f));
  }
}

static inline void kgrt_gguf_dequantize_q8_0(const void *in, float *y, int64_t n) {
  const uint8_t *b = (const uint8_t *)in;
  for (int64_t blk = 0; blk < n / 32; blk++, y += 32, b += KGRT_GGUF_Q8_0_BYTES) {
    const float d = kgrt_gguf_get_f16_(b);
    for (int i = 0; i < 32; i++)
      y[i] = (float)kgrt_gguf_i8_(b[2 + i]) * d;
  }
}

/* ---- Q4_0 ---- */

/* n weights (a multiple of 32) into n / 32 blocks at out. d = (the value of
 * largest magnitude) / -8, so that value is exactly nibble 0. */
static inline void kgrt_gguf_quantize_q4_0(const float *x, void *out, int64_t n) {
  uint8_t *b = (uint8_t *)out;
  for (int64_t blk = 0; blk < n / 32; blk++, x += 32, b += KGRT_GGUF_Q4_0_BYTES) {
    float amax = 0.0f, max = 0.0f;
    for (int i = 0; i < 32; i++)
      if (kgrt_gguf_abs_(x[i]) > amax) {
        amax = kgrt_gguf_abs_(x[i]);
        max = x[i];
      }
    const float d = max / -8.0f;
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    kgrt_gguf_put_f16_(b, d);
    for (int i = 0; i < 16; i++) {
      /* truncation of x/d + 8.5 toward zero: x/d + 8.5 is in [0.5, 16.5] but
       * where 1 / d overflows (d subnormal: f16(d) is 0) */
      int lo = (int)(int8_t)kgrt_gguf_clamp_(x[i] * id + 8.5f, 0.0f, 16.0f, 8.5f);
      int hi = (int)(int8_t)kgrt_gguf_clamp_(x[i + 16] * id + 8.5f, 0.0f, 16.0f, 8.5f);
      lo = lo > 15 ? 15 : lo;
      hi = hi > 15 ? 15 : hi;
      b[2 + i] = (uint8_t)(lo | hi << 4);
    }
  }
}

static inline void kgrt_gguf_dequantize_q4_0(const void *in, float *y, int64_t n) {
  const uint8_t *b = (const uint8_t *)in;
  for (int64_t blk = 0; blk < n / 32; blk++, y += 32, b += KGRT_GGUF_Q4_0_BYTES) {
    const float d = kgrt_gguf_get_f16_(b);
    for (int i = 0; i < 16; i++) {
      y[i] = (float)((b[2 + i] & 15) - 8) * d;
      y[i + 16] = (float)((b[2 + i] >> 4) - 8) * d;
    }
  }
}

/* ---- Q4_K ---- */

/* n weights (a multiple of 256) into n / 256 blocks at out (see the top of
 * this file for how the scales are chosen). */
static inline void kgrt_gguf_quantize_q4_k(const float *x, void *out, int64_t n) {
  uint8_t *b = (uint8_t *)out;
  for (int64_t blk = 0; blk < n / 256; blk++, x += 256, b += KGRT_GGUF_Q4_K_BYTES) {
    float scale[8], min[8], max_scale = 0.0f, max_min = 0.0f;
    for (int j = 0; j < 8; j++) {
      float lo = 0.0f, hi = x[32 * j];
      for (int i = 0; i < 32; i++) {
        const float v = x[32 * j + i];
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
      }
      scale[j] = (hi - lo) / 15.0f;
      min[j] = -lo; /* >= 0: subtracted on decode */
      max_scale = scale[j] > max_scale ? scale[j] : max_scale;
      max_min = min[j] > max_min ? min[j] : max_min;
    }
    const float inv_scale = max_scale > 0.0f ? 63.0f / max_scale : 0.0f;
    const float inv_min = max_min > 0.0f ? 63.0f / max_min : 0.0f;
    uint8_t *sc = b + 4;
    for (int j = 0; j < 12; j++)
      sc[j] = 0;
    for (int j = 0; j < 8; j++) {
      int ls = kgrt_gguf_nearest_(inv_scale * scale[j]);
      int lm = kgrt_gguf_nearest_(inv_min * min[j]);
      /* in [0, 63] but where 63 / max overflows (a subnormal max) */
      ls = ls < 0 ? 0 : ls > 63 ? 63 : ls;
      lm = lm < 0 ? 0 : lm > 63 ? 63 : lm;
      if (j < 4) { /* low 6 bits of bytes j and j + 4 */
        sc[j] |= (uint8_t)ls;
        sc[j + 4] |= (uint8_t)lm;
      } else { /* low 4 bits in byte j + 4, top 2 in bits 6..7 of j - 4 and j */
        sc[j + 4] = (uint8_t)((ls & 15) | (lm & 15) << 4);
        sc[j - 4] |= (uint8_t)((ls >> 4) << 6);
        sc[j] |= (uint8_t)((lm >> 4) << 6);
      }
    }
    kgrt_gguf_put_f16_(b, max_scale / 63.0f);
    kgrt_gguf_put_f16_(b + 2, max_min / 63.0f);
    const float d = kgrt_gguf_get_f16_(b), dmin = kgrt_gguf_get_f16_(b + 2);
    uint8_t *qs = b + 16;
    for (int j = 0; j < 8; j++) {
      int s, m;
      kgrt_gguf_q4k_scale_min(sc, j, &s, &m);
      const float dj = d * (float)s, mj = dmin * (float)m;
      for (int i = 0; i < 32; i++) {
        int q = 0;
        if (dj != 0.0f) {
          q = kgrt_gguf_nearest_((x[32 * j + i] + mj) / dj);
          q = q < 0 ? 0 : q > 15 ? 15 : q;
        }
        uint8_t *p = &qs[32 * (j >> 1) + i];
        *p = (j & 1) ? (uint8_t)((*p & 15) | q << 4) : (uint8_t)q;
      }
    }
  }
}

static inline void kgrt_gguf_dequantize_q4_k(const void *in, float *y, int64_t n) {
  const uint8_t *b = (const uint8_t *)in;
  for (int64_t blk = 0; blk < n / 256; blk++, b += KGRT_GGUF_Q4_K_BYTES) {
    const float d = kgrt_gguf_get_f16_(b), dmin = kgrt_gguf_get_f16_(b + 2);
    for (int j = 0; j < 8; j++, y += 32) {
      int s, m;
      kgrt_gguf_q4k_scale_min(b + 4, j, &s, &m);
      const float d1 = d * (float)s, m1 = dmin * (float)m;
      const uint8_t *q = b + 16 + 32 * (j >> 1);
      for (int i = 0; i < 32; i++)
        y[i] = d1 * (float)((q[i] >> ((j & 1) * 4)) & 15) - m1;
    }
  }
}

/* ---- Q6_K ---- */

/* n weights (a multiple of 256) into n / 256 blocks at out (see the top of
 * this file for how the scales are chosen). */
static inline void kgrt_gguf_quantize_q6_k(const float *x, void *out, int64_t n) {
  uint8_t *b = (uint8_t *)out;
  for (int64_t blk = 0; blk < n / 256; blk++, x += 256, b += KGRT_GGUF_Q6_K_BYTES) {
    float scale[16], max_scale = 0.0f, max_abs = 0.0f;
    for (int s = 0; s < 16; s++) {
      float amax = 0.0f, max = 0.0f;
      for (int i = 0; i < 16; i++)
        if (kgrt_gguf_abs_(x[16 * s + i]) > amax) {
          amax = kgrt_gguf_abs_(x[16 * s + i]);
          max = x[16 * s + i];
        }
      scale[s] = max / -32.0f; /* the largest magnitude is exactly q = 0 */
      if (amax > max_abs) {
        max_abs = amax;
        max_scale = scale[s];
      }
    }
    for (int i = 0; i < KGRT_GGUF_Q6_K_BYTES; i++)
      b[i] = 0;
    if (max_abs < 1e-15f) /* all zero: d = 0 */
      continue;
    const float iscale = -128.0f / max_scale;
    kgrt_gguf_put_f16_(b + 208, 1.0f / iscale);
    for (int s = 0; s < 16; s++) {
      const int l = kgrt_gguf_nearest_(iscale * scale[s]);
      b[192 + s] = (uint8_t)(int8_t)(l > 127 ? 127 : l);
    }
    const float d = kgrt_gguf_get_f16_(b + 208);
    for (int v = 0; v < 256; v++) {
      const float dv = d * (float)kgrt_gguf_i8_(b[192 + v / 16]);
      int q = 32;
      if (dv != 0.0f) {
        q = kgrt_gguf_nearest_(x[v] / dv);
        q = (q < -32 ? -32 : q > 31 ? 31 : q) + 32;
      }
      const int h = v >> 7, k = (v >> 5) & 3, e = v & 31;
      b[64 * h + 32 * (k & 1) + e] |= (uint8_t)((q & 15) << ((k >> 1) * 4));
      b[128 + 32 * h + e] |= (uint8_t)((q >> 4) << (2 * k));
    }
  }
}

static inline void kgrt_gguf_dequantize_q6_k(const void *in, float *y, int64_t n) {
  const uint8_t *b = (const uint8_t *)in;
  for (int64_t blk = 0; blk < n / 256; blk++, y += 256, b += KGRT_GGUF_Q6_K_BYTES) {
    const float d = kgrt_gguf_get_f16_(b + 208);
    for (int v = 0; v < 256; v++) {
      const int h = v >> 7, k = (v >> 5) & 3, e = v & 31;
      const int lo = (b[64 * h + 32 * (k & 1) + e] >> ((k >> 1) * 4)) & 15;
      const int hi = (b[128 + 32 * h + e] >> (2 * k)) & 3;
      y[v] = d * (float)kgrt_gguf_i8_(b[192 + v / 16]) * (float)((lo | hi << 4) - 32);
    }
  }
}

/* ---- by type ---- */

/* n weights of x into blocks of `type` at out (kgrt_gguf_row_bytes(type, n)
 * bytes). Returns 0, or -1 (nothing written) when n is not a positive
 * multiple of the block or the type is unknown. */
static inline int kgrt_gguf_quantize(kgrt_gguf_type_t type, const float *x, void *out,
                                     int64_t n) {
  if (kgrt_gguf_row_bytes(type, n) == 0)
    return -1;
  switch (type) {
  case KGRT_GGUF_TYPE_Q8_0:
    kgrt_gguf_quantize_q8_0(x, out, n);
    break;
  case KGRT_GGUF_TYPE_Q4_0:
    kgrt_gguf_quantize_q4_0(x, out, n);
    break;
  case KGRT_GGUF_TYPE_Q4_K:
    kgrt_gguf_quantize_q4_k(x, out, n);
    break;
  case KGRT_GGUF_TYPE_Q6_K:
    kgrt_gguf_quantize_q6_k(x, out, n);
    break;
  }
  return 0;
}

/* n weights from the blocks of `type` at in into y. Returns 0, or -1
 * (nothing written) as kgrt_gguf_quantize does. */
static inline int kgrt_gguf_dequantize(kgrt_gguf_type_t type, const void *in, float *y,
                                       int64_t n) {
  if (kgrt_gguf_row_bytes(type, n) == 0)
    return -1;
  switch (type) {
  case KGRT_GGUF_TYPE_Q8_0:
    kgrt_gguf_dequantize_q8_0(in, y, n);
    break;
  case KGRT_GGUF_TYPE_Q4_0:
    kgrt_gguf_dequantize_q4_0(in, y, n);
    break;
  case KGRT_GGUF_TYPE_Q4_K:
    kgrt_gguf_dequantize_q4_k(in, y, n);
    break;
  case KGRT_GGUF_TYPE_Q6_K:
    kgrt_gguf_dequantize_q6_k(in, y, n);
    break;
  }
  return 0;
}

#endif /* KGRT_GGUF_H */
