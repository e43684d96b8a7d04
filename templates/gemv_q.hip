/* gemv_q: y[m, n] = sum_k x[m, k] * w[n, k] for the M <= MMAX rows of x
 * (M given at run time), w [N, K] in a GGUF block format ({{FMT}}: BE
 * weights in BB bytes per block), stored as GGUF stores it: row n is the
 * RB = K / BE * BB bytes of its blocks (w comes as 16-bit units; offsets
 * below are bytes). Dequantized here (lib_quant.hip), f32 sums, y in x's
 * dtype; w is read once per launch.
 * A task is NB output columns: wave v of the workgroup owns the CPW columns
 * n0 + c (c < CPW), whose rows are consecutive bytes (RW rows: with PAIR
 * each column's row of w, then of w1). The GRID workgroups
 * take tasks blockIdx.x, blockIdx.x + GRID, ... (GRID is at most what the
 * target holds at once: the grid stays resident, and a workgroup's weights
 * stream without a break from one task into the next). K is walked in
 * stages of SE weights (the last may be shorter: LE weights, LB bytes).
 * Blocks of 34, 18 or 210 bytes are not 16-byte aligned, so the wave does not
 * read blocks per lane: it copies each stage (SB bytes of each of its rows)
 * into a slot of its own ring of SLOTS slots in LDS with VEC-byte
 * asynchronous copies, lane l taking pieces l, l + WAVE, ... (every copy
 * instruction of the wave reads consecutive bytes). Stage j of the
 * workgroup's sequence (its tasks' stages in order) goes to slot j % SLOTS;
 * where copies are asynchronous the SLOTS - 1 stages after the one being
 * computed are in flight.
 * x, every row m < M, is staged in LDS for the workgroup as XT (f32 where
 * it fits), 32 values per group of 32 weights, then the f32 sums of its two
 * halves in 16 bytes of padding (which also puts lanes reading different
 * groups in different banks) (XL): all of K once (XK = K) where it fits, and
 * then the slots being the wave's own, waves synchronize with wave barriers
 * only; else one stage's slice (XK = SE) at a time, with the workgroup's
 * barriers. Where neither fits the target's LDS, each lane reads x from
 * global memory and sums it itself (XG). XCVT is kg_to_f32 where XT is f32,
 * else nothing. Then lane l decodes groups of 32 weights l, l + WAVE, ... of
 * each of its rows from LDS (as small integers q with a scale per 16 and,
 * for Q4_K, a min: {{DEQ}}; a decoder may leave the integers of each half
 * offset, by QB0 and QB1, which then come off as the offset times the half's
 * sum of x) and multiplies them
 * with the same 32 elements of every row of x: sums of q x per 16, scaled
 * once, go to the f32 partial sums acc[c][m], registers (every loop over c
 * and m is unrolled), reduced across the wave at the task's end.
 * The weights do not depend on earlier kernels: the first SLOTS stages'
 * copies are issued before kg_dep_wait(), and x and the epilogue's operands
 * are read after it (common.hip, early launch); kg_dep_launch() first lets
 * the next kernel start as soon as every workgroup of this one has started.
 * A column past N (a guard: NB divides N where kgen can choose so) reads the
 * last row of w and is not stored.
 * Epilogue: the stored value is EPI over acc0 (the sum), acc1 (PAIR: the
 * same sum over a second weight w1 of w's shape, for a gate/up pair: each
 * column is then two rows of the wave's task, of w and of w1) and the
 * operands e<k> read at the result's index (a<k> in EPI), rounded to OUT_T.
 * Regions (REGIONS): sibling matmuls of the same x (the Q, K and V
 * projections) as one N, as gemv.hip takes them: column n < R1 is row n of
 * w, to y; from R1 row n - R1 of wr1, to yr1; from R2 of wr2, to yr2
 * (part_region_row.hip). With REPI a region's result may be rotated (RoPE)
 * and stored to a KV cache instead (part_region_epi.hip); the pair of column
 * c is column c ^ 1 of the same wave, CPW and every region start being
 * even. */
{{#if REPI}}{{> region_fns}}{{/if}}extern "C" __global__ void __launch_bounds__({{BLOCK}})
{{KERNEL}}(KG_GLOBAL(const {{T}}) x, KG_GLOBAL(const unsigned short) w,{{#if PAIR}} KG_GLOBAL(const unsigned short) w1,{{/if}}{{#if REGIONS}} KG_GLOBAL(const unsigned short) wr1,{{#if R2}} KG_GLOBAL(const unsigned short) wr2,{{/if}}{{/if}}{{#if NOG_T}} KG_GLOBAL(const {{NOG_T}}) nog,{{/if}}{{#if RSCALE}} KG_GLOBAL(const {{RS_T}}) rsum,{{/if}}{{#if REPI}}{{> region_epi_args}}{{> region_epi_dims}}{{else}}{{> epi_args}}{{#if REGIONS}}, KG_GLOBAL({{OUT_T}}) yr1{{#if R2}}, KG_GLOBAL({{OUT_T}}) yr2{{/if}}{{/if}}{{#if NOUT}}, KG_GLOBAL({{NOUT_T}}) z{{/if}}, long M{{/if}}) {
  /* stages: NS of SE weights, then one of LE (when LE > 0) */
  constexpr int NST = {{NS}} + ({{LE}} > 0 ? 1 : 0);
  constexpr int MAXB = {{NS}} > 0 ? {{SB}} : {{LB}};
  /* a slot row: SW words (a multiple of 16 bytes); PPL pieces of VEC bytes
   * per lane and row */
  constexpr int SW = (MAXB + 15) / 16 * 4;
  constexpr int PPL = (MAXB / {{VEC}} + {{WAVE}} - 1) / {{WAVE}};
  constexpr int WAVES = {{BLOCK}} / {{WAVE}};
  constexpr int SLOTS = {{SLOTS}};
  /* groups of 32 weights per (full) stage, and per lane */
  constexpr int GS = {{SE}} / 32;
  constexpr int GPL = (GS + {{WAVE}} - 1) / {{WAVE}};
  constexpr int XV = 16 / (int)sizeof({{T}});
  /* columns per wave task, and rows of w for each (PAIR: row n of w, then
   * of w1), RW rows in all (part_gemv_end.hip) */
  constexpr int CPWN = {{CPW}};
  constexpr int PR = {{#if PAIR}}2{{else}}1{{/if}};
  constexpr int RW = CPWN * PR;
{{#if REPI}}  static_assert(CPWN % 2 == 0, "a rotated region's pairs need whole pairs of columns a wave");
{{/if}}
  /* this workgroup's tasks, and J stages over them */
  constexpr long TASKS = ({{N}} + {{NB}} - 1) / {{NB}};
  const long task0 = (long)blockIdx.x;
  const int J = (int)((TASKS - 1 - task0) / {{GRID}} + 1) * NST;
  /* the ring: WAVES x SLOTS slots of RW rows, then a spare 16 bytes for
   * kg_q_lds_words, which may read one word past a field */
  constexpr int RING = WAVES * SLOTS * RW * SW + 4;
  KG_SHARED_BUFFER(lds, {{SHARED_BYTES}});
  unsigned *ring = (unsigned *)lds;
{{#if XL}}  /* x in LDS: MMAX rows of XGS groups of XS elements (32, then two f32
   * sums), XK weights of each row (all of K, or one stage's slice) */
  constexpr int XS = 32 + 16 / (int)sizeof({{XT}});
  constexpr int XGS = {{XK}} / 32;
  {{XT}} *xs = ({{XT}} *)(ring + RING);
{{/if}}{{#if RSCALE}}  /* the LDS' last MMAX x WAVES floats: the waves' sums of squares */
  float *const rss = (float *)(lds + {{SHARED_BYTES}} - {{MMAX}} * WAVES * 4);
{{/if}}  /* x staged once (XL, all of K) or not at all (XG): the slots are the
   * wave's own, and a wave barrier orders their copies and reads; x staged
   * per stage: the workgroup's barrier */
  constexpr bool WAVE_SYNC = {{#if XL}}{{XK}} == {{K}}{{/if}}{{#if XG}}true{{/if}};
  kg_dep_launch();
  const int wave = (int)(threadIdx.x / {{WAVE}});
  const int lane = (int)(threadIdx.x % {{WAVE}});
  float acc[RW][{{MMAX}}];

  /* stage j of the sequence (task j / NST, stage s = j % NST) of this wave's
   * rows into slot j % SLOTS (a piece past the stage is not copied), as one
   * group of copies */
  const auto issue = [&](int j) {
    if (j < J) {
      const long n0 = (task0 + (long)(j / NST) * {{GRID}}) * {{NB}} + wave * {{CPW}};
      const int s = j % NST;
      const int sb = s < {{NS}} ? {{SB}} : {{LB}};
      unsigned short *slot = (unsigned short *)(ring + (wave * SLOTS + j % SLOTS) * RW * SW);
#pragma unroll
      for (int c = 0; c < RW; ++c) {
        const long n = n0 + c / PR < {{N}} ? n0 + c / PR : {{N}} - 1;
{{#if REGIONS}}        {{> region_row}}
{{else}}        const long wrow = n;
        const auto wsel = {{#if PAIR}}c % 2 ? w1 : {{/if}}w;
{{/if}}        const long row = wrow * {{RB}}L + (long)s * {{SB}};
#pragma unroll
        for (int p = 0; p < PPL; ++p) {
          const int off = (lane + p * {{WAVE}}) * {{VEC}};
          if (off < sb)
            kg_q_copy<{{VEC}}>(slot + c * SW * 2 + off / 2, wsel, (row + off) / 2);
        }
      }
    }
    kg_async_commit();
  };
  const auto sync = [&]() {
    if (WAVE_SYNC)
      kg_wave_sync();
    else
      __syncthreads();
  };
{{#if XL}}  /* weights k0 .. k0 + n of every row m < M of x into its groups, 16
   * bytes per thread and step; after a barrier, each group's two sums */
  const auto stage_x = [&](long k0, int n) {
    constexpr int UPM = XGS * 32 / XV;
    for (int u = (int)threadIdx.x; u < {{MMAX}} * UPM; u += {{BLOCK}}) {
      const int m = u / UPM, e = u % UPM * XV;
      if (m < M && e < n) {
        const kg_vec<{{T}}, XV> v = kg_ldv<XV>(x, m * {{K}}L + k0 + e);
        {{XT}} *d = xs + (m * XGS + e / 32) * XS + e % 32;
#pragma unroll
        for (int i = 0; i < XV; ++i)
          d[i] = {{XCVT}}(v.v[i]);
      }
    }
    __syncthreads();
    for (int u = (int)threadIdx.x; u < {{MMAX}} * XGS; u += {{BLOCK}}) {
      if (u / XGS < M && u % XGS * 32 < n) {
        {{XT}} *d = xs + u * XS;
        float h0 = 0.0f, h1 = 0.0f;
#pragma unroll
        for (int e = 0; e < 16; ++e) {
          h0 += kg_to_f32(d[e]);
          h1 += kg_to_f32(d[16 + e]);
        }
        float *sums = (float *)(d + 32);
        sums[0] = h0;
        sums[1] = h1;
      }
    }
  };
{{/if}}  /* the ring's first stages: the weights do not depend on earlier kernels */
  for (int j = 0; j < SLOTS; ++j)
    issue(j);
  kg_dep_wait();
{{#if REPI}}  constexpr bool rows_ascend = false; /* M <= MMAX rows: the epilogue searches */
{{#if KVSLOTS}}{{> slot_taken}}{{/if}}{{/if}}{{#if RSCALE}}  {{> gemv_rscale_load}}
{{/if}}{{#if XL}}  if (WAVE_SYNC) {
    stage_x(0, {{K}});
    __syncthreads();
  }
{{/if}}{{#if RSCALE}}  {{> gemv_rscale_waves}}
  __syncthreads();
  {{> gemv_rscale_sum}}
{{/if}}  for (int j = 0; j < J; ++j) {
    const int s = j % NST;
    const int groups = (s < {{NS}} ? {{SE}} : {{LE}}) / 32;
    if (s == 0) {
#pragma unroll
      for (int c = 0; c < RW; ++c)
#pragma unroll
        for (int m = 0; m < {{MMAX}}; ++m)
          acc[c][m] = 0.0f;
    }
{{#if XL}}    /* x's groups of this stage start at group xg0 */
    const int xg0 = WAVE_SYNC ? s * GS : 0;
    if (!WAVE_SYNC)
      stage_x((long)s * {{SE}}, groups * 32);
{{/if}}{{#if XG}}    const long k0 = (long)s * {{SE}};
{{/if}}    kg_async_wait<SLOTS - 1>();
    sync();
    const unsigned *slot = ring + (wave * SLOTS + j % SLOTS) * RW * SW;
#pragma unroll
    for (int jj = 0; jj < GPL; ++jj) {
      const int g = lane + jj * {{WAVE}};
      if (g < groups) {
#pragma unroll
        for (int c = 0; c < RW; ++c) {
          /* weight e of row c: sc[e / 16] * q[e] - mn */
          float q[32], sc[2], mn;
          {{DEQ}}(slot + c * SW, g, q, sc, &mn);
#pragma unroll
          for (int m = 0; m < {{MMAX}}; ++m) {
            if (m < M) {
              /* x's 32 values and the sums of their halves */
              float xf[32], x0, x1;
{{#if XL}}              const {{XT}} *xr = xs + (m * XGS + xg0 + g) * XS;
#pragma unroll
              for (int v = 0; v < 32 / (16 / (int)sizeof({{XT}})); ++v) {
                constexpr int N16 = 16 / (int)sizeof({{XT}});
                const kg_vec<{{XT}}, N16> xv = *(const kg_vec<{{XT}}, N16> *)(xr + v * N16);
#pragma unroll
                for (int e = 0; e < N16; ++e)
                  xf[v * N16 + e] = kg_to_f32(xv.v[e]);
              }
              x0 = ((const float *)(xr + 32))[0];
              x1 = ((const float *)(xr + 32))[1];
{{/if}}{{#if XG}}#pragma unroll
              for (int v = 0; v < 32 / XV; ++v) {
                const kg_vec<{{T}}, XV> xv = kg_ldv<XV>(x, m * {{K}}L + k0 + g * 32 + v * XV);
#pragma unroll
                for (int e = 0; e < XV; ++e)
                  xf[v * XV + e] = kg_to_f32(xv.v[e]);
              }
              x0 = x1 = 0.0f;
#pragma unroll
              for (int e = 0; e < 16; ++e) {
                x0 += xf[e];
                x1 += xf[16 + e];
              }
{{/if}}              float p0 = 0.0f, p1 = 0.0f;
#pragma unroll
              for (int e = 0; e < 16; ++e) {
                p0 += q[e] * xf[e];
                p1 += q[16 + e] * xf[16 + e];
              }
{{#if QB}}              /* the decoder's offsets QB0, QB1, taken off per 16 */
              p0 -= {{QB0}} * x0;
              p1 -= {{QB1}} * x1;
{{/if}}              acc[c][m] += sc[0] * p0 + sc[1] * p1{{#if MIN}} - mn * (x0 + x1){{/if}};
            }
          }
        }
      }
    }
    sync(); /* the slot (and x's slice) are refilled */
    issue(j + SLOTS);

    /* the task's end */
    if (s == NST - 1) {
      const long n0 = (task0 + (long)(j / NST) * {{GRID}}) * {{NB}} + wave * {{CPW}};
      {{> gemv_end}}
    }
  }
}
