/* mma_sync_kernels.hip - one warp of 32 exercises the NVIDIA tensor-core
 * helpers of prelude_cuda.hip (kg_mma_16x8x16, kg_ldmatrix_x4/_x2) and
 * kg_async_copy, whose sim emulation (templates/prelude_sim.hip, with the PTX
 * layouts spelled out and their sources) test_mma_sync.c checks:
 *   k_ldsm:           ldmatrix .x4 and .x2, plain and .trans, alone, rows at
 *                     scattered addresses;
 *   k_mma_frag_*:     mma.sync with fragments loaded from global memory by the
 *                     PTX formulas directly;
 *   k_mma_ldsm_*:     the GEMM path: kg_async_copy (16, 8 and 4 bytes, with
 *                     zero fill) to __shared__, ldmatrix, mma.sync.
 * The last argument picks a mapping: 0 the documented one; others deliberate
 * mistakes that test_mma_sync.c must catch (see each kernel).
 *
 * Built two ways from this one source (test/CMakeLists.txt):
 *   sim image: runtime/kgrt_sim_abi.h, templates/prelude_sim.hip and
 *     templates/common.hip in front; run by test_mma_sync.c at wave 32;
 *   CUDA C++: templates/prelude_cuda.hip and common.hip in front; test_mma_sync.c
 *     compiles it for sm_90 with NVRTC (when NVRTC loads) and looks for the
 *     instructions in the PTX. */

/* Two 16-bit elements in one register, the lower-numbered one in the low half. */
KG_INLINE unsigned kg_mma_pack(unsigned short lo, unsigned short hi) {
  return (unsigned)lo | (unsigned)hi << 16;
}
KG_INLINE unsigned short kg_mma_bits(kg_f16 x) { return x.bits; }
KG_INLINE unsigned short kg_mma_bits(kg_bf16 x) { return x.bits; }

/* ldmatrix alone. M: 32 rows of 4 words (16 bytes), copied to shared memory
 * with 16-byte kg_async_copy; lane l gives the address of row (5l + 3) % 32
 * (mode 1: of the row lane l ^ 1 should give; 2: 4 bytes into it, misaligned,
 * which the sim must refuse). R4[4l + q] and R2[2l + q] get register q of
 * lane l from .x4 and .x2, T4 and T2 the same from .x4.trans and .x2.trans. */
extern "C" __global__ void __launch_bounds__(32)
k_ldsm(KG_GLOBAL(const unsigned) M, KG_GLOBAL(unsigned) R4, KG_GLOBAL(unsigned) R2,
       KG_GLOBAL(unsigned) T4, KG_GLOBAL(unsigned) T2, long mode) {
  __shared__ __attribute__((aligned(16))) unsigned sm[32 * 4];
  const unsigned l = kg_lane_id();
  kg_async_copy<4>(&sm[4 * l], M, 4 * (long)l, true);
  kg_async_commit();
  kg_async_wait<0>();
  __syncthreads();
  const unsigned who = mode == 1 ? l ^ 1u : l;
  const unsigned *row = &sm[4 * ((5u * who + 3u) % 32u) + (mode == 2 ? 1 : 0)];
  unsigned r4[4], r2[2], t4[4], t2[2];
  kg_ldmatrix_x4(r4, row);
  kg_ldmatrix_x2(r2, row);
  kg_ldmatrix_x4_trans_at(t4, kg_lds_addr(row));
  kg_ldmatrix_x2_trans_at(t2, kg_lds_addr(row));
  for (int q = 0; q < 4; q++) {
    kg_st(R4, 4 * (long)l + q, r4[q]);
    kg_st(T4, 4 * (long)l + q, t4[q]);
  }
  for (int q = 0; q < 2; q++) {
    kg_st(R2, 2 * (long)l + q, r2[q]);
    kg_st(T2, 2 * (long)l + q, t2[q]);
  }
}

/* D = C + A * B, m16n8k16, fragments from global memory by PTX's formulas:
 * A 16 x 16 row-major, B stored [n][k] (8 rows of 16 k), C and D 16 x 8
 * row-major f32. mode 1: A registers 1 and 2 swapped (a2, a3 <-> a4, a5);
 * 2: B registers swapped; 3: D elements stored by the wrong formula (row
 * g + 8 (r % 2), column 2t + r / 2). */
