/* sim_kernels.hip - test kernels for the sim engine (test_sim.c), written as
 * kgen would generate them: small hand-written kernels for barriers, shuffles,
 * LDS and bad accesses, then map, rmsnorm and softmax expanded from templates/
 * by hand, then one "<kernel>__sim" thunk per kernel. Arguments sit at 8-byte
 * slots of the kernarg bytes in order.
 *
 * Needs runtime/kgrt_sim_abi.h, templates/prelude_sim.hip and
 * templates/common.hip pasted in front of it (the test build does that and
 * compiles the result into sim_kernels.so). Gives the image test_sim loads. */

/* out[i] = the sum of x over i's workgroup of 256, by kg_block_sum<WAVE, 256>:
 * right only when the launch's wave size is WAVE. */
extern "C" __global__ void __launch_bounds__(256)
k_bsum32(KG_GLOBAL(const float) x, KG_GLOBAL(float) out) {
  const long i = (long)blockIdx.x * 256 + threadIdx.x;
  kg_st(out, i, kg_block_sum<32, 256>(kg_ld(x, i)));
}
extern "C" __global__ void __launch_bounds__(256)
k_bsum64(KG_GLOBAL(const float) x, KG_GLOBAL(float) out) {
  const long i = (long)blockIdx.x * 256 + threadIdx.x;
  kg_st(out, i, kg_block_sum<64, 256>(kg_ld(x, i)));
}

/* Off by one: thread n stores out[n] (workgroups of 64). */
extern "C" __global__ void __launch_bounds__(64)
k_oob_store(KG_GLOBAL(float) out, long n) {
  const long i = (long)blockIdx.x * 64 + threadIdx.x;
  if (i <= n)
    kg_st(out, i, (float)i);
}

/* Every thread loads x[i] whether or not x has it: the workgroups past the end
 * of x all fail; the first of them must be the one reported. */
extern "C" __global__ void __launch_bounds__(64)
k_oob_load(KG_GLOBAL(const float) x, KG_GLOBAL(float) out) {
  const long i = (long)blockIdx.x * 64 + threadIdx.x;
  const float v = kg_ld(x, i);
  __syncthreads();
  kg_st(out, i, v);
}

/* Reads x[-1]. */
extern "C" __global__ void __launch_bounds__(64)
k_oob_under(KG_GLOBAL(const float) x, KG_GLOBAL(float) out) {
  kg_st(out, 0, kg_ld(x, (long)threadIdx.x - 1));
}

/* Threads 32.. leave before the barrier the others wait at. */
extern "C" __global__ void __launch_bounds__(64)
k_diverge(KG_GLOBAL(float) out) {
  if (threadIdx.x >= 32)
    return;
  __syncthreads();
  kg_st(out, threadIdx.x, 1.0f);
}

/* Lanes 0..15 shuffle while lanes 16..31 of their wave go to a barrier. */
extern "C" __global__ void __launch_bounds__(32)
k_shfl_diverge(KG_GLOBAL(unsigned) out) {
  unsigned v = threadIdx.x;
  if (kg_lane_id() < 16)
    v = kg_shfl_u32(v, kg_lane_id() ^ 1u);
  __syncthreads();
  kg_st(out, threadIdx.x, v);
}

/* Lanes 8.. exit; lanes 0..7 read lanes 8..15. */
extern "C" __global__ void __launch_bounds__(32)
k_shfl_exited(KG_GLOBAL(unsigned) out) {
  if (threadIdx.x >= 8)
    return;
  kg_st(out, threadIdx.x, kg_shfl_u32(threadIdx.x, threadIdx.x + 8));
}

/* Lanes 8.. exit; lanes 0..7 rotate among themselves twice (the exits
 * complete the first shuffle; the second reuses its slots at once). */
