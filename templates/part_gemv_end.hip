{{! a GEMV's stores at a task's end (acc[r][m]: the lane's sums of row r < RW of the task, PR rows for each of its CPWN columns n0 + c, of w and (PAIR) of w1; row m of x): the wave reduces each sum (RSCALE: times the row's rsqrt, rsc[m]), and lane 0 stores through the epilogue, to the column's region (REGIONS), or rotated and to a cache (REPI: a column's pair is c ^ 1, in the same wave); M is the same for every lane, so the wave reduces inside the guard. NOUT (KG_FUSE_NORM_TASKS): y is the operand of a split RMS norm; lane 0 also stores z = y as stored times the norm's weight nog, and the sum of the task's squares of y to pscr [NTR, N] at (m, n0 / CPWN); then it counts the task in pcnt at its run of NPC columns, and the run's last task adds the run's sums in task order into part [rows, N / NPC] (the same bits whatever the order the tasks end in) and zeroes the count for the next launch }}#pragma unroll
      for (int m = 0; m < {{MMAX}}; ++m) {
        if (m < M) {
          float sum[RW];
#pragma unroll
          for (int r = 0; r < RW; ++r)
            sum[r] = kg_wave_sum<{{WAVE}}>(acc[r][m]){{#if RSCALE}} * rsc[m]{{/if}};
{{#if NOUT}}          float sq = 0.0f;
{{/if}}#pragma unroll
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
              sq += f * f;
{{else}}              {{> epi_store}}
{{/if}}{{/if}}{{/if}}            }
{{#if NOUT}}          if (lane == 0)
            kg_st(pscr, m * {{N}}L + n0 / CPWN, sq);
{{/if}}        }
      }
{{#if NOUT}}      static_assert({{N}} % {{NPC}} == 0 && {{NPC}} % CPWN == 0 && {{MMAX}} <= {{NTR}},
                    "a split norm's runs of NPC columns are whole tasks");
      if (lane == 0 && n0 < {{N}}) {
        constexpr int TPC = {{NPC}} / CPWN;
        const long run = n0 / {{NPC}};
        /* release: the task's sums before its count; acquire: the other
         * tasks' sums after */
        if (kg_count_acq_rel(pcnt, run) == TPC - 1) {
          kg_st(pcnt, run, 0);
#pragma unroll
          for (int m = 0; m < {{MMAX}}; ++m)
            if (m < M) {
              float s = 0.0f;
#pragma unroll
              for (int t = 0; t < TPC; ++t)
                s += kg_ld_coherent(pscr, m * {{N}}L + run * TPC + t);
              kg_st(part, m * ({{N}}L / {{NPC}}) + run, s);
            }
        }
      }
{{/if}}
