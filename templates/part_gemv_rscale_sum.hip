{{! RSCALE: each row's rsqrt (rsc[m]) from the waves' sums of squares part_gemv_rscale_waves.hip stored in rss, added in wave order after a barrier: the same bits in every workgroup }}float rsc[{{MMAX}}];
#pragma unroll
  for (int m = 0; m < {{MMAX}}; ++m) {
    float s = 0.0f;
#pragma unroll
    for (int w = 0; w < WAVES; ++w)
      s += rss[m * WAVES + w];
    rsc[m] = kg_rsqrt(s * (1.0f / {{RS_K}}) + {{RS_EPS}});
  }