extern "C" __global__ void __launch_bounds__(32)
k_shfl_part(KG_GLOBAL(unsigned) out) {
  const unsigned t = threadIdx.x;
  if (t >= 8)
    return;
  const unsigned a = kg_shfl_u32(t * 10u, (t + 1u) & 7u);
  const unsigned b = kg_shfl_u32(a + 1u, (t + 7u) & 7u);
  kg_st(out, t, b);
}

/* out[t] = the thread index held by lane wave-1-lane (src taken modulo the
 * wave: ~lane). */
extern "C" __global__ void __launch_bounds__(1024)
k_shfl_rev(KG_GLOBAL(unsigned) out) {
  const long i = (long)blockIdx.x * 1024 + threadIdx.x;
  kg_st(out, i, kg_shfl_u32(threadIdx.x, ~kg_lane_id()));
}

/* Each workgroup passes its own id through LDS across barriers, several
 * rounds; a workgroup that saw another's id writes it. */
extern "C" __global__ void __launch_bounds__(64)
k_lds_id(KG_GLOBAL(unsigned) out) {
  __shared__ unsigned ids[64];
  const unsigned t = threadIdx.x;
  unsigned seen = blockIdx.x;
  for (int round = 0; round < 4; ++round) {
    ids[t] = blockIdx.x;
    __syncthreads();
    const unsigned other = ids[(t + 1u + (unsigned)round) & 63u];
    if (other != blockIdx.x)
      seen = other;
    __syncthreads();
  }
  kg_st(out, (long)blockIdx.x * 64 + t, seen);
}

/* n barriers in a row (the cost of a context switch). */
extern "C" __global__ void __launch_bounds__(256)
k_barriers(long n) {
  for (long i = 0; i < n; ++i)
    __syncthreads();
}

/* ---- expanded from templates/map.hip, rmsnorm.hip, softmax.hip ---- */
/* map: out[i] = EXPR(a0[i], a1[i], ...) over n elements, computed in float.
 * Each thread handles VEC consecutive elements with one vector load per input
 * (128-bit where the dtype and n allow); the last thread takes the tail. */
extern "C" __global__ void __launch_bounds__(256)
k_map_h2h(KG_GLOBAL(const kg_f16) in0, KG_GLOBAL(kg_f16) out, long n) {
  const long i = ((long)blockIdx.x * 256 + threadIdx.x) * 8;
  if (i + 8 <= n) {
    const kg_vec<kg_f16, 8> v0 = kg_ldv<8>(in0, i);
    kg_vec<kg_f16, 8> r;
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      const float a0 = kg_to_f32(v0.v[k]);
      r.v[k] = kg_from_f32<kg_f16>(a0);
    }
    kg_stv<8>(out, i, r);
  } else {
    for (long j = i; j < n; ++j) {
      const float a0 = kg_to_f32(kg_ld(in0, j));
      kg_st(out, j, kg_from_f32<kg_f16>(a0));
    }
  }
}

/* map: out[i] = EXPR(a0[i], a1[i], ...) over n elements, computed in float.
 * Each thread handles VEC consecutive elements with one vector load per input
 * (128-bit where the dtype and n allow); the last thread takes the tail. */
extern "C" __global__ void __launch_bounds__(256)
k_map_h2f(KG_GLOBAL(const kg_f16) in0, KG_GLOBAL(float) out, long n) {
  const long i = ((long)blockIdx.x * 256 + threadIdx.x) * 8;
  if (i + 8 <= n) {
    const kg_vec<kg_f16, 8> v0 = kg_ldv<8>(in0, i);
    kg_vec<float, 8> r;
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      const float a0 = kg_to_f32(v0.v[k]);
      r.v[k] = kg_from_f32<float>(a0);
    }
    kg_stv<8>(out, i, r);
  } else {
    for (long j = i; j < n; ++j) {
      const float a0 = kg_to_f32(kg_ld(in0, j));
      kg_st(out, j, kg_from_f32<float>(a0));
    }
  }
}

