{{! RSCALE: each thread adds the squares of its vectors of each row (part_gemv_rscale_load.hip loaded them), each wave adds its threads' sums, and the wave's lane 0 stores it to rss[m WAVES + wave]; a barrier, then part_gemv_rscale_sum.hip }}#pragma unroll
  for (int m = 0; m < {{MMAX}}; ++m) {
    float s = 0.0f;
#pragma unroll
    for (int i = 0; i < RSN; ++i)
#pragma unroll
      for (int e = 0; e < RSV; ++e) {
        const float f = kg_to_f32(rsv[m][i].v[e]);
        s += f * f;
      }
    s = kg_wave_sum<{{WAVE}}>(s);
    if ((int)threadIdx.x % {{WAVE}} == 0)
      rss[m * WAVES + (int)threadIdx.x / {{WAVE}}] = s;
  }
