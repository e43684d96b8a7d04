/* quant_kernels.hip - test kernels for the GGUF dequantization helpers
 * (templates/lib_quant.hip), run by test_quant.c on the sim device and
 * compiled for gfx1100 and gfx942 to show they build with no scratch. For
 * each format: k_<fmt>_g32 writes group t of 32 elements per thread (through
 * *_dequant32), k_<fmt>_e1 writes element t per thread (through *_dequant1).
 * Arguments sit at 8-byte slots of the kernarg bytes in order.
 *
 * Needs a prelude, templates/common.hip and templates/lib_quant.hip pasted in
 * front of it; with -DKG_SIM (the sim prelude) it also gives the thunks. */

extern "C" __global__ void __launch_bounds__(64)
k_q8_0_g32(KG_GLOBAL(const unsigned char) blocks, KG_GLOBAL(float) out, long groups) {
  const long t = (long)blockIdx.x * 64 + threadIdx.x;
  if (t >= groups)
    return;
  float v[32];
  kg_q8_0_dequant32(blocks, t, v);
#pragma unroll
  for (int e = 0; e < 32; e++)
    kg_st(out, t * 32 + e, v[e]);
}
extern "C" __global__ void __launch_bounds__(64)
k_q8_0_e1(KG_GLOBAL(const unsigned char) blocks, KG_GLOBAL(float) out, long n) {
  const long i = (long)blockIdx.x * 64 + threadIdx.x;
  if (i < n)
    kg_st(out, i, kg_q8_0_dequant1(blocks, i));
}

extern "C" __global__ void __launch_bounds__(64)
k_q4_0_g32(KG_GLOBAL(const unsigned char) blocks, KG_GLOBAL(float) out, long groups) {
  const long t = (long)blockIdx.x * 64 + threadIdx.x;
  if (t >= groups)
    return;
  float v[32];
  kg_q4_0_dequant32(blocks, t, v);
#pragma unroll
  for (int e = 0; e < 32; e++)
    kg_st(out, t * 32 + e, v[e]);
}
extern "C" __global__ void __launch_bounds__(64)
k_q4_0_e1(KG_GLOBAL(const unsigned char) blocks, KG_GLOBAL(float) out, long n) {
  const long i = (long)blockIdx.x * 64 + threadIdx.x;
  if (i < n)
    kg_st(out, i, kg_q4_0_dequant1(blocks, i));
}

extern "C" __global__ void __launch_bounds__(64)
k_q4k_g32(KG_GLOBAL(const unsigned char) blocks, KG_GLOBAL(float) out, long groups) {
  const long t = (long)blockIdx.x * 64 + threadIdx.x;
  if (t >= groups)
    return;
  float v[32];
  kg_q4k_dequant32(blocks, t >> 3, (int)(t & 7), v);
#pragma unroll
  for (int e = 0; e < 32; e++)
    kg_st(out, t * 32 + e, v[e]);
}
extern "C" __global__ void __launch_bounds__(64)
k_q4k_e1(KG_GLOBAL(const unsigned char) blocks, KG_GLOBAL(float) out, long n) {
  const long i = (long)blockIdx.x * 64 + threadIdx.x;
  if (i < n)
    kg_st(out, i, kg_q4k_dequant1(blocks, i));
}

extern "C" __global__ void __launch_bounds__(64)
k_q6k_g32(KG_GLOBAL(const unsigned char) blocks, KG_GLOBAL(float) out, long groups) {
  const long t = (long)blockIdx.x * 64 + threadIdx.x;
  if (t >= groups)
    return;
  float v[32];
  kg_q6k_dequant32(blocks, t >> 3, (int)(t & 7), v);
#pragma unroll
  for (int e = 0; e < 32; e++)
    kg_st(out, t * 32 + e, v[e]);
}
extern "C" __global__ void __launch_bounds__(64)
k_q6k_e1(KG_GLOBAL(const unsigned char) blocks, KG_GLOBAL(float) out, long n) {
  const long i = (long)blockIdx.x * 64 + threadIdx.x;
  if (i < n)
    kg_st(out, i, kg_q6k_dequant1(blocks, i));
}

#ifdef KG_SIM
extern "C" KG_SIM_EXPORT void k_q8_0_g32__sim(const unsigned char *kernarg,
    const unsigned long long *arg_bytes) {
  k_q8_0_g32(kg_sim_arg<const unsigned char>(kernarg, 0, arg_bytes[0]),
      kg_sim_arg<float>(kernarg, 8, arg_bytes[1]), kg_sim_i64(kernarg, 16));
}
extern "C" KG_SIM_EXPORT void k_q8_0_e1__sim(const unsigned char *kernarg,
    const unsigned long long *arg_bytes) {
  k_q8_0_e1(kg_sim_arg<const unsigned char>(kernarg, 0, arg_bytes[0]),
      kg_sim_arg<float>(kernarg, 8, arg_bytes[1]), kg_sim_i64(kernarg, 16));
}
extern "C" KG_SIM_EXPORT void k_q4_0_g32__sim(const unsigned char *kernarg,
    const unsigned long long *arg_bytes) {
  k_q4_0_g32(kg_sim_arg<const unsigned char>(kernarg, 0, arg_bytes[0]),
      kg_sim_arg<float>(kernarg, 8, arg_bytes[1]), kg_sim_i64(kernarg, 16));
}
extern "C" KG_SIM_EXPORT void k_q4_0_e1__sim(const unsigned char *kernarg,
    const unsigned long long *arg_bytes) {
  k_q4_0_e1(kg_sim_arg<const unsigned char>(kernarg, 0, arg_bytes[0]),
      kg_sim_arg<float>(kernarg, 8, arg_bytes[1]), kg_sim_i64(kernarg, 16));
}
extern "C" KG_SIM_EXPORT void k_q4k_g32__sim(const unsigned char *kernarg,
    const unsigned long long *arg_bytes) {
  k_q4k_g32(kg_sim_arg<const unsigned char>(kernarg, 0, arg_bytes[0]),
      kg_sim_arg<float>(kernarg, 8, arg_bytes[1]), kg_sim_i64(kernarg, 16));
}
extern "C" KG_SIM_EXPORT void k_q4k_e1__sim(const unsigned char *kernarg,
    const unsigned long long *arg_bytes) {
  k_q4k_e1(kg_sim_arg<const unsigned char>(kernarg, 0, arg_bytes[0]),
      kg_sim_arg<float>(kernarg, 8, arg_bytes[1]), kg_sim_i64(kernarg, 16));
}
extern "C" KG_SIM_EXPORT void k_q6k_g32__sim(const unsigned char *kernarg,
    const unsigned long long *arg_bytes) {
  k_q6k_g32(kg_sim_arg<const unsigned char>(kernarg, 0, arg_bytes[0]),
      kg_sim_arg<float>(kernarg, 8, arg_bytes[1]), kg_sim_i64(kernarg, 16));
}
extern "C" KG_SIM_EXPORT void k_q6k_e1__sim(const unsigned char *kernarg,
    const unsigned long long *arg_bytes) {
  k_q6k_e1(kg_sim_arg<const unsigned char>(kernarg, 0, arg_bytes[0]),
      kg_sim_arg<float>(kernarg, 8, arg_bytes[1]), kg_sim_i64(kernarg, 16));
}
#endif
