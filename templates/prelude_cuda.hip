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

/* common.hip's kg_byte_perm, as one PRMT. */
#define KG_HAS_BYTE_PERM 1
KG_INLINE unsigned kg_byte_perm(unsigned a, unsigned b, unsigned sel) { return __byte_perm(a, b, sel); }

/* common.hip's kg_dot4_u8s8 and kg_dot4_u8u8, one DP4A each, and
 * kg_f32_to_i32_rn, one F2I. */
#define KG_HAS_DOT4 1
KG_INLINE int kg_dot4_u8s8(unsigned a, unsigned b, int c) {
  int d;
  asm("dp4a.u32.s32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  return d;
}
KG_INLINE int kg_dot4_u8u8(unsigned a, unsigned b, int c) {
  int d;
  asm("dp4a.u32.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  return d;
}
#define KG_HAS_F2I_RN 1
KG_INLINE int kg_f32_to_i32_rn(float f) { return __float2int_rn(f); }

/* Wave barrier: shared memory written by any lane of the warp before it is
 * seen by every lane after it (lanes of a warp may diverge since Volta). */
KG_INLINE void kg_wave_sync() { __syncwarp(); }

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

/* x as it is (prelude_amdgcn.hip says why kernels use it). */
KG_INLINE float kg_opaque(float x) { return x; }

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
/* common.hip's kg_pack2 for f16 and bf16, one instruction each
 * (cvt.rn.{f16,bf16}x2.f32 puts its first source in the high half). */
#define KG_HAS_PACK2 1
template <typename T> KG_INLINE unsigned kg_pack2(float lo, float hi);
template <> KG_INLINE_SPEC unsigned kg_pack2<kg_f16>(float lo, float hi) {
  unsigned r;
  asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}
template <> KG_INLINE_SPEC unsigned kg_pack2<kg_bf16>(float lo, float hi) {
  unsigned r;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
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
/* 2^x on the special-function unit alone (ex2.approx.ftz, relative error
 * about 2^-22): attention's softmax folds log2 e into its scale. */
KG_INLINE float kg_exp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
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
/* The buffer from element n on (0 <= n, within it). */
template <typename T> KG_INLINE T *kg_gofs(T *p, long n) { return p + n; }
template <typename T, int N> struct __align__(sizeof(T) * N) kg_vec {
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
template <typename T> KG_INLINE T kg_atomic_add(T *p, long i, T v) { return atomicAdd(p + i, v); }
/* This thread's global accesses before it happen, for every workgroup of
 * the device, before those after it (a release and an acquire). */
KG_INLINE void kg_fence_device() { __threadfence(); }
/* p[i] for a p that an earlier kernel or another workgroup of this one
 * wrote (kg_dep_wait(), or an acquire, orders it): ld.global.ca, a
 * coherent load. A const __restrict__ pointer's plain loads become
 * ld.global.nc, which ptxas treats as reading memory no one writes and may
 * schedule above griddepcontrol.wait: it did, for a split norm's sums read
 * right after the wait (LDG.E.CONSTANT ahead of ACQBULK in the SASS), which
 * then read them before their producer had written them. */
template <typename T> KG_INLINE T kg_ld_coherent(const T *p, long i) { return __ldca(p + i); }
/* N such elements at once (16 bytes: ld.global.ca.v4). */
template <int N, typename T> KG_INLINE kg_vec<T, N> kg_ldv_coherent(const T *p, long i) {
  static_assert(sizeof(T) * N == 16, "a coherent vector load is 16 bytes");
  kg_vec<T, N> v;
  *(uint4 *)(void *)&v = __ldca((const uint4 *)(const void *)(p + i));
  return v;
}
/* *p += v for a __shared__ p, atomically within the workgroup. */
template <typename T> KG_INLINE void kg_atomic_add_lds(T *p, T v) { atomicAdd_block(p, v); }

/* ---- Programmatic dependent launch (sm_90 and later) ----
 * griddepcontrol.wait blocks until the grids this one depends on have
 * completed and their memory operations are visible; launch_dependents lets
 * the dependent grid be scheduled once every block of this one has issued it
 * or exited (PTX ISA 8.x, "Parallel Synchronization and Communication
 * Instructions: griddepcontrol"). Without the launch attribute both return
 * at once. common.hip states the contract. */
#if __CUDA_ARCH__ >= 900
#define KG_HAS_DEP_LAUNCH 1
KG_INLINE void kg_dep_wait() { asm volatile("griddepcontrol.wait;" ::: "memory"); }
KG_INLINE void kg_dep_launch() { asm volatile("griddepcontrol.launch_dependents;" ::: "memory"); }
#endif

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
/* The same with .trans: r[q] gets matrix q's word for this lane in the
 * transposed matrix, i.e. the 16-bit elements 2 (l % 4) and 2 (l % 4) + 1 of
 * column l / 4 (rows 2 (l % 4) and 2 (l % 4) + 1). A [k][n] tile so gives the
 * .col B fragment of mma.sync (attention's V). */
KG_INLINE void kg_ldmatrix_x4_trans_at(unsigned r[4], kg_lds_addr_t row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(row)
               : "memory");
}
KG_INLINE void kg_ldmatrix_x2_trans_at(unsigned r[2], kg_lds_addr_t row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];"
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

/* ---- Warpgroup matrix multiply (sm_90a only): wgmma.mma_async ----
 *
 * Hopper's asynchronous tensor-core instruction, which a warpgroup (4
 * consecutive warps, the first a multiple of 4) issues together: D (64 x N,
 * f32, in registers) += A (64 x 16) B (16 x N), both read from shared memory
 * through matrix descriptors. Only "sm_90a" targets compile it (PTX's
 * architecture-specific features; ptxas refuses wgmma for sm_90). Sources:
 * PTX ISA 8.x, "Asynchronous Warpgroup Level Matrix Multiply-Accumulate
 * Instructions" (9.7.15): wgmma.mma_async, the matrix descriptor (9.7.15.5.1),
 * the register fragment of D (9.7.15.5.1.1), wgmma.fence, commit_group,
 * wait_group; and "Parallel Synchronization and Communication Instructions:
 * fence.proxy.async". prelude_sim.hip emulates the same functions.
 *
 * Tiles: K-major (rows of the operand hold its k values, as A [M, K] row-major
 * and w [N, K] store them), 128-byte rows of 16-bit elements (64 per row),
 * eight-row atoms of 1024 bytes that start 1024-byte aligned, the 16-byte
 * chunk c of row r stored at chunk c ^ (r % 8) (the 128-byte swizzle: address
 * bits 4-6 XOR bits 7-9). The descriptor: bits 0-13 the start address >> 4,
 * 16-29 the leading byte offset >> 4 (unused by swizzled K-major tiles: 1),
 * 32-45 the stride byte offset >> 4 (1024 between atoms: 64), 62-63 the
 * swizzle (1: 128 bytes). The k16 slice j of a tile starts 32 j bytes in: the
 * swizzle applies to the computed address, so the descriptor's start just
 * moves (kg_wg_desc_add).
 *
 * D's fragment: lane l of warp w of the warpgroup holds, for r < N / 2,
 * D[16 w + l / 4 + 8 ((r / 2) % 2)][8 (r / 4) + 2 (l % 4) + r % 2].
 *
 * Ordering: a thread's own writes of a tile (st.shared, cp.async) reach the
 * async proxy the wgmma reads through only after fence.proxy.async
 * (kg_wg_tiles_written), then a barrier; kg_wg_fence before the first wgmma
 * of a batch orders the accumulator registers; the wgmmas run after
 * kg_wg_commit and are done at kg_wg_wait<P> (at most P groups pending),
 * after which kg_wg_fence_acc keeps the compiler from reading D earlier. */
#define KG_HAS_WGMMA 1
typedef unsigned long long kg_wg_desc_t;
/* The descriptor of a 128-byte swizzled K-major tile starting at `at`. */
KG_INLINE kg_wg_desc_t kg_wg_desc_sw128(kg_lds_addr_t at) {
  return (unsigned long long)((at & 0x3ffffu) >> 4) | 1ull << 16 | 64ull << 32 | 1ull << 62;
}
/* The same tile `bytes` further on (a multiple of 16). */
KG_INLINE kg_wg_desc_t kg_wg_desc_add(kg_wg_desc_t d, unsigned bytes) { return d + (bytes >> 4); }
KG_INLINE void kg_wg_tiles_written() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}
KG_INLINE void kg_wg_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
KG_INLINE void kg_wg_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
template <int P> KG_INLINE void kg_wg_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" : : "n"(P) : "memory");
}
template <int R> KG_INLINE void kg_wg_fence_acc(float (&d)[R]) {
#pragma unroll
  for (int r = 0; r < R; r++)
    asm volatile("" : "+f"(d[r])::"memory");
}

/* D += A B, m64n128k16, f32 accumulate; BF16 = 0: f16 operands, 1: bf16. */
#define KG_WGMMA_128(TY)                                                                        \
  asm volatile("{ .reg .pred p; setp.ne.b32 p, %66, 0; "                                        \
               "wgmma.mma_async.sync.aligned.m64n128k16.f32." TY "." TY " {"                    \
               "%0, %1, %2, %3, %4, %5, %6, %7,"                                                \
               "%8, %9, %10, %11, %12, %13, %14, %15,"                                          \
               "%16, %17, %18, %19, %20, %21, %22, %23,"                                        \
               "%24, %25, %26, %27, %28, %29, %30, %31,"                                        \
               "%32, %33, %34, %35, %36, %37, %38, %39,"                                        \
               "%40, %41, %42, %43, %44, %45, %46, %47,"                                        \
               "%48, %49, %50, %51, %52, %53, %54, %55,"                                        \
               "%56, %57, %58, %59, %60, %61, %62, %63},"                                       \
               " %64, %65, p, 1, 1, 0, 0; }"                                                    \
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),                                \
                 "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),                                \
                 "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),                              \
                 "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),                            \
                 "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),                            \
                 "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),                            \
                 "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),                            \
                 "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),                            \
                 "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),                            \
                 "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),                            \
                 "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),                            \
                 "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),                            \
                 "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]),                            \
                 "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),                            \
                 "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),                            \
                 "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])                             \
               : "l"(a), "l"(b), "r"(1))