template <int BF16, typename T>
KG_INLINE void kg_mma_frag_run(KG_GLOBAL(const T) A, KG_GLOBAL(const T) B,
                               KG_GLOBAL(const float) C, KG_GLOBAL(float) D, long mode) {
  const unsigned l = kg_lane_id(), g = l / 4u, t = l % 4u;
  unsigned a[4], b[2];
  for (unsigned q = 0; q < 4; q++) {
    const long at = (long)(g + 8u * (q % 2u)) * 16 + 2u * t + 8u * (q / 2u);
    a[q] = kg_mma_pack(kg_mma_bits(kg_ld(A, at)), kg_mma_bits(kg_ld(A, at + 1)));
  }
  for (unsigned q = 0; q < 2; q++) {
    const long at = (long)g * 16 + 2u * t + 8u * q; /* B[k][n] at n * 16 + k */
    b[q] = kg_mma_pack(kg_mma_bits(kg_ld(B, at)), kg_mma_bits(kg_ld(B, at + 1)));
  }
  if (mode == 1) {
    const unsigned x = a[1];
    a[1] = a[2];
    a[2] = x;
  }
  if (mode == 2) {
    const unsigned x = b[0];
    b[0] = b[1];
    b[1] = x;
  }
  float d[4];
  for (unsigned r = 0; r < 4; r++)
    d[r] = kg_ld(C, (long)(g + 8u * (r / 2u)) * 8 + 2u * t + r % 2u);
  kg_mma_16x8x16<BF16>(d, a, b);
  for (unsigned r = 0; r < 4; r++) {
    const unsigned i = mode == 3 ? g + 8u * (r % 2u) : g + 8u * (r / 2u);
    const unsigned j = mode == 3 ? 2u * t + r / 2u : 2u * t + r % 2u;
    kg_st(D, (long)i * 8 + j, d[r]);
  }
}

extern "C" __global__ void __launch_bounds__(32)
k_mma_frag_f16(KG_GLOBAL(const kg_f16) A, KG_GLOBAL(const kg_f16) B,
               KG_GLOBAL(const float) C, KG_GLOBAL(float) D, long arows, long mode) {
  (void)arows;
  kg_mma_frag_run<0>(A, B, C, D, mode);
}
extern "C" __global__ void __launch_bounds__(32)
k_mma_frag_bf16(KG_GLOBAL(const kg_bf16) A, KG_GLOBAL(const kg_bf16) B,
                KG_GLOBAL(const float) C, KG_GLOBAL(float) D, long arows, long mode) {
  (void)arows;
  kg_mma_frag_run<1>(A, B, C, D, mode);
}

/* The GEMM path on the same operands: A copied to shared memory 16 bytes a
 * lane (rows >= arows zero-filled: their copies are given valid = false and
 * an index far out of range, which must not be read), B 8 bytes a lane, C 4
 * bytes at a time, in two commit groups; shared memory is poisoned with NaN
 * first (and __shared__ outlives a workgroup on the sim). A comes out of
 * ldmatrix .x4 (matrix q: rows 8 (q % 2).., columns 8 (q / 2)..), B of .x2
 * (matrix q: k 8q..). mode 1: A registers 1 and 2 swapped; 2: the A rows
 * ldmatrix reads are the wrong lane's (lane 8q + i gives row i + 1 mod 8);
 * 3: B registers swapped; 4: no zero fill (rows >= arows copied too); 5: the
 * zero-filling copies skipped (the poison stays). */
