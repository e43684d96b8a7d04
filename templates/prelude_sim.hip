/* prelude_sim.hip - kgen host prelude for sim images: the names
 * prelude_amdgcn.hip defines, with the same meaning, for a host C++17 compiler
 * (clang++ or g++, -fPIC -shared -fno-exceptions -fno-rtti), so that a target's
 * expanded kernels run on the CPU under the runtime's sim engine.
 *
 * Needs runtime/kgrt_sim_abi.h pasted in front of it. Gives what common.hip
 * and the templates use (threadIdx, blockIdx, __syncthreads, kg_lane_id,
 * kg_shfl_u32, kg_f16, kg_bf16, the f16 bit conversions, kg_exp, kg_exp2, kg_sqrt,
 * kg_fabs, kg_log, kg_sin, kg_cos, kg_ld, kg_st, kg_vec, kg_ldv, kg_stv), plus what kgen's thunks use:
 * KG_SIM_EXPORT, kg_sim_arg, kg_sim_i64 and the exported kg_sim_bind; and the
 * WMMA and MFMA builtins the matmul templates use, with their vector types.
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
#define __launch_bounds__(n, ...)
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

/* Wave barrier: a shuffle is a rendezvous of the wave's fibers, so every
 * lane's earlier LDS writes (and async copies completed by its waits) are
 * done when any lane passes it. Every lane of the wave must call it. */
KG_INLINE void kg_wave_sync() { (void)kg_sim_api->shuffle(0u, 0u); }

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
/* x as it is (prelude_amdgcn.hip says why kernels use it). */
KG_INLINE float kg_opaque(float x) { return x; }

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
KG_INLINE float kg_exp2(float x) { return exp2f(x); }
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
/* The workgroup's tile buffer of `bytes` bytes, 16-byte aligned: one per
 * host thread, as every __shared__ (see prelude_cuda.hip for the macro). */
#define KG_SHARED_BUFFER(name, bytes) alignas(16) __shared__ unsigned char name[bytes]

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

/* The buffer from element n on: an n outside it leaves no bytes, so any
 * access through the result fails its check. */
