/* lib_quant.hip - device helpers that dequantize GGUF (ggml) weight blocks to
 * float: Q8_0, Q4_0, Q4_K and Q6_K, one element (by its index in the tensor)
 * or one group of 32 consecutive elements; and, for kernels that stage blocks
 * in LDS (templates/gemv_q.hip), a group of 32 read from there, factored into
 * small integers and scales (see "Groups of 32 from blocks staged in LDS"),
 * or the same read straight from global memory (templates/gemm.hip, see
 * "Groups of 32 straight from global memory").
 * Needs a prelude (kg_ld, kg_ldv, kg_f16_bits_to_f32, kg_bits_f32). Unused
 * helpers cost nothing (KG_INLINE only).
 *
 * Layouts, as ggml defines them (ggml/src/ggml-common.h, block_q8_0,
 * block_q4_0, block_q4_K, block_q6_K; ggml/src/ggml-quants.c,
 * dequantize_row_q8_0 / _q4_0 / _q4_K / _q6_K and get_scale_min_k4). Every
 * multi-byte field is little-endian; f16 is IEEE binary16.
 *   Q8_0, 32 weights, 34 bytes: f16 d @0, int8 qs[32] @2.  w[i] = qs[i] * d.
 *   Q4_0, 32 weights, 18 bytes: f16 d @0, qs[16] @2. w[i] = (nib - 8) * d,
 *     nib = low nibble of qs[i] for i < 16, high nibble of qs[i - 16] after.
 *   Q4_K, 256 weights, 144 bytes: f16 d @0, f16 dmin @2, scales[12] @4,
 *     qs[128] @16. Eight sub-blocks of 32 (j = 0..7), each with a 6-bit scale
 *     sc and a 6-bit min m (get_scale_min_k4): for j < 4, sc = scales[j] & 63,
 *     m = scales[j + 4] & 63; for j >= 4, sc = (scales[j + 4] & 15) |
 *     (scales[j - 4] >> 6) << 4 and m = (scales[j + 4] >> 4) | (scales[j] >> 6)
 *     << 4. Sub-blocks 2c and 2c+1 share the 32 bytes qs[32c..32c+31]: 2c
 *     takes the low nibbles, 2c+1 the high ones. w = (d * sc) * q - dmin * m.
 *   Q6_K, 256 weights, 210 bytes: ql[128] @0, qh[64] @128, int8 scales[16]
 *     @192, f16 d @208. Element n = 128 h + 32 k + e (h = 0..1, k = 0..3,
 *     e = 0..31): low 4 bits from ql[64 h + 32 (k & 1) + e] (low nibble for
 *     k < 2, high for k >= 2), high 2 bits from qh[32 h + e] >> 2 k, scale
 *     scales[n / 16]; w = d * scale * (q - 32).
 *
 * Exactness: f16 d has 11 significant bits and the integer factors are
 * small, so every product above is exact in float (Q6_K: |scale (q - 32)|
 * <= 4096); Q4_K's subtraction is the only rounding. Results are therefore
 * bit-identical on every target and to ggml's CPU code, fused multiply-add
 * or not, in any order.
 *
 * Loads: bytes (kg_ld), assembled little-endian, because Q8_0, Q4_0 and Q6_K
 * blocks are only 2-byte aligned. Q4_K blocks are 144 = 9 * 16 bytes, so its
 * group helper reads 16-byte vectors and needs a 16-byte aligned buffer.
 * `out[32]` is filled with constant indices only (unrolled loops), so it
 * stays in registers once inlined. */

/* The f16 at byte `off`, little-endian. */
KG_INLINE float kg_q_ld_f16(KG_GLOBAL(const unsigned char) b, long off) {
  const unsigned lo = kg_ld(b, off), hi = kg_ld(b, off + 1);
  return kg_f16_bits_to_f32((unsigned short)(lo | hi << 8));
}

/* Byte 0..255 as int8. */
KG_INLINE int kg_q_i8(unsigned v) { return (int)((v ^ 0x80u) & 0xffu) - 128; }

/* ---- Q8_0 ---- */

/* Element i of a Q8_0 tensor. */
KG_INLINE float kg_q8_0_dequant1(KG_GLOBAL(const unsigned char) blocks, long i) {
  const long base = (i >> 5) * 34;
  return (float)kg_q_i8(kg_ld(blocks, base + 2 + (i & 31))) * kg_q_ld_f16(blocks, base);
}

