/* common.hip - platform-neutral helpers every kgen kernel may use: dtype
 * conversion through float, elementwise math, and wave/workgroup reductions
 * specialised to a wave size. Needs a prelude (prelude_<platform>.hip) for
 * kg_lane_id, kg_shfl_u32, __syncthreads, the f16 bit conversions, kg_exp, kg_exp2,
 * kg_sqrt, kg_fabs, kg_log, kg_sin, kg_cos, kg_atomic_add and kg_fence_device.
 * Templates reach global memory only through kg_ld, kg_st, kg_ldv and kg_stv
 * (and the preludes' atomics and coherent loads, kg_ld_coherent, kg_ldv_coherent):
 * on the sim device KG_GLOBAL(T) is a bounds-checked handle, not a pointer. */

/* One of two or three values by index r (0, 1, 2): a pointer, say. */
template <typename P> KG_INLINE P kg_pick(int r, P a, P b) { return r == 0 ? a : b; }
template <typename P> KG_INLINE P kg_pick(int r, P a, P b, P c) {
  return r == 0 ? a : r == 1 ? b : c;
}

/* dtype <-> float */
KG_INLINE float kg_to_f32(float x) { return x; }
KG_INLINE float kg_to_f32(int x) { return (float)x; }
KG_INLINE float kg_to_f32(kg_f16 x) { return kg_f16_bits_to_f32(x.bits); }
KG_INLINE float kg_to_f32(kg_bf16 x) { return kg_bits_f32((unsigned)x.bits << 16); }

/* float -> bf16 bits, round to nearest even; NaN stays NaN. In software
 * unless the prelude has an instruction for it (KG_HAS_BF16_CVT). */
#ifndef KG_HAS_BF16_CVT
KG_INLINE unsigned short kg_f32_to_bf16_bits(float f) {
  unsigned u = kg_f32_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u)
    return (unsigned short)((u >> 16) | 0x40u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return (unsigned short)(u >> 16);
}
#endif

/* a / b where b is known to be >= 1 and finite (or +inf): the preludes may
 * use a fast reciprocal (KG_HAS_FAST_DIV). */
#ifndef KG_HAS_FAST_DIV
KG_INLINE float kg_div_ge1(float a, float b) { return a / b; }
#endif

template <typename T> KG_INLINE T kg_from_f32(float x);
template <> KG_INLINE_SPEC float kg_from_f32<float>(float x) { return x; }
/* float -> i32: toward zero, saturating; NaN gives 0. */
template <> KG_INLINE_SPEC int kg_from_f32<int>(float x) {
  return !(x == x) ? 0 : x >= 2147483648.0f ? 2147483647 : x <= -2147483648.0f ? (-2147483647 - 1) : (int)x;
}
template <> KG_INLINE_SPEC kg_f16 kg_from_f32<kg_f16>(float x) {
  kg_f16 h;
  h.bits = kg_f32_to_f16_bits(x);
  return h;
}
template <> KG_INLINE_SPEC kg_bf16 kg_from_f32<kg_bf16>(float x) {
  kg_bf16 h;
  h.bits = kg_f32_to_bf16_bits(x);
  return h;
}

/* Two floats rounded to a 16-bit T, packed in one word (lo in the low half),
 * as matrix fragments hold them; one instruction where the prelude has it
 * (KG_HAS_PACK2). */
#ifndef KG_HAS_PACK2
template <typename T> KG_INLINE unsigned kg_pack2(float lo, float hi) {
  return (unsigned)kg_from_f32<T>(lo).bits | (unsigned)kg_from_f32<T>(hi).bits << 16;
}
#endif

/* Rounds a float to what dtype T can hold (for cast inside fused chains). */
template <typename T> KG_INLINE float kg_round(float x) {
  return kg_to_f32(kg_from_f32<T>(x));
}

/* Elementwise math (float in, float out). */
KG_INLINE float kg_rsqrt(float x) { return 1.0f / kg_sqrt(x); }
KG_INLINE float kg_sigmoid(float x) { return kg_div_ge1(1.0f, 1.0f + kg_exp(-x)); }
KG_INLINE float kg_silu(float x) { return kg_div_ge1(x, 1.0f + kg_exp(-x)); }
KG_INLINE float kg_tanh(float x) {
  /* tanh(x) = sign(x) (1 - e) / (1 + e), e = exp(-2|x|): no overflow. */
  float e = kg_exp(-2.0f * kg_fabs(x));
  float t = (1.0f - e) / (1.0f + e);
  return x < 0.0f ? -t : t;
}
KG_INLINE float kg_relu(float x) { return x > 0.0f ? x : 0.0f; }
KG_INLINE float kg_min(float a, float b) { return b < a ? b : a; }
KG_INLINE float kg_max(float a, float b) { return b > a ? b : a; }
/* erf(x), |error| < 1.2e-7: erfc by the Chebyshev-fitted form of Numerical
 * Recipes (erfcc), in float, so no device library is needed. */
