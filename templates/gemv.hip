/* gemv: y[m, n] = sum_k x[m, k] * w[n, k] for the M <= MMAX rows of x
 * (M given at run time), w [N, K] read once per launch.
 * One workgroup per NB output columns. Its waves form groups of KSPLIT: group
 * g owns the CPW columns n = (blockIdx.x * NB) + g * CPW + c (c < CPW), and
 * the GW = KSPLIT x WAVE lanes of the group split each row between them: lane
 * l of the group reads the vectors l, l + GW, ... of VEC elements of each of
 * its rows of w, UNROLL vectors of each column per step (CPW x UNROLL 128-bit
 * loads in flight), and the same vectors of every row of x; the f32 partial
 * sums acc[c][m] are registers (every loop over c and m is unrolled) and are
 * reduced across the wave at the end. With KSPLIT = 1 (NO_SPLIT) a group is
 * one wave, which stores its sums. With SPLIT (split K, for an N too small to
 * fill the machine with whole columns) each wave's sums go through LDS and
 * the group's first wave adds the KSPLIT parts in wave order: a fixed order,
 * so every run gives the same bits. A column past N (NB need not divide N)
 * reads the last row of w and is not stored.
 * Epilogue: the stored value is EPI over acc0 (the sum), acc1 (with PAIR: the
 * same sum over a second weight w1, for a gate/up pair) and the operands
 * e<k> read at the result's index (a<k> in EPI), rounded to OUT_T.
 * Prologue (NORM): x is the operand of an RMS norm taken in: each lane also
 * sums the squares of the x elements it reads (ss[m]) and multiplies them by
 * the norm's weight ng (NG_T) before the products; the group's sums of
 * squares reduce like its products, and acc0 (acc1) is scaled by the row's
 * rsqrt(ss / K + NEPS) before the epilogue: the norm's result is never
 * stored, and no launch computes it.
 * Regions (REGIONS): sibling matmuls of the same x (the Q, K and V
 * projections) as one N: column n < R1 is row n of w and goes to y [M, R1];
 * from R1 (up to R2, else N) row n - R1 of wr1 to yr1; from R2 row n - R2 of
 * wr2 to yr2. One launch reads them all, with no epilogue.
 * Region epilogue (REPI): a region's result may be rotated (ROPE<r>: RoPE
 * at the positions of its rows; the pair of column c is column c ^ 1 of the
 * same wave, CPW and every region start being even) and stored to a KV cache
 * [L, width / RE_D, RE_SLOTS, RE_D] at its layer (KV<r>) instead of a
 * result. A rotated region of the half layout computes pair (i, i + D/2)
 * of each head as its columns 2i, 2i + 1 ({{KERNEL}}_col). */
{{#if REPI}}{{> region_fns}}{{/if}}extern "C" __global__ void __launch_bounds__({{BLOCK}})
{{KERNEL}}(KG_GLOBAL(const {{T}}) x, KG_GLOBAL(const {{T}}) w,{{#if PAIR}} KG_GLOBAL(const {{T}}) w1,{{/if}}{{#if REGIONS}} KG_GLOBAL(const {{T}}) wr1,{{#if R2}} KG_GLOBAL(const {{T}}) wr2,{{/if}}{{/if}}{{#if NG_T}} KG_GLOBAL(const {{NG_T}}) ng,{{/if}}{{#if REPI}}{{> region_epi_args}}{{> region_epi_dims}}{{else}}{{> epi_args}}{{#if REGIONS}}, KG_GLOBAL({{OUT_T}}) yr1{{#if R2}}, KG_GLOBAL({{OUT_T}}) yr2{{/if}}{{/if}}, long M{{/if}}) {
  kg_dep_launch();
  kg_dep_wait(); /* early launch: nothing is read before it (common.hip) */
{{#if REPI}}  constexpr bool rows_ascend = false; /* M <= MMAX rows: the epilogue searches */
{{#if KVSLOTS}}{{> slot_taken}}{{/if}}{{/if}}  const int lane = (int)(threadIdx.x % {{WAVE}});
  const int wave = (int)(threadIdx.x / {{WAVE}});
  const int kp = wave % {{KSPLIT}}; /* the wave's place in its group */
  const int gl = kp * {{WAVE}} + lane; /* the lane's place in the group */
  constexpr int GW = {{KSPLIT}} * {{WAVE}};
  const long n0 = (long)blockIdx.x * {{NB}} + (long)(wave / {{KSPLIT}}) * {{CPW}};
  long wrow[{{CPW}}];
{{#if REGIONS}}  int rg[{{CPW}}]; /* each column's region */
{{/if}}#pragma unroll
  for (int c = 0; c < {{CPW}}; ++c) {
    const long n = n0 + c < {{N}} ? n0 + c : {{N}} - 1;
{{#if REGIONS}}    rg[c] = n < {{R1}}L ? 0 : {{#if R2}}n < {{R2}}L ? 1 : 2{{else}}1{{/if}};
    wrow[c] = ({{#if REPI}}{{KERNEL}}_col(rg[c], {{/if}}n - (rg[c] == 0 ? 0L : {{#if R2}}rg[c] == 2 ? {{R2}}L : {{/if}}{{R1}}L){{#if REPI}}){{/if}}) * {{K}}L;
{{else}}    wrow[c] = n * {{K}}L;
{{/if}}  }
  float acc[{{CPW}}][{{MMAX}}];
{{#if PAIR}}  float acc_up[{{CPW}}][{{MMAX}}]; /* the second weight's sums (w1) */
{{/if}}{{#if NORM}}  float ss[{{MMAX}}]; /* the norm's sums of squares of x */
#pragma unroll
  for (int m = 0; m < {{MMAX}}; ++m)
    ss[m] = 0.0f;
{{/if}}#pragma unroll
  for (int c = 0; c < {{CPW}}; ++c)
#pragma unroll
    for (int m = 0; m < {{MMAX}}; ++m) {
      acc[c][m] = 0.0f;
{{#if PAIR}}      acc_up[c][m] = 0.0f;
{{/if}}    }
  /* KV vectors per row; the first FULL in whole steps of GW x UNROLL */
  const int KV = {{K}} / {{VEC}};
  const int FULL = KV / (GW * {{UNROLL}}) * (GW * {{UNROLL}});
  for (int base = 0; base < FULL; base += GW * {{UNROLL}}) {
    kg_vec<{{T}}, {{VEC}}> wv[{{CPW}}][{{UNROLL}}];
#pragma unroll
    for (int c = 0; c < {{CPW}}; ++c)
#pragma unroll
      for (int u = 0; u < {{UNROLL}}; ++u)
        wv[c][u] = kg_ldv<{{VEC}}>({{> region_w}}, wrow[c] + (long)(base + u * GW + gl) * {{VEC}});
{{#if PAIR}}    kg_vec<{{T}}, {{VEC}}> wv1[{{CPW}}][{{UNROLL}}];
#pragma unroll
    for (int c = 0; c < {{CPW}}; ++c)
#pragma unroll
      for (int u = 0; u < {{UNROLL}}; ++u)
        wv1[c][u] = kg_ldv<{{VEC}}>(w1, wrow[c] + (long)(base + u * GW + gl) * {{VEC}});
{{/if}}{{#if NG_T}}    kg_vec<{{NG_T}}, {{VEC}}> gv[{{UNROLL}}];
#pragma unroll
    for (int u = 0; u < {{UNROLL}}; ++u)
      gv[u] = kg_ldv<{{VEC}}>(ng, (long)(base + u * GW + gl) * {{VEC}});
{{/if}}
#pragma unroll
    for (int m = 0; m < {{MMAX}}; ++m) {
      if (m < M) {
#pragma unroll
        for (int u = 0; u < {{UNROLL}}; ++u) {
          const kg_vec<{{T}}, {{VEC}}> xv =
              kg_ldv<{{VEC}}>(x, m * {{K}}L + (long)(base + u * GW + gl) * {{VEC}});
          float xs[{{VEC}}];
#pragma unroll
          for (int e = 0; e < {{VEC}}; ++e) {
            xs[e] = kg_to_f32(xv.v[e]);
{{#if NORM}}            ss[m] += xs[e] * xs[e];
{{#if NG_T}}            xs[e] *= kg_to_f32(gv[u].v[e]);
{{/if}}{{/if}}          }
#pragma unroll
          for (int c = 0; c < {{CPW}}; ++c)
#pragma unroll
            for (int e = 0; e < {{VEC}}; ++e) {
              acc[c][m] += xs[e] * kg_to_f32(wv[c][u].v[e]);
{{#if PAIR}}              acc_up[c][m] += xs[e] * kg_to_f32(wv1[c][u].v[e]);
{{/if}}            }
        }
      }
    }
  }
  /* the rest: fewer than GW x UNROLL vectors, one per lane at a time */
  for (int i = FULL + gl; i < KV; i += GW) {
    kg_vec<{{T}}, {{VEC}}> wv[{{CPW}}];
#pragma unroll
    for (int c = 0; c < {{CPW}}; ++c)
      wv[c] = kg_ldv<{{VEC}}>({{> region_w}}, wrow[c] + (long)i * {{VEC}});
{{#if PAIR}}    kg_vec<{{T}}, {{VEC}}> wv1[{{CPW}}];
#pragma unroll
    for (int c = 0; c < {{CPW}}; ++c)
      wv1[c] = kg_ldv<{{VEC}}>(w1, wrow[c] + (long)i * {{VEC}});
{{/if}}{{#if NG_T}}    const kg_vec<{{NG_T}}, {{VEC}}> gv = kg_ldv<{{VEC}}>(ng, (long)i * {{VEC}});
{{/if}}
#pragma unroll
    for (int m = 0; m < {{MMAX}}; ++m) {
      if (m < M) {
        const kg_vec<{{T}}, {{VEC}}> xv = kg_ldv<{{VEC}}>(x, m * {{K}}L + (long)i * {{VEC}});
        float xs[{{VEC}}];
#pragma unroll
        for (int e = 0; e < {{VEC}}; ++e) {
          xs[e] = kg_to_f32(xv.v[e]);
{{#if NORM}}          ss[m] += xs[e] * xs[e];
{{#if NG_T}}          xs[e] *= kg_to_f32(gv.v[e]);
{{/if}}{{/if}}        }
#pragma unroll
        for (int c = 0; c < {{CPW}}; ++c)
#pragma unroll
          for (int e = 0; e < {{VEC}}; ++e) {
            acc[c][m] += xs[e] * kg_to_f32(wv[c].v[e]);
{{#if PAIR}}            acc_up[c][m] += xs[e] * kg_to_f32(wv1[c].v[e]);
{{/if}}          }
      }
    }
  }
{{#if SPLIT}}  /* split K: each wave reduces its sums (inside the guard: M is the same
   * for every lane) and puts them in LDS; then lane c * MMAX + m of the
   * group's first wave adds the KSPLIT parts of column c, row m in wave order */
  __shared__ float part[{{BLOCK}} / {{WAVE}}][{{CPW}}][{{MMAX}}];
{{#if PAIR}}  __shared__ float part_up[{{BLOCK}} / {{WAVE}}][{{CPW}}][{{MMAX}}];
{{/if}}{{#if NORM}}  __shared__ float part_ss[{{BLOCK}} / {{WAVE}}][{{MMAX}}];
{{/if}}#pragma unroll
  for (int m = 0; m < {{MMAX}}; ++m) {
    if (m < M) {
{{#if NORM}}      const float sq = kg_wave_sum<{{WAVE}}>(ss[m]);
      if (lane == 0)
        part_ss[wave][m] = sq;
{{/if}}#pragma unroll
      for (int c = 0; c < {{CPW}}; ++c) {
        const float s = kg_wave_sum<{{WAVE}}>(acc[c][m]);
{{#if PAIR}}        const float s1 = kg_wave_sum<{{WAVE}}>(acc_up[c][m]);
{{/if}}        if (lane == 0) {
          part[wave][c][m] = s;
{{#if PAIR}}          part_up[wave][c][m] = s1;
{{/if}}        }
      }
    }
  }
  __syncthreads();
  const int c = lane / {{MMAX}}, m = lane % {{MMAX}};
  if (kp == 0 && c < {{CPW}} && m < M && n0 + c < {{N}}) {
    float acc0 = part[wave][c][m];
{{#if PAIR}}    float acc1 = part_up[wave][c][m];
{{/if}}{{#if REPI}}    float accp = part[wave][c ^ 1][m]; /* the pair's, in the same order */
{{/if}}{{#if NORM}}    float sq = part_ss[wave][m];
{{/if}}    for (int j = 1; j < {{KSPLIT}}; ++j) {
      acc0 += part[wave + j][c][m];
{{#if PAIR}}      acc1 += part_up[wave + j][c][m];
{{/if}}{{#if REPI}}      accp += part[wave + j][c ^ 1][m];
{{/if}}{{#if NORM}}      sq += part_ss[wave + j][m];
{{/if}}    }
{{#if NORM}}    const float rstd = kg_rsqrt(sq * (1.0f / {{K}}) + {{NEPS}});
    acc0 *= rstd;
{{#if PAIR}}    acc1 *= rstd;
{{/if}}{{#if REPI}}    accp *= rstd;
{{/if}}{{/if}}{{#if REPI}}    {{> region_epi}}
{{else}}{{#if REGIONS}}    {{> region_store}}
{{else}}    const long idx = m * {{N}}L + n0 + c;
    {{> epi_store}}
{{/if}}{{/if}}
  }
{{else}}  /* M is the same for every lane: the wave reduces inside the guard */
#pragma unroll
  for (int m = 0; m < {{MMAX}}; ++m) {
    if (m < M) {
{{#if NORM}}      const float rstd = kg_rsqrt(kg_wave_sum<{{WAVE}}>(ss[m]) * (1.0f / {{K}}) + {{NEPS}});
{{/if}}{{#if REPI}}      float sum[{{CPW}}]; /* every column's first: a rotation takes its pair's */
#pragma unroll
      for (int c = 0; c < {{CPW}}; ++c)
        sum[c] = kg_wave_sum<{{WAVE}}>(acc[c][m]){{#if NORM}} * rstd{{/if}};
#pragma unroll
      for (int c = 0; c < {{CPW}}; ++c)
        if (lane == 0 && n0 + c < {{N}}) {
          const float acc0 = sum[c], accp = sum[c ^ 1];
          {{> region_epi}}
        }
{{else}}#pragma unroll
      for (int c = 0; c < {{CPW}}; ++c) {
        const float acc0 = kg_wave_sum<{{WAVE}}>(acc[c][m]){{#if NORM}} * rstd{{/if}};
{{#if PAIR}}        const float acc1 = kg_wave_sum<{{WAVE}}>(acc_up[c][m]){{#if NORM}} * rstd{{/if}};
{{/if}}        if (lane == 0 && n0 + c < {{N}}) {
{{#if REGIONS}}          {{> region_store}}
{{else}}          const long idx = m * {{N}}L + n0 + c;
          {{> epi_store}}
{{/if}}
        }
      }
{{/if}}    }
  }
{{/if}}}
