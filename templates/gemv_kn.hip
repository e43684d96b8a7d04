/* gemv_kn: y[m, n] = sum_k x[m, k] * w[k, n] for the M <= MMAX rows of x
 * (M given at run time), w [K, N] read once per launch.
 * One workgroup per CW = NT x VEC output columns, its threads split K: thread
 * t owns the VEC columns n = blockIdx.x * CW + (t % NT) * VEC + e (e < VEC)
 * and the blocks of XV rows b = t / NT, + KS, + 2 KS, ... (KS = BLOCK / NT
 * slices of K). Each row of a block is one 128-bit load of w[k, n .. n + VEC)
 * (VEC divides N), NT neighbouring threads reading NT x VEC neighbouring
 * elements of the row; UNROLL blocks are in flight per step. x is read as in
 * gemv.hip: a vector x[m, k .. k + XV) for each block and row m (XV divides
 * K). The f32 sums acc[m][e] are registers (every loop over m and e is
 * unrolled). Then, one row m at a time, the KS slices' sums go through LDS
 * and thread t adds the KS parts of columns t, t + BLOCK, ... (< CW) in slice
 * order: a fixed order, so every run gives the same bits. A vector of
 * columns past N (wholly past: VEC divides N) reads the row's last vector and
 * is not stored.
 * Epilogue: the stored value is EPI over acc0 (the sum), acc1 (with PAIR: the
 * same sum over a second weight w1, for a gate/up pair) and the operands
 * e<k> read at the result's index (a<k> in EPI), rounded to OUT_T. */
