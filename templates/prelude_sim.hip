/* prelude_sim.hip - kgen host prelude for sim images: the names
 * prelude_amdgcn.hip defines, with the same meaning, for a host C++17 compiler
 * (clang++ or g++, -fPIC -shared -fno-exceptions -fno-rtti), so that a target's
 * expanded kernels run on the CPU under the runtime's sim engine.
 *
 * Needs runtime/kgrt_sim_abi.h pasted in front of it. Gives what common.hip
 * and the templates use (threadIdx, blockIdx, __syncthreads, kg_lane_id,
 * kg_shfl_u32, kg_f16, kg_bf16, the f16 bit conversions, kg_exp, kg_sqrt,
 * kg_fabs, kg_log, kg_sin, kg_cos, kg_ld, kg_st, kg_vec, kg_ldv, kg_stv), plus what kgen's thunks use:
 * KG_SIM_EXPORT, kg_sim_arg, kg_sim_i64 and the exported kg_sim_bind.
 *
 * Host mapping: every thread is a fiber of the engine; threadIdx, barriers and
 * shuffles are calls into the engine's api table (kg_sim_bind stores it);
 * __shared__ is `static thread_local`, one instance per workgroup because a
 * host thread runs one workgroup at a time and all its fibers. A KG_GLOBAL(T)
 * parameter is a pointer with the byte size of its buffer; every global access
 * is checked against it by the engine before it happens. f16 conversion is
 * done in software (round to nearest even, subnormals, inf and NaN exact). */
#include <math.h>
#include <string.h>

#if defined(__GNUC__) && !defined(__clang__)
/* `#pragma unroll` is clang's; g++ 13+ honours this, g++ 12 needs
 * -Wno-unknown-pragmas on the command line (GCC bug 53431). */
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#endif

#define KG_SIM_EXPORT __attribute__((visibility("default")))

/* Kernels stay internal to the image; only thunks and kg_sim_bind are
 * exported. (A linkage specification takes no storage class, so no static.) */
#define __global__ __attribute__((visibility("hidden")))
#define __device__
#define __shared__ static thread_local
#define __launch_bounds__(n)
/* Marked unused: the whole image is one main file, where clang warns about
 * every helper a model happens not to use. */
#define KG_INLINE static inline __attribute__((unused))
/* For explicit specializations, which take no storage class. */
#define KG_INLINE_SPEC inline __attribute__((unused))

/* The engine; set once by kg_sim_bind before any kernel runs. */
static const kg_sim_api_t *kg_sim_api;

extern "C" KG_SIM_EXPORT int kg_sim_bind(const kg_sim_api_t *api) {
  if (api == 0 || api->abi != KG_SIM_ABI)
    return -1;
  kg_sim_api = api;
  return KG_SIM_ABI;
}

/* threadIdx.x and blockIdx.x: the macros yield a fresh value per use. */
struct kg_thread_idx_t {
  unsigned x;
};
struct kg_block_idx_t {
  unsigned x;
};
KG_INLINE kg_thread_idx_t kg_sim_thread_idx() {
  kg_thread_idx_t t = {kg_sim_api->thread_idx()};
  return t;
}
KG_INLINE kg_block_idx_t kg_sim_block_idx() {
  kg_block_idx_t b = {kg_sim_api->block_idx()};
  return b;
}
#define threadIdx (kg_sim_thread_idx())
#define blockIdx (kg_sim_block_idx())

/* Workgroup barrier: the engine runs the other fibers until all arrived. The
 * call is opaque to the compiler, so __shared__ values are reloaded after it. */
KG_INLINE void __syncthreads() { kg_sim_api->barrier(); }

/* This lane's index in its wave (the launch's wave size, not the template's). */
KG_INLINE unsigned kg_lane_id() { return kg_sim_api->lane_id(); }

/* The 32-bit value lane `src` holds (ds_bpermute: src taken modulo the wave). */
KG_INLINE unsigned kg_shfl_u32(unsigned v, unsigned src) {
  return kg_sim_api->shuffle(v, src);
}

/* Storage types; arithmetic is done in float. */
struct kg_f16 {
  unsigned short bits;
};
struct kg_bf16 {
  unsigned short bits;
};