/* The 32 elements of block `block_index`. */
KG_INLINE void kg_q8_0_dequant32(KG_GLOBAL(const unsigned char) blocks, long block_index,
                                 float out[32]) {
  const long base = block_index * 34;
  const float d = kg_q_ld_f16(blocks, base);
#pragma unroll
  for (int e = 0; e < 32; e++)
    out[e] = (float)kg_q_i8(kg_ld(blocks, base + 2 + e)) * d;
}

/* ---- Q4_0 ---- */

/* Element i of a Q4_0 tensor. */
KG_INLINE float kg_q4_0_dequant1(KG_GLOBAL(const unsigned char) blocks, long i) {
  const long base = (i >> 5) * 18;
  const int e = (int)(i & 31);
  const unsigned q = ((unsigned)kg_ld(blocks, base + 2 + (e & 15)) >> (e >> 4 << 2)) & 15u;
  return (float)((int)q - 8) * kg_q_ld_f16(blocks, base);
}

/* The 32 elements of block `block_index`. */
KG_INLINE void kg_q4_0_dequant32(KG_GLOBAL(const unsigned char) blocks, long block_index,
                                 float out[32]) {
  const long base = block_index * 18;
  const float d = kg_q_ld_f16(blocks, base);
#pragma unroll
  for (int e = 0; e < 16; e++) {
    const unsigned q = kg_ld(blocks, base + 2 + e);
    out[e] = (float)((int)(q & 15u) - 8) * d;
    out[e + 16] = (float)((int)(q >> 4) - 8) * d;
  }
}

/* ---- Q4_K ---- */

/* Scale and min of sub-block j from a = scales[j & 3], b = scales[(j & 3) +
 * 4], c = scales[(j & 3) + 8] (get_scale_min_k4, without indexing an array). */
KG_INLINE void kg_q4k_scale_min(unsigned a, unsigned b, unsigned c, int j, int *sc, int *m) {
  if (j < 4) {
    *sc = (int)(a & 63u);
    *m = (int)(b & 63u);
  } else {
    *sc = (int)((c & 15u) | (a >> 6 & 3u) << 4);
    *m = (int)((c >> 4 & 15u) | (b >> 6 & 3u) << 4);
  }
}

/* Element i of a Q4_K tensor. */
KG_INLINE float kg_q4k_dequant1(KG_GLOBAL(const unsigned char) blocks, long i) {
  const long base = (i >> 8) * 144;
  const int n = (int)(i & 255), j = n >> 5, k = j & 3;
  int sc, m;
  kg_q4k_scale_min(kg_ld(blocks, base + 4 + k), kg_ld(blocks, base + 8 + k),
                   kg_ld(blocks, base + 12 + k), j, &sc, &m);
  const unsigned byte = kg_ld(blocks, base + 16 + (j >> 1) * 32 + (n & 31));
  const unsigned q = (byte >> ((j & 1) << 2)) & 15u;
  const float d1 = kg_q_ld_f16(blocks, base) * (float)sc;
  const float m1 = kg_q_ld_f16(blocks, base + 2) * (float)m;
  return d1 * (float)q - m1;
}

/* The 32 elements of sub-block `group` (0..7) of block `block_index`, i.e.
 * elements 32 group .. 32 group + 31. The buffer must be 16-byte aligned. */
KG_INLINE void kg_q4k_dequant32(KG_GLOBAL(const unsigned char) blocks, long block_index,
                                int group, float out[32]) {
  const long base = block_index * 144;
  const kg_vec<unsigned char, 16> h = kg_ldv<16>(blocks, base);
  /* scales[0..3], [4..7], [8..11] as little-endian words */
  const unsigned w1 = h.v[4] | h.v[5] << 8 | h.v[6] << 16 | (unsigned)h.v[7] << 24;
  const unsigned w2 = h.v[8] | h.v[9] << 8 | h.v[10] << 16 | (unsigned)h.v[11] << 24;
  const unsigned w3 = h.v[12] | h.v[13] << 8 | h.v[14] << 16 | (unsigned)h.v[15] << 24;
  const int sh = (group & 3) << 3;
  int sc, m;
  kg_q4k_scale_min(w1 >> sh & 255u, w2 >> sh & 255u, w3 >> sh & 255u, group, &sc, &m);
  const float d1 = kg_f16_bits_to_f32((unsigned short)(h.v[0] | h.v[1] << 8)) * (float)sc;
  const float m1 = kg_f16_bits_to_f32((unsigned short)(h.v[2] | h.v[3] << 8)) * (float)m;
  const long qs = base + 16 + (group >> 1) * 32;
  const int nib = (group & 1) << 2;
#pragma unroll
  for (int half = 0; half < 2; half++) {
    const kg_vec<unsigned char, 16> q = kg_ldv<16>(blocks, qs + half * 16);
#pragma unroll
    for (int e = 0; e < 16; e++)
      out[half * 16 + e] = d1 * (float)(((unsigned)q.v[e] >> nib) & 15u) - m1;
  }
}

