/* weights_kernel.hip - the one kernel test_weights.c runs on the sim device
 * to read bound weights back: dst[i] = src[i] over n bytes, 64 bytes per
 * workgroup. Built as a sim image (-DKG_SIM with runtime/kgrt_sim_abi.h and
 * templates/prelude_sim.hip in front) and as a gfx1100 code object (with
 * templates/prelude_amdgcn.hip in front), as test/CMakeLists.txt does. */
extern "C" __global__ void __launch_bounds__(64)
k_copy_bytes(KG_GLOBAL(const unsigned char) src, KG_GLOBAL(unsigned char) dst, long n) {
  const long i = (long)blockIdx.x * 64 + threadIdx.x;
  if (i < n)
    kg_st(dst, i, kg_ld(src, i));
}

#ifdef KG_SIM
extern "C" KG_SIM_EXPORT void k_copy_bytes__sim(const unsigned char *kernarg,
                                                const unsigned long long *arg_bytes) {
  k_copy_bytes(kg_sim_arg<const unsigned char>(kernarg, 0, arg_bytes[0]),
               kg_sim_arg<unsigned char>(kernarg, 8, arg_bytes[1]), kg_sim_i64(kernarg, 16));
}
#endif
