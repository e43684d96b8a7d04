/* lib_quant.hip - device helpers that dequantize GGUF (ggml) weight blocks to
 * float: Q8_0, Q4_0, Q4_K and Q6_K, one element (by its index in the tensor)
 * or one group of 32 consecutive elements. Needs a prelude (kg_ld, kg_ldv,
 * kg_f16_bits_to_f32). Unused helpers cost nothing (KG_INLINE only).
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