KG_INLINE unsigned kg_f32_bits(float f) {
  unsigned u;
  memcpy(&u, &f, sizeof u);
  return u;
}
KG_INLINE float kg_bits_f32(unsigned u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

/* f16 -> f32, exact. NaN keeps its payload and comes out quiet. */
KG_INLINE float kg_f16_bits_to_f32(unsigned short h) {
  const unsigned sign = (unsigned)(h & 0x8000u) << 16;
  const unsigned exp = (h >> 10) & 0x1fu;
  const unsigned man = h & 0x3ffu;
  if (exp == 0x1fu) /* inf, NaN */
    return kg_bits_f32(sign | 0x7f800000u | (man << 13) | (man != 0 ? 0x400000u : 0u));
  if (exp != 0) /* normal: rebias 15 -> 127 */
    return kg_bits_f32(sign | ((exp + 112u) << 23) | (man << 13));
  /* zero, subnormal: man * 2^-24, exact in float */
  const float f = (float)man * 0x1p-24f;
  return sign != 0 ? -f : f;
}

/* f32 -> f16, round to nearest even (what (_Float16)f does on the GPU);
 * overflow gives inf; NaN stays NaN (quiet, top payload bits kept). */
KG_INLINE unsigned short kg_f32_to_f16_bits(float f) {
  const unsigned u = kg_f32_bits(f);
  const unsigned sign = (u >> 16) & 0x8000u;
  const unsigned a = u & 0x7fffffffu;
  if (a > 0x7f800000u) /* NaN */
    return (unsigned short)(sign | 0x7e00u | ((a >> 13) & 0x3ffu));
  if (a >= 0x477ff000u) /* >= 65520 = 65504 + half an ulp, the tie goes up: inf */
    return (unsigned short)(sign | 0x7c00u);
  if (a >= 0x38800000u) { /* >= 2^-14: normal in f16; rebias 127 -> 15 */
    unsigned r = a - 0x38000000u;
    r += 0xfffu + ((r >> 13) & 1u);
    return (unsigned short)(sign | (r >> 13));
  }
  if (a <= 0x33000000u) /* <= 2^-25, half the smallest subnormal: 0 */
    return (unsigned short)sign;
  /* f16 subnormal: m = |f| * 2^24 rounded to nearest even; 1024 carries into
   * the smallest normal, which has the same bits. */
  const unsigned mant = (a & 0x7fffffu) | 0x800000u;
  const unsigned shift = 126u - (a >> 23); /* 14..24 */
  unsigned m = mant >> shift;
  const unsigned rem = mant & ((1u << shift) - 1u);
  const unsigned half = 1u << (shift - 1u);
  if (rem > half || (rem == half && (m & 1u) != 0))
    m++;
  return (unsigned short)(sign | m);
}

KG_INLINE float kg_exp(float x) { return expf(x); }
KG_INLINE float kg_sqrt(float x) { return sqrtf(x); }
KG_INLINE float kg_fabs(float x) { return fabsf(x); }
KG_INLINE float kg_log(float x) { return logf(x); }
KG_INLINE float kg_sin(float x) { return sinf(x); }
KG_INLINE float kg_cos(float x) { return cosf(x); }

/* A kernel parameter pointing at global memory: the pointer and the bytes of
 * its buffer, which every access is checked against. */
template <typename T> struct kg_gptr {
  T *p;
  unsigned long long bytes;
};
#define KG_GLOBAL(T) kg_gptr<T>

/* What the thunks pass: buffer arguments are 8-byte host pointers in the
 * kernarg bytes, i64 arguments 8 bytes. */
template <typename T>
KG_INLINE kg_gptr<T> kg_sim_arg(const unsigned char *kernarg, unsigned long long offset,
                                unsigned long long bytes) {
  void *p;
  memcpy(&p, kernarg + offset, sizeof p);
  kg_gptr<T> g;
  g.p = (T *)p;
  g.bytes = bytes;
  return g;
}
KG_INLINE long kg_sim_i64(const unsigned char *kernarg, unsigned long long offset) {
  long long v;
  memcpy(&v, kernarg + offset, sizeof v);
  return (long)v;
}

template <typename T> struct kg_sim_unconst {
  typedef T type;
};
template <typename T> struct kg_sim_unconst<const T> {
  typedef T type;
};

/* The address of element i, computed without pointer arithmetic so that an
 * out-of-range i reaches the check instead of undefined behaviour. */
template <typename T> KG_INLINE const void *kg_sim_addr(kg_gptr<T> p, long i) {
  return (const void *)((__UINTPTR_TYPE__)p.p + (__UINTPTR_TYPE__)i * sizeof(T));
}

/* Global memory: element and vector accesses, each checked first (the check
 * does not return when the access is out of range). */
template <typename T>
KG_INLINE typename kg_sim_unconst<T>::type kg_ld(kg_gptr<T> p, long i) {
  typename kg_sim_unconst<T>::type v;
  const void *a = kg_sim_addr(p, i);
  kg_sim_api->check(p.p, p.bytes, a, sizeof v, 0);
  memcpy(&v, a, sizeof v);
  return v;
}
template <typename T> KG_INLINE void kg_st(kg_gptr<T> p, long i, T v) {
  void *a = (void *)kg_sim_addr(p, i);
  kg_sim_api->check(p.p, p.bytes, a, sizeof v, 1);
  memcpy(a, &v, sizeof v);
}
template <typename T, int N> struct __attribute__((aligned(sizeof(T) * N))) kg_vec {
  T v[N];
};
template <int N, typename T>
KG_INLINE kg_vec<typename kg_sim_unconst<T>::type, N> kg_ldv(kg_gptr<T> p, long i) {
  kg_vec<typename kg_sim_unconst<T>::type, N> v;
  const void *a = kg_sim_addr(p, i);
  kg_sim_api->check(p.p, p.bytes, a, sizeof v, 0);
  memcpy(&v, a, sizeof v);
  return v;
}
/* v by reference: g++ notes an ABI change for 32-byte aligned by-value vectors. */
template <int N, typename T>
KG_INLINE void kg_stv(kg_gptr<T> p, long i, const kg_vec<T, N> &v) {
  void *a = (void *)kg_sim_addr(p, i);
  kg_sim_api->check(p.p, p.bytes, a, sizeof v, 1);
  memcpy(a, &v, sizeof v);
}
