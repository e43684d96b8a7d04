/* gemv_mma: y[m, n] = sum_k x[m, k] * w[n, k] for the M <= MMAX <= 8 rows of
 * x (M given at run time), x and w f16 or bf16 ({{T}}), w [N, K] read once
 * per launch: gemv's kernel for a matmul whose rows must not depend on M
 * (matmul's invariant: a batch's sequences) on targets with mma.sync
 * m16n8k16 in T (gemv's params: source). One kernel for every M from 1 to
 * MMAX, and row m's sums are the same bits whatever M is: each row of x is
 * its own column of the products, and the order of every sum is fixed by K
 * and the workgroup alone.
 * A workgroup takes the 16 columns n0 .. n0 + 15 (rows of w; with PAIR the
 * same 16 rows of w1 too); its WAVES waves split K: the chunks of 32 weights
 * of each row, wave v taking the CPV consecutive chunks from v CPV, UNROLL
 * of them per step (two 128-bit loads of w per lane and chunk in flight,
 * four with PAIR). Lane l (g = l / 4, t = l % 4) loads weights 8t .. 8t + 7 of the
 * chunk of rows g and g + 8, and the same 8 elements of x row g (zeros for
 * g >= M): one m16n8k16 product per half chunk, with k slots 2t, 2t + 1
 * holding weights 8t + 4s + 0, 1 and slots 2t + 8, 2t + 9 weights 8t + 4s +
 * 2, 3 (s the half), the same permutation in A (w) and B (x), so each
 * weight meets its own x. C element e of lane l is column n0 + g + 8 (e / 2),
 * row 2t + e % 2 of x; f32 sums.
 * At the end each wave's sums go through LDS and thread (c, m) adds the
 * waves' parts in wave order: no atomics, the same bits every run.
 * Epilogue: the stored value is EPI over acc0 (the sum), acc1 (PAIR: the
 * same sum over w1) and the operands e<k> read at the result's index (a<k>
 * in EPI), rounded to OUT_T.
 * Prologue (NORM): x is the operand of an RMS norm taken in: the lanes also
 * sum the squares of the x they read (per row, added across the four lanes
 * of a row and then the waves in order), the products take x times the
 * norm's weight ng (NG_T) rounded to T, and acc0 (acc1) is scaled by the
 * row's rsqrt(ss / K + NEPS) before the epilogue.
 * Regions (REGIONS) and their epilogue (REPI: RoPE and the KV write) as
 * gemv.hip has them: column n < R1 is row n of w, from R1 row n - R1 of wr1,
 * from R2 of wr2; a rotated column's pair is column c ^ 1 of the same
 * workgroup ({{KERNEL}}_col orders a half-layout head's columns). */
{{#if REPI}}{{> region_fns}}{{/if}}extern "C" __global__ void __launch_bounds__({{BLOCK}})
{{KERNEL}}(KG_GLOBAL(const {{T}}) x, KG_GLOBAL(const {{T}}) w,{{#if PAIR}} KG_GLOBAL(const {{T}}) w1,{{/if}}{{#if REGIONS}} KG_GLOBAL(const {{T}}) wr1,{{#if R2}} KG_GLOBAL(const {{T}}) wr2,{{/if}}{{/if}}{{#if NG_T}} KG_GLOBAL(const {{NG_T}}) ng,{{/if}}{{#if REPI}}{{> region_epi_args}}{{> region_epi_dims}}{{else}}{{> epi_args}}{{#if REGIONS}}, KG_GLOBAL({{OUT_T}}) yr1{{#if R2}}, KG_GLOBAL({{OUT_T}}) yr2{{/if}}{{/if}}, long M{{/if}}) {
  static_assert({{WAVE}} == 32, "gemv_mma: mma.sync takes warps of 32 lanes");
  static_assert({{K}} % 32 == 0 && {{MMAX}} <= 8, "gemv_mma: K whole chunks of 32, M <= 8");
  constexpr int WAVES = {{BLOCK}} / 32;
  constexpr int NC = {{K}} / 32; /* chunks of a row */
  constexpr int UNROLL = {{UNROLL}};
  constexpr int CPV = (NC + WAVES - 1) / WAVES; /* chunks per wave */
  kg_dep_launch();
  kg_dep_wait(); /* early launch: nothing is read before it (common.hip) */
{{#if REPI}}  constexpr bool rows_ascend = false; /* M <= MMAX rows: the epilogue searches */
{{#if KVSLOTS}}{{> slot_taken}}{{/if}}{{/if}}  const int wave = (int)(threadIdx.x / 32u), lane = (int)(threadIdx.x % 32u);
  const int g = lane / 4, t = lane % 4;
  const long n0 = (long)blockIdx.x * 16;
  /* the lane's two rows of w (columns n0 + g and n0 + g + 8; past N: row N - 1) */
  long wrow[2];
{{#if REGIONS}}  int rg[2]; /* each row's region */
{{/if}}#pragma unroll
  for (int c = 0; c < 2; ++c) {
    const long n = n0 + g + 8 * c < {{N}} ? n0 + g + 8 * c : {{N}} - 1;
{{#if REGIONS}}    rg[c] = n < {{R1}}L ? 0 : {{#if R2}}n < {{R2}}L ? 1 : 2{{else}}1{{/if}};
    wrow[c] = ({{#if REPI}}{{KERNEL}}_col(rg[c], {{/if}}n - (rg[c] == 0 ? 0L : {{#if R2}}rg[c] == 2 ? {{R2}}L : {{/if}}{{R1}}L){{#if REPI}}){{/if}}) * {{K}}L;
{{else}}    wrow[c] = n * {{K}}L;
{{/if}}  }
  const bool has_x = g < M; /* x row g exists: else B column g is zeros */
  const long xrow = (long)(has_x ? g : 0) * {{K}}L;
  float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
{{#if PAIR}}  float acc_up[4] = {0.0f, 0.0f, 0.0f, 0.0f}; /* the second weight's sums (w1) */
{{/if}}{{#if NORM}}  float ss = 0.0f; /* the norm's sum of squares of x row g (this lane's part) */
{{/if}}  /* word j of 8 T: elements 2j (low half) and 2j + 1 */
  const auto word = [](const kg_vec<{{T}}, 8> &v, int j) {
    return (unsigned)v.v[2 * j].bits | (unsigned)v.v[2 * j + 1].bits << 16;
  };
  const int c1 = (wave + 1) * CPV < NC ? (wave + 1) * CPV : NC; /* the wave's chunks end */
  for (int base = wave * CPV; base < c1; base += UNROLL) {
    kg_vec<{{T}}, 8> wv[UNROLL][2];
{{#if PAIR}}    kg_vec<{{T}}, 8> wv1[UNROLL][2];
{{/if}}    kg_vec<{{T}}, 8> xv[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      const long k0 = (long)(base + u) * 32 + 8 * t;
      if (base + u < c1) { /* the same for the whole wave */
#pragma unroll
        for (int c = 0; c < 2; ++c) {
          wv[u][c] = kg_ldv<8>({{> region_w}}, wrow[c] + k0);
{{#if PAIR}}          wv1[u][c] = kg_ldv<8>(w1, wrow[c] + k0);
{{/if}}        }
        if (has_x)
          xv[u] = kg_ldv<8>(x, xrow + k0);
      }
    }
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      if (base + u < c1) {
        unsigned xb[4];
        if (has_x) {
{{#if NORM}}          const long k0 = (long)(base + u) * 32 + 8 * t;
{{#if NG_T}}          const kg_vec<{{NG_T}}, 8> gv = kg_ldv<8>(ng, k0);
{{/if}}          float xs[8];
#pragma unroll
          for (int e = 0; e < 8; ++e) {
            xs[e] = kg_to_f32(xv[u].v[e]);
            ss += xs[e] * xs[e];
{{#if NG_T}}            xs[e] *= kg_to_f32(gv.v[e]);
{{/if}}          }
#pragma unroll
          for (int j = 0; j < 4; ++j)
            xb[j] = kg_pack2<{{T}}>(xs[2 * j], xs[2 * j + 1]);
{{else}}#pragma unroll
          for (int j = 0; j < 4; ++j)
            xb[j] = word(xv[u], j);
{{/if}}        } else {
#pragma unroll
          for (int j = 0; j < 4; ++j)
            xb[j] = 0u;
        }
#pragma unroll
        for (int s = 0; s < 2; ++s) {
          const unsigned b[2] = {xb[2 * s], xb[2 * s + 1]};
          const unsigned a[4] = {word(wv[u][0], 2 * s), word(wv[u][1], 2 * s),
                                 word(wv[u][0], 2 * s + 1), word(wv[u][1], 2 * s + 1)};
          kg_mma_16x8x16<{{BF16}}>(acc, a, b);
{{#if PAIR}}          const unsigned a1[4] = {word(wv1[u][0], 2 * s), word(wv1[u][1], 2 * s),
                                  word(wv1[u][0], 2 * s + 1), word(wv1[u][1], 2 * s + 1)};
          kg_mma_16x8x16<{{BF16}}>(acc_up, a1, b);
{{/if}}        }
      }
    }
  }
  /* the waves' sums: element e of lane l at part[wave][e][l] */
  __shared__ float part[WAVES][4][32];
{{#if PAIR}}  __shared__ float part_up[WAVES][4][32];
{{/if}}{{#if NORM}}  __shared__ float part_ss[WAVES][8];
  ss += kg_shfl_xor(ss, 1u);
  ss += kg_shfl_xor(ss, 2u);
  if (t == 0)
    part_ss[wave][g] = ss;
{{/if}}#pragma unroll
  for (int e = 0; e < 4; ++e) {
    part[wave][e][lane] = acc[e];
{{#if PAIR}}    part_up[wave][e][lane] = acc_up[e];
{{/if}}  }
  __syncthreads();
  /* column n0 + c, row m: lane 4 (c % 8) + m / 2, element 2 (c / 8) + m % 2 */
  const auto sum_of = [&](float (*p)[4][32], int c, int m) {
    float s = 0.0f;
    for (int v = 0; v < WAVES; ++v)
      s += p[v][c / 8 * 2 + m % 2][c % 8 * 4 + m / 2];
    return s;
  };
  for (int o = (int)threadIdx.x; o < 16 * {{MMAX}}; o += {{BLOCK}}) {
    const int c = o % 16, m = o / 16;
    if (m < M && n0 + c < {{N}}) {
      float acc0 = sum_of(part, c, m);
{{#if PAIR}}      float acc1 = sum_of(part_up, c, m);
{{/if}}{{#if REPI}}      float accp = sum_of(part, c ^ 1, m); /* the pair's, in the same order */
{{/if}}{{#if NORM}}      float sq = 0.0f;
      for (int v = 0; v < WAVES; ++v)
        sq += part_ss[v][m];
      const float rstd = kg_rsqrt(sq * (1.0f / {{K}}) + {{NEPS}});
      acc0 *= rstd;
{{#if PAIR}}      acc1 *= rstd;
{{/if}}{{#if REPI}}      accp *= rstd;
{{/if}}{{/if}}{{#if REPI}}      {{> region_epi}}
{{else}}{{#if REGIONS}}      {{> region_store}}
{{else}}      const long idx = m * {{N}}L + n0 + c;
      {{> epi_store}}
{{/if}}{{/if}}
    }
  }
}
