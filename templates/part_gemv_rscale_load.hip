{{! RSCALE: x is the z of a split RMS norm; each row's rsqrt(mean square + RS_EPS) comes from the RS_K / NPC sums of squares its producer wrote (rsum [rows, RS_K / NPC]), lane l of each 32 adding sums l, l + 32, ... in order, then a shuffle tree (part_gemv_rscale_sum.hip), as gemm.hip does: the same bits. Here every wave loads its rows' sums, before x is staged, so that the loads are in flight meanwhile; kg_ld_coherent, so that they stay after kg_dep_wait() }}constexpr int RSP = {{RS_K}} / {{NPC}}, RSL = (RSP + 31) / 32;
  float rsl[{{MMAX}}][RSL];
#pragma unroll
  for (int m = 0; m < {{MMAX}}; ++m)
#pragma unroll
    for (int i = 0; i < RSL; ++i)
      rsl[m][i] = m < M && lane % 32 + 32 * i < RSP ? kg_ld_coherent(rsum, m * RSP + lane % 32 + 32 * i) : 0.0f;