/* ---- Q6_K ---- */

/* Element i of a Q6_K tensor. */
KG_INLINE float kg_q6k_dequant1(KG_GLOBAL(const unsigned char) blocks, long i) {
  const long base = (i >> 8) * 210;
  const int n = (int)(i & 255), h = n >> 7, k = (n >> 5) & 3, e = n & 31;
  const unsigned lo = kg_ld(blocks, base + 64 * h + 32 * (k & 1) + e) >> ((k >> 1) << 2) & 15u;
  const unsigned hi = kg_ld(blocks, base + 128 + 32 * h + e) >> (k << 1) & 3u;
  const int scale = kg_q_i8(kg_ld(blocks, base + 192 + (n >> 4)));
  return kg_q_ld_f16(blocks, base + 208) * (float)scale * (float)((int)(lo | hi << 4) - 32);
}

/* The 32 elements of group `group` (0..7) of block `block_index`, i.e.
 * elements 32 group .. 32 group + 31 (two scales: one per 16). */
KG_INLINE void kg_q6k_dequant32(KG_GLOBAL(const unsigned char) blocks, long block_index,
                                int group, float out[32]) {
  const long base = block_index * 210;
  const int h = group >> 2, k = group & 3;
  const long ql = base + 64 * h + 32 * (k & 1), qh = base + 128 + 32 * h;
  const int lo_shift = (k >> 1) << 2, hi_shift = k << 1;
  const float d = kg_q_ld_f16(blocks, base + 208);
  const float d0 = d * (float)kg_q_i8(kg_ld(blocks, base + 192 + 2 * group));
  const float d1 = d * (float)kg_q_i8(kg_ld(blocks, base + 193 + 2 * group));
#pragma unroll
  for (int e = 0; e < 32; e++) {
    const unsigned lo = (unsigned)kg_ld(blocks, ql + e) >> lo_shift & 15u;
    const unsigned hi = (unsigned)kg_ld(blocks, qh + e) >> hi_shift & 3u;
    out[e] = (e < 16 ? d0 : d1) * (float)((int)(lo | hi << 4) - 32);
  }
}

/* ---- Groups of 32 from blocks staged in LDS (templates/gemv_q.hip) ----
 *
 * `s` points at LDS words that hold consecutive blocks of one row from word 0
 * (a stage begins at a block boundary, word aligned); `g` counts groups of 32
 * weights from there. The blocks were copied in as little-endian words, so
 * byte `off` of the stage is byte off & 3 of word off >> 2. Q8_0, Q4_0 and
 * Q6_K fields lie at even byte offsets only: 16 bits are one word's half, and
 * 32 bytes are realigned from 9 words (kg_q_lds_words), which may read one
 * word past the field, so the LDS array needs a spare word at its end.
 *
 * A group comes back factored, for a kernel that sums q times x first and
 * scales once per 16: weight e is sc[e >> 4] * q[e] - mn, with q[e] the small
 * integer (Q8_0 -128..127, Q4_0 -8..7, Q4_K 0..15, Q6_K -32..31), sc the
 * scale of its 16 (d; Q4_K d sc_j; Q6_K d scales[n / 16]) and mn the min
 * (Q4_K dmin m_j; 0 elsewhere). sc and mn are the exact products of the
 * helpers above, so sc * q - mn is their weight, bit for bit; the GEMVs'
 * Q4_0 decoders alone leave them offset (kg_q4_0_words32_off). The integers
 * are made floats by adding them to 2^23 in the bits (kg_q_f32), not with
 * an int-to-float conversion, which some GPUs (NVIDIA's) issue at a quarter
 * of the FMA rate. */