extern "C" __global__ void __launch_bounds__({{BLOCK}})
{{KERNEL}}(KG_GLOBAL(const {{T}}) x, KG_GLOBAL(const {{T}}) w,{{#if PAIR}} KG_GLOBAL(const {{T}}) w1,{{/if}}{{> epi_args}}, long M) {
  kg_dep_launch();
  kg_dep_wait(); /* early launch: nothing is read before it (common.hip) */
  const int t = (int)threadIdx.x;
  const int ks = t / {{NT}}, cv = (t % {{NT}}) * {{VEC}};
  const long n = (long)blockIdx.x * {{CW}} + cv;
  const long wn = n < {{N}} ? n : {{N}}L - {{VEC}};
  float acc[{{MMAX}}][{{VEC}}];
{{#if PAIR}}  float acc_up[{{MMAX}}][{{VEC}}]; /* the second weight's sums (w1) */
{{/if}}#pragma unroll
  for (int m = 0; m < {{MMAX}}; ++m)
#pragma unroll
    for (int e = 0; e < {{VEC}}; ++e) {
      acc[m][e] = 0.0f;
{{#if PAIR}}      acc_up[m][e] = 0.0f;
{{/if}}    }
  /* KB blocks of XV rows; the first FULL in whole steps of KS x UNROLL */
  const int KB = {{K}} / {{XV}};
  const int FULL = KB / ({{KS}} * {{UNROLL}}) * ({{KS}} * {{UNROLL}});
  for (int base = 0; base < FULL; base += {{KS}} * {{UNROLL}}) {
    kg_vec<{{T}}, {{VEC}}> wv[{{UNROLL}}][{{XV}}];
#pragma unroll
    for (int u = 0; u < {{UNROLL}}; ++u)
#pragma unroll
      for (int r = 0; r < {{XV}}; ++r)
        wv[u][r] = kg_ldv<{{VEC}}>(w, ((long)(base + u * {{KS}} + ks) * {{XV}} + r) * {{N}} + wn);
{{#if PAIR}}    kg_vec<{{T}}, {{VEC}}> wv1[{{UNROLL}}][{{XV}}];
#pragma unroll
    for (int u = 0; u < {{UNROLL}}; ++u)
#pragma unroll
      for (int r = 0; r < {{XV}}; ++r)
        wv1[u][r] = kg_ldv<{{VEC}}>(w1, ((long)(base + u * {{KS}} + ks) * {{XV}} + r) * {{N}} + wn);
{{/if}}
#pragma unroll
    for (int m = 0; m < {{MMAX}}; ++m) {
      if (m < M) {
#pragma unroll
        for (int u = 0; u < {{UNROLL}}; ++u) {
          const kg_vec<{{T}}, {{XV}}> xv =
              kg_ldv<{{XV}}>(x, m * {{K}}L + (long)(base + u * {{KS}} + ks) * {{XV}});
#pragma unroll
          for (int r = 0; r < {{XV}}; ++r)
#pragma unroll
            for (int e = 0; e < {{VEC}}; ++e) {
              acc[m][e] += kg_to_f32(xv.v[r]) * kg_to_f32(wv[u][r].v[e]);
{{#if PAIR}}              acc_up[m][e] += kg_to_f32(xv.v[r]) * kg_to_f32(wv1[u][r].v[e]);
{{/if}}            }
        }
      }
    }
  }
  /* the rest: fewer than KS x UNROLL blocks, one per slice at a time */
  for (int b = FULL + ks; b < KB; b += {{KS}}) {
    kg_vec<{{T}}, {{VEC}}> wv[{{XV}}];
#pragma unroll
    for (int r = 0; r < {{XV}}; ++r)
      wv[r] = kg_ldv<{{VEC}}>(w, ((long)b * {{XV}} + r) * {{N}} + wn);
{{#if PAIR}}    kg_vec<{{T}}, {{VEC}}> wv1[{{XV}}];
#pragma unroll
    for (int r = 0; r < {{XV}}; ++r)
      wv1[r] = kg_ldv<{{VEC}}>(w1, ((long)b * {{XV}} + r) * {{N}} + wn);
{{/if}}
#pragma unroll
    for (int m = 0; m < {{MMAX}}; ++m) {
      if (m < M) {
        const kg_vec<{{T}}, {{XV}}> xv = kg_ldv<{{XV}}>(x, m * {{K}}L + (long)b * {{XV}});
#pragma unroll
        for (int r = 0; r < {{XV}}; ++r)
#pragma unroll
          for (int e = 0; e < {{VEC}}; ++e) {
            acc[m][e] += kg_to_f32(xv.v[r]) * kg_to_f32(wv[r].v[e]);
{{#if PAIR}}            acc_up[m][e] += kg_to_f32(xv.v[r]) * kg_to_f32(wv1[r].v[e]);
{{/if}}          }
      }
    }
  }
  /* the slices' sums, one row at a time (M is the same for every thread, so
   * every thread reaches each barrier): slice ks writes its row of part, then
   * thread t adds columns t, t + BLOCK, ... of the KS rows in order */
  __shared__ float part[{{KS}}][{{CW}}];
{{#if PAIR}}  __shared__ float part_up[{{KS}}][{{CW}}];
{{/if}}#pragma unroll
  for (int m = 0; m < {{MMAX}}; ++m) {
    if (m < M) {
#pragma unroll
      for (int e = 0; e < {{VEC}}; ++e) {
        part[ks][cv + e] = acc[m][e];
{{#if PAIR}}        part_up[ks][cv + e] = acc_up[m][e];
{{/if}}      }
      __syncthreads();
      for (int c = t; c < {{CW}}; c += {{BLOCK}}) {
        const long nc = (long)blockIdx.x * {{CW}} + c;
        if (nc < {{N}}) {
          float acc0 = part[0][c];
{{#if PAIR}}          float acc1 = part_up[0][c];
{{/if}}          for (int j = 1; j < {{KS}}; ++j) {
            acc0 += part[j][c];
{{#if PAIR}}            acc1 += part_up[j][c];
{{/if}}          }
          const long idx = m * {{N}}L + nc;
          {{> epi_store}}
        }
      }
      __syncthreads();
    }
  }
}
