/* gemv_q: y[m, n] = sum_k x[m, k] * w[n, k] for the M <= MMAX rows of x
 * (M given at run time), w [N, K] in a GGUF block format ({{FMT}}: BE
 * weights in BB bytes per block), stored as GGUF stores it: row n is the
 * RB = K / BE * BB bytes of its blocks (w comes as 16-bit units; offsets
 * below are bytes). Dequantized here (lib_quant.hip), f32 sums, y in x's
 * dtype; w is read once per launch.
 * One workgroup per NB output columns; wave v of the workgroup owns the CPW
 * columns n0 + c (c < CPW), whose rows are consecutive bytes. Blocks of 34, 18
 * or 210 bytes are not 16-byte aligned, so the wave does not read blocks per
 * lane: it walks K in stages of SE weights and copies each stage (SB bytes of
 * each of its rows) into its own LDS slice with VEC-byte loads, lane l taking
 * pieces l, l + WAVE, ... (every load instruction of the wave reads
 * consecutive bytes); the next stage's pieces are loaded into registers while
 * this one is computed. Then lane l decodes groups of 32 weights
 * l, l + WAVE, ... of each row from LDS (as small integers q with a scale
 * per 16 and, for Q4_K, a min: {{DEQ}}) and multiplies them with the same 32
 * elements of every row of x (128-bit loads): sums of q x per 16, scaled
 * once, go to the f32 partial sums acc[c][m], registers (every loop over c
 * and m is unrolled), reduced across the wave at the end. The last stage may be shorter (LE weights, LB bytes).
 * A column past N (a guard: NB divides N as kgen chooses it) reads the last
 * row of w and is not stored.
 * Epilogue: the stored value is EPI over acc0 (the sum) and the operands e<k>
 * read at the result's index (a<k> in EPI), rounded to OUT_T. */
extern "C" __global__ void __launch_bounds__({{BLOCK}})
{{KERNEL}}(KG_GLOBAL(const {{T}}) x, KG_GLOBAL(const unsigned short) w,{{#each EPI_IN}}
    KG_GLOBAL(const {{T}}) e{{I}},{{/each}} KG_GLOBAL({{OUT_T}}) y, long M) {
  /* stages: NS of SE weights, then one of LE (when LE > 0) */
  constexpr int NST = {{NS}} + ({{LE}} > 0 ? 1 : 0);
  /* a piece: VEC bytes loaded at once, PB = max(VEC, 4) bytes stored (a VEC
   * of 2 loads a word as two halves); PPL pieces of each row per lane */
  constexpr int PB = {{VEC}} < 4 ? 4 : {{VEC}};
  constexpr int PW = PB / 4;
  constexpr int MAXB = {{NS}} > 0 ? {{SB}} : {{LB}};
  constexpr int PPL = ((MAXB + PB - 1) / PB + {{WAVE}} - 1) / {{WAVE}};
  /* a slice: CPW rows of SW words; one spare word at the end for
   * kg_q_lds_words, which may read one word past a field */
  constexpr int SW = (MAXB + 15) / 16 * 4;
  /* groups of 32 weights per lane and stage */
  constexpr int GPL = ({{SE}} / 32 + {{WAVE}} - 1) / {{WAVE}};
  constexpr int XV = 16 / (int)sizeof({{T}});
  __shared__ unsigned stage[{{BLOCK}} / {{WAVE}} * {{CPW}} * SW + 1];

  const int lane = (int)(threadIdx.x % {{WAVE}});
  const int slice = (int)(threadIdx.x / {{WAVE}}) * {{CPW}} * SW;
  const long n0 = (long)blockIdx.x * {{NB}} + (long)(threadIdx.x / {{WAVE}}) * {{CPW}};
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

  /* the pieces of stage s in flight, loaded before stage s - 1 is computed */
  unsigned piece[{{CPW}}][PPL][PW];
  const auto load_stage = [&](int s) {
    const int sb = s < {{NS}} ? {{SB}} : {{LB}};
#pragma unroll
    for (int c = 0; c < {{CPW}}; ++c)
#pragma unroll
      for (int p = 0; p < PPL; ++p) {
        /* a piece past the stage reloads its first one (it is not stored):
         * no branch around the load */
        const int off = (lane + p * {{WAVE}}) * PB < sb ? (lane + p * {{WAVE}}) * PB : 0;
        const long at = wrow[c] + (long)s * {{SB}};
        kg_q_ld_words<{{VEC}}>(w, at + off, at + sb, piece[c][p]);
      }
  };
  load_stage(0);
  for (int s = 0; s < NST; ++s) {
    const int sb = s < {{NS}} ? {{SB}} : {{LB}};
    const int groups = (s < {{NS}} ? {{SE}} : {{LE}}) / 32;
#pragma unroll
    for (int c = 0; c < {{CPW}}; ++c)
#pragma unroll
      for (int p = 0; p < PPL; ++p) {
        const int off = (lane + p * {{WAVE}}) * PB;
        if (off < sb)
#pragma unroll
          for (int i = 0; i < PW; ++i)
            stage[slice + c * SW + off / 4 + i] = piece[c][p][i];
      }
    __syncthreads();
    if (s + 1 < NST)
      load_stage(s + 1);
    const long k0 = (long)s * {{SE}};
#pragma unroll
    for (int j = 0; j < GPL; ++j) {
      const int g = lane + j * {{WAVE}};
      if (g < groups) {
        /* weight e of column c: sc[c][e / 16] * q[c][e] - mn[c] */
        float q[{{CPW}}][32], sc[{{CPW}}][2], mn[{{CPW}}];
#pragma unroll
        for (int c = 0; c < {{CPW}}; ++c)
          {{DEQ}}(stage + slice + c * SW, g, q[c], sc[c], &mn[c]);
#pragma unroll
        for (int m = 0; m < {{MMAX}}; ++m) {
          if (m < M) {
            float xf[32];
#pragma unroll
            for (int v = 0; v < 32 / XV; ++v) {
              const kg_vec<{{T}}, XV> xv = kg_ldv<XV>(x, m * {{K}}L + k0 + g * 32 + v * XV);
#pragma unroll
              for (int e = 0; e < XV; ++e)
                xf[v * XV + e] = kg_to_f32(xv.v[e]);
            }
{{#if MIN}}            float xsum = 0.0f;
#pragma unroll
            for (int e = 0; e < 32; ++e)
              xsum += xf[e];
{{/if}}#pragma unroll
            for (int c = 0; c < {{CPW}}; ++c) {
              float p0 = 0.0f, p1 = 0.0f;
#pragma unroll
              for (int e = 0; e < 16; ++e) {
                p0 += q[c][e] * xf[e];
                p1 += q[c][16 + e] * xf[16 + e];
              }
              acc[c][m] += sc[c][0] * p0 + sc[c][1] * p1{{#if MIN}} - mn[c] * xsum{{/if}};
            }
          }
        }
      }
    }
    __syncthreads(); /* the slice is refilled by the next stage */
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