/* 2^23 + byte b of u, minus bias: exact when the result is a small integer
 * (bias = 2^23 + the offset to subtract from the byte). One byte permute
 * builds the bits (PRMT on CUDA). */
KG_INLINE float kg_q_f32(unsigned u, int b, float bias) {
  return kg_bits_f32(kg_byte_perm(u, 0x4b000000u, 0x7540u | (unsigned)b)) - bias;
}

/* The 16 bits at even byte offset `off`. */
KG_INLINE unsigned kg_q_lds_u16(const unsigned *s, int off) {
  return s[off >> 2] >> ((off & 2) << 3) & 0xffffu;
}

/* NW words of bytes off .. off + 4 NW - 1 (off even). */
template <int NW> KG_INLINE void kg_q_lds_words(const unsigned *s, int off, unsigned out[NW]) {
  const int w = off >> 2;
  const bool mid = (off & 2) != 0; /* the field starts in the middle of a word */
  unsigned prev = s[w];
#pragma unroll
  for (int i = 0; i < NW; i++) {
    const unsigned next = s[w + 1 + i];
    out[i] = mid ? (prev >> 16 | next << 16) : prev;
    prev = next;
  }
}

/* The decoders proper take a group's fields as words already gathered
 * (from LDS by the _lds32 helpers below, from global memory by the _gl32
 * ones at the end of this file); both gather the same bytes, so a group
 * decodes bit for bit alike from either. */

/* Q8_0 from its fields: d the f16 bits, qs[i] bytes 4i .. 4i + 3 of qs. */
KG_INLINE void kg_q8_0_words32(unsigned d, const unsigned qs[8], float q[32], float sc[2],
                               float *mn) {
  sc[0] = sc[1] = kg_f16_bits_to_f32((unsigned short)d);
  *mn = 0.0f;
#pragma unroll
  for (int i = 0; i < 8; i++) {
    const unsigned u = qs[i] ^ 0x80808080u; /* each byte: q + 128 */
#pragma unroll
    for (int b = 0; b < 4; b++)
      q[4 * i + b] = kg_q_f32(u, b, 8388736.0f);
  }
}

/* Q4_0 from its fields: d the f16 bits, qs[i] bytes 4i .. 4i + 3 of qs. */
KG_INLINE void kg_q4_0_words32(unsigned d, const unsigned qs[4], float q[32], float sc[2],
                               float *mn) {
  sc[0] = sc[1] = kg_f16_bits_to_f32((unsigned short)d);
  *mn = 0.0f;
#pragma unroll
  for (int i = 0; i < 4; i++) {
    const unsigned lo = qs[i] & 0x0f0f0f0fu, hi = qs[i] >> 4 & 0x0f0f0f0fu;
#pragma unroll
    for (int b = 0; b < 4; b++) {
      q[4 * i + b] = kg_q_f32(lo, b, 8388616.0f);
      q[16 + 4 * i + b] = kg_q_f32(hi, b, 8388616.0f);
    }
  }
}

/* Q4_0 with offsets, for a kernel that takes them off itself (gemv_q's and
 * gemv_qr's QB0, QB1: the half's scale times its offset times its sum of
 * x): the nibbles masked in place and one byte permute each, no shift and
 * no subtraction. Element e < 16: q = 128 + low nibble = the weight's
 * integer + 136 (bits 0x43 nibble 00 00); e >= 16: the high nibble, masked
 * in place, as byte 1 (bits 0x43 00 16*nibble 00): q = 128 + nibble / 16 =
 * (integer) / 16 + 128.5, sc[1] = 16 d (exact). Every product with an f16 or
 * bf16 x is exact; the f32 sums lose a few bits to the offsets, far below the
 * rounding of the result. */
KG_INLINE void kg_q4_0_words32_off(unsigned d, const unsigned qs[4], float q[32], float sc[2],
                                   float *mn) {
  sc[0] = kg_f16_bits_to_f32((unsigned short)d);
  sc[1] = sc[0] * 16.0f;
  *mn = 0.0f;
#pragma unroll
  for (int i = 0; i < 4; i++) {
    const unsigned lo = qs[i] & 0x0f0f0f0fu, hi = qs[i] & 0xf0f0f0f0u;
#pragma unroll
    for (int b = 0; b < 4; b++) {
      q[4 * i + b] = kg_bits_f32(kg_byte_perm(lo, 0x43000000u, 0x7054u | (unsigned)b << 8));
      q[16 + 4 * i + b] = kg_bits_f32(kg_byte_perm(hi, 0x43000000u, 0x7504u | (unsigned)b << 4));
    }
  }
}