/* D += A B, m64n256k16, f32 accumulate; BF16 = 0: f16 operands, 1: bf16. */
#define KG_WGMMA_256(TY)                                                                        \
  asm volatile("{ .reg .pred p; setp.ne.b32 p, %130, 0; "                                       \
               "wgmma.mma_async.sync.aligned.m64n256k16.f32." TY "." TY " {"                    \
               "%0, %1, %2, %3, %4, %5, %6, %7,"                                                \
               "%8, %9, %10, %11, %12, %13, %14, %15,"                                          \
               "%16, %17, %18, %19, %20, %21, %22, %23,"                                        \
               "%24, %25, %26, %27, %28, %29, %30, %31,"                                        \
               "%32, %33, %34, %35, %36, %37, %38, %39,"                                        \
               "%40, %41, %42, %43, %44, %45, %46, %47,"                                        \
               "%48, %49, %50, %51, %52, %53, %54, %55,"                                        \
               "%56, %57, %58, %59, %60, %61, %62, %63,"                                        \
               "%64, %65, %66, %67, %68, %69, %70, %71,"                                        \
               "%72, %73, %74, %75, %76, %77, %78, %79,"                                        \
               "%80, %81, %82, %83, %84, %85, %86, %87,"                                        \
               "%88, %89, %90, %91, %92, %93, %94, %95,"                                        \
               "%96, %97, %98, %99, %100, %101, %102, %103,"                                    \
               "%104, %105, %106, %107, %108, %109, %110, %111,"                                \
               "%112, %113, %114, %115, %116, %117, %118, %119,"                                \
               "%120, %121, %122, %123, %124, %125, %126, %127},"                               \
               " %128, %129, p, 1, 1, 0, 0; }"                                                  \
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),                                \
                 "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),                                \
                 "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),                              \
                 "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),                            \
                 "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),                            \
                 "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),                            \
                 "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),                            \
                 "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),                            \
                 "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),                            \
                 "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),                            \
                 "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),                            \
                 "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),                            \
                 "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]),                            \
                 "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),                            \
                 "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),                            \
                 "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),                            \
                 "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]),                            \
                 "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),                            \
                 "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]),                            \
                 "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),                            \
                 "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),                            \
                 "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),                            \
                 "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]),                            \
                 "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),                            \
                 "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]),                            \
                 "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),                        \
                 "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]),                        \
                 "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),                        \
                 "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]),                        \
                 "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),                        \
                 "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]),                        \
                 "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])                         \
               : "l"(a), "l"(b), "r"(1))
template <int N, int BF16>
KG_INLINE void kg_wgmma_64xNx16(float (&d)[N / 2], kg_wg_desc_t a, kg_wg_desc_t b) {
  static_assert(N == 128 || N == 256, "kg_wgmma_64xNx16: N is 128 or 256");
  static_assert(BF16 == 0 || BF16 == 1, "kg_wgmma_64xNx16: BF16 is 0 (f16) or 1 (bf16)");
  if constexpr (N == 128 && BF16)
    KG_WGMMA_128("bf16");
  else if constexpr (N == 128)
    KG_WGMMA_128("f16");
  else if constexpr (BF16)
    KG_WGMMA_256("bf16");
  else
    KG_WGMMA_256("f16");
}
