/* lib_norm.hip - device helpers the row-reduction templates share (reduce,
 * rmsnorm, layernorm, groupnorm): reductions of (value, index) pairs across a
 * workgroup, the two-pass row statistics and the fused residual add.
 * Needs common.hip. Every workgroup-wide helper is called by all BLOCK
 * threads and ends with a barrier, so its LDS may be reused at once. */

/* The reductions of reduce.hip. */
enum { KG_RED_SUM, KG_RED_MAX, KG_RED_MIN, KG_RED_ARGMAX, KG_RED_ARGMIN };

/* A partial result: the value so far and, for arg reductions, where it is. */
struct kg_vi {
  float v;
  int i;
};

template <int OP> KG_INLINE kg_vi kg_red_init() {
  kg_vi a;
  a.v = OP == KG_RED_SUM ? 0.0f
        : OP == KG_RED_MAX || OP == KG_RED_ARGMAX ? -__builtin_inff()
                                                  : __builtin_inff();
  a.i = 0x7fffffff; /* loses every tie */
  return a;
}

/* Combines two partial results. Arg reductions keep the first index among
 * equal values, so the result does not depend on how the row was split. */
template <int OP> KG_INLINE kg_vi kg_red_merge(kg_vi a, kg_vi b) {
  if (OP == KG_RED_SUM) {
    a.v += b.v;
    return a;
  }
  const bool better = OP == KG_RED_MAX || OP == KG_RED_ARGMAX ? b.v > a.v : b.v < a.v;
  return better || (b.v == a.v && b.i < a.i) ? b : a;
}

/* Adds element `i` of value f to a thread's partial result. A thread visits
 * its elements in increasing order, so a strict comparison keeps the first. */
template <int OP> KG_INLINE kg_vi kg_red_step(kg_vi a, float f, int i) {
  if (OP == KG_RED_SUM) {
    a.v += f;
  } else if (OP == KG_RED_MAX || OP == KG_RED_ARGMAX ? f > a.v : f < a.v) {
    a.v = f;
    a.i = i;
  }
  return a;
}

/* Across a wave (butterfly: every lane gets the result; merge is symmetric,
 * so every lane gets the same bits). */
template <int OP, int WAVE> KG_INLINE kg_vi kg_wave_reduce(kg_vi a) {
#pragma unroll
  for (int off = WAVE / 2; off > 0; off /= 2) {
    kg_vi b;
    b.v = kg_shfl_xor(a.v, off);
    b.i = (int)kg_shfl_u32((unsigned)a.i, kg_lane_id() ^ off);
    a = kg_red_merge<OP>(a, b);
  }
  return a;
}

/* Across the workgroup; every thread gets the result. Needs BLOCK / WAVE <= WAVE. */
template <int OP, int WAVE, int BLOCK> KG_INLINE kg_vi kg_block_reduce(kg_vi a) {
  __shared__ float part_v[BLOCK / WAVE];
  __shared__ int part_i[BLOCK / WAVE];
  a = kg_wave_reduce<OP, WAVE>(a);
  if (kg_lane_id() == 0) {
    part_v[threadIdx.x / WAVE] = a.v;
    part_i[threadIdx.x / WAVE] = a.i;
  }
  __syncthreads();
  if (kg_lane_id() < BLOCK / WAVE) {
    a.v = part_v[kg_lane_id()];
    a.i = part_i[kg_lane_id()];
  } else {
    a = kg_red_init<OP>();
  }
  a = kg_wave_reduce<OP, WAVE>(a);
  __syncthreads();
  return a;
}

/* Two sums across the workgroup at once (one pair of barriers). */
template <int WAVE, int BLOCK> KG_INLINE void kg_block_sum2(float &a, float &b) {
  __shared__ float part_a[BLOCK / WAVE];
  __shared__ float part_b[BLOCK / WAVE];
  a = kg_wave_sum<WAVE>(a);
  b = kg_wave_sum<WAVE>(b);
  if (kg_lane_id() == 0) {
    part_a[threadIdx.x / WAVE] = a;
    part_b[threadIdx.x / WAVE] = b;
  }
  __syncthreads();
  const bool live = kg_lane_id() < BLOCK / WAVE;
  a = kg_wave_sum<WAVE>(live ? part_a[kg_lane_id()] : 0.0f);
  b = kg_wave_sum<WAVE>(live ? part_b[kg_lane_id()] : 0.0f);
  __syncthreads();
}

/* The statistics of the COLS elements of p from `base`, given a first mean
 * m0 (their sum / COLS in f32): the exact mean is m0 + shift, and rstd =
 * 1 / sqrt(var + eps). The corrected two-pass form: with d = x - m0 (exact
 * when m0 is near x), shift = sum d / n and var = (sum d^2 - (sum d)^2 / n) / n,
 * which stays accurate when the mean is large against the spread (E[x^2] -
 * E[x]^2 would cancel), and shift corrects m0's own rounding (normalise as
 * (x - m0 - shift) * rstd). */
template <int WAVE, int BLOCK, int VEC, long COLS, typename P>
KG_INLINE void kg_row_stats(P p, long base, float m0, float eps, float &shift, float &rstd) {
  float s1 = 0.0f, s2 = 0.0f;
  for (long c = (long)threadIdx.x * VEC; c < COLS; c += BLOCK * VEC) {
    const auto v = kg_ldv<VEC>(p, base + c);
#pragma unroll
    for (int k = 0; k < VEC; ++k) {
      const float d = kg_to_f32(v.v[k]) - m0;
      s1 += d;
      s2 += d * d;
    }
  }
  kg_block_sum2<WAVE, BLOCK>(s1, s2);
  shift = s1 * (1.0f / COLS);
  const float var = (s2 - s1 * shift) * (1.0f / COLS);
  rstd = kg_rsqrt(kg_max(var, 0.0f) + eps);
}

/* The fused residual: h[i..i+N) = x + r rounded to T, stored, and returned
 * (what follows normalises the rounded h, as a model that stores h would). */
template <int N, typename T, typename R, typename PX, typename PR, typename PH>
KG_INLINE kg_vec<T, N> kg_residual_add(PX x, PR r, PH h, long i) {
  const kg_vec<T, N> a = kg_ldv<N>(x, i);
  const kg_vec<R, N> b = kg_ldv<N>(r, i);
  kg_vec<T, N> s;
#pragma unroll
  for (int k = 0; k < N; ++k)
    s.v[k] = kg_from_f32<T>(kg_to_f32(a.v[k]) + kg_to_f32(b.v[k]));
  kg_stv<N>(h, i, s);
  return s;
}
