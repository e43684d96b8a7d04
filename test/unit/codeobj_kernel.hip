// codeobj_kernel.hip - the kernel test_codeobj reads back: compiled for gfx1100
// and gfx942 (clang -x hip --offload-device-only --no-gpu-bundle-output
// -nogpuinc -nogpulib -O3), it gives one kernel `k` with args at offsets 0, 8.
#define __global__ __attribute__((global))
extern "C" __global__ void __attribute__((amdgpu_flat_work_group_size(1, 256)))
k(float *y, long n) {
  unsigned i = __builtin_amdgcn_workitem_id_x();
  if (i < n)
    y[i] = 1.0f;
}