KG_INLINE float kg_erf(float x) {
  const float z = kg_fabs(x);
  const float t = 1.0f / (1.0f + 0.5f * z);
  const float p =
      -z * z - 1.26551223f +
      t * (1.00002368f +
           t * (0.37409196f +
                t * (0.09678418f +
                     t * (-0.18628806f +
                          t * (0.27886807f +
                               t * (-1.13520398f +
                                    t * (1.48851587f + t * (-0.82215223f + t * 0.17087277f))))))));
  const float r = 1.0f - t * kg_exp(p);
  return x < 0.0f ? -r : r;
}
/* GELU, exact form: 0.5 x (1 + erf(x / sqrt 2)). */
KG_INLINE float kg_gelu_erf(float x) { return 0.5f * x * (1.0f + kg_erf(x * 0.70710678118654752f)); }
/* GELU, tanh approximation (as GPT-2 and Llama-family code use it). */
KG_INLINE float kg_gelu(float x) {
  const float k = 0.7978845608028654f; /* sqrt(2 / pi) */
  return 0.5f * x * (1.0f + kg_tanh(k * (x + 0.044715f * x * x * x)));
}

KG_INLINE float kg_shfl_xor(float v, unsigned mask) {
  return kg_bits_f32(kg_shfl_u32(kg_f32_bits(v), kg_lane_id() ^ mask));
}

/* Sum and max across a wave of WAVE lanes (butterfly: every lane gets it). */
template <int WAVE> KG_INLINE float kg_wave_sum(float v) {
#pragma unroll
  for (int off = WAVE / 2; off > 0; off /= 2)
    v += kg_shfl_xor(v, off);
  return v;
}
template <int WAVE> KG_INLINE float kg_wave_max(float v) {
#pragma unroll
  for (int off = WAVE / 2; off > 0; off /= 2) {
    float o = kg_shfl_xor(v, off);
    v = o > v ? o : v;
  }
  return v;
}

/* Sum and max across a workgroup of BLOCK threads; every thread gets the
 * result. Needs BLOCK / WAVE <= WAVE. Ends with a barrier so the LDS slots can
 * be reused by the next call. */
template <int WAVE, int BLOCK> KG_INLINE float kg_block_sum(float v) {
  __shared__ float part[BLOCK / WAVE];
  v = kg_wave_sum<WAVE>(v);
  if (kg_lane_id() == 0)
    part[threadIdx.x / WAVE] = v;
  __syncthreads();
  v = kg_lane_id() < BLOCK / WAVE ? part[kg_lane_id()] : 0.0f;
  v = kg_wave_sum<WAVE>(v);
  __syncthreads();
  return v;
}
template <int WAVE, int BLOCK> KG_INLINE float kg_block_max(float v) {
  __shared__ float part[BLOCK / WAVE];
  v = kg_wave_max<WAVE>(v);
  if (kg_lane_id() == 0)
    part[threadIdx.x / WAVE] = v;
  __syncthreads();
  v = kg_lane_id() < BLOCK / WAVE ? part[kg_lane_id()] : -__builtin_inff();
  v = kg_wave_max<WAVE>(v);
  __syncthreads();
  return v;
}

/* Keeps the compiler from moving memory accesses across this point (no
 * instruction): bounds how many loads it hoists ahead of their use, and so
 * the registers they hold, in long unrolled loops. */
KG_INLINE void kg_compiler_barrier() { asm volatile("" ::: "memory"); }

