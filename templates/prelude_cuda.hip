/* kgen device prelude for NVIDIA GPUs (CUDA C++ compiled in process by NVRTC).
 * CUDA already has __global__, __device__, __shared__, __launch_bounds__,
 * threadIdx, blockIdx and __syncthreads, and NVRTC declares the math and warp
 * intrinsics itself, so nothing is included. This defines the other names
 * prelude_amdgcn.hip gives, with the same meaning; common.hip and the
 * templates stay as they are. `long` is 64-bit here (NVRTC takes the host's
 * LP64 model on Linux). */
#define KG_INLINE __device__ static __forceinline__ __attribute__((unused))
/* For explicit specializations, which take no storage class. */
#define KG_INLINE_SPEC __device__ __forceinline__
/* A kernel parameter pointing at global memory. */
#define KG_GLOBAL(T) T *__restrict__

/* The clang builtins kg.float_literal writes for non-finite constants. */
#define __builtin_inff() __int_as_float(0x7f800000)
#define __builtin_nanf(s) __int_as_float(0x7fffffff)

/* This lane's index in its warp: blocks are one-dimensional, so warps are
 * runs of 32 consecutive threadIdx.x. */
KG_INLINE unsigned kg_lane_id() { return threadIdx.x & 31u; }

/* The 32-bit value lane `src` holds (src taken modulo the warp). Every lane
 * of the warp takes part: kgen calls it from converged code only. */
KG_INLINE unsigned kg_shfl_u32(unsigned v, unsigned src) {
  return __shfl_sync(0xffffffffu, v, (int)src);
}

/* Storage types; arithmetic is done in float. */
struct kg_f16 {
  unsigned short bits;
};
struct kg_bf16 {
  unsigned short bits;
};

/* f16 <-> f32 with PTX's own conversions (exact widening; round to nearest
 * even when narrowing), so cuda_fp16.h is not needed. */
KG_INLINE float kg_f16_bits_to_f32(unsigned short h) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
  return f;
}
KG_INLINE unsigned short kg_f32_to_f16_bits(float f) {
  unsigned short h;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
  return h;
}
/* f32 -> bf16 in one instruction (sm_80 and later), round to nearest even. */
#define KG_HAS_BF16_CVT 1
KG_INLINE unsigned short kg_f32_to_bf16_bits(float f) {
  unsigned short h;
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(f));
  return h;
}
KG_INLINE unsigned kg_f32_bits(float f) { return __float_as_uint(f); }
KG_INLINE float kg_bits_f32(unsigned u) { return __uint_as_float(u); }

/* exp as 2^(x log2 e) on the special-function unit (ex2.approx, relative
 * error about 2^-22, plus |x log2 e| 2^-24 from rounding the product): a few
 * instructions instead of expf's dozen, which matters for streaming kernels
 * at 4 TB/s; within 1e-6 relative up to |x| = 10, far inside the 1e-9 NMSE
 * of the f32 checks. kg_log, kg_sin, kg_cos stay accurate (logf, sinf,
 * cosf: 2 ulp); sqrtf is IEEE rounded (NVRTC's default -prec-sqrt=true). */
KG_INLINE float kg_exp(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x * 1.4426950408889634f));
  return y;
}
/* a / b for b >= 1: __fdividef (2 ulp; it flushes to 0 only for b > 2^126,
 * where the quotient is below 2^-126 * |a|). */
#define KG_HAS_FAST_DIV 1
KG_INLINE float kg_div_ge1(float a, float b) { return __fdividef(a, b); }
KG_INLINE float kg_sqrt(float x) { return sqrtf(x); }
KG_INLINE float kg_fabs(float x) { return fabsf(x); }
KG_INLINE float kg_log(float x) { return logf(x); }
KG_INLINE float kg_sin(float x) { return sinf(x); }
KG_INLINE float kg_cos(float x) { return cosf(x); }

/* Global memory: element and vector accesses. kg_vec is aligned to its size,
 * so a vector of 16 bytes is one 128-bit access (ld.global.v4 / st.global.v4). */
template <typename T> KG_INLINE T kg_ld(const T *p, long i) { return p[i]; }
template <typename T> KG_INLINE void kg_st(T *p, long i, T v) { p[i] = v; }
template <typename T, int N> struct __align__(sizeof(T) * N) kg_vec {
  T v[N];
};
template <int N, typename T> KG_INLINE kg_vec<T, N> kg_ldv(const T *p, long i) {
  return *(const kg_vec<T, N> *)(p + i);
}
template <int N, typename T> KG_INLINE void kg_stv(T *p, long i, kg_vec<T, N> v) {
  *(kg_vec<T, N> *)(p + i) = v;
}