/* Q4_0 with x as 16-bit integers (gemv_qr.hip's XH): a block of x is
 * staged as x16 = round(x / s), |x16| <= 32639 with s = amax / 32639 (amax
 * its largest |x|; s at least 2^-126), each x16 as two bytes, the signed hi = x16 >> 8 and the
 * unsigned lo = x16 & 255, so that every product with a weight is exact in
 * 32-bit integers, four an instruction (kg_dot4_u8s8, kg_dot4_u8u8). xs:
 * the block's 16 words, the bytes hi of x 0 .. 31, then lo of x 0 .. 31;
 * *scale = s / 16 and *off = -128 times the sum of x16: kg_q4_0_i8_dot's
 * integer plus off, times scale, is the block's sum of (q - 8) x. Rounding
 * x16 adds an error under amax / 65278 an element, an eighth of f16's
 * bound at amax. amax is taken over the bits of |x|, where an inf or a NaN
 * is larger than any number: such a block gets a NaN scale, so its sums
 * are NaN. */
KG_INLINE void kg_q4_0_i8_stage(const float x[32], unsigned *xs, float *scale, int *off) {
  unsigned amax = 0u;
#pragma unroll
  for (int e = 0; e < 32; e++) {
    const unsigned a = kg_f32_bits(x[e]) & 0x7fffffffu;
    amax = a > amax ? a : amax;
  }
  const bool finite = amax < 0x7f800000u;
  /* 1 / s, at most 2^126: a block of only tiny values (amax under 2^-111)
   * keeps fewer bits, but never an inf */
  const float r = 32639.0f / kg_bits_f32(amax);
  const float inv = amax != 0u && finite ? (r < 0x1p126f ? r : 0x1p126f) : 0.0f;
  int sum = 0;
#pragma unroll
  for (int i = 0; i < 8; i++) {
    int v[4];
#pragma unroll
    for (int b = 0; b < 4; b++) {
      v[b] = kg_f32_to_i32_rn(x[4 * i + b] * inv);
      sum += v[b];
    }
    const unsigned p0 = (unsigned)v[0], p1 = (unsigned)v[1], p2 = (unsigned)v[2],
                   p3 = (unsigned)v[3];
    xs[i] = kg_byte_perm(kg_byte_perm(p0, p1, 0x0051u), kg_byte_perm(p2, p3, 0x0051u), 0x5410u);
    xs[8 + i] =
        kg_byte_perm(kg_byte_perm(p0, p1, 0x0040u), kg_byte_perm(p2, p3, 0x0040u), 0x5410u);
  }
  *scale = !finite ? kg_bits_f32(0x7fc00000u)
                   : r < 0x1p126f ? kg_bits_f32(amax) / (32639.0f * 16.0f) : 0x1p-130f;
  *off = -128 * sum;
}

/* Q4_0 (gemv_qr.hip's XH): 16 times the sum over the block's 32 weights of
 * q x16 (q = 0 .. 15, before its offset of 8), exact in 32 bits (at most
 * 16 x 32 x 15 x 32639 < 2^28). qs[i]: bytes 4i .. 4i + 3 of qs, whose low
 * nibbles are weights 4i .. 4i + 3 and high nibbles 16 + 4i .. 16 + 4i + 3,
 * taken in place (16 q); xs: the block as kg_q4_0_i8_stage writes it. */
KG_INLINE int kg_q4_0_i8_dot(const unsigned qs[4], const unsigned *xs) {
  const kg_vec<unsigned, 4> h0 = *(const kg_vec<unsigned, 4> *)xs,
                            h1 = *(const kg_vec<unsigned, 4> *)(xs + 4),
                            l0 = *(const kg_vec<unsigned, 4> *)(xs + 8),
                            l1 = *(const kg_vec<unsigned, 4> *)(xs + 12);
  int a0 = 0, a1 = 0, b0 = 0, b1 = 0;
#pragma unroll
  for (int i = 0; i < 4; i++) {
    const unsigned lw = qs[i] & 0x0f0f0f0fu, hw = qs[i] & 0xf0f0f0f0u;
    a0 = kg_dot4_u8s8(lw, h0.v[i], a0);
    a1 = kg_dot4_u8s8(hw, h1.v[i], a1);
    b0 = kg_dot4_u8u8(lw, l0.v[i], b0);
    b1 = kg_dot4_u8u8(hw, l1.v[i], b1);
  }
  return (16 * a0 + a1) * 256 + 16 * b0 + b1;
}

