/* gemv_q: y[m, n] = sum_k x[m, k] * w[n, k] for the M <= MMAX rows of x
 * (M given at run time), w [N, K] in a GGUF block format ({{FMT}}: BE
 * weights in BB bytes per block), stored as GGUF stores it: row n is the
 * RB = K / BE * BB bytes of its blocks (w comes as 16-bit units; offsets
 * below are bytes). Dequantized here (lib_quant.hip), f32 sums, y in x's
 * dtype; w is read once per launch.
 * One workgroup per NB output columns; wave v of the workgroup owns the CPW
 * columns n0 + c (c < CPW), whose rows are consecutive bytes. K is walked in
 * stages of SE weights (the last may be shorter: LE weights, LB bytes).
 * Blocks of 34, 18 or 210 bytes are not 16-byte aligned, so the wave does not
 * read blocks per lane: it copies each stage (SB bytes of each of its rows)
 * into a slot of its own ring of SLOTS slots in LDS with VEC-byte
 * asynchronous copies, lane l taking pieces l, l + WAVE, ... (every copy
 * instruction of the wave reads consecutive bytes). With two slots the next
 * stage is in flight while this one is computed.
 * The stage's slice of x, every row m < M, is staged in LDS once for the
 * workgroup as XT (f32 where it fits), 32 values per group of 32 weights and
 * 16 bytes of padding, so that lanes reading different groups hit different
 * banks (XL); where even that does not fit the target's LDS, each lane reads
 * x from global memory (XG). XCVT is kg_to_f32 where XT is f32, else
 * nothing. Then lane l decodes groups of 32 weights
 * l, l + WAVE, ... of each of its rows from LDS (as small integers q with a
 * scale per 16 and, for Q4_K, a min: {{DEQ}}) and multiplies them with the
 * same 32 elements of every row of x: sums of q x per 16, scaled once, go to
 * the f32 partial sums acc[c][m], registers (every loop over c and m is
 * unrolled), reduced across the wave at the end.
 * The weights do not depend on earlier kernels: the first stage's copies are
 * issued before kg_dep_wait(), and x and the epilogue's operands are read
 * after it (common.hip, early launch); kg_dep_launch() first lets the next
 * kernel start as soon as every workgroup of this one has started.
 * A column past N (a guard: NB divides N where kgen can choose so) reads the
 * last row of w and is not stored.
 * Epilogue: the stored value is EPI over acc0 (the sum) and the operands e<k>
 * read at the result's index (a<k> in EPI), rounded to OUT_T. */
