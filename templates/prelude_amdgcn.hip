/* kgen device prelude for AMDGPU (clang -x hip -nogpuinc -nogpulib).
 * The few HIP names the templates use, built on clang builtins, so no HIP
 * headers or device libraries are needed. Platform-neutral helpers live in
 * common.hip; the sim prelude (prelude_sim.hip) defines the same names for
 * the host. */
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
#define __launch_bounds__(n, ...) __attribute__((amdgpu_flat_work_group_size(1, n)))
#define KG_INLINE __device__ static inline __attribute__((always_inline, unused))
/* For explicit specializations, which take no storage class. */
#define KG_INLINE_SPEC __device__ inline __attribute__((always_inline, unused))
/* A kernel parameter pointing at global memory. */
#define KG_GLOBAL(T) T *__restrict__
/* The workgroup's tile buffer of `bytes` bytes, 16-byte aligned (static LDS;
 * see prelude_cuda.hip for why it is a macro). */
#define KG_SHARED_BUFFER(name, bytes)                                                    \
  __shared__ __attribute__((aligned(16))) unsigned char name[bytes]

struct kg_thread_idx_t {
  __device__ unsigned get_x() const { return __builtin_amdgcn_workitem_id_x(); }
  __declspec(property(get = get_x)) unsigned x;
};
struct kg_block_idx_t {
  __device__ unsigned get_x() const { return __builtin_amdgcn_workgroup_id_x(); }
  __declspec(property(get = get_x)) unsigned x;
};
extern const __device__ kg_thread_idx_t threadIdx;
extern const __device__ kg_block_idx_t blockIdx;

/* Workgroup barrier with the LDS ordering __syncthreads() promises. */
KG_INLINE void __syncthreads() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

/* Wave barrier: LDS written by any lane of the wave before it is seen by
 * every lane after it. A wave issues in order, so this only keeps the
 * compiler from moving LDS accesses across it. */
KG_INLINE void kg_wave_sync() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront");
  __builtin_amdgcn_wave_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");
}

/* This lane's index in its wave. */
KG_INLINE unsigned kg_lane_id() {
  return __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u));
}

/* The 32-bit value lane `src` holds (ds_bpermute: src taken modulo the wave). */
KG_INLINE unsigned kg_shfl_u32(unsigned v, unsigned src) {
  return (unsigned)__builtin_amdgcn_ds_bpermute((int)(src << 2), (int)v);
}

/* Storage types; arithmetic is done in float. */
struct kg_f16 {
  unsigned short bits;
};
struct kg_bf16 {
  unsigned short bits;
};

KG_INLINE float kg_f16_bits_to_f32(unsigned short h) {
  return (float)__builtin_bit_cast(_Float16, h);
}
KG_INLINE unsigned short kg_f32_to_f16_bits(float f) {
  return __builtin_bit_cast(unsigned short, (_Float16)f);
}
/* x, hidden from the optimizer (no instruction). LLVM 19 selects the f16
 * rounding of a product, (_Float16)(a * b), as v_fma_mix a, b, +0, whose
 * result for a product of -0 is +0 (llvm-project #214544, fixed after 19); a
 * kernel whose results must keep the sign of zero rounds kg_opaque(a * b). */
KG_INLINE float kg_opaque(float x) {
  asm("" : "+v"(x));
  return x;
}
KG_INLINE unsigned kg_f32_bits(float f) { return __builtin_bit_cast(unsigned, f); }
KG_INLINE float kg_bits_f32(unsigned u) { return __builtin_bit_cast(float, u); }

KG_INLINE float kg_exp(float x) { return __builtin_expf(x); }
/* 2^x: one v_exp_f32 (attention's softmax works in base 2) */
KG_INLINE float kg_exp2(float x) { return __builtin_exp2f(x); }
KG_INLINE float kg_sqrt(float x) { return __builtin_sqrtf(x); }
KG_INLINE float kg_fabs(float x) { return __builtin_fabsf(x); }
KG_INLINE float kg_log(float x) { return __builtin_logf(x); }
KG_INLINE float kg_sin(float x) { return __builtin_sinf(x); }
KG_INLINE float kg_cos(float x) { return __builtin_cosf(x); }

/* Global memory: element and vector accesses (a vector of 16 bytes is one
 * 128-bit load or store). */
template <typename T> KG_INLINE T kg_ld(const T *p, long i) { return p[i]; }
template <typename T> KG_INLINE void kg_st(T *p, long i, T v) { p[i] = v; }
/* The buffer from element n on (0 <= n, within it). */
template <typename T> KG_INLINE T *kg_gofs(T *p, long n) { return p + n; }
template <typename T, int N> struct __attribute__((aligned(sizeof(T) * N))) kg_vec {
  T v[N];
};
template <int N, typename T> KG_INLINE kg_vec<T, N> kg_ldv(const T *p, long i) {
  return *(const kg_vec<T, N> *)(p + i);
}
template <int N, typename T> KG_INLINE void kg_stv(T *p, long i, kg_vec<T, N> v) {
  *(kg_vec<T, N> *)(p + i) = v;
}

/* p[i] += v, atomically for every workgroup of the device; the old value
 * (relaxed: kg_fence_device orders what comes before and after). */
template <typename T> KG_INLINE T kg_atomic_add(T *p, long i, T v) {
  return __atomic_fetch_add(p + i, v, __ATOMIC_RELAXED);
}
/* This thread's global accesses before it happen, for every workgroup of
 * the device, before those after it (a release and an acquire). */
KG_INLINE void kg_fence_device() { __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "agent"); }
/* p[i] for a p that an earlier kernel or another workgroup of this one
 * wrote (kg_dep_wait(), kg_fence_device() order it; the agent-scope
 * acquire invalidates the compute unit's caches): a plain load. */
template <typename T> KG_INLINE T kg_ld_coherent(const T *p, long i) { return p[i]; }
/* N such elements at once (16 bytes). */
template <int N, typename T> KG_INLINE kg_vec<T, N> kg_ldv_coherent(const T *p, long i) {
  static_assert(sizeof(T) * N == 16, "a coherent vector load is 16 bytes");
  return kg_ldv<N>(p, i);
}
/* *p += v for a __shared__ p, atomically within the workgroup (ds_add). */
template <typename T> KG_INLINE void kg_atomic_add_lds(T *p, T v) {
  __hip_atomic_fetch_add(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
}

/* Operand and accumulator vectors of the WMMA and MFMA builtins (clang's
 * V16h/V16s/V8f and V4h/V4s/V4f/V16f), the names prelude_sim.hip gives. */
typedef _Float16 kg_v16h __attribute__((vector_size(32)));
typedef short kg_v16s __attribute__((vector_size(32)));
typedef float kg_v8f __attribute__((vector_size(32)));
typedef _Float16 kg_v4h __attribute__((vector_size(8)));
typedef short kg_v4s __attribute__((vector_size(8)));
typedef float kg_v4f __attribute__((vector_size(16)));
typedef float kg_v16f __attribute__((vector_size(64)));
#define KG_MMA_TYPES 1
