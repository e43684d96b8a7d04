{{! a GEMV's stores at a task's end (acc[r][m]: the lane's sums of row r < RW of the task, PR rows for each of its CPWN columns n0 + c, of w and (PAIR) of w1; row m of x): the wave reduces each sum (RSCALE: times the row's rsqrt, rsc[m]), and lane 0 stores through the epilogue, to the column's region (REGIONS), or rotated and to a cache (REPI: a column's pair is c ^ 1, in the same wave); M is the same for every lane, so the wave reduces inside the guard. NOUT: y is the operand of a split RMS norm, and lane 0 also stores z = y as stored times the norm's weight nog (its consumers add the squares of y themselves) }}#pragma unroll
      for (int m = 0; m < {{MMAX}}; ++m) {
        if (m < M) {
          float sum[RW];
#pragma unroll
          for (int r = 0; r < RW; ++r)
            sum[r] = kg_wave_sum<{{WAVE}}>(acc[r][m]){{#if RSCALE}} * rsc[m]{{/if}};
#pragma unroll
          for (int c = 0; c < CPWN; ++c)
            if (lane == 0 && n0 + c < {{N}}) {
              const float acc0 = sum[c * PR];
{{#if PAIR}}              const float acc1 = sum[c * PR + 1];
{{/if}}{{#if REPI}}              const float accp = sum[c ^ 1];
              {{> region_epi}}
{{else}}{{#if REGIONS}}              {{> region_store}}
{{else}}              const long idx = m * {{N}}L + n0 + c;
{{#if NOUT}}              {{> epi_load}}const {{OUT_T}} v = kg_from_f32<{{OUT_T}}>({{EPI}});
              kg_st(y, idx, v);
              const float f = kg_to_f32(v);
              kg_st(z, idx, kg_from_f32<{{NOUT_T}}>(f{{#if NOG_T}} * kg_to_f32(kg_ld(nog, n0 + c)){{/if}}));
{{else}}              {{> epi_store}}
{{/if}}{{/if}}{{/if}}            }
        }
      }
