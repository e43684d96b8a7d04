/* lib_rope.hip - device helpers of the rope template (lua/ops/rope.lua). */

/* The rotation angle pos * f * 2 pi in radians, reduced to [-pi, pi], where
 * f = f1 + f2 + f3 (revolutions per position; each part has at most 12
 * significant bits). pos = a * 4096 + b with b in [0, 4096): for |pos| < 2^24
 * the products of a * 4096 and b with f1 and f2 are exact floats, so their
 * fractional parts (x - trunc(x), |x| < 2^31) are exact; only the final sum of
 * values below 1 rounds. */
KG_INLINE float kg_rope_frac(float v) { return v - (float)(int)v; }
KG_INLINE float kg_rope_angle(int pos, float f1, float f2, float f3) {
  const float a = (float)(pos >> 12) * 4096.0f;
  const float b = (float)(pos & 4095);
  float s = kg_rope_frac(a * f1) + kg_rope_frac(b * f1);
  s += kg_rope_frac(a * f2) + kg_rope_frac(b * f2);
  s += a * f3 + b * f3;
  s -= (float)(int)(s + (s >= 0.0f ? 0.5f : -0.5f));
  return s * 6.28318530717958648f;
}