/* map: out[i] = EXPR(a0[i], a1[i], ...) over n elements, computed in float.
 * Each thread handles VEC consecutive elements with one vector load per input
 * (128-bit where the dtype and n allow); the last thread takes the tail. */
extern "C" __global__ void __launch_bounds__(256)
k_map_f2h(KG_GLOBAL(const float) in0, KG_GLOBAL(kg_f16) out, long n) {
  const long i = ((long)blockIdx.x * 256 + threadIdx.x) * 4;
  if (i + 4 <= n) {
    const kg_vec<float, 4> v0 = kg_ldv<4>(in0, i);
    kg_vec<kg_f16, 4> r;
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const float a0 = kg_to_f32(v0.v[k]);
      r.v[k] = kg_from_f32<kg_f16>(a0);
    }
    kg_stv<4>(out, i, r);
  } else {
    for (long j = i; j < n; ++j) {
      const float a0 = kg_to_f32(kg_ld(in0, j));
      kg_st(out, j, kg_from_f32<kg_f16>(a0));
    }
  }
}

/* map: out[i] = EXPR(a0[i], a1[i], ...) over n elements, computed in float.
 * Each thread handles VEC consecutive elements with one vector load per input
 * (128-bit where the dtype and n allow); the last thread takes the tail. */
extern "C" __global__ void __launch_bounds__(128)
k_map_swiglu(KG_GLOBAL(const kg_f16) in0, KG_GLOBAL(const kg_f16) in1, KG_GLOBAL(kg_bf16) out, long n) {
  const long i = ((long)blockIdx.x * 128 + threadIdx.x) * 8;
  if (i + 8 <= n) {
    const kg_vec<kg_f16, 8> v0 = kg_ldv<8>(in0, i);
    const kg_vec<kg_f16, 8> v1 = kg_ldv<8>(in1, i);
    kg_vec<kg_bf16, 8> r;
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      const float a0 = kg_to_f32(v0.v[k]);
      const float a1 = kg_to_f32(v1.v[k]);
      r.v[k] = kg_from_f32<kg_bf16>(kg_silu(a0) * a1);
    }
    kg_stv<8>(out, i, r);
  } else {
    for (long j = i; j < n; ++j) {
      const float a0 = kg_to_f32(kg_ld(in0, j));
      const float a1 = kg_to_f32(kg_ld(in1, j));
      kg_st(out, j, kg_from_f32<kg_bf16>(kg_silu(a0) * a1));
    }
  }
}

/* rmsnorm: y[r, c] = x[r, c] * rsqrt(mean_c(x[r, c]^2) + EPS) * w[c].
 * One workgroup per row of COLS elements; VEC elements per access; the sum of
 * squares is reduced across the workgroup (waves of WAVE lanes). */
extern "C" __global__ void __launch_bounds__(256)
k_rmsnorm_w32(KG_GLOBAL(const kg_f16) x, KG_GLOBAL(const kg_f16) w, KG_GLOBAL(kg_f16) y) {
  const long base = (long)blockIdx.x * 1024;
  float ss = 0.0f;
  for (long c = (long)threadIdx.x * 4; c < 1024; c += 256 * 4) {
    const kg_vec<kg_f16, 4> v = kg_ldv<4>(x, base + c);
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const float f = kg_to_f32(v.v[k]);
      ss += f * f;
    }
  }
  ss = kg_block_sum<32, 256>(ss);
  const float scale = kg_rsqrt(ss * (1.0f / 1024) + 1e-5f);
  for (long c = (long)threadIdx.x * 4; c < 1024; c += 256 * 4) {
    const kg_vec<kg_f16, 4> v = kg_ldv<4>(x, base + c);
    const kg_vec<kg_f16, 4> g = kg_ldv<4>(w, c);
    kg_vec<kg_f16, 4> r;
#pragma unroll
    for (int k = 0; k < 4; ++k)
      r.v[k] = kg_from_f32<kg_f16>(kg_to_f32(v.v[k]) * scale * kg_to_f32(g.v[k]));
    kg_stv<4>(y, base + c, r);
  }
}

