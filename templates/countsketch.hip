/* countsketch: y[r, b] = sum over j with h(j) = b of s(j) x[r, j], for
 * COLS inputs and WIDTH buckets, where v = kg_hash32(j ^ kg_hash32(SEED)),
 * h(j) = v % WIDTH and s(j) = -1 if the top bit of v is set, else +1.
 * One workgroup per row; each thread owns G buckets at a time (b = b0 +
 * g BLOCK + tid) and adds the row into them in index order from LDS tiles:
 * a fixed summation order and no atomics. */
extern "C" __global__ void __launch_bounds__({{BLOCK}})
{{KERNEL}}(KG_GLOBAL(const {{X_T}}) x, KG_GLOBAL({{Y_T}}) y) {
  constexpr int G = 4;
  constexpr long TILE = {{BLOCK}} * 4;
  __shared__ float xs[TILE];
  __shared__ unsigned hs[TILE];
  const long base = (long)blockIdx.x * {{COLS}};
  const unsigned key = kg_hash32({{SEED}}u);
  const int tid = (int)threadIdx.x;
  for (long b0 = 0; b0 < {{WIDTH}}; b0 += (long){{BLOCK}} * G) {
    float acc[G];
#pragma unroll
    for (int g = 0; g < G; ++g)
      acc[g] = 0.0f;
    for (long j0 = 0; j0 < {{COLS}}; j0 += TILE) {
      const long n = {{COLS}} - j0 < TILE ? {{COLS}} - j0 : TILE;
      __syncthreads(); /* the previous tile is no longer read */
      for (long j = tid; j < n; j += {{BLOCK}}) {
        const unsigned v = kg_hash32((unsigned)(j0 + j) ^ key);
        const float f = kg_to_f32(kg_ld(x, base + j0 + j));
        xs[j] = (v & 0x80000000u) ? -f : f;
        hs[j] = v % {{WIDTH}}u;
      }
      __syncthreads();
      for (long j = 0; j < n; ++j) {
        const long rel = (long)hs[j] - b0 - tid;
#pragma unroll
        for (int g = 0; g < G; ++g)
          acc[g] += rel == (long)g * {{BLOCK}} ? xs[j] : 0.0f;
      }
    }
#pragma unroll
    for (int g = 0; g < G; ++g) {
      const long b = b0 + (long)g * {{BLOCK}} + tid;
      if (b < {{WIDTH}})
        kg_st(y, (long)blockIdx.x * {{WIDTH}} + b, kg_from_f32<{{Y_T}}>(acc[g]));
    }
  }
}