/* Q4_0 for the tensor cores (templates/gemv_qm.hip): the word of qs bytes
 * j .. j + 3 as four registers of two 16-bit elements (low half the first),
 * each nibble OR-ed into the mantissa of `magic` (0x43004300: bf16 128 + n;
 * 0x64006400: f16 1024 + n), exactly the weight's integer plus 136 or 1032,
 * with no int-to-float conversion. r[0]: the low nibbles of bytes j and j + 2
 * (weights j, j + 2); r[1]: their high nibbles (weights j + 16, j + 18);
 * r[2], r[3]: the same of bytes j + 1 and j + 3. */
KG_INLINE void kg_q4_0_mma_words(unsigned qs, unsigned magic, unsigned r[4]) {
  r[0] = (qs & 0x000f000fu) | magic;
  r[1] = (qs >> 4 & 0x000f000fu) | magic;
  r[2] = (qs >> 8 & 0x000f000fu) | magic;
  r[3] = (qs >> 12 & 0x000f000fu) | magic;
}

/* Q4_K sub-block j from its fields: head the block's first 16 bytes (d,
 * dmin, scales) as 4 words, qs the 32 bytes qs[32 (j >> 1) ..] as 8. */
KG_INLINE void kg_q4k_words32(const unsigned head[4], const unsigned qs[8], int j, float q[32],
                              float sc[2], float *mn) {
  const int sh = (j & 3) << 3;
  int scale, m;
  kg_q4k_scale_min(head[1] >> sh & 255u, head[2] >> sh & 255u, head[3] >> sh & 255u, j, &scale,
                   &m);
  sc[0] = sc[1] = kg_f16_bits_to_f32((unsigned short)(head[0] & 0xffffu)) * (float)scale;
  *mn = kg_f16_bits_to_f32((unsigned short)(head[0] >> 16)) * (float)m;
  const int nib = (j & 1) << 2;
#pragma unroll
  for (int i = 0; i < 8; i++) {
    const unsigned v = qs[i] >> nib & 0x0f0f0f0fu;
#pragma unroll
    for (int e = 0; e < 4; e++)
      q[4 * i + e] = kg_q_f32(v, e, 8388608.0f);
  }
}

/* Q6_K group grp (0..7) from its fields: ql the 32 bytes ql[64 h + 32 (k &
 * 1) ..], qh the 32 bytes qh[32 h ..] (h = grp >> 2, k = grp & 3), scales
 * the two int8 scales of the group (scales[2 grp], [2 grp + 1]) as 16 bits,
 * d the f16 bits. */
KG_INLINE void kg_q6k_words32(const unsigned ql[8], const unsigned qh[8], unsigned scales,
                              unsigned d, int grp, float q[32], float sc[2], float *mn) {
  const float df = kg_f16_bits_to_f32((unsigned short)d);
  sc[0] = df * (float)kg_q_i8(scales);
  sc[1] = df * (float)kg_q_i8(scales >> 8);
  *mn = 0.0f;
  const int k = grp & 3, lo_shift = (k >> 1) << 2, hi_shift = k << 1;
#pragma unroll
  for (int i = 0; i < 8; i++) {
    const unsigned v = (ql[i] >> lo_shift & 0x0f0f0f0fu) | (qh[i] >> hi_shift & 0x03030303u) << 4;
#pragma unroll
    for (int e = 0; e < 4; e++)
      q[4 * i + e] = kg_q_f32(v, e, 8388640.0f);
  }
}

/* Q8_0: group g is block g (34 bytes at 34 g); q = qs[e]. */
KG_INLINE void kg_q8_0_lds32(const unsigned *s, int g, float q[32], float sc[2], float *mn) {
  const int off = g * 34;
  unsigned w[8];
  kg_q_lds_words<8>(s, off + 2, w);
  kg_q8_0_words32(kg_q_lds_u16(s, off), w, q, sc, mn);
}