/* Early launch (programmatic dependent launch, sm_90 and later): a kernel
 * whose table entry is marked for it may be started by the runtime while the
 * kernels before it in the stream are still running. Before kg_dep_wait() it
 * may read only the model's weights (which no kernel writes) and what earlier
 * runs wrote that no kernel of this run writes (the runtime never launches a
 * run's first kernel early, so the runs before have finished: attention's
 * OLDKV cache keys); kg_dep_wait()
 * returns once every earlier kernel has completed and its writes are
 * visible, and everything else (inputs, activations, outputs) comes after
 * it. kg_dep_launch() lets the next kernel in the stream start once every
 * workgroup of this one has called it (or exited). Templates start with
 * kg_dep_launch() then kg_dep_wait() (the quantized GEMVs issue their first
 * weight copies between the two): the next kernel's launch and ramp overlap
 * this one's wait and work, so a chain of small kernels is resident ahead
 * and each starts as the one before completes (160 one-workgroup RMSNorms
 * replayed on the H100: 170 us, against 192 us waiting first). A launched
 * kernel's workgroups take only what the running ones leave free, and
 * every workgroup of a kernel has started before the next can launch, so
 * this never starves the kernel running. The prelude defines them where the
 * hardware has them (KG_HAS_DEP_LAUNCH); here, and for a launch without the
 * attribute, they do nothing. */
#ifndef KG_HAS_DEP_LAUNCH
KG_INLINE void kg_dep_wait() {}
KG_INLINE void kg_dep_launch() {}
#endif

/* The bytes of {b, a} picked by sel, CUDA's __byte_perm: byte i of the
 * result is byte (sel >> 4 i & 7) of the 8 bytes a (0..3) then b (4..7).
 * One instruction where the prelude has it (KG_HAS_BYTE_PERM: PRMT on CUDA);
 * here shifts and masks, which a constant sel folds. */
#ifndef KG_HAS_BYTE_PERM
KG_INLINE unsigned kg_byte_perm(unsigned a, unsigned b, unsigned sel) {
  unsigned r = 0;
#pragma unroll
  for (int i = 0; i < 4; i++) {
    const unsigned k = sel >> (4 * i) & 7u;
    r |= ((k < 4 ? a >> (8 * k) : b >> (8 * (k - 4))) & 255u) << (8 * i);
  }
  return r;
}
#endif

/* c plus the four products of a's unsigned bytes and b's signed
 * (kg_dot4_u8s8) or unsigned (kg_dot4_u8u8) bytes, in 32-bit integers
 * (exact), CUDA's dp4a. One instruction where the prelude has them
 * (KG_HAS_DOT4: DP4A on CUDA); here four multiply-adds. */
#ifndef KG_HAS_DOT4
KG_INLINE int kg_dot4_u8s8(unsigned a, unsigned b, int c) {
#pragma unroll
  for (int i = 0; i < 4; i++)
    c += (int)(a >> (8 * i) & 255u) * ((int)(b << (24 - 8 * i)) >> 24);
  return c;
}
KG_INLINE int kg_dot4_u8u8(unsigned a, unsigned b, int c) {
#pragma unroll
  for (int i = 0; i < 4; i++)
    c += (int)(a >> (8 * i) & 255u) * (int)(b >> (8 * i) & 255u);
  return c;
}
#endif

/* f rounded to the nearest integer, ties to even (f within int's range).
 * One instruction where the prelude has it (KG_HAS_F2I_RN: CUDA). */
#ifndef KG_HAS_F2I_RN
KG_INLINE int kg_f32_to_i32_rn(float f) { return (int)__builtin_rintf(f); }
#endif

/* Asynchronous global -> LDS copy: N elements of T (N * sizeof(T) = 4, 8 or
 * 16 bytes, s and g + i aligned to that) from g[i .. i+N) to s[0 .. N), or
 * zeros when !valid (g and i are then never dereferenced). The copy is
 * complete for the issuing thread once kg_async_wait<P>() returns with at
 * most P groups pending, kg_async_commit() closing a group; a __syncthreads()
 * after the wait makes it visible to the workgroup. The prelude may do it
 * asynchronously (KG_HAS_ASYNC_COPY: cp.async on CUDA; the sim defers the
 * copies to the wait, so a missing wait shows); this version, for amdgcn,
 * copies through registers at once, so commit and wait have nothing to do. */
#ifndef KG_HAS_ASYNC_COPY
template <int N, typename T>
KG_INLINE void kg_async_copy(T *s, KG_GLOBAL(const T) g, long i, bool valid) {
  static_assert(N * sizeof(T) == 4 || N * sizeof(T) == 8 || N * sizeof(T) == 16,
                "kg_async_copy: N * sizeof(T) is 4, 8 or 16 bytes");
  kg_vec<T, N> v = {};
  if (valid)
    v = kg_ldv<N>(g, i);
  *(kg_vec<T, N> *)s = v;
}
KG_INLINE void kg_async_commit() {}
template <int P> KG_INLINE void kg_async_wait() {}
#endif
