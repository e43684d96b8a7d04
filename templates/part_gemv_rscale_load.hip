{{! RSCALE: x is the z of a split RMS norm, and rsum [rows, RS_K] of RS_T the norm's operand; each row's rsqrt(mean square + RS_EPS) is the kernel's own work. Here the workgroup's threads load the rows in 16-byte vectors, thread t vectors t, t + BLOCK, ..., right after kg_dep_wait(), so that the loads are in flight while x is staged (part_gemv_rscale_waves.hip and part_gemv_rscale_sum.hip add their squares); coherent loads, so that they stay after the wait }}constexpr int RSV = 16 / (int)sizeof({{RS_T}});
  constexpr int RSN = ({{RS_K}} / RSV + {{BLOCK}} - 1) / {{BLOCK}};
  static_assert({{RS_K}} % RSV == 0, "a row of the norm's operand is whole 16-byte vectors");
  kg_vec<{{RS_T}}, RSV> rsv[{{MMAX}}][RSN];
#pragma unroll
  for (int m = 0; m < {{MMAX}}; ++m)
#pragma unroll
    for (int i = 0; i < RSN; ++i) {
      const int e = ((int)threadIdx.x + i * {{BLOCK}}) * RSV;
      rsv[m][i] = {};
      if (m < M && e < {{RS_K}})
        rsv[m][i] = kg_ldv_coherent<RSV>(rsum, m * {{RS_K}}L + e);
    }