/* Q4_0: group g is block g (18 bytes at 18 g), with the offsets
 * kg_q4_0_words32_off leaves; element e < 16 the low nibble of qs[e],
 * e >= 16 the high nibble of qs[e - 16]. */
KG_INLINE void kg_q4_0_lds32_off(const unsigned *s, int g, float q[32], float sc[2],
                                  float *mn) {
  const int off = g * 18;
  unsigned w[4];
  kg_q_lds_words<4>(s, off + 2, w);
  kg_q4_0_words32_off(kg_q_lds_u16(s, off), w, q, sc, mn);
}

/* Q4_K: group g is sub-block j = g & 7 of block g >> 3 (144 bytes, 36
 * words); q = nibble, sc = d sc_j, mn = dmin m_j. */
KG_INLINE void kg_q4k_lds32(const unsigned *s, int g, float q[32], float sc[2], float *mn) {
  const unsigned *b = s + (g >> 3) * 36;
  const int j = g & 7;
  kg_q4k_words32(b, b + 4 + (j >> 1) * 8, j, q, sc, mn);
}

/* Q6_K: group g is group g & 7 of block g >> 3 (210 bytes at 210 (g >> 3));
 * q = (low 4 bits | high 2 bits << 4) - 32, sc = d scales[n / 16]. */
KG_INLINE void kg_q6k_lds32(const unsigned *s, int g, float q[32], float sc[2], float *mn) {
  const int base = (g >> 3) * 210, grp = g & 7, h = grp >> 2, k = grp & 3;
  unsigned ql[8], qh[8];
  kg_q_lds_words<8>(s, base + 64 * h + 32 * (k & 1), ql);
  kg_q_lds_words<8>(s, base + 128 + 32 * h, qh);
  kg_q6k_words32(ql, qh, kg_q_lds_u16(s, base + 192 + 2 * grp), kg_q_lds_u16(s, base + 208), grp,
                 q, sc, mn);
}

/* The VEC bytes at byte `off` of a quantized weight (its 16-bit units, as
 * kernels receive it; off a multiple of VEC) as words for an LDS stage:
 * VEC / 4 words, or for VEC = 2 one word whose upper half (bytes off + 2,
 * off + 3) is read only when off + 2 < end (else 0). Halves, not bytes, so
 * that a 16-byte load repacks into 4 words for free (a byte vector costs
 * NVRTC a shuffle per byte). */
template <int VEC>
KG_INLINE void kg_q_ld_words(KG_GLOBAL(const unsigned short) b, long off, long end,
                             unsigned out[VEC < 4 ? 1 : VEC / 4]) {
  if (VEC >= 4) {
    constexpr int V = VEC < 4 ? 4 : VEC;
    const kg_vec<unsigned short, V / 2> v = kg_ldv<V / 2>(b, off / 2);
#pragma unroll
    for (int i = 0; i < V / 4; i++)
      out[i] = v.v[2 * i] | (unsigned)v.v[2 * i + 1] << 16;
  } else {
    const unsigned lo = kg_ld(b, off / 2);
    const unsigned hi = off + 2 < end ? kg_ld(b, off / 2 + 1) : 0u;
    out[0] = lo | hi << 16;
  }
}

/* VEC bytes of a quantized weight (16-bit units, as kernels receive it) from
 * unit i to LDS at s: an asynchronous copy (common.hip) of 4, 8 or 16
 * bytes, or for VEC = 2 a plain load and store, complete at once. */
template <int VEC>
KG_INLINE void kg_q_copy(unsigned short *s, KG_GLOBAL(const unsigned short) b, long i) {
  if constexpr (VEC >= 4)
    kg_async_copy<VEC / 2>(s, b, i, true);
  else
    *s = kg_ld(b, i);
}

/* ---- Groups of 32 straight from global memory (templates/gemm.hip) ----
 *
 * `b` is the quantized weight as kernels receive it (16-bit units); `row` is
 * the byte offset of a row's first block (even) and `g` counts groups of 32
 * weights from there. Each helper reads only the fields of its group, as
 * little-endian words from 16-bit loads (kg_q_ld_words<2>: every field is at
 * an even offset), Q4_K's 16-byte aligned ones with 16-byte loads, and
 * returns what the _lds32 helpers return for the same group. */

