/* softmax: y[r, c] = exp(s x[r, c] - m) / sum_c exp(s x[r, c] - m), m the row
 * max of s x, s = SCALE. One workgroup per row of COLS elements; each thread
 * keeps an online (max, sum) pair, then the pairs are combined across the
 * workgroup (waves of WAVE lanes). */
extern "C" __global__ void __launch_bounds__({{BLOCK}})
{{KERNEL}}(KG_GLOBAL(const {{X_T}}) x, KG_GLOBAL({{Y_T}}) y) {
  const long base = (long)blockIdx.x * {{COLS}};
  float m = -__builtin_inff();
  float s = 0.0f;
  for (long c = (long)threadIdx.x * {{VEC}}; c < {{COLS}}; c += {{BLOCK}} * {{VEC}}) {
    const kg_vec<{{X_T}}, {{VEC}}> v = kg_ldv<{{VEC}}>(x, base + c);
#pragma unroll
    for (int k = 0; k < {{VEC}}; ++k) {
      const float f = kg_to_f32(v.v[k]) * {{SCALE}};
      if (f > m) {
        s = s * kg_exp(m - f) + 1.0f;
        m = f;
      } else {
        s += kg_exp(f - m);
      }
    }
  }
  const float row_max = kg_block_max<{{WAVE}}, {{BLOCK}}>(m);
  s = m == -__builtin_inff() ? 0.0f : s * kg_exp(m - row_max);
  const float inv_sum = 1.0f / kg_block_sum<{{WAVE}}, {{BLOCK}}>(s);
  for (long c = (long)threadIdx.x * {{VEC}}; c < {{COLS}}; c += {{BLOCK}} * {{VEC}}) {
    const kg_vec<{{X_T}}, {{VEC}}> v = kg_ldv<{{VEC}}>(x, base + c);
    kg_vec<{{Y_T}}, {{VEC}}> r;
#pragma unroll
    for (int k = 0; k < {{VEC}}; ++k)
      r.v[k] = kg_from_f32<{{Y_T}}>(kg_exp(kg_to_f32(v.v[k]) * {{SCALE}} - row_max) * inv_sum);
    kg_stv<{{VEC}}>(y, base + c, r);
  }
}
