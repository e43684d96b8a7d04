/* gather: y[row, col] = x[SRC] with k = idx[row, col] (SRC: {{SRC}}), or 0
 * where k is outside [0, limit). One workgroup per row of COLS results; VEC
 * indices per load, x read element by element. */
extern "C" __global__ void __launch_bounds__({{BLOCK}})
{{KERNEL}}(KG_GLOBAL(const {{X_T}}) x, KG_GLOBAL(const int) idx, KG_GLOBAL({{X_T}}) y, long limit) {
  kg_dep_launch();
  kg_dep_wait(); /* early launch: nothing is read before it (common.hip) */
  const long row = blockIdx.x;
  const long base = row * {{COLS}};
  for (long c = (long)threadIdx.x * {{VEC}}; c < {{COLS}}; c += {{BLOCK}} * {{VEC}}) {
    const kg_vec<int, {{VEC}}> iv = kg_ldv<{{VEC}}>(idx, base + c);
    kg_vec<{{X_T}}, {{VEC}}> r;
#pragma unroll
    for (int q = 0; q < {{VEC}}; ++q) {
      const int k = iv.v[q];
      const long col = c + q;
      r.v[q] = kg_from_f32<{{X_T}}>(0.0f);
      if (k >= 0 && k < limit)
        r.v[q] = kg_ld(x, {{SRC}});
    }
    kg_stv<{{VEC}}>(y, base + c, r);
  }
}