template <typename T> KG_INLINE kg_gptr<T> kg_gofs(kg_gptr<T> p, long n) {
  const unsigned long long skip = (unsigned long long)n * sizeof(T);
  if (n < 0 || skip > p.bytes) {
    p.bytes = 0;
    return p;
  }
  p.p = (T *)kg_sim_addr(p, n);
  p.bytes -= skip;
  return p;
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

/* p[i] += v, atomically (the engine's workers run workgroups on several
 * host threads); the old value. Checked like any store. */
template <typename T> KG_INLINE T kg_atomic_add(kg_gptr<T> p, long i, T v) {
  void *a = (void *)kg_sim_addr(p, i);
  kg_sim_api->check(p.p, p.bytes, a, sizeof(T), 1);
  return __atomic_fetch_add((T *)a, v, __ATOMIC_SEQ_CST);
}
KG_INLINE void kg_fence_device() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
/* p[i] for a p that an earlier kernel or another workgroup of this one
 * wrote (a plain load: the host's caches are coherent). */
template <typename T>
KG_INLINE typename kg_sim_unconst<T>::type kg_ld_coherent(kg_gptr<T> p, long i) {
  return kg_ld(p, i);
}
/* N such elements at once (16 bytes). */
template <int N, typename T>
KG_INLINE kg_vec<typename kg_sim_unconst<T>::type, N> kg_ldv_coherent(kg_gptr<T> p, long i) {
  static_assert(sizeof(T) * N == 16, "a coherent vector load is 16 bytes");
  return kg_ldv<N>(p, i);
}
/* *p += v for a __shared__ p: a workgroup's fibers take turns on one host
 * thread and switch only inside barriers and shuffles, so a plain add is
 * atomic among them. */
template <typename T> KG_INLINE void kg_atomic_add_lds(T *p, T v) { *p += v; }

/* ---- Asynchronous copies (common.hip has the contract) ----
 *
 * Deferred as on the GPU, so a kernel that reads a tile before waiting for it
 * reads stale LDS here too: kg_async_copy checks the source and records the
 * copy in the calling thread's queue; kg_async_commit closes the thread's
 * group; kg_async_wait<P>() performs every recorded copy of all but the P
 * newest groups (copies not yet committed stay pending, as on the GPU). A
 * full queue performs its oldest copy early, which the contract allows. The
 * queues are per thread of the workgroup (the host thread's fibers share
 * thread_local storage) and start empty in every thunk. */
#define KG_HAS_ASYNC_COPY 1
enum { KG_SIM_ASYNC_QUEUE = 64, KG_SIM_MAX_THREADS = 1024 };
struct kg_sim_async_copy {
  void *dst;
  const void *src; /* NULL: zero fill */
  unsigned bytes, group;
};
struct kg_sim_async_queue {
  unsigned head, n, committed;
  kg_sim_async_copy c[KG_SIM_ASYNC_QUEUE];
};
static thread_local kg_sim_async_queue kg_sim_async[KG_SIM_MAX_THREADS];

KG_INLINE kg_sim_async_queue &kg_sim_async_mine() {
  return kg_sim_async[kg_sim_api->thread_idx() % KG_SIM_MAX_THREADS];
}
KG_INLINE void kg_sim_wgmma_reset(); /* the wgmma queue, below */
KG_INLINE void kg_sim_async_reset() {
  kg_sim_async_queue &q = kg_sim_async_mine();
  q.head = q.n = q.committed = 0;
  kg_sim_wgmma_reset();
}
/* Performs the oldest recorded copy. */
KG_INLINE void kg_sim_async_pop(kg_sim_async_queue &q) {
  const kg_sim_async_copy &c = q.c[q.head];
  if (c.src)
    memcpy(c.dst, c.src, c.bytes);
  else
    memset(c.dst, 0, c.bytes);
  q.head = (q.head + 1) % KG_SIM_ASYNC_QUEUE;
  q.n--;
}
template <int N, typename T>
KG_INLINE void kg_async_copy(T *s, kg_gptr<const T> g, long i, bool valid) {
  static_assert(N * sizeof(T) == 4 || N * sizeof(T) == 8 || N * sizeof(T) == 16,
                "kg_async_copy: N * sizeof(T) is 4, 8 or 16 bytes");
  const void *src = NULL;
  if (valid) {
    src = kg_sim_addr(g, i);
    kg_sim_api->check(g.p, g.bytes, src, N * sizeof(T), 0);
  }
  kg_sim_async_queue &q = kg_sim_async_mine();
  if (q.n == KG_SIM_ASYNC_QUEUE)
    kg_sim_async_pop(q);
  q.c[(q.head + q.n) % KG_SIM_ASYNC_QUEUE] = {s, src, (unsigned)(N * sizeof(T)), q.committed};
  q.n++;
}
KG_INLINE void kg_async_commit() { kg_sim_async_mine().committed++; }
template <int P> KG_INLINE void kg_async_wait() {
  kg_sim_async_queue &q = kg_sim_async_mine();
  while (q.n > 0 && q.c[q.head].group + P < q.committed)
    kg_sim_async_pop(q);
}

/* ---- Matrix builtins: WMMA (gfx1100, wave32) and MFMA (gfx942, wave64) ----
 *
 * The clang builtins the matmul templates call, under the same names and with
 * operand types of the same shape (clang's BuiltinsAMDGPU.def: V16h/V16s/V8f
 * for WMMA w32, V4h/V4s with V16f or V4f for MFMA), so one kernel source
 * compiles for the device and for the sim. The vector types below are GCC
 * vectors, which clang accepts for the device builtins as well; kernels name
 * them (the device prelude has to define the same names; KG_MMA_TYPES says
 * they exist).
 *
 * Each lane holds only its own registers, so a builtin gathers the operand
 * registers it needs from the other lanes of its wave through the engine's
 * shuffle (a wave rendezvous, exact), then computes the D elements its own
 * registers hold. Every lane of the wave must call it (the hardware needs EXEC
 * all ones too). Sums are taken in f32: D = C, then D += A[i][k] * B[k][j] for
 * k = 0..K-1 in order. Products of two f16 or bf16 values are exact in f32,
 * so only the order of the additions can differ from the hardware's (which
 * AMD does not document); tests use inputs whose sums are exact.
 *
 * Layouts (i: row of A, C and D; j: column of B, C and D; k: the reduction;
 * l: lane; r: register or vector element):
 *
 * WMMA 16x16x16, wave32 (AMD "RDNA3 Instruction Set Architecture" guide,
 * section 7.9 "Wave Matrix Multiply Accumulate"; GPUOpen "How to accelerate AI
 * applications on RDNA 3 using WMMA"; AMD Matrix Instruction Calculator,
 * RDNA3):
 *   A: lane l holds row i = l % 16, element r = k (16 values);
 *   B: lane l holds column j = l % 16, element r = k (16 values);
 *      lanes 16-31 must hold a copy of lanes 0-15 (the ISA guide requires it).
 *      The sim reads each half-wave's own copy, so an operand that is not
 *      replicated gives a wrong D instead of passing by luck;
 *   C, D (f32): lane l holds column j = l % 16, element r = row i = 2r + l / 16
 *      (8 values; even rows in lanes 0-15, odd rows in lanes 16-31).
 *
 * MFMA 32x32x8 and 16x16x16 (f16, bf16_1k), wave64, one block (AMD "AMD
 * Instinct MI300 (CDNA3) Instruction Set Architecture" guide, section 7.1
 * "Dependent Arithmetic: Matrix Fused Multiply Add"; AMD Matrix Instruction
 * Calculator, CDNA3; ROCm blog "Matrix Core Programming on AMD CDNA3 and
 * CDNA4 architecture"). With N = M (32 or 16) and G = 64 / M lane groups:
 *   A: lane l holds row i = l % M, k = 4 * (l / M) + r for r = 0..3;
 *   B: lane l holds column j = l % M, k = 4 * (l / M) + r for r = 0..3;
 *   C, D: lane l holds column j = l % M, element r (M * M / 64 values) is
 *      row i = 4 * G * (r / 4) + 4 * (l / M) + r % 4; that is for 32x32,
 *      i = 8 * (r / 4) + 4 * (l / 32) + r % 4 (16 values); for 16x16,
 *      i = 4 * (l / 16) + r (4 values).
 * cbsz, abid and blgp (broadcast and lane-group swizzles) must be 0: others
 * are refused at compile time. The MFMA builtins need a launch at wave 64 and
 * WMMA ones at wave 32; at another wave size the lanes they read are wrong. */
/* The vectors pass by value between static inline functions of this image
 * only, so x86's AVX ABI note about 32- and 64-byte vectors does not apply. */
#pragma GCC diagnostic ignored "-Wpsabi"
typedef _Float16 kg_v16h __attribute__((vector_size(32)));
typedef short kg_v16s __attribute__((vector_size(32)));
typedef float kg_v8f __attribute__((vector_size(32)));
typedef _Float16 kg_v4h __attribute__((vector_size(8)));
typedef short kg_v4s __attribute__((vector_size(8)));
typedef float kg_v4f __attribute__((vector_size(16)));
typedef float kg_v16f __attribute__((vector_size(64)));
#define KG_MMA_TYPES 1

/* The value of the 16-bit operand element in the low bits of h. */
KG_INLINE float kg_sim_mma_in(unsigned h, int bf16) {
  return bf16 != 0 ? kg_bits_f32((h & 0xffffu) << 16) : kg_f16_bits_to_f32((unsigned short)h);
}

/* WMMA 16x16x16 f32 += {f16,bf16} for wave32: *d = c + a * b; V is kg_v16h
 * or kg_v16s. (Operands by reference: g++ ignores the -Wpsabi pragma for
 * template instances.) */
template <typename V>
KG_INLINE void kg_sim_wmma_w32(const V &a, const V &b, const kg_v8f &c, kg_v8f *d, int bf16) {
  unsigned aw[8], bw[8];
  memcpy(aw, &a, sizeof aw);
  memcpy(bw, &b, sizeof bw);
  const unsigned lane = kg_lane_id() % 32u, half = lane / 16u;
  float bcol[16]; /* B[k][lane % 16]: this lane's own registers */
  for (int w = 0; w < 8; w++) {
    bcol[2 * w] = kg_sim_mma_in(bw[w], bf16);
    bcol[2 * w + 1] = kg_sim_mma_in(bw[w] >> 16, bf16);
  }
  for (int r = 0; r < 8; r++) {
    const unsigned row = 2u * (unsigned)r + half;
    const unsigned src = row + 16u * half; /* row's copy in this half-wave */
    float acc = c[r];
    for (int w = 0; w < 8; w++) {
      const unsigned v = kg_shfl_u32(aw[w], src);
      acc += kg_sim_mma_in(v, bf16) * bcol[2 * w];
      acc += kg_sim_mma_in(v >> 16, bf16) * bcol[2 * w + 1];
    }
    (*d)[r] = acc;
  }
}

/* MFMA MxMx(256/M) f32 += {f16,bf16}, one block, wave64: *d = c + a * b; V is
 * kg_v4h or kg_v4s, C kg_v16f (M = 32) or kg_v4f (M = 16). */
template <int M, typename V, typename C>
KG_INLINE void kg_sim_mfma(const V &a, const V &b, const C &c, C *d, int bf16) {
  enum { G = 64 / M, K = 4 * G, R = M * M / 64 };
  static_assert(sizeof(C) == R * sizeof(float), "MFMA accumulator of the wrong size");
  unsigned aw[2], bw[2];
  memcpy(aw, &a, sizeof aw);
  memcpy(bw, &b, sizeof bw);
  const unsigned lane = kg_lane_id() % 64u, col = lane % M;
  float bcol[K]; /* B[k][col]: k = 4g + r sits in lane col + M * g */
  for (int g = 0; g < G; g++)
    for (int w = 0; w < 2; w++) {
      const unsigned v = kg_shfl_u32(bw[w], col + (unsigned)(M * g));
      bcol[4 * g + 2 * w] = kg_sim_mma_in(v, bf16);
      bcol[4 * g + 2 * w + 1] = kg_sim_mma_in(v >> 16, bf16);
    }
  for (int r = 0; r < R; r++) {
    const unsigned row = 4u * G * (unsigned)(r / 4) + 4u * (lane / M) + (unsigned)(r % 4);
    float acc = c[r];
    for (int g = 0; g < G; g++) /* A[row][k]: k = 4g + r sits in lane row + M * g */
      for (int w = 0; w < 2; w++) {
        const unsigned v = kg_shfl_u32(aw[w], row + (unsigned)(M * g));
        acc += kg_sim_mma_in(v, bf16) * bcol[4 * g + 2 * w];
        acc += kg_sim_mma_in(v >> 16, bf16) * bcol[4 * g + 2 * w + 1];
      }
    (*d)[r] = acc;
  }
}

/* cbsz, abid and blgp must be constants, as on the device, and 0. */
template <int CBSZ, int ABID, int BLGP> KG_INLINE void kg_sim_mfma_mods() {
  static_assert(CBSZ == 0 && ABID == 0 && BLGP == 0,
                "sim: MFMA with cbsz, abid or blgp other than 0 is not emulated");
}

KG_INLINE kg_v8f __builtin_amdgcn_wmma_f32_16x16x16_f16_w32(kg_v16h a, kg_v16h b, kg_v8f c) {
  kg_v8f d;
  kg_sim_wmma_w32(a, b, c, &d, 0);
  return d;
}
KG_INLINE kg_v8f __builtin_amdgcn_wmma_f32_16x16x16_bf16_w32(kg_v16s a, kg_v16s b, kg_v8f c) {
  kg_v8f d;
  kg_sim_wmma_w32(a, b, c, &d, 1);
  return d;
}
KG_INLINE kg_v16f kg_sim_mfma_f32_32x32x8(kg_v4h a, kg_v4h b, kg_v16f c) {
  kg_v16f d;
  kg_sim_mfma<32>(a, b, c, &d, 0);
  return d;
}
KG_INLINE kg_v4f kg_sim_mfma_f32_16x16x16(kg_v4h a, kg_v4h b, kg_v4f c) {
  kg_v4f d;
  kg_sim_mfma<16>(a, b, c, &d, 0);
  return d;
}
KG_INLINE kg_v16f kg_sim_mfma_f32_32x32x8(kg_v4s a, kg_v4s b, kg_v16f c) {
  kg_v16f d;
  kg_sim_mfma<32>(a, b, c, &d, 1);
  return d;
}
KG_INLINE kg_v4f kg_sim_mfma_f32_16x16x16(kg_v4s a, kg_v4s b, kg_v4f c) {
  kg_v4f d;
  kg_sim_mfma<16>(a, b, c, &d, 1);
  return d;
}
/* Macros, for the constant check; the operand types pick f16 or bf16. */
#define __builtin_amdgcn_mfma_f32_32x32x8f16(a, b, c, cbsz, abid, blgp)                   \
  (kg_sim_mfma_mods<(cbsz), (abid), (blgp)>(), kg_sim_mfma_f32_32x32x8((kg_v4h)(a), (b), (c)))
#define __builtin_amdgcn_mfma_f32_16x16x16f16(a, b, c, cbsz, abid, blgp)                  \
  (kg_sim_mfma_mods<(cbsz), (abid), (blgp)>(), kg_sim_mfma_f32_16x16x16((kg_v4h)(a), (b), (c)))
#define __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(a, b, c, cbsz, abid, blgp)               \
  (kg_sim_mfma_mods<(cbsz), (abid), (blgp)>(), kg_sim_mfma_f32_32x32x8((kg_v4s)(a), (b), (c)))
#define __builtin_amdgcn_mfma_f32_16x16x16bf16_1k(a, b, c, cbsz, abid, blgp)              \
  (kg_sim_mfma_mods<(cbsz), (abid), (blgp)>(), kg_sim_mfma_f32_16x16x16((kg_v4s)(a), (b), (c)))

/* ---- NVIDIA warp matrix instructions: mma.sync m16n8k16, ldmatrix ----
 *
 * kg_mma_16x8x16 and kg_ldmatrix_x4 / _x2, which prelude_cuda.hip builds from
 * inline PTX for sim:sm_90-style targets (warp 32), under the same names and
 * signatures. As with the AMD builtins above, each lane holds only its own
 * registers and gathers the ones it needs from the other lanes of its warp
 * through the engine's shuffle, so every lane of the warp must call (PTX's
 * .sync.aligned asks the same of the device). A warp is 32 lanes: lanes 32-63
 * of a launch at wave 64 would be a second warp.
 *
 * Layouts (NVIDIA "Parallel Thread Execution ISA", PTX ISA 8.x, section
 * 9.7.14.5.8 "Matrix Fragments for mma.m16n8k16 with floating point type";
 * g = lane / 4 is its groupID, t = lane % 4 its threadID_in_group; each 32-bit
 * register holds two 16-bit elements, the lower-numbered one (a0, a2, ...) in
 * the low half, h = 0 below, the other in the high half, h = 1):
 *   A (16 x 16, .row; a0..a7): register q holds A[g + 8 (q % 2)][2t + 8 (q / 2) + h];
 *   B (16 x 8, .col; b0..b3): register q holds B[2t + 8q + h][g];
 *   C, D (16 x 8, f32; c0..c3): element r is C[g + 8 (r / 2)][2t + r % 2].
 * D = C + A * B is summed in f32 in k order like the WMMA emulation: products
 * of f16 or bf16 values are exact in f32, only the order of the additions may
 * differ from the hardware's (not documented), so tests use exact sums.
 *
 * ldmatrix .m8n8 .x1/.x2/.x4 .b16 without .trans (section 9.7.14.5.15
 * "Warp-level matrix load instruction: ldmatrix"): matrix q is 8 rows of 8
 * 16-bit elements, 16 bytes per row at 16-byte aligned addresses; lane 8q + i
 * gives the address of row i of matrix q (.x2 uses lanes 0-15, .x4 all 32);
 * register q of lane l gets the 32-bit word l % 4 of row l / 4 of matrix q,
 * i.e. elements 2 (l % 4) and 2 (l % 4) + 1. So lane l reads, for each q, the
 * 64-bit row address of lane 8q + l / 4 (two shuffles) and the word at byte 4
 * (l % 4) of that row. The row addresses are host pointers into __shared__
 * arrays here; one that is not 16-byte aligned is reported as an out-of-range
 * load of 16 bytes (at that address, "buffer 0x0, 0 bytes") instead of read.
 * With .trans each matrix is transposed first: register q of lane l gets the
 * elements of column l / 4 in rows 2 (l % 4) and 2 (l % 4) + 1, so lane l
 * reads the addresses of lanes 8q + 2 (l % 4) and 8q + 2 (l % 4) + 1 and the
 * 16 bits at byte 2 (l / 4) of each. */
#define KG_HAS_MMA_SYNC 1

/* D = C + A * B in place on d (see above); bf16 picks the operand type. */
KG_INLINE void kg_sim_mma_16x8x16(float d[4], const unsigned a[4], const unsigned b[2],
                                  int bf16) {
  const unsigned lane = kg_lane_id(), warp = lane & ~31u, g = (lane & 31u) / 4u,
                 t = lane % 4u;
  /* A rows g and g + 8 (arow[0], arow[1]) and B columns 2t and 2t + 1 (bcol[0],
   * bcol[1]), all 16 k each. Lane 4g + u holds, of rows g and g + 8, the
   * columns 2u + h (registers 0 and 1) and 2u + 8 + h (registers 2 and 3);
   * lane 4j + u holds, of column j, the rows 2u + h (register 0) and 2u + 8 + h
   * (register 1). */
  float arow[2][16], bcol[2][16];
  for (unsigned u = 0; u < 4; u++) {
    for (unsigned q = 0; q < 4; q++) {
      const unsigned v = kg_shfl_u32(a[q], warp + 4u * g + u);
      const unsigned k = 2u * u + 8u * (q / 2u);
      arow[q % 2u][k] = kg_sim_mma_in(v, bf16);
      arow[q % 2u][k + 1] = kg_sim_mma_in(v >> 16, bf16);
    }
    for (unsigned c = 0; c < 2; c++)
      for (unsigned q = 0; q < 2; q++) {
        const unsigned v = kg_shfl_u32(b[q], warp + 4u * (2u * t + c) + u);
        const unsigned k = 2u * u + 8u * q;
        bcol[c][k] = kg_sim_mma_in(v, bf16);
        bcol[c][k + 1] = kg_sim_mma_in(v >> 16, bf16);
      }
  }
  for (unsigned r = 0; r < 4; r++) {
    float acc = d[r];
    for (unsigned k = 0; k < 16; k++)
      acc += arow[r / 2u][k] * bcol[r % 2u][k];
    d[r] = acc;
  }
}

template <int BF16>
KG_INLINE void kg_mma_16x8x16(float d[4], const unsigned a[4], const unsigned b[2]) {
  static_assert(BF16 == 0 || BF16 == 1, "kg_mma_16x8x16: BF16 is 0 (f16) or 1 (bf16)");
  kg_sim_mma_16x8x16(d, a, b, BF16);
}

/* ldmatrix of X matrices (see above): r[q] for q < X. */
template <int X> KG_INLINE void kg_sim_ldmatrix(unsigned *r, const void *row) {
  const unsigned lane = kg_lane_id(), warp = lane & ~31u, l = lane & 31u;
  const unsigned long long p = (unsigned long long)(__UINTPTR_TYPE__)row;
  if (l < 8u * X && p % 16u != 0) /* an address the instruction uses */
    kg_sim_api->check(0, 0, row, 16, 0);
  for (unsigned q = 0; q < X; q++) {
    const unsigned src = warp + 8u * q + l / 4u;
    const unsigned lo = kg_shfl_u32((unsigned)p, src);
    const unsigned hi = kg_shfl_u32((unsigned)(p >> 32), src);
    const __UINTPTR_TYPE__ at = (__UINTPTR_TYPE__)((unsigned long long)hi << 32 | lo);
    memcpy(&r[q], (const void *)(at + 4u * (l % 4u)), sizeof r[q]);
  }
}
/* ldmatrix .trans of X matrices: r[q] holds, of matrix q, the elements of
 * column l / 4 in rows 2 (l % 4) and 2 (l % 4) + 1 (low and high half), rows
 * whose addresses lanes 8q + 2 (l % 4) and 8q + 2 (l % 4) + 1 gave. */
template <int X> KG_INLINE void kg_sim_ldmatrix_trans(unsigned *r, const void *row) {
  const unsigned lane = kg_lane_id(), warp = lane & ~31u, l = lane & 31u;
  const unsigned long long p = (unsigned long long)(__UINTPTR_TYPE__)row;
  if (l < 8u * X && p % 16u != 0)
    kg_sim_api->check(0, 0, row, 16, 0);
  for (unsigned q = 0; q < X; q++) {
    unsigned short h[2];
    for (unsigned e = 0; e < 2; e++) {
      const unsigned src = warp + 8u * q + 2u * (l % 4u) + e;
      const unsigned lo = kg_shfl_u32((unsigned)p, src);
      const unsigned hi = kg_shfl_u32((unsigned)(p >> 32), src);
      const __UINTPTR_TYPE__ at = (__UINTPTR_TYPE__)((unsigned long long)hi << 32 | lo);
      memcpy(&h[e], (const void *)(at + 2u * (l / 4u)), sizeof h[e]);
    }
    r[q] = (unsigned)h[0] | (unsigned)h[1] << 16;
  }
}
KG_INLINE void kg_ldmatrix_x4(unsigned r[4], const void *row) { kg_sim_ldmatrix<4>(r, row); }
KG_INLINE void kg_ldmatrix_x2(unsigned r[2], const void *row) { kg_sim_ldmatrix<2>(r, row); }
/* A shared address (prelude_cuda.hip): here the host pointer, offsets in bytes. */
typedef const unsigned char *kg_lds_addr_t;
KG_INLINE kg_lds_addr_t kg_lds_addr(const void *p) { return (kg_lds_addr_t)p; }
KG_INLINE void kg_ldmatrix_x4_at(unsigned r[4], kg_lds_addr_t row) { kg_sim_ldmatrix<4>(r, row); }
KG_INLINE void kg_ldmatrix_x2_at(unsigned r[2], kg_lds_addr_t row) { kg_sim_ldmatrix<2>(r, row); }
KG_INLINE void kg_ldmatrix_x4_trans_at(unsigned r[4], kg_lds_addr_t row) {
  kg_sim_ldmatrix_trans<4>(r, row);
}
KG_INLINE void kg_ldmatrix_x2_trans_at(unsigned r[2], kg_lds_addr_t row) {
  kg_sim_ldmatrix_trans<2>(r, row);
}

/* ---- NVIDIA warpgroup matrix multiply: wgmma.mma_async (sm_90a) ----
 *
 * The functions prelude_cuda.hip builds from inline PTX (which documents the
 * tile layout, the descriptor and D's fragment, with sources), emulated:
 * a descriptor is the tile's host address; kg_wgmma_64xNx16 records the
 * multiply in the calling thread's queue and kg_wg_wait<P>() performs the
 * recorded ones of all but the P newest groups (kg_wg_commit closes a group),
 * so a kernel that reads D, or overwrites a tile, before waiting goes wrong
 * here as on the GPU. Each lane computes only its own elements of D, reading
 * A and B through the descriptor's addressing: element (r, k) of a tile at
 * `start` is the 16 bits at start + 1024 (r / 8) + 128 (r % 8) + 2 k with
 * address bits 4-6 XORed with bits 7-9 (the 128-byte swizzle, on the
 * absolute address: tiles must start 1024-byte aligned, as on the GPU). The
 * sums run in k order in f32 (products of f16 or bf16 values are exact), as
 * the mma.sync emulation above. The queues start empty in every thunk
 * (kg_sim_async_reset). */
#define KG_HAS_WGMMA 1
struct kg_wg_desc_t {
  const unsigned char *start;
};
KG_INLINE kg_wg_desc_t kg_wg_desc_sw128(kg_lds_addr_t at) { return {at}; }
KG_INLINE kg_wg_desc_t kg_wg_desc_add(kg_wg_desc_t d, unsigned bytes) {
  return {d.start + bytes};
}
KG_INLINE void kg_wg_tiles_written() {}
KG_INLINE void kg_wg_fence() {}
template <int R> KG_INLINE void kg_wg_fence_acc(float (&)[R]) {}

struct kg_sim_wgmma {
  float *d;
  kg_wg_desc_t a, b;
  unsigned n, bf16, group;
};
enum { KG_SIM_WGMMA_QUEUE = 32 };
struct kg_sim_wgmma_queue {
  unsigned head, count, committed;
  kg_sim_wgmma c[KG_SIM_WGMMA_QUEUE];
};
static thread_local kg_sim_wgmma_queue kg_sim_wgmma_q[KG_SIM_MAX_THREADS];

KG_INLINE kg_sim_wgmma_queue &kg_sim_wgmma_mine() {
  return kg_sim_wgmma_q[kg_sim_api->thread_idx() % KG_SIM_MAX_THREADS];
}
KG_INLINE void kg_sim_wgmma_reset() {
  kg_sim_wgmma_queue &q = kg_sim_wgmma_mine();
  q.head = q.count = q.committed = 0;
}
/* Element (r, k) of a 128-byte swizzled K-major tile at `start`. */
KG_INLINE float kg_sim_wg_elem(const unsigned char *start, unsigned r, unsigned k, int bf16) {
  __UINTPTR_TYPE__ at = (__UINTPTR_TYPE__)start + 1024u * (r / 8u) + 128u * (r % 8u) + 2u * k;
  at ^= (at >> 3) & 0x70u;
  unsigned short h;
  memcpy(&h, (const void *)at, sizeof h);
  return kg_sim_mma_in(h, bf16);
}
/* Performs the oldest recorded multiply: this lane's elements of D. */
KG_INLINE void kg_sim_wgmma_pop(kg_sim_wgmma_queue &q) {
  const kg_sim_wgmma &c = q.c[q.head];
  const unsigned lane = kg_lane_id() % 32u, w = kg_sim_api->thread_idx() / 32u % 4u;
  float arow[2][16];
  for (unsigned h = 0; h < 2; h++)
    for (unsigned k = 0; k < 16; k++)
      arow[h][k] = kg_sim_wg_elem(c.a.start, 16u * w + lane / 4u + 8u * h, k, (int)c.bf16);
  for (unsigned r = 0; r < c.n / 2u; r++) {
    const unsigned col = 8u * (r / 4u) + 2u * (lane % 4u) + r % 2u;
    float acc = c.d[r];
    for (unsigned k = 0; k < 16; k++)
      acc += arow[r / 2u % 2u][k] * kg_sim_wg_elem(c.b.start, col, k, (int)c.bf16);
    c.d[r] = acc;
  }
  q.head = (q.head + 1) % KG_SIM_WGMMA_QUEUE;
  q.count--;
}
template <int N, int BF16>
KG_INLINE void kg_wgmma_64xNx16(float (&d)[N / 2], kg_wg_desc_t a, kg_wg_desc_t b) {
  static_assert(N == 128 || N == 256, "kg_wgmma_64xNx16: N is 128 or 256");
  static_assert(BF16 == 0 || BF16 == 1, "kg_wgmma_64xNx16: BF16 is 0 (f16) or 1 (bf16)");
  kg_sim_wgmma_queue &q = kg_sim_wgmma_mine();
  if (q.count == KG_SIM_WGMMA_QUEUE)
    kg_sim_wgmma_pop(q);
  q.c[(q.head + q.count) % KG_SIM_WGMMA_QUEUE] = {d, a, b, (unsigned)N, (unsigned)BF16,
                                                  q.committed};
  q.count++;
}
KG_INLINE void kg_wg_commit() { kg_sim_wgmma_mine().committed++; }
template <int P> KG_INLINE void kg_wg_wait() {
  kg_sim_wgmma_queue &q = kg_sim_wgmma_mine();
  while (q.count > 0 && q.c[q.head].group + P < q.committed)
    kg_sim_wgmma_pop(q);
}
