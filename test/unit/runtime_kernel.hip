/* runtime_kernel.hip - the two kernels test_runtime.c runs as a two-step plan:
 *   k_scale:  y[i] = x[i] * w[i % 32]            (x: rows x 32, into the arena)
 *   k_rowsum: out[r] = sum of row r of y, one 32-lane wave per row
 * k_rowsum assumes a wave of 32 lanes: lane 0 of each 32-thread group writes
 * its row. Run at wave 64 the second group of each workgroup has lanes 32..63,
 * so every odd row stays unwritten; the test uses that to prove a wave32
 * kernel run at the wrong wave size gives a wrong result.
 *
 * Built two ways (commands in test_runtime.c):
 *   gfx1100 hsaco: alone, with the small device prelude below (clang -x hip
 *     --offload-device-only -nogpuinc -nogpulib: no HIP headers needed);
 *   sim image: -DKG_SIM with runtime/kgrt_sim_abi.h and
 *     templates/prelude_sim.hip in front, which define the same names for the
 *     host; the thunks at the end are what kgen would write for it. */
#ifndef KG_SIM
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __launch_bounds__(n) __attribute__((amdgpu_flat_work_group_size(1, n)))
#define KG_INLINE __device__ static inline __attribute__((always_inline))
#define KG_GLOBAL(T) T *__restrict__

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

KG_INLINE unsigned kg_lane_id() {
  return __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u));
}
KG_INLINE unsigned kg_shfl_u32(unsigned v, unsigned src) {
  return (unsigned)__builtin_amdgcn_ds_bpermute((int)(src << 2), (int)v);
}
KG_INLINE unsigned kg_f32_bits(float f) { return __builtin_bit_cast(unsigned, f); }
KG_INLINE float kg_bits_f32(unsigned u) { return __builtin_bit_cast(float, u); }
template <typename T> KG_INLINE T kg_ld(const T *p, long i) { return p[i]; }
template <typename T> KG_INLINE void kg_st(T *p, long i, T v) { p[i] = v; }
#endif

extern "C" __global__ void __launch_bounds__(64)
k_scale(KG_GLOBAL(const float) x, KG_GLOBAL(const float) w, KG_GLOBAL(float) y, long n) {
  const long i = (long)blockIdx.x * 64 + threadIdx.x;
  if (i < n)
    kg_st(y, i, kg_ld(x, i) * kg_ld(w, i % 32));
}

extern "C" __global__ void __launch_bounds__(64)
k_rowsum(KG_GLOBAL(const float) y, KG_GLOBAL(float) out, long rows) {
  const long row = (long)blockIdx.x * 2 + threadIdx.x / 32;
  if (row >= rows)
    return; /* the whole 32-thread group leaves together */
  float v = kg_ld(y, row * 32 + threadIdx.x % 32);
  for (unsigned off = 16; off > 0; off /= 2)
    v += kg_bits_f32(kg_shfl_u32(kg_f32_bits(v), kg_lane_id() ^ off));
  if (kg_lane_id() == 0)
    kg_st(out, row, v);
}

#ifdef KG_SIM
/* Thunks: arguments from the kernarg bytes as the kernel table lays them out. */
extern "C" KG_SIM_EXPORT void k_scale__sim(const unsigned char *kernarg,
                                           const unsigned long long *arg_bytes) {
  k_scale(kg_sim_arg<const float>(kernarg, 0, arg_bytes[0]),
          kg_sim_arg<const float>(kernarg, 8, arg_bytes[1]),
          kg_sim_arg<float>(kernarg, 16, arg_bytes[2]), kg_sim_i64(kernarg, 24));
}
extern "C" KG_SIM_EXPORT void k_rowsum__sim(const unsigned char *kernarg,
                                            const unsigned long long *arg_bytes) {
  k_rowsum(kg_sim_arg<const float>(kernarg, 0, arg_bytes[0]),
           kg_sim_arg<float>(kernarg, 8, arg_bytes[1]), kg_sim_i64(kernarg, 16));
}
#endif
