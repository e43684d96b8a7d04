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
/* The workgroup's tile buffer of `bytes` bytes, 16-byte aligned: dynamic
 * shared memory, so a tile may pass the 48 KiB of static shared memory (the
 * kernel table's dyn_lds_bytes: kgrt opts the kernel in and passes it at
 * launch). At most one per kernel. */
#define KG_SHARED_BUFFER(name, bytes) extern __shared__ __align__(16) unsigned char name[]

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

/* ---- Tensor cores (sm_80 and later): mma.sync, ldmatrix, cp.async ----
 *
 * The warp-level building blocks the sm_90 matmul templates use, as inline
 * PTX; prelude_sim.hip emulates kg_mma_16x8x16 and kg_ldmatrix_x4/_x2 under
 * the same names (the per-lane layouts are spelled out there) and common.hip
 * has the plain synchronous kg_async_copy the other preludes use. Sources:
 * NVIDIA "Parallel Thread Execution ISA" (PTX ISA 8.x), sections 9.7.14.5.14
 * "Multiply-and-Accumulate Instruction: mma", 9.7.14.5.8 "Matrix Fragments for
 * mma.m16n8k16 with floating point type", 9.7.14.5.15 "Warp-level matrix load
 * instruction: ldmatrix", and "Data Movement and Conversion Instructions:
 * cp.async, cp.async.commit_group, cp.async.wait_group". mma and ldmatrix
 * are .sync.aligned: every lane of the warp executes the same one, from
 * converged code. */
#define KG_HAS_MMA_SYNC 1

/* D = C + A * B in place on d, m16n8k16, f32 accumulate: A a 16 x 16 .row
 * fragment (4 registers of 2 x 16 bits), B a 16 x 8 .col fragment (2
 * registers), C and D 4 floats. BF16 = 0: f16 operands; 1: bf16. */
template <int BF16>
KG_INLINE void kg_mma_16x8x16(float d[4], const unsigned a[4], const unsigned b[2]) {
  static_assert(BF16 == 0 || BF16 == 1, "kg_mma_16x8x16: BF16 is 0 (f16) or 1 (bf16)");
  if constexpr (BF16 != 0)
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, "
                 "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  else
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, "
                 "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/* A shared-memory address as ldmatrix takes it: 32 bits (the sim's is a host
 * pointer). Offsets add in bytes. Taking the tile's address once and adding
 * constants keeps 64-bit pointer arithmetic out of the fragment loads. */
typedef unsigned kg_lds_addr_t;
KG_INLINE kg_lds_addr_t kg_lds_addr(const void *p) {
  return (unsigned)__cvta_generic_to_shared(p);
}

/* ldmatrix .m8n8 .b16 without .trans, four or two 8 x 8 matrices: `row` is
 * this lane's row address in shared memory (16 bytes, 16-byte aligned; lanes
 * 8q..8q+7 give matrix q's rows, .x2 reads lanes 0-15 only); r[q] gets
 * matrix q's word for this lane. The "memory" clobber keeps plain shared
 * stores of this thread before it. */
KG_INLINE void kg_ldmatrix_x4_at(unsigned r[4], kg_lds_addr_t row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(row)
               : "memory");
}
KG_INLINE void kg_ldmatrix_x2_at(unsigned r[2], kg_lds_addr_t row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];"
               : "=r"(r[0]), "=r"(r[1])
               : "r"(row)
               : "memory");
}
KG_INLINE void kg_ldmatrix_x4(unsigned r[4], const void *row) {
  kg_ldmatrix_x4_at(r, kg_lds_addr(row));
}
KG_INLINE void kg_ldmatrix_x2(unsigned r[2], const void *row) {
  kg_ldmatrix_x2_at(r, kg_lds_addr(row));
}

/* Asynchronous global -> shared copy (common.hip has the contract): N
 * elements of T, 4, 8 or 16 bytes, with cp.async (.cg, L2 only, for 16
 * bytes; .ca for 4 and 8, which .cg does not take). When !valid the
 * src-size operand is 0, so all the bytes are zero-filled and nothing is
 * read; the source operand is then g itself (i is unused, g + i may be out
 * of range or misaligned). */
#define KG_HAS_ASYNC_COPY 1
template <int N, typename T>
KG_INLINE void kg_async_copy(T *s, KG_GLOBAL(const T) g, long i, bool valid) {
  constexpr unsigned BYTES = N * sizeof(T);
  static_assert(BYTES == 4 || BYTES == 8 || BYTES == 16,
                "kg_async_copy: N * sizeof(T) is 4, 8 or 16 bytes");
  const unsigned dst = (unsigned)__cvta_generic_to_shared(s);
  const unsigned long long src =
      (unsigned long long)__cvta_generic_to_global(valid ? g + i : g);
  const unsigned src_size = valid ? BYTES : 0u;
  if constexpr (BYTES == 16)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;"
                 :
                 : "r"(dst), "l"(src), "r"(src_size)
                 : "memory");
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;"
                 :
                 : "r"(dst), "l"(src), "n"(BYTES), "r"(src_size)
                 : "memory");
}
/* Closes the group of this thread's copies issued since the last commit. */
KG_INLINE void kg_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
/* Returns when at most P of this thread's committed groups are pending. */
template <int P> KG_INLINE void kg_async_wait() {
  asm volatile("cp.async.wait_group %0;" : : "n"(P) : "memory");
}