extern "C" __global__ void __launch_bounds__({{BLOCK}})
{{KERNEL}}(KG_GLOBAL(const {{T}}) x, KG_GLOBAL(const unsigned short) w,{{#each EPI_IN}}
    KG_GLOBAL(const {{T}}) e{{I}},{{/each}} KG_GLOBAL({{OUT_T}}) y, long M) {
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
  /* the ring: WAVES x SLOTS slots of CPW rows, then a spare 16 bytes for
   * kg_q_lds_words, which may read one word past a field */
  constexpr int RING = WAVES * SLOTS * {{CPW}} * SW + 4;
  KG_SHARED_BUFFER(lds, {{SHARED_BYTES}});
  unsigned *ring = (unsigned *)lds;
{{#if XL}}  /* x's stage slice: MMAX x GS groups of XS elements (32 and the padding) */
  constexpr int XS = 32 + 16 / (int)sizeof({{XT}});
  {{XT}} *xs = ({{XT}} *)(ring + RING);
{{/if}}
  kg_dep_launch();
  const int wave = (int)(threadIdx.x / {{WAVE}});
  const int lane = (int)(threadIdx.x % {{WAVE}});
  const long n0 = (long)blockIdx.x * {{NB}} + (long)wave * {{CPW}};
  long wrow[{{CPW}}];
#pragma unroll
  for (int c = 0; c < {{CPW}}; ++c)
    wrow[c] = (n0 + c < {{N}} ? n0 + c : {{N}} - 1) * {{RB}}L;
  float acc[{{CPW}}][{{MMAX}}];
#pragma unroll
  for (int c = 0; c < {{CPW}}; ++c)
#pragma unroll
    for (int m = 0; m < {{MMAX}}; ++m)
      acc[c][m] = 0.0f;

  /* stage s of this wave's rows into slot s % SLOTS (a piece past the stage
   * is not copied) */
  const auto issue = [&](int s) {
    const int sb = s < {{NS}} ? {{SB}} : {{LB}};
    unsigned short *slot = (unsigned short *)(ring + (wave * SLOTS + s % SLOTS) * {{CPW}} * SW);
#pragma unroll
    for (int c = 0; c < {{CPW}}; ++c)
#pragma unroll
      for (int p = 0; p < PPL; ++p) {
        const int off = (lane + p * {{WAVE}}) * {{VEC}};
        if (off < sb)
          kg_q_copy<{{VEC}}>(slot + c * SW * 2 + off / 2, w, (wrow[c] + (long)s * {{SB}} + off) / 2);
      }
  };
  if (SLOTS == 2) {
    issue(0);
    kg_async_commit();
  }
  kg_dep_wait();
  for (int s = 0; s < NST; ++s) {
    const int groups = (s < {{NS}} ? {{SE}} : {{LE}}) / 32;
    const long k0 = (long)s * {{SE}};
    /* the slot written here was last read before the previous stage's
     * closing barrier */
    if (s + SLOTS - 1 < NST)
      issue(s + SLOTS - 1);
    kg_async_commit();
{{#if XL}}    /* x's slice, 16 bytes per thread and step */
    constexpr int UPM = GS * 32 / XV;
    for (int u = (int)threadIdx.x; u < {{MMAX}} * UPM; u += {{BLOCK}}) {
      const int m = u / UPM, e = u % UPM * XV;
      if (m < M && e < groups * 32) {
        const kg_vec<{{T}}, XV> v = kg_ldv<XV>(x, m * {{K}}L + k0 + e);
        {{XT}} *d = xs + (m * GS + e / 32) * XS + e % 32;
#pragma unroll
        for (int i = 0; i < XV; ++i)
          d[i] = {{XCVT}}(v.v[i]);
      }
    }
{{/if}}    kg_async_wait<SLOTS - 1>();
    __syncthreads();
    const unsigned *slot = ring + (wave * SLOTS + s % SLOTS) * {{CPW}} * SW;
#pragma unroll
    for (int j = 0; j < GPL; ++j) {
      const int g = lane + j * {{WAVE}};
      if (g < groups) {
#pragma unroll
        for (int c = 0; c < {{CPW}}; ++c) {
          /* weight e of column c: sc[e / 16] * q[e] - mn */
          float q[32], sc[2], mn;
          {{DEQ}}(slot + c * SW, g, q, sc, &mn);
#pragma unroll
          for (int m = 0; m < {{MMAX}}; ++m) {
            if (m < M) {
              float xf[32];
{{#if XL}}              const {{XT}} *xr = xs + (m * GS + g) * XS;
#pragma unroll
              for (int v = 0; v < 32 / (16 / (int)sizeof({{XT}})); ++v) {
                constexpr int N16 = 16 / (int)sizeof({{XT}});
                const kg_vec<{{XT}}, N16> xv = *(const kg_vec<{{XT}}, N16> *)(xr + v * N16);
#pragma unroll
                for (int e = 0; e < N16; ++e)
                  xf[v * N16 + e] = kg_to_f32(xv.v[e]);
              }
{{/if}}{{#if XG}}#pragma unroll
              for (int v = 0; v < 32 / XV; ++v) {
                const kg_vec<{{T}}, XV> xv = kg_ldv<XV>(x, m * {{K}}L + k0 + g * 32 + v * XV);
#pragma unroll
                for (int e = 0; e < XV; ++e)
                  xf[v * XV + e] = kg_to_f32(xv.v[e]);
              }
{{/if}}{{#if MIN}}              float xsum = 0.0f;
#pragma unroll
              for (int e = 0; e < 32; ++e)
                xsum += xf[e];
{{/if}}              float p0 = 0.0f, p1 = 0.0f;
#pragma unroll
              for (int e = 0; e < 16; ++e) {
                p0 += q[e] * xf[e];
                p1 += q[16 + e] * xf[16 + e];
              }
              acc[c][m] += sc[0] * p0 + sc[1] * p1{{#if MIN}} - mn * xsum{{/if}};
            }
          }
        }
      }
    }
    __syncthreads(); /* the slot and x's slice are refilled */
  }

  /* M is the same for every lane: the wave reduces inside the guard */
#pragma unroll
  for (int m = 0; m < {{MMAX}}; ++m) {
    if (m < M) {
#pragma unroll
      for (int c = 0; c < {{CPW}}; ++c) {
        const float acc0 = kg_wave_sum<{{WAVE}}>(acc[c][m]);
        if (lane == 0 && n0 + c < {{N}}) {
          const long idx = m * {{N}}L + n0 + c;
{{#each EPI_IN}}          const float a{{I}} = kg_to_f32(kg_ld(e{{I}}, idx{{MOD}}));
{{/each}}          kg_st(y, idx, kg_from_f32<{{OUT_T}}>({{EPI}}));
        }
      }
    }
  }
}