/* softmax: y[r, c] = exp(s x[r, c] - m) / sum_c exp(s x[r, c] - m), m the row
 * max of s x, s = SCALE. One workgroup per row of COLS elements; each thread
 * keeps an online (max, sum) pair, then the pairs are combined across the
 * workgroup (waves of WAVE lanes). */
extern "C" __global__ void __launch_bounds__(256)
k_softmax_w64(KG_GLOBAL(const float) x, KG_GLOBAL(kg_bf16) y) {
  const long base = (long)blockIdx.x * 2048;
  float m = -__builtin_inff();
  float s = 0.0f;
  for (long c = (long)threadIdx.x * 4; c < 2048; c += 256 * 4) {
    const kg_vec<float, 4> v = kg_ldv<4>(x, base + c);
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const float f = kg_to_f32(v.v[k]) * 0.125f;
      if (f > m) {
        s = s * kg_exp(m - f) + 1.0f;
        m = f;
      } else {
        s += kg_exp(f - m);
      }
    }
  }
  const float row_max = kg_block_max<64, 256>(m);
  s = m == -__builtin_inff() ? 0.0f : s * kg_exp(m - row_max);
  const float inv_sum = 1.0f / kg_block_sum<64, 256>(s);
  for (long c = (long)threadIdx.x * 4; c < 2048; c += 256 * 4) {
    const kg_vec<float, 4> v = kg_ldv<4>(x, base + c);
    kg_vec<kg_bf16, 4> r;
#pragma unroll
    for (int k = 0; k < 4; ++k)
      r.v[k] = kg_from_f32<kg_bf16>(kg_exp(kg_to_f32(v.v[k]) * 0.125f - row_max) * inv_sum);
    kg_stv<4>(y, base + c, r);
  }
}

