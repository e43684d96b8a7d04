/* argsort: y[r, :] = the indices that sort row r of x (COLS elements)
 * ascending (descending with DESC), stably: equal values keep their index
 * order. Each element's position is its rank, the number of elements before
 * it in the order (key, index) (key: kg_order_key, complemented for DESC),
 * counted against tiles of TILE keys staged in LDS; so no element moves
 * twice and the result does not depend on the schedule. One workgroup per
 * row; each thread ranks G elements at a time; the work is COLS^2 / BLOCK
 * compares per thread. */
extern "C" __global__ void __launch_bounds__({{BLOCK}})
{{KERNEL}}(KG_GLOBAL(const {{X_T}}) x, KG_GLOBAL(int) y) {
  constexpr int G = 4;
  constexpr long TILE = {{BLOCK}} * 4;
  __shared__ unsigned tile[TILE];
  const long base = (long)blockIdx.x * {{COLS}};
  const int tid = (int)threadIdx.x;
  for (long i0 = 0; i0 < {{COLS}}; i0 += (long){{BLOCK}} * G) {
    unsigned key[G];
    unsigned rank[G];
#pragma unroll
    for (int g = 0; g < G; ++g) {
      const long i = i0 + (long)g * {{BLOCK}} + tid;
      key[g] = i < {{COLS}} ? {{#if DESC}}~{{/if}}kg_order_key(kg_to_f32(kg_ld(x, base + i))) : 0u;
      rank[g] = 0;
    }
    for (long j0 = 0; j0 < {{COLS}}; j0 += TILE) {
      const long n = {{COLS}} - j0 < TILE ? {{COLS}} - j0 : TILE;
      __syncthreads(); /* the previous tile is no longer read */
      for (long j = tid; j < n; j += {{BLOCK}})
        tile[j] = {{#if DESC}}~{{/if}}kg_order_key(kg_to_f32(kg_ld(x, base + j0 + j)));
      __syncthreads();
      for (long j = 0; j < n; ++j) {
        const unsigned kj = tile[j];
#pragma unroll
        for (int g = 0; g < G; ++g) {
          const long i = i0 + (long)g * {{BLOCK}} + tid;
          rank[g] += (kj < key[g]) | ((kj == key[g]) & (j0 + j < i));
        }
      }
    }
#pragma unroll
    for (int g = 0; g < G; ++g) {
      const long i = i0 + (long)g * {{BLOCK}} + tid;
      if (i < {{COLS}})
        kg_st(y, base + rank[g], (int)i);
    }
  }
}
