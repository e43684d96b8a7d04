/* scatter_add: y = x with src added at idx along one dim, deterministically.
 * One workgroup per line: LEN elements of x `stride` apart, and the line's
 * `count` (idx, src) entries, also `stride` apart. The sums live in LDS in
 * f32, TILE slots at a time; slot s belongs to thread s % BLOCK, which loads
 * it from x, adds to it and stores it, so no two threads touch a slot. The
 * entries are staged through LDS a BLOCK at a time and every thread walks
 * them in order: each sum is x plus its entries in index order, rounded once.
 * Entries whose index is outside [0, LEN) are skipped. */
extern "C" __global__ void __launch_bounds__({{BLOCK}})
{{KERNEL}}(KG_GLOBAL(const {{X_T}}) x, KG_GLOBAL(const int) idx, KG_GLOBAL(const {{S_T}}) src, KG_GLOBAL({{X_T}}) y, long count, long stride) {
  __shared__ float acc[{{TILE}}];
  __shared__ int slot_s[{{BLOCK}}];
  __shared__ float val_s[{{BLOCK}}];
  const long line = blockIdx.x;
  const long xbase = line % stride + line / stride * {{LEN}}L * stride;
  const long ibase = line % stride + line / stride * count * stride;
  const int tid = threadIdx.x;
  for (int t0 = 0; t0 < {{LEN}}; t0 += {{TILE}}) {
    const int n = {{LEN}} - t0 < {{TILE}} ? {{LEN}} - t0 : {{TILE}};
    for (int s = tid; s < n; s += {{BLOCK}})
      acc[s] = kg_to_f32(kg_ld(x, xbase + (long)(t0 + s) * stride));
    for (long j0 = 0; j0 < count; j0 += {{BLOCK}}) {
      const long j = j0 + tid;
      int slot = -1;
      float v = 0.0f;
      if (j < count) {
        const int k = kg_ld(idx, ibase + j * stride);
        if (k >= t0 && k < t0 + n) {
          slot = k - t0;
          v = kg_to_f32(kg_ld(src, ibase + j * stride));
        }
      }
      slot_s[tid] = slot;
      val_s[tid] = v;
      __syncthreads();
      const int m = count - j0 < {{BLOCK}} ? (int)(count - j0) : {{BLOCK}};
      for (int q = 0; q < m; ++q) {
        const int s = slot_s[q];
        if (s >= 0 && s % {{BLOCK}} == tid)
          acc[s] += val_s[q];
      }
      __syncthreads();
    }
    for (int s = tid; s < n; s += {{BLOCK}})
      kg_st(y, xbase + (long)(t0 + s) * stride, kg_from_f32<{{X_T}}>(acc[s]));
  }
}
