/* mma_kernels.hip - one wave multiplies A (M x K) by B (K x N) and adds C
 * (M x N) with a matrix builtin: WMMA 16x16x16 f16 and bf16 (gfx1100, wave32),
 * MFMA 32x32x8 and 16x16x16 f16 and bf16_1k (gfx942, wave64). Each kernel loads
 * its operands from row-major global matrices into the per-lane registers that
 * AMD documents (the layouts are spelled out, with their sources, above the
 * builtins in templates/prelude_sim.hip) and stores D back the same way. The
 * last argument picks a mapping: 0 the documented one; 1, 2, 3 deliberate
 * mistakes that test_mma.c must catch (see kg_mma_wmma_run, kg_mma_mfma_run).
 *
 * Built three ways from this one source (test/CMakeLists.txt):
 *   sim image: runtime/kgrt_sim_abi.h, templates/prelude_sim.hip and
 *     templates/common.hip in front, -DKG_MMA_WMMA -DKG_MMA_MFMA: test_mma.c
 *     runs it on the sim device at wave 32 (WMMA) and 64 (MFMA);
 *   gfx1100 (-DKG_MMA_WMMA) and gfx942 (-DKG_MMA_MFMA) assembly, with
 *     templates/prelude_amdgcn.hip and common.hip in front: FileCheck finds
 *     the instructions the builtins must become (GFX1100 and GFX942 lines). */

#ifndef KG_MMA_TYPES /* the device prelude does not name them yet */
typedef _Float16 kg_v16h __attribute__((vector_size(32)));
typedef short kg_v16s __attribute__((vector_size(32)));
typedef float kg_v8f __attribute__((vector_size(32)));
typedef _Float16 kg_v4h __attribute__((vector_size(8)));
typedef short kg_v4s __attribute__((vector_size(8)));
typedef float kg_v4f __attribute__((vector_size(16)));
typedef float kg_v16f __attribute__((vector_size(64)));
#endif

/* An operand element from its storage: f16 builtins take _Float16, bf16 ones
 * the bf16 bits as short. */
KG_INLINE _Float16 kg_mma_from(kg_f16 x) { return __builtin_bit_cast(_Float16, x.bits); }
KG_INLINE short kg_mma_from(kg_bf16 x) { return (short)x.bits; }

#ifdef KG_MMA_WMMA
KG_INLINE kg_v8f kg_mma_wmma(kg_v16h a, kg_v16h b, kg_v8f c) {
  return __builtin_amdgcn_wmma_f32_16x16x16_f16_w32(a, b, c);
}
KG_INLINE kg_v8f kg_mma_wmma(kg_v16s a, kg_v16s b, kg_v8f c) {
  return __builtin_amdgcn_wmma_f32_16x16x16_bf16_w32(a, b, c);
}

/* 16x16x16 on one wave of 32. mode 1: B loaded transposed (lane l holds row
 * l % 16 of B); 2: C and D rows contiguous per half-wave (i = r + 8 * (l / 16)
 * instead of 2r + l / 16); 3: lanes 16-31 hold A rows shifted by one instead
 * of a copy of lanes 0-15. */
template <typename T, typename V>
KG_INLINE void kg_mma_wmma_run(KG_GLOBAL(const T) A, KG_GLOBAL(const T) B,
                               KG_GLOBAL(const float) C, KG_GLOBAL(float) D, long mode) {
  const unsigned l = kg_lane_id(), j = l % 16u, half = l / 16u;
  const unsigned arow = mode == 3 && half != 0 ? (j + 1u) % 16u : j;
  V a, b;
  for (int k = 0; k < 16; k++) {
    a[k] = kg_mma_from(kg_ld(A, (long)arow * 16 + k));
    b[k] = kg_mma_from(kg_ld(B, mode == 1 ? (long)j * 16 + k : (long)k * 16 + j));
  }
  kg_v8f c;
  for (int r = 0; r < 8; r++) {
    const unsigned i = mode == 2 ? (unsigned)r + 8u * half : 2u * (unsigned)r + half;
    c[r] = kg_ld(C, (long)i * 16 + j);
  }
  const kg_v8f d = kg_mma_wmma(a, b, c);
  for (int r = 0; r < 8; r++) {
    const unsigned i = mode == 2 ? (unsigned)r + 8u * half : 2u * (unsigned)r + half;
    kg_st(D, (long)i * 16 + j, d[r]);
  }
}

// GFX1100-LABEL: k_wmma_f16:
// GFX1100: v_wmma_f32_16x16x16_f16
extern "C" __global__ void __launch_bounds__(32)
k_wmma_f16(KG_GLOBAL(const kg_f16) A, KG_GLOBAL(const kg_f16) B, KG_GLOBAL(const float) C,
           KG_GLOBAL(float) D, long mode) {
  kg_mma_wmma_run<kg_f16, kg_v16h>(A, B, C, D, mode);
}
// GFX1100-LABEL: k_wmma_bf16:
// GFX1100: v_wmma_f32_16x16x16_bf16
extern "C" __global__ void __launch_bounds__(32)
k_wmma_bf16(KG_GLOBAL(const kg_bf16) A, KG_GLOBAL(const kg_bf16) B,
            KG_GLOBAL(const float) C, KG_GLOBAL(float) D, long mode) {
  kg_mma_wmma_run<kg_bf16, kg_v16s>(A, B, C, D, mode);
}
#endif /* KG_MMA_WMMA */

