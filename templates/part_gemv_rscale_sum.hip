{{! RSCALE: each row's rsqrt from the sums part_gemv_rscale_load.hip loaded (rsc[m]) }}float rsc[{{MMAX}}];
#pragma unroll
  for (int m = 0; m < {{MMAX}}; ++m) {
    float s = 0.0f;
#pragma unroll
    for (int i = 0; i < RSL; ++i)
      s += rsl[m][i];
    rsc[m] = kg_rsqrt(kg_wave_sum<32>(s) * (1.0f / {{RS_K}}) + {{RS_EPS}});
  }
