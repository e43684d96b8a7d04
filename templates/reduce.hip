/* reduce: y[r] = OP over c of x[r, c] (OP: sum, max, min, argmax, argmin;
 * mean is the sum times 1/COLS), computed in float. One workgroup per row of
 * COLS elements; VEC elements per access; each thread keeps a partial result
 * (value, first index), then the partials are merged across the workgroup
 * (waves of WAVE lanes); thread 0 writes RESULT. */
extern "C" __global__ void __launch_bounds__({{BLOCK}})
{{KERNEL}}(KG_GLOBAL(const {{X_T}}) x, KG_GLOBAL({{Y_T}}) y) {
  kg_dep_launch();
  kg_dep_wait(); /* early launch: nothing is read before it (common.hip) */
  const long base = (long)blockIdx.x * {{COLS}};
  kg_vi acc = kg_red_init<{{OP}}>();
  for (long c = (long)threadIdx.x * {{VEC}}; c < {{COLS}}; c += {{BLOCK}} * {{VEC}}) {
    const kg_vec<{{X_T}}, {{VEC}}> v = kg_ldv<{{VEC}}>(x, base + c);
#pragma unroll
    for (int k = 0; k < {{VEC}}; ++k)
      acc = kg_red_step<{{OP}}>(acc, kg_to_f32(v.v[k]), (int)c + k);
  }
  acc = kg_block_reduce<{{OP}}, {{WAVE}}, {{BLOCK}}>(acc);
  if (threadIdx.x == 0)
    kg_st(y, (long)blockIdx.x, {{RESULT}});
}