#ifdef KG_MMA_MFMA
KG_INLINE kg_v16f kg_mma_mfma(kg_v4h a, kg_v4h b, kg_v16f c) {
  return __builtin_amdgcn_mfma_f32_32x32x8f16(a, b, c, 0, 0, 0);
}
KG_INLINE kg_v16f kg_mma_mfma(kg_v4s a, kg_v4s b, kg_v16f c) {
  return __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(a, b, c, 0, 0, 0);
}
KG_INLINE kg_v4f kg_mma_mfma(kg_v4h a, kg_v4h b, kg_v4f c) {
  return __builtin_amdgcn_mfma_f32_16x16x16f16(a, b, c, 0, 0, 0);
}
KG_INLINE kg_v4f kg_mma_mfma(kg_v4s a, kg_v4s b, kg_v4f c) {
  return __builtin_amdgcn_mfma_f32_16x16x16bf16_1k(a, b, c, 0, 0, 0);
}

/* MxMx(256/M) on one wave of 64, G = 64 / M lane groups, K = 4G. mode 1: B's
 * lane groups reversed (lane l holds k = 4 * (G - 1 - l / M) + r); 2: C and D
 * rows interleaved as WMMA's (i = G * r + l / M instead of
 * 4G * (r / 4) + 4 * (l / M) + r % 4). */
template <int M, typename T, typename V, typename CV>
KG_INLINE void kg_mma_mfma_run(KG_GLOBAL(const T) A, KG_GLOBAL(const T) B,
                               KG_GLOBAL(const float) C, KG_GLOBAL(float) D, long mode) {
  enum { G = 64 / M, K = 4 * G, R = M * M / 64 };
  const unsigned l = kg_lane_id(), j = l % M, g = l / M;
  const unsigned bg = mode == 1 ? G - 1u - g : g;
  V a, b;
  for (int r = 0; r < 4; r++) {
    a[r] = kg_mma_from(kg_ld(A, (long)j * K + 4 * g + r));
    b[r] = kg_mma_from(kg_ld(B, (long)(4 * bg + r) * M + j));
  }
  CV c;
  for (int r = 0; r < R; r++) {
    const unsigned i = mode == 2 ? G * (unsigned)r + g : 4u * G * (r / 4) + 4u * g + r % 4;
    c[r] = kg_ld(C, (long)i * M + j);
  }
  const CV d = kg_mma_mfma(a, b, c);
  for (int r = 0; r < R; r++) {
    const unsigned i = mode == 2 ? G * (unsigned)r + g : 4u * G * (r / 4) + 4u * g + r % 4;
    kg_st(D, (long)i * M + j, d[r]);
  }
}

// GFX942-LABEL: k_mfma32_f16:
// GFX942: v_mfma_f32_32x32x8_f16
extern "C" __global__ void __launch_bounds__(64)
k_mfma32_f16(KG_GLOBAL(const kg_f16) A, KG_GLOBAL(const kg_f16) B, KG_GLOBAL(const float) C,
             KG_GLOBAL(float) D, long mode) {
  kg_mma_mfma_run<32, kg_f16, kg_v4h, kg_v16f>(A, B, C, D, mode);
}
// GFX942-LABEL: k_mfma16_f16:
// GFX942: v_mfma_f32_16x16x16_f16
extern "C" __global__ void __launch_bounds__(64)
k_mfma16_f16(KG_GLOBAL(const kg_f16) A, KG_GLOBAL(const kg_f16) B, KG_GLOBAL(const float) C,
             KG_GLOBAL(float) D, long mode) {
  kg_mma_mfma_run<16, kg_f16, kg_v4h, kg_v4f>(A, B, C, D, mode);
}
// GFX942-LABEL: k_mfma32_bf16:
// GFX942: v_mfma_f32_32x32x8_bf16
extern "C" __global__ void __launch_bounds__(64)
k_mfma32_bf16(KG_GLOBAL(const kg_bf16) A, KG_GLOBAL(const kg_bf16) B,
              KG_GLOBAL(const float) C, KG_GLOBAL(float) D, long mode) {
  kg_mma_mfma_run<32, kg_bf16, kg_v4s, kg_v16f>(A, B, C, D, mode);
}
// GFX942-LABEL: k_mfma16_bf16:
// GFX942: v_mfma_f32_16x16x16_bf16
extern "C" __global__ void __launch_bounds__(64)
k_mfma16_bf16(KG_GLOBAL(const kg_bf16) A, KG_GLOBAL(const kg_bf16) B,
              KG_GLOBAL(const float) C, KG_GLOBAL(float) D, long mode) {
  kg_mma_mfma_run<16, kg_bf16, kg_v4s, kg_v4f>(A, B, C, D, mode);
}
#endif /* KG_MMA_MFMA */

#ifdef KG_SIM_EXPORT
/* The sim thunks, as kgen writes them: arguments at 8-byte slots. */
#define KG_MMA_THUNK(name, T)                                                            \
  extern "C" KG_SIM_EXPORT void name##__sim(const unsigned char *kernarg,                \
                                            const unsigned long long *arg_bytes) {       \
    name(kg_sim_arg<const T>(kernarg, 0, arg_bytes[0]),                                  \
         kg_sim_arg<const T>(kernarg, 8, arg_bytes[1]),                                  \
         kg_sim_arg<const float>(kernarg, 16, arg_bytes[2]),                             \
         kg_sim_arg<float>(kernarg, 24, arg_bytes[3]), kg_sim_i64(kernarg, 32));         \
  }
KG_MMA_THUNK(k_wmma_f16, kg_f16)
KG_MMA_THUNK(k_wmma_bf16, kg_bf16)
KG_MMA_THUNK(k_mfma32_f16, kg_f16)
KG_MMA_THUNK(k_mfma16_f16, kg_f16)
KG_MMA_THUNK(k_mfma32_bf16, kg_bf16)
KG_MMA_THUNK(k_mfma16_bf16, kg_bf16)
#endif
