// read_ceiling.cu - how fast 2 x BYTES can be streamed (two launches, as the
// gemv_q benches run), with and without programmatic dependent launch;
// device events, median of 200 runs after 20 warm-up runs. On the GPU machine:
//   nvcc -O3 -gencode=arch=compute_90a,code=sm_90a -o read_ceiling read_ceiling.cu
//   ./read_ceiling [BYTES]    (default: one Q4_0 14336x4096 weight)
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e = (x); if (e) { printf("err %s line %d\n", cudaGetErrorString(e), __LINE__); exit(1);} } while (0)

template <int U>
__global__ void __launch_bounds__(256) rd(const uint4 *__restrict__ p, long n16, unsigned *out, int pdl) {
  if (pdl) asm volatile("griddepcontrol.launch_dependents;");
  unsigned acc = 0;
  long i = (long)blockIdx.x * blockDim.x * U + threadIdx.x;
  long stride = (long)gridDim.x * blockDim.x * U;
  for (; i < n16; i += stride) {
    uint4 v[U];
#pragma unroll
    for (int u = 0; u < U; u++) {
      long j = i + (long)u * blockDim.x;
      v[u] = j < n16 ? __ldg(p + j) : make_uint4(0,0,0,0);
    }
#pragma unroll
    for (int u = 0; u < U; u++) acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
  }
  if (acc == 0x12345678u) out[0] = acc;
}

int main(int argc, char **argv) {
  long bytes = argc > 1 ? atol(argv[1]) : 14336L * 4096 / 32 * 18;
  int reps = 200;
  int sms; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  uint4 *a, *b; unsigned *o;
  CK(cudaMalloc(&a, bytes)); CK(cudaMalloc(&b, bytes)); CK(cudaMalloc(&o, 4));
  CK(cudaMemset(a, 1, bytes)); CK(cudaMemset(b, 2, bytes));
  long n16 = bytes / 16;
  cudaStream_t s; CK(cudaStreamCreate(&s));
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  auto launch = [&](const uint4 *p, int grid, int pdl, int U) {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = grid; cfg.blockDim = 256; cfg.stream = s;
    cudaLaunchAttribute at[1];
    at[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    at[0].val.programmaticStreamSerializationAllowed = 1;
    cfg.attrs = at; cfg.numAttrs = pdl ? 1 : 0;
    if (U == 4) CK(cudaLaunchKernelEx(&cfg, rd<4>, p, n16, o, pdl));
    else CK(cudaLaunchKernelEx(&cfg, rd<8>, p, n16, o, pdl));
  };
  int grids[] = {sms * 4, sms * 8, sms * 16, (int)((n16 + 1023) / 1024)};
  for (int U : {4, 8})
  for (int g : grids)
  for (int pdl = 0; pdl < 2; pdl++) {
    std::vector<float> t;
    for (int r = 0; r < 20 + reps; r++) {
      CK(cudaEventRecord(e0, s));
      launch(a, g, pdl, U); launch(b, g, pdl, U);
      CK(cudaEventRecord(e1, s));
      CK(cudaEventSynchronize(e1));
      float ms; CK(cudaEventElapsedTime(&ms, e0, e1));
      if (r >= 20) t.push_back(ms * 1000);
    }
    std::sort(t.begin(), t.end());
    double us = t[t.size() / 2];
    printf("readceil bytes=2x%ld U=%d grid=%d pdl=%d: %.2f us  %.0f GB/s\n", bytes, U, g, pdl, us, 2.0 * bytes / us / 1e3);
  }
  return 0;
}
