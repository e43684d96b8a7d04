/* srht: the subsampled randomized Hadamard transform of each row of COLS
 * elements, zero-padded to P = 2^LOGP >= COLS (P <= 16384):
 *   y[r, k] = (1 / sqrt(OUT)) sum_{j < COLS} H[pi(k)][j] s(j) x[r, j],  k < OUT,
 * i.e. sqrt(P / OUT) (H / sqrt(P)) D x at coordinate pi(k), where
 *   H[i][j] = (-1)^popcount(i & j) (Sylvester order),
 *   key = kg_hash32(SEED), s(j) = -1 if kg_hash32(j ^ key) has its top bit set,
 *   else +1,
 *   pi: a bijection of [0, P): v = k, then for t = 1, 2, 3, 4 (32-bit unsigned
 *   arithmetic, kt = kg_hash32(key + t), M = P - 1, SHIFT = LOGP / 2 + 1):
 *     v = ((v ^ kt) * (kt | 1)) & M;  v ^= v >> SHIFT;
 * so the OUT coordinates pi(0..OUT-1) are distinct (chosen without
 * replacement).
 * One workgroup per row; the fast Walsh-Hadamard transform runs in LDS on
 * PIECE = P / VEC points (VEC is the piece count the parameter rule picks so
 * that PIECE floats fit the target's shared memory): piece h holds
 * z_h[lo] = sum_g (-1)^popcount(h & g) (D x)[g PIECE + lo], whose PIECE-point
 * transform is (H D x)[h PIECE + lo]. No scratch, no atomics. */
extern "C" __global__ void __launch_bounds__({{BLOCK}})
{{KERNEL}}(KG_GLOBAL(const {{X_T}}) x, KG_GLOBAL({{Y_T}}) y) {
  constexpr int PIECES = {{VEC}};
  constexpr int PIECE = {{P}} / PIECES;
  __shared__ float buf[PIECE];
  const long base = (long)blockIdx.x * {{COLS}};
  const unsigned key = kg_hash32({{SEED}}u);
  const int tid = (int)threadIdx.x;
  for (int h = 0; h < PIECES; ++h) {
    __syncthreads(); /* the previous piece is no longer read */
    for (int lo = tid; lo < PIECE; lo += {{BLOCK}}) {
      float acc = 0.0f;
      for (int g = 0; g < PIECES; ++g) {
        const long j = (long)g * PIECE + lo;
        if (j < {{COLS}}) {
          const float f = kg_to_f32(kg_ld(x, base + j));
          const bool neg = (kg_hash32((unsigned)j ^ key) >> 31) != 0u;
          unsigned hg = (unsigned)(h & g), par = 0u;
          while (hg) {
            par ^= 1u;
            hg &= hg - 1u;
          }
          acc += (neg != (par != 0u)) ? -f : f;
        }
      }
      buf[lo] = acc;
    }
    for (int len = 1; len < PIECE; len *= 2) {
      __syncthreads();
      for (int q = tid; q < PIECE / 2; q += {{BLOCK}}) {
        const int i = ((q & ~(len - 1)) << 1) | (q & (len - 1));
        const float a = buf[i], b = buf[i + len];
        buf[i] = a + b;
        buf[i + len] = a - b;
      }
    }
    __syncthreads();
    for (long k = tid; k < {{OUT}}; k += {{BLOCK}}) {
      unsigned v = (unsigned)k;
#pragma unroll
      for (unsigned t = 1; t <= 4; ++t) {
        const unsigned kt = kg_hash32(key + t);
        v = ((v ^ kt) * (kt | 1u)) & ({{P}}u - 1u);
        v ^= v >> {{SHIFT}};
      }
      if ((int)(v / PIECE) == h)
        kg_st(y, (long)blockIdx.x * {{OUT}} + k,
              kg_from_f32<{{Y_T}}>(buf[v % PIECE] * {{SCALE}}));
    }
  }
}
