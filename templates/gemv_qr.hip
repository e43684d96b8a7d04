/* gemv_qr: y[m, n] = sum_k x[m, k] * w[n, k] for the M <= MMAX rows of x
 * (M given at run time), w [N, K] in GGUF {{FMT}} blocks (32 weights in BB
 * bytes), stored as GGUF stores them: row n is the RB = K / 32 * BB bytes of
 * its blocks (w comes as 16-bit units; offsets below are bytes). f32 sums,
 * y in x's dtype; w is read once per launch. gemv_q's kernel where the
 * target decodes whole units of blocks from registers (gemv_q's params:
 * source).
 * A unit is UB consecutive blocks of a row, UB * BB bytes (a multiple of 8);
 * rows and every step's bytes start 16-byte aligned. A task is the RCPW
 * columns n0 .. n0 + RCPW - 1 for one wave, their RW rows of w (RCPW; 2
 * RCPW with PAIR, of w and w1 in turn), in UPL steps of up to WAVE units of
 * each row: step i's units are WAVE i .. WAVE i + WAVE - 1, lane l takes unit
 * WAVE i + l. The GRID x WAVES waves of the grid take tasks gw, gw + GRID
 * WAVES, ... (gw: the wave's index in the grid; GRID is at most what the
 * target holds at once, so the workgroups stay resident and x is staged once
 * per workgroup; MINB, where the registers bound the grid's workgroups a
 * compute unit, holds ptxas to them). A wave's steps, task after task,
 * stream through its ring of SLOTS slots in LDS: step j's bytes of every
 * row are copied into slot j % SLOTS with 16-byte asynchronous copies
 * (every copy instruction of the wave reads consecutive bytes); each lane
 * reads its unit's NW words into registers with 8-byte LDS reads (lanes 72
 * or 136 bytes apart: no bank conflicts), the wave issues the copies of the
 * step SLOTS ahead into the freed slot (so SLOTS steps are in flight while
 * one is computed; SLOTS may be 1), and each lane decodes the unit's
 * blocks ({{RDEQ}}: small integers q with a scale per 16; the decoder may
 * leave the integers of each half offset, by QB0 and QB1, which then come
 * off as the offset times the half's sum of x), multiplying them with the
 * same 32 UB elements of every row of x into the f32 partial sums
 * acc[c][m], registers (every loop over c and m is unrolled); the wave
 * reduces them at the task's end.
 * x, every row m < M, is staged in LDS as XT (XCVT: kg_to_f32 where XT is
 * f32, else nothing), unit by unit: its 32 UB values, then the f32 sums of
 * each half of each block, the unit padded to XU bytes, an odd multiple of
 * 16, so that the 8 lanes of a quarter wave reading 16 bytes of consecutive
 * units hit different banks. XH (Q4_0, 16-bit x; the params take it for
 * bf16 and f16): each block of x is staged as 16-bit integers of a scale
 * a block, each as a signed high and an unsigned low byte
 * (kg_q4_0_i8_stage: 64 bytes), the unit's UB scales and then its UB
 * offsets (-128 times the block's sum) after its blocks; a block's products
 * are then summed exactly in integers, four weights an instruction
 * (kg_q4_0_i8_dot), and the sum plus the offset is added to acc times the
 * block's d and x's scale.
 * The weights do not depend on earlier kernels: the first SLOTS steps'
 * copies are issued before kg_dep_wait(), and x and the epilogue's operands
 * are read after it (common.hip, early launch); kg_dep_launch() first lets
 * the next kernel start as soon as every workgroup of this one has started.
 * A row past N (a guard: RCPW divides N where kgen can choose so) reads the
 * last row of w and is not stored.
 * Epilogue: the stored value is EPI over acc0 (the sum), acc1 (PAIR: the
 * same sum over a second weight w1 of w's shape, for a gate/up pair: a
 * task's RCPW columns are then 2 RCPW rows, of w and w1 in turn) and the
 * operands e<k> read at the result's index (a<k> in EPI), rounded to OUT_T.
 * REGIONS and REPI as gemv_q.hip takes them: a row's region picks its
 * weight, row and result (REPI: RCPW is even, so a rotated pair of rows is
 * one task's). */
{{#if REPI}}{{> region_fns}}{{/if}}extern "C" __global__ void __launch_bounds__({{BLOCK}}{{#if MINB}}, {{MINB}}{{/if}})
{{KERNEL}}(KG_GLOBAL(const {{T}}) x, KG_GLOBAL(const unsigned short) w,{{#if PAIR}} KG_GLOBAL(const unsigned short) w1,{{/if}}{{#if REGIONS}} KG_GLOBAL(const unsigned short) wr1,{{#if R2}} KG_GLOBAL(const unsigned short) wr2,{{/if}}{{/if}}{{#if NOG_T}} KG_GLOBAL(const {{NOG_T}}) nog,{{/if}}{{#if RSCALE}} KG_GLOBAL(const {{RS_T}}) rsum,{{/if}}{{#if REPI}}{{> region_epi_args}}{{> region_epi_dims}}{{else}}{{> epi_args}}{{#if REGIONS}}, KG_GLOBAL({{OUT_T}}) yr1{{#if R2}}, KG_GLOBAL({{OUT_T}}) yr2{{/if}}{{/if}}{{#if NOUT}}, KG_GLOBAL({{NOUT_T}}) z{{/if}}, long M{{/if}}) {
  constexpr int WAVES = {{BLOCK}} / {{WAVE}};
  constexpr int UB = {{UB}};
  constexpr int UBYTES = UB * {{BB}};
  /* units per row, and steps per task */
  constexpr int NU = {{K}} / (32 * UB);
  constexpr int UPL = (NU + {{WAVE}} - 1) / {{WAVE}};
  constexpr int NW = UBYTES / 4;
  static_assert(UBYTES % 8 == 0, "a unit is whole 8-byte LDS reads");
  constexpr int XV = 16 / (int)sizeof({{T}});
{{#if XH}}  /* XH: a unit of x is its UB blocks of 64 bytes, then their scales
   * (at XSC) and their offsets (at XOF) */
  constexpr int XSC = UB * 64, XOF = XSC + UB * 4;
{{/if}}  /* columns per wave task, and rows of w for each (PAIR: row n of w, then
   * of w1), RW rows in all (part_gemv_end.hip) */
  constexpr int CPWN = {{RCPW}};
  constexpr int PR = {{#if PAIR}}2{{else}}1{{/if}};
  constexpr int RW = CPWN * PR;
{{#if REPI}}  static_assert(CPWN % 2 == 0, "a rotated region's pairs need whole pairs of rows a task");
{{/if}}
  constexpr long TASKS = ({{N}} + {{RCPW}} - 1) / {{RCPW}};
  constexpr long GW = (long){{GRID}} * WAVES;
  constexpr int SLOTS = {{SLOTS}};
  /* a slot: RW rows of a step's SROW bytes; PPL 16-byte pieces per lane
   * and row */
  constexpr int SROW = {{WAVE}} * UBYTES;
  constexpr int PPL = (SROW / 16 + {{WAVE}} - 1) / {{WAVE}};
  /* the LDS: every wave's ring, then x (row m, unit u at byte (m NU + u) XU:
   * 32 UB values of XT, then the sums) */
  KG_SHARED_BUFFER(lds, {{SHARED_BYTES}});
  kg_dep_launch();
  const int wave = (int)(threadIdx.x / {{WAVE}});
  const int lane = (int)(threadIdx.x % {{WAVE}});
  const long gw = (long)blockIdx.x * WAVES + wave;
  /* steps: (task, unit step) in order, j = task number * UPL + unit step */
  const int J = gw < TASKS ? (int)((TASKS - 1 - gw) / GW + 1) * UPL : 0;
  unsigned char *ring = lds + wave * SLOTS * RW * SROW;
  unsigned char *xs = lds + WAVES * SLOTS * RW * SROW;
{{#if RSCALE}}  /* the LDS' last MMAX x WAVES floats: the waves' sums of squares */
  float *const rss = (float *)(lds + {{SHARED_BYTES}} - {{MMAX}} * WAVES * 4);
{{/if}}  float acc[RW][{{MMAX}}];
  unsigned wr[RW][NW];

  /* step j's bytes of every row of its task into slot j % SLOTS, as one
   * group of copies (h: the step's first 16-bit unit of w) */
  const auto issue = [&](int j) {
    if (j < J) {
      const long n0 = (gw + (long)(j / UPL) * GW) * {{RCPW}};
      const int i = j % UPL;
      const int bytes = (NU - i * {{WAVE}} < {{WAVE}} ? NU - i * {{WAVE}} : {{WAVE}}) * UBYTES;
      unsigned char *slot = ring + j % SLOTS * RW * SROW;
#pragma unroll
      for (int c = 0; c < RW; ++c) {
        const long n = n0 + c / PR < {{N}} ? n0 + c / PR : {{N}} - 1;
{{#if REGIONS}}        {{> region_row}}
{{else}}        const long wrow = n;
        const auto wsel = {{#if PAIR}}c % 2 ? w1 : {{/if}}w;
{{/if}}        const long h = wrow * ({{RB}}L / 2) + i * (SROW / 2);
#pragma unroll
        for (int p = 0; p < PPL; ++p) {
          const int off = (lane + p * {{WAVE}}) * 16;
          if (off < bytes)
            kg_async_copy<8>((unsigned short *)(slot + c * SROW + off), wsel, h + off / 2, true);
        }
      }
    }
    kg_async_commit();
  };
  /* the ring's first steps: the weights do not depend on earlier kernels */
  for (int j = 0; j < SLOTS; ++j)
    issue(j);
  kg_dep_wait();
{{#if REPI}}  constexpr bool rows_ascend = false; /* M <= MMAX rows: the epilogue searches */
{{#if KVSLOTS}}{{> slot_taken}}{{/if}}{{/if}}{{#if RSCALE}}  {{> gemv_rscale_load}}
{{/if}}  /* x's units, a block (m, u, b) per thread and step; the sums of each
   * half */
  for (int it = (int)threadIdx.x; it < {{MMAX}} * NU * UB; it += {{BLOCK}}) {
    const int m = it / (NU * UB), u = it % (NU * UB) / UB, b = it % UB;
    if (m < M) {
      unsigned char *unit = xs + (m * NU + u) * {{XU}};
{{#if XH}}      float xf[32];
#pragma unroll
      for (int v = 0; v < 32 / XV; ++v) {
        const kg_vec<{{T}}, XV> xv = kg_ldv<XV>(x, m * {{K}}L + (long)(u * UB + b) * 32 + v * XV);
#pragma unroll
        for (int e = 0; e < XV; ++e)
          xf[v * XV + e] = kg_to_f32(xv.v[e]);
      }
      kg_q4_0_i8_stage(xf, (unsigned *)unit + b * 16, (float *)(unit + XSC) + b,
                       (int *)(unit + XOF) + b);
{{else}}      {{XT}} *d = ({{XT}} *)unit + b * 32;
      float h0 = 0.0f, h1 = 0.0f;
#pragma unroll
      for (int v = 0; v < 32 / XV; ++v) {
        const kg_vec<{{T}}, XV> xv = kg_ldv<XV>(x, m * {{K}}L + (long)(u * UB + b) * 32 + v * XV);
#pragma unroll
        for (int e = 0; e < XV; ++e) {
          d[v * XV + e] = {{XCVT}}(xv.v[e]);
          if (v * XV + e < 16)
            h0 += kg_to_f32(xv.v[e]);
          else
            h1 += kg_to_f32(xv.v[e]);
        }
      }
      float *sums = (float *)(unit + UB * 32 * (int)sizeof({{XT}}));
      sums[2 * b] = h0;
      sums[2 * b + 1] = h1;
{{/if}}    }
  }
{{#if RSCALE}}  {{> gemv_rscale_waves}}
{{/if}}  __syncthreads();
{{#if RSCALE}}  {{> gemv_rscale_sum}}
{{/if}}
  for (int j = 0; j < J; ++j) {
    const int i = j % UPL;
    const int u = lane + i * {{WAVE}};
    /* this lane's unit of every row into registers; the slot is then free
     * for step j + SLOTS */
    kg_async_wait<SLOTS - 1>();
    kg_wave_sync();
    if (u < NU) {
      const unsigned char *slot = ring + j % SLOTS * RW * SROW + lane * UBYTES;
#pragma unroll
      for (int c = 0; c < RW; ++c)
#pragma unroll
        for (int l = 0; l < NW / 2; ++l) {
          const kg_vec<unsigned, 2> v = *(const kg_vec<unsigned, 2> *)(slot + c * SROW + 8 * l);
          wr[c][2 * l] = v.v[0];
          wr[c][2 * l + 1] = v.v[1];
        }
    }
    kg_wave_sync();
    issue(j + SLOTS);
    if (i == 0) {
#pragma unroll
      for (int c = 0; c < RW; ++c)
#pragma unroll
        for (int m = 0; m < {{MMAX}}; ++m)
          acc[c][m] = 0.0f;
    }
    if (u < NU) {
#pragma unroll
      for (int b = 0; b < UB; ++b) {
#pragma unroll
        for (int c = 0; c < RW; ++c) {
{{#if XH}}          unsigned qs[4];
          kg_q_words_at<4>(wr[c], b * {{BB}} + 2, qs);
          const float d = kg_f16_bits_to_f32((unsigned short)kg_q_lds_u16(wr[c], b * {{BB}}));
#pragma unroll
          for (int m = 0; m < {{MMAX}}; ++m) {
            if (m < M) {
              const unsigned char *unit = xs + (m * NU + u) * {{XU}};
              const float sd = d * ((const float *)(unit + XSC))[b];
              const int off = ((const int *)(unit + XOF))[b];
              acc[c][m] += sd * (float)(kg_q4_0_i8_dot(qs, (const unsigned *)unit + b * 16) + off);
            }
          }
{{else}}          /* weight e of row c: sc[e / 16] * q[e] - mn */
          float q[32], sc[2], mn;
          {{RDEQ}}(wr[c], b * {{BB}}, q, sc, &mn);
#pragma unroll
          for (int m = 0; m < {{MMAX}}; ++m) {
            if (m < M) {
              const unsigned char *unit = xs + (m * NU + u) * {{XU}};
              const {{XT}} *xr = (const {{XT}} *)unit + b * 32;
              const float *sums = (const float *)(unit + UB * 32 * (int)sizeof({{XT}}));
              float xf[32];
#pragma unroll
              for (int v = 0; v < 32 / (16 / (int)sizeof({{XT}})); ++v) {
                constexpr int N16 = 16 / (int)sizeof({{XT}});
                const kg_vec<{{XT}}, N16> xv = *(const kg_vec<{{XT}}, N16> *)(xr + v * N16);
#pragma unroll
                for (int e = 0; e < N16; ++e)
                  xf[v * N16 + e] = kg_to_f32(xv.v[e]);
              }
              float p0 = 0.0f, p1 = 0.0f;
#pragma unroll
              for (int e = 0; e < 16; ++e) {
                p0 += q[e] * xf[e];
                p1 += q[16 + e] * xf[16 + e];
              }
{{#if QB}}              /* the decoder's offsets QB0, QB1, taken off per 16 */
              p0 -= {{QB0}} * sums[2 * b];
              p1 -= {{QB1}} * sums[2 * b + 1];
{{/if}}              acc[c][m] = sc[0] * p0 + (sc[1] * p1 + acc[c][m]){{#if MIN}} - mn * (sums[2 * b] + sums[2 * b + 1]){{/if}};
            }
          }
{{/if}}        }
      }
    }

    /* the task's end */
    if (i == UPL - 1) {
      const long n0 = (gw + (long)(j / UPL) * GW) * {{RCPW}};
      {{> gemv_end}}
    }
  }
}