template <int BF16, typename T>
KG_INLINE void kg_mma_ldsm_run(KG_GLOBAL(const T) A, KG_GLOBAL(const T) B,
                               KG_GLOBAL(const float) C, KG_GLOBAL(float) D, long arows,
                               long mode) {
  __shared__ __attribute__((aligned(16))) T sa[16 * 16];
  __shared__ __attribute__((aligned(16))) T sb[8 * 16];
  __shared__ __attribute__((aligned(16))) float sc[16 * 8];
  const unsigned l = kg_lane_id(), g = l / 4u, t = l % 4u;
  for (unsigned e = l; e < 16 * 16; e += 32)
    sa[e] = kg_from_f32<T>(__builtin_nanf(""));
  for (unsigned e = l; e < 8 * 16; e += 32)
    sb[e] = kg_from_f32<T>(__builtin_nanf(""));
  for (unsigned e = l; e < 16 * 8; e += 32)
    sc[e] = __builtin_nanf("");
  __syncthreads();

  const bool valid = (long)(l / 2u) < arows || mode == 4; /* A row l / 2 */
  if (valid || mode != 5)
    kg_async_copy<8>(&sa[8 * l], A, valid ? 8 * (long)l : 1l << 40, valid);
  kg_async_copy<4>(&sb[4 * l], B, 4 * (long)l, true);
  kg_async_commit();
  for (unsigned e = l; e < 16 * 8; e += 32)
    kg_async_copy<1>(&sc[e], C, (long)e, true);
  kg_async_commit();
  kg_async_wait<1>(); /* A and B */
  __syncthreads();

  const unsigned q = l / 8u, i = mode == 2 ? (l + 1u) % 8u : l % 8u;
  unsigned a[4], b[2];
  kg_ldmatrix_x4(a, &sa[(i + 8u * (q % 2u)) * 16 + 8u * (q / 2u)]);
  kg_ldmatrix_x2(b, &sb[(l % 8u) * 16 + 8u * (q % 2u)]); /* lanes 16-31: unused */
  if (mode == 1) {
    const unsigned x = a[1];
    a[1] = a[2];
    a[2] = x;
  }
  if (mode == 3) {
    const unsigned x = b[0];
    b[0] = b[1];
    b[1] = x;
  }
  kg_async_wait<0>(); /* C */
  __syncthreads();
  float d[4];
  for (unsigned r = 0; r < 4; r++)
    d[r] = sc[(g + 8u * (r / 2u)) * 8 + 2u * t + r % 2u];
  kg_mma_16x8x16<BF16>(d, a, b);
  for (unsigned r = 0; r < 4; r++)
    kg_st(D, (long)(g + 8u * (r / 2u)) * 8 + 2u * t + r % 2u, d[r]);
}

extern "C" __global__ void __launch_bounds__(32)
k_mma_ldsm_f16(KG_GLOBAL(const kg_f16) A, KG_GLOBAL(const kg_f16) B,
               KG_GLOBAL(const float) C, KG_GLOBAL(float) D, long arows, long mode) {
  kg_mma_ldsm_run<0>(A, B, C, D, arows, mode);
}
extern "C" __global__ void __launch_bounds__(32)
k_mma_ldsm_bf16(KG_GLOBAL(const kg_bf16) A, KG_GLOBAL(const kg_bf16) B,
                KG_GLOBAL(const float) C, KG_GLOBAL(float) D, long arows, long mode) {
  kg_mma_ldsm_run<1>(A, B, C, D, arows, mode);
}

#ifdef KG_SIM_EXPORT
/* The sim thunks, as kgen writes them: arguments at 8-byte slots. */
extern "C" KG_SIM_EXPORT void k_ldsm__sim(const unsigned char *kernarg,
                                          const unsigned long long *arg_bytes) {
  k_ldsm(kg_sim_arg<const unsigned>(kernarg, 0, arg_bytes[0]),
         kg_sim_arg<unsigned>(kernarg, 8, arg_bytes[1]),
         kg_sim_arg<unsigned>(kernarg, 16, arg_bytes[2]),
         kg_sim_arg<unsigned>(kernarg, 24, arg_bytes[3]),
         kg_sim_arg<unsigned>(kernarg, 32, arg_bytes[4]), kg_sim_i64(kernarg, 40));
}
#define KG_MMA_SYNC_THUNK(name, T)                                                       \
  extern "C" KG_SIM_EXPORT void name##__sim(const unsigned char *kernarg,                \
                                            const unsigned long long *arg_bytes) {       \
    name(kg_sim_arg<const T>(kernarg, 0, arg_bytes[0]),                                  \
         kg_sim_arg<const T>(kernarg, 8, arg_bytes[1]),                                  \
         kg_sim_arg<const float>(kernarg, 16, arg_bytes[2]),                             \
         kg_sim_arg<float>(kernarg, 24, arg_bytes[3]), kg_sim_i64(kernarg, 32),          \
         kg_sim_i64(kernarg, 40));                                                       \
  }
KG_MMA_SYNC_THUNK(k_mma_frag_f16, kg_f16)
KG_MMA_SYNC_THUNK(k_mma_frag_bf16, kg_bf16)
KG_MMA_SYNC_THUNK(k_mma_ldsm_f16, kg_f16)
KG_MMA_SYNC_THUNK(k_mma_ldsm_bf16, kg_bf16)
#endif