/* NW words of bytes off .. off + 4 NW - 1 (off even), read as halves. */
template <int NW>
KG_INLINE void kg_q_gl_words(KG_GLOBAL(const unsigned short) b, long off, unsigned out[NW]) {
#pragma unroll
  for (int i = 0; i < NW; i++)
    kg_q_ld_words<2>(b, off + 4 * i, off + 4 * i + 4, &out[i]);
}

KG_INLINE void kg_q8_0_gl32(KG_GLOBAL(const unsigned short) b, long row, long g, float q[32],
                            float sc[2], float *mn) {
  const long off = row + g * 34;
  unsigned w[8];
  kg_q_gl_words<8>(b, off + 2, w);
  kg_q8_0_words32(kg_ld(b, off / 2), w, q, sc, mn);
}

KG_INLINE void kg_q4_0_gl32(KG_GLOBAL(const unsigned short) b, long row, long g, float q[32],
                            float sc[2], float *mn) {
  const long off = row + g * 18;
  unsigned w[4];
  kg_q_gl_words<4>(b, off + 2, w);
  kg_q4_0_words32(kg_ld(b, off / 2), w, q, sc, mn);
}

/* Blocks of 144 bytes: `row` must be a multiple of 16 (rows of whole
 * blocks from a 16-byte aligned buffer are). */
KG_INLINE void kg_q4k_gl32(KG_GLOBAL(const unsigned short) b, long row, long g, float q[32],
                           float sc[2], float *mn) {
  const long off = row + (g >> 3) * 144;
  const int j = (int)(g & 7);
  unsigned head[4], qs[8];
  kg_q_ld_words<16>(b, off, off + 16, head);
  kg_q_ld_words<16>(b, off + 16 + (j >> 1) * 32, off + 144, qs);
  kg_q_ld_words<16>(b, off + 32 + (j >> 1) * 32, off + 144, qs + 4);
  kg_q4k_words32(head, qs, j, q, sc, mn);
}

KG_INLINE void kg_q6k_gl32(KG_GLOBAL(const unsigned short) b, long row, long g, float q[32],
                           float sc[2], float *mn) {
  const long off = row + (g >> 3) * 210;
  const int grp = (int)(g & 7), h = grp >> 2, k = grp & 3;
  unsigned ql[8], qh[8];
  kg_q_gl_words<8>(b, off + 64 * h + 32 * (k & 1), ql);
  kg_q_gl_words<8>(b, off + 128 + 32 * h, qh);
  kg_q6k_words32(ql, qh, kg_ld(b, (off + 192 + 2 * grp) / 2), kg_ld(b, (off + 208) / 2), grp, q,
                 sc, mn);
}

/* ---- Groups of 32 from blocks held in registers (templates/gemv_qr.hip) ----
 *
 * A unit of consecutive Q8_0 or Q4_0 blocks loaded as words w[] (little-
 * endian, 4-byte aligned at the unit's start); `off` is a block's byte offset
 * in the unit, constant once the caller's loops are unrolled, so the
 * selections below fold: a field at an offset of 2 mod 4 costs one funnel
 * shift per word. */

/* The NW words of bytes off .. off + 4 NW - 1 of w (off even): what
 * kg_q_lds_words gives, without its read of the word past a field that
 * starts word-aligned (past the unit's last word, a register array has no
 * spare word). The 16-bit fields: kg_q_lds_u16, which serves w as it is. */
template <int NW> KG_INLINE void kg_q_words_at(const unsigned *w, int off, unsigned out[NW]) {
#pragma unroll
  for (int i = 0; i < NW; i++)
    out[i] = off % 4 ? (w[off / 4 + i] >> 16 | w[off / 4 + i + 1] << 16) : w[off / 4 + i];
}

/* Q8_0 block at byte off: what kg_q8_0_lds32 gives for it. */
KG_INLINE void kg_q8_0_regs32(const unsigned *w, int off, float q[32], float sc[2], float *mn) {
  unsigned qs[8];
  kg_q_words_at<8>(w, off + 2, qs);
  kg_q8_0_words32(kg_q_lds_u16(w, off), qs, q, sc, mn);
}

/* Q4_0 block at byte off, with the offsets of kg_q4_0_words32_off. */
KG_INLINE void kg_q4_0_regs32_off(const unsigned *w, int off, float q[32], float sc[2],
                                   float *mn) {
  unsigned qs[4];
  kg_q_words_at<4>(w, off + 2, qs);
  kg_q4_0_words32_off(kg_q_lds_u16(w, off), qs, q, sc, mn);
}