/* ---- sim thunks ---- */
extern "C" KG_SIM_EXPORT void k_bsum32__sim(const unsigned char *kernarg,
    const unsigned long long *arg_bytes) {
  k_bsum32(kg_sim_arg<const float>(kernarg, 0, arg_bytes[0]),
      kg_sim_arg<float>(kernarg, 8, arg_bytes[1]));
}
extern "C" KG_SIM_EXPORT void k_bsum64__sim(const unsigned char *kernarg,
    const unsigned long long *arg_bytes) {
  k_bsum64(kg_sim_arg<const float>(kernarg, 0, arg_bytes[0]),
      kg_sim_arg<float>(kernarg, 8, arg_bytes[1]));
}
extern "C" KG_SIM_EXPORT void k_oob_store__sim(const unsigned char *kernarg,
    const unsigned long long *arg_bytes) {
  k_oob_store(kg_sim_arg<float>(kernarg, 0, arg_bytes[0]),
      kg_sim_i64(kernarg, 8));
}
extern "C" KG_SIM_EXPORT void k_oob_load__sim(const unsigned char *kernarg,
    const unsigned long long *arg_bytes) {
  k_oob_load(kg_sim_arg<const float>(kernarg, 0, arg_bytes[0]),
      kg_sim_arg<float>(kernarg, 8, arg_bytes[1]));
}
extern "C" KG_SIM_EXPORT void k_oob_under__sim(const unsigned char *kernarg,
    const unsigned long long *arg_bytes) {
  k_oob_under(kg_sim_arg<const float>(kernarg, 0, arg_bytes[0]),
      kg_sim_arg<float>(kernarg, 8, arg_bytes[1]));
}
extern "C" KG_SIM_EXPORT void k_diverge__sim(const unsigned char *kernarg,
    const unsigned long long *arg_bytes) {
  k_diverge(kg_sim_arg<float>(kernarg, 0, arg_bytes[0]));
}
extern "C" KG_SIM_EXPORT void k_shfl_diverge__sim(const unsigned char *kernarg,
    const unsigned long long *arg_bytes) {
  k_shfl_diverge(kg_sim_arg<unsigned>(kernarg, 0, arg_bytes[0]));
}
extern "C" KG_SIM_EXPORT void k_shfl_exited__sim(const unsigned char *kernarg,
    const unsigned long long *arg_bytes) {
  k_shfl_exited(kg_sim_arg<unsigned>(kernarg, 0, arg_bytes[0]));
}
extern "C" KG_SIM_EXPORT void k_shfl_part__sim(const unsigned char *kernarg,
    const unsigned long long *arg_bytes) {
  k_shfl_part(kg_sim_arg<unsigned>(kernarg, 0, arg_bytes[0]));
}
extern "C" KG_SIM_EXPORT void k_shfl_rev__sim(const unsigned char *kernarg,
    const unsigned long long *arg_bytes) {
  k_shfl_rev(kg_sim_arg<unsigned>(kernarg, 0, arg_bytes[0]));
}
extern "C" KG_SIM_EXPORT void k_lds_id__sim(const unsigned char *kernarg,
    const unsigned long long *arg_bytes) {
  k_lds_id(kg_sim_arg<unsigned>(kernarg, 0, arg_bytes[0]));
}
extern "C" KG_SIM_EXPORT void k_barriers__sim(const unsigned char *kernarg,
    const unsigned long long *arg_bytes) {
  (void)arg_bytes;
  k_barriers(kg_sim_i64(kernarg, 0));
}
extern "C" KG_SIM_EXPORT void k_map_h2h__sim(const unsigned char *kernarg,
    const unsigned long long *arg_bytes) {
  k_map_h2h(kg_sim_arg<const kg_f16>(kernarg, 0, arg_bytes[0]),
      kg_sim_arg<kg_f16>(kernarg, 8, arg_bytes[1]),
      kg_sim_i64(kernarg, 16));
}
extern "C" KG_SIM_EXPORT void k_map_h2f__sim(const unsigned char *kernarg,
    const unsigned long long *arg_bytes) {
  k_map_h2f(kg_sim_arg<const kg_f16>(kernarg, 0, arg_bytes[0]),
      kg_sim_arg<float>(kernarg, 8, arg_bytes[1]),
      kg_sim_i64(kernarg, 16));
}
extern "C" KG_SIM_EXPORT void k_map_f2h__sim(const unsigned char *kernarg,
    const unsigned long long *arg_bytes) {
  k_map_f2h(kg_sim_arg<const float>(kernarg, 0, arg_bytes[0]),
      kg_sim_arg<kg_f16>(kernarg, 8, arg_bytes[1]),
      kg_sim_i64(kernarg, 16));
}
extern "C" KG_SIM_EXPORT void k_map_swiglu__sim(const unsigned char *kernarg,
    const unsigned long long *arg_bytes) {
  k_map_swiglu(kg_sim_arg<const kg_f16>(kernarg, 0, arg_bytes[0]),
      kg_sim_arg<const kg_f16>(kernarg, 8, arg_bytes[1]),
      kg_sim_arg<kg_bf16>(kernarg, 16, arg_bytes[2]),
      kg_sim_i64(kernarg, 24));
}
extern "C" KG_SIM_EXPORT void k_rmsnorm_w32__sim(const unsigned char *kernarg,
    const unsigned long long *arg_bytes) {
  k_rmsnorm_w32(kg_sim_arg<const kg_f16>(kernarg, 0, arg_bytes[0]),
      kg_sim_arg<const kg_f16>(kernarg, 8, arg_bytes[1]),
      kg_sim_arg<kg_f16>(kernarg, 16, arg_bytes[2]));
}
extern "C" KG_SIM_EXPORT void k_softmax_w64__sim(const unsigned char *kernarg,
    const unsigned long long *arg_bytes) {
  k_softmax_w64(kg_sim_arg<const float>(kernarg, 0, arg_bytes[0]),
      kg_sim_arg<kg_bf16>(kernarg, 8, arg_bytes[1]));
}
