// q4_bulk.cu - probe: the one-row Q4_0 GEMV (1x4096 bf16 x . 14336x4096 Q4_0,
// two GEMVs per timed run, programmatic dependent launch on) with the weights
// streamed by bulk copies (cp.async.bulk, the copy engine) into a workgroup
// ring of S stages guarded by mbarriers: one producer lane issues whole
// stages of R = W * RPW consecutive rows, W consumer warps decode them as
// gemv_qr does (a lane takes 4 blocks, 72 bytes, of a row; nibbles masked in
// place and byte-permuted into f32 128 + n, the offsets taken off with the
// halves' sums of x). Workgroup b takes rows [N b / G, N (b + 1) / G).
// Mode 0 only waits for the stages (the read ceiling of the pattern), mode 1
// computes the GEMV (checked against float64), mode 2 computes on one stage
// loaded once (compute alone), mode 4 stages x and one stage and stops (the
// fixed cost). gemv_mma is the same ring with gemv_qm's tensor-core decode.
// Build here or on the GPU machine, run there:
//   nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -o q4_bulk q4_bulk.cu
//   ./q4_bulk          the three ways of starting a timed run (see time1)
//   ./q4_bulk sweep    the designs, idle starts
//   ./q4_bulk m8       8 rows of x on the tensor-core ring (gemv_mma8)
// Results: bench/results/h100_matmul_s9_probe.txt, in git:
//   git show de8573d265:bench/results/h100_matmul_s9_probe.txt
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#define CK(x)                                                                                     \
  do {                                                                                            \
    cudaError_t e = (x);                                                                          \
    if (e) {                                                                                      \
      printf("err %s line %d\n", cudaGetErrorString(e), __LINE__);                                \
      exit(1);                                                                                    \
    }                                                                                             \
  } while (0)
constexpr int N = 14336, K = 4096, RB = K / 32 * 18, NU = K / 128;
constexpr int XU = 560; /* a unit of x: 128 f32 then 8 half sums, padded */

__device__ __forceinline__ unsigned smem_addr(const void *p) {
  return (unsigned)__cvta_generic_to_shared(p);
}
__device__ __forceinline__ void bar_init(unsigned long long *b, int count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(b)), "r"(count));
}
__device__ __forceinline__ void bar_expect(unsigned long long *b, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(b)),
               "r"(bytes)
               : "memory");
}
__device__ __forceinline__ void bar_arrive(unsigned long long *b) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_addr(b)) : "memory");
}
__device__ __forceinline__ void bar_wait(unsigned long long *b, unsigned parity) {
  asm volatile("{\n .reg .pred p;\n W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
               " @!p bra W;\n}" ::"r"(smem_addr(b)),
               "r"(parity)
               : "memory");
}
__device__ __forceinline__ void bulk_copy(void *dst, const void *src, unsigned bytes,
                                          unsigned long long *b, int hint) {
  if (hint) {
    unsigned long long pol;
    asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(pol));
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint"
                 " [%0], [%1], %2, [%3], %4;" ::"r"(smem_addr(dst)),
                 "l"(src), "r"(bytes), "r"(smem_addr(b)), "l"(pol)
                 : "memory");
  } else {
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
                 " [%0], [%1], %2, [%3];" ::"r"(smem_addr(dst)),
                 "l"(src), "r"(bytes), "r"(smem_addr(b))
                 : "memory");
  }
}
__device__ __forceinline__ float perm_f(unsigned a, unsigned sel) {
  return __uint_as_float(__byte_perm(a, 0x43000000u, sel));
}

template <int MODE, int W, int RPW, int S, int HINT, int CH>
__global__ void __launch_bounds__((W + 1) * 32) gemv(const unsigned char *__restrict__ w,
                                                     const __nv_bfloat16 *__restrict__ x,
                                                     float *__restrict__ y) {
  constexpr int R = W * RPW, STAGE = R * RB;
  extern __shared__ __align__(128) unsigned char sm[];
  unsigned char *ring = sm;
  float *xs = (float *)(sm + S * STAGE);
  unsigned long long *full = (unsigned long long *)(sm + S * STAGE + NU * XU);
  unsigned long long *empty = full + S;
  asm volatile("griddepcontrol.launch_dependents;");
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int r0 = (int)((long)N * blockIdx.x / gridDim.x);
  const int r1 = (int)((long)N * (blockIdx.x + 1) / gridDim.x);
  const int ks = (r1 - r0 + R - 1) / R;
  const bool producer = warp == W && lane == 0;
  auto issue = [&](int k) {
    const int s = k % S;
    const int rows = min(R, r1 - r0 - k * R);
    bar_expect(&full[s], rows * RB);
    bulk_copy(ring + s * STAGE, w + (long)(r0 + k * R) * RB, rows * RB, &full[s], HINT);
  };
  if (producer) {
    for (int s = 0; s < S; s++) {
      bar_init(&full[s], 1);
      bar_init(&empty[s], W);
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    for (int k = 0; k < (MODE >= 2 ? 1 : S) && k < ks; k++)
      issue(k);
  }
  asm volatile("griddepcontrol.wait;" ::: "memory");
  /* x as f32 units of 4 blocks, then each block's two half sums; 8
   * elements per thread, partners it, it ^ 1 sum a half */
  for (int base = 0; base < K / 8; base += blockDim.x) {
    const int it = base + threadIdx.x;
    float h = 0.f;
    if (it < K / 8) {
      const uint4 raw = *(const uint4 *)(x + it * 8);
      const unsigned r[4] = {raw.x, raw.y, raw.z, raw.w};
      float v[8];
#pragma unroll
      for (int e = 0; e < 4; e++) {
        v[2 * e] = __uint_as_float(r[e] << 16);
        v[2 * e + 1] = __uint_as_float(r[e] & 0xffff0000u);
      }
      const int blk = it / 4, u = blk / 4, b = blk % 4, o = it % 4 * 8;
      float *d = (float *)((unsigned char *)xs + u * XU) + b * 32 + o;
      *(float4 *)d = make_float4(v[0], v[1], v[2], v[3]);
      *(float4 *)(d + 4) = make_float4(v[4], v[5], v[6], v[7]);
#pragma unroll
      for (int e = 0; e < 8; e++)
        h += v[e];
    }
    h += __shfl_xor_sync(0xffffffffu, h, 1);
    if (it < K / 8 && it % 2 == 0) {
      const int blk = it / 4, u = blk / 4, b = blk % 4;
      ((float *)((unsigned char *)xs + u * XU))[128 + 2 * b + it % 4 / 2] = h;
    }
  }
  __syncthreads();
  if (warp == W) {
    if (producer && MODE < 2)
      for (int k = S; k < ks; k++) {
        bar_wait(&empty[k % S], (k / S - 1) & 1);
        issue(k);
      }
    return;
  }
  const float *xu = (const float *)((const unsigned char *)xs + lane * XU);
  for (int k = 0; k < ks; k++) {
    const int s = k % S;
    if (MODE < 2 || k == 0)
      bar_wait(&full[s], (k / S) & 1);
    const unsigned char *st = ring + (MODE >= 2 ? 0 : s) * STAGE;
    if (MODE == 4)
      continue;
    if (MODE == 0) {
      unsigned v = *(const unsigned *)(st + (warp * RPW * RB) + lane * 72);
      if (v == 0x12345678u)
        y[0] = 1.0f;
    } else {
      unsigned wd[RPW][18];
#pragma unroll
      for (int r = 0; r < RPW; r++)
#pragma unroll
        for (int l = 0; l < 9; l++) {
          const uint2 v = *(const uint2 *)(st + (warp * RPW + r) * RB + lane * 72 + 8 * l);
          wd[r][2 * l] = v.x;
          wd[r][2 * l + 1] = v.y;
        }
      __syncwarp();
      if (lane == 0 && MODE < 2)
        bar_arrive(&empty[s]);
      float acc[RPW];
#pragma unroll
      for (int r = 0; r < RPW; r++)
        acc[r] = 0.f;
#pragma unroll
      for (int b = 0; b < 4; b++) {
        float xf[32];
#pragma unroll
        for (int v = 0; v < 8; v++) {
          const float4 t = *(const float4 *)(xu + b * 32 + 4 * v);
          xf[4 * v] = t.x, xf[4 * v + 1] = t.y, xf[4 * v + 2] = t.z, xf[4 * v + 3] = t.w;
        }
        const float s0 = xu[128 + 2 * b], s1 = xu[128 + 2 * b + 1];
#pragma unroll
        for (int r = 0; r < RPW; r++) {
          const int o = 18 * b;
          const unsigned dbits = (o & 2) ? wd[r][o >> 2] >> 16 : wd[r][o >> 2] & 0xffff;
          const float d = __half2float(__ushort_as_half((unsigned short)dbits));
          float p0[CH], p1[CH];
#pragma unroll
          for (int c = 0; c < CH; c++)
            p0[c] = p1[c] = 0.f;
#pragma unroll
          for (int j = 0; j < 16; j++) {
            const int B = o + 2 + j;
            const unsigned wj = wd[r][B >> 2];
            const unsigned sel = (unsigned)(B & 3);
            p0[j % CH] = fmaf(perm_f(wj & 0x0f0f0f0fu, 0x7054u | sel << 8), xf[j], p0[j % CH]);
            p1[j % CH] = fmaf(perm_f(wj & 0xf0f0f0f0u, 0x7504u | sel << 4), xf[16 + j], p1[j % CH]);
          }
#pragma unroll
          for (int c = 1; c < CH; c++)
            p0[0] += p0[c], p1[0] += p1[c];
          acc[r] = fmaf(d, p0[0] - 136.0f * s0, fmaf(16.0f * d, p1[0] - 128.5f * s1, acc[r]));
        }
      }
#pragma unroll
      for (int r = 0; r < RPW; r++) {
        float v = acc[r];
#pragma unroll
        for (int off = 16; off > 0; off /= 2)
          v += __shfl_xor_sync(0xffffffffu, v, off);
        const int row = r0 + k * R + warp * RPW + r;
        if (lane == 0 && row < r1)
          y[row] = v;
      }
      continue;
    }
    __syncwarp();
    if (lane == 0)
      bar_arrive(&empty[s]);
  }
}


/* The tensor-core consumer (gemv_qm's decode): a stage is G groups of 16
 * rows, each row copied by its own bulk copy to RS = RB + 16 bytes apart
 * (RS / 4 = 4 mod 8: lanes (g, t) hit 32 banks); an item is a group's chunk
 * of 8 blocks; warp w takes items w, w + W, ...; its lanes t = 0 write the
 * item's 16 partial sums, and the producer warp adds the 16 chunks of each
 * row in order once the stage is released. MODE 2: compute only. */
constexpr int RS = RB + 16;
__device__ __forceinline__ void mma_bf16(float c[4], const unsigned a[4], const unsigned b[2]) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, "
               "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
__device__ __forceinline__ unsigned lds_word(const unsigned char *p, int off) {
  /* 4 bytes at p + off, off even, p 4-byte aligned */
  const unsigned *s = (const unsigned *)p;
  if (off & 2)
    return s[off >> 2] >> 16 | s[(off >> 2) + 1] << 16;
  return s[off >> 2];
}
__device__ __forceinline__ unsigned lds_u16(const unsigned char *p, int off) {
  return ((const unsigned *)p)[off >> 2] >> ((off & 2) << 3) & 0xffffu;
}
__device__ __forceinline__ void dec(unsigned qs, unsigned r[4]) {
  const unsigned m = 0x43004300u;
  r[0] = (qs & 0x000f000fu) | m;
  r[1] = (qs >> 4 & 0x000f000fu) | m;
  r[2] = (qs >> 8 & 0x000f000fu) | m;
  r[3] = (qs >> 12 & 0x000f000fu) | m;
}

/* The row ring of the tensor-core kernels: stage k of the workgroup's rows
 * [r0, r1) (R rows, each its own bulk copy, RS bytes apart) into slot k % S;
 * ring_init: the slots' barriers (full: the producer's arrival and the
 * bytes; empty: every consumer lane), then the first `first` stages. */
template <int R, int S>
__device__ __forceinline__ void ring_issue(unsigned char *ring, const unsigned char *w,
                                           unsigned long long *full, int r0, int r1, int k) {
  const int s = k % S;
  const int rows = min(R, r1 - r0 - k * R);
  bar_expect(&full[s], rows * RB);
  for (int r = 0; r < rows; r++)
    bulk_copy(ring + (s * R + r) * RS, w + (long)(r0 + k * R + r) * RB, RB, &full[s], 0);
}
template <int R, int S>
__device__ __forceinline__ void ring_init(unsigned char *ring, const unsigned char *w,
                                          unsigned long long *full, unsigned long long *empty,
                                          int consumers, int r0, int r1, int first) {
  for (int s = 0; s < S; s++) {
    bar_init(&full[s], 1);
    bar_init(&empty[s], consumers);
  }
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  for (int k = 0; k < first && k < (r1 - r0 + R - 1) / R; k++)
    ring_issue<R, S>(ring, w, full, r0, r1, k);
}

template <int MODE, int W, int G, int S>
__global__ void __launch_bounds__((W + 1) * 32) gemv_mma(const unsigned char *__restrict__ w,
                                                         const __nv_bfloat16 *__restrict__ x,
                                                         float *__restrict__ y) {
  constexpr int R = 16 * G, STAGE = R * RS, ITEMS = G * 16;
  extern __shared__ __align__(128) unsigned char sm[];
  unsigned char *ring = sm;
  unsigned char *xs = sm + S * STAGE;          /* 128 blocks x 64 bytes */
  float *csum = (float *)(xs + 128 * 64);      /* 128 */
  float *part = csum + 128;                    /* S x ITEMS x 16 */
  unsigned long long *full = (unsigned long long *)(part + S * ITEMS * 16);
  unsigned long long *empty = full + S;
  asm volatile("griddepcontrol.launch_dependents;");
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int g = lane / 4, t = lane % 4;
  const int r0 = (int)((long)N * blockIdx.x / gridDim.x);
  const int r1 = (int)((long)N * (blockIdx.x + 1) / gridDim.x);
  const int ks = (r1 - r0 + R - 1) / R;
  if (warp == W && lane == 0)
    ring_init<R, S>(ring, w, full, empty, W * 32, r0, r1, MODE >= 2 ? 1 : S);
  asm volatile("griddepcontrol.wait;" ::: "memory");
  /* x: block b, lane t: elements 4t + {0, 2, 16, 18, 1, 3, 17, 19} */
  for (int base = 0; base < 512; base += blockDim.x) {
    const int it = base + threadIdx.x;
    float h = 0.f;
    if (it < 512) {
      const int b = it / 4, tt = it % 4;
      const int e0 = b * 32 + 4 * tt;
      const int ord[8] = {0, 2, 16, 18, 1, 3, 17, 19};
      unsigned short v[8];
#pragma unroll
      for (int e = 0; e < 8; e++) {
        const __nv_bfloat16 xv = x[e0 + ord[e]];
        v[e] = __bfloat16_as_ushort(xv);
        h += __bfloat162float(xv);
      }
      uint4 pk;
      pk.x = v[0] | (unsigned)v[1] << 16;
      pk.y = v[2] | (unsigned)v[3] << 16;
      pk.z = v[4] | (unsigned)v[5] << 16;
      pk.w = v[6] | (unsigned)v[7] << 16;
      *(uint4 *)(xs + 64 * b + 16 * tt) = pk;
    }
    h += __shfl_xor_sync(0xffffffffu, h, 1);
    h += __shfl_xor_sync(0xffffffffu, h, 2);
    if (it < 512 && it % 4 == 0)
      csum[it / 4] = -136.0f * h;
  }
  __syncthreads();
  if (warp == W) {
    for (int k = 0; k < ks; k++) {
      const int s = k % S;
      if (MODE < 2)
        bar_wait(&empty[s], (k / S) & 1);
      else
        __syncwarp();
      if (MODE < 2 && k + S < ks && lane == 0)
        ring_issue<R, S>(ring, w, full, r0, r1, k + S);
      for (int r = lane; r < (MODE >= 2 ? 0 : R); r += 32) {
        const float *p = part + (s * ITEMS + (r / 16) * 16) * 16 + r % 16;
        float v = 0.f;
#pragma unroll
        for (int c = 0; c < 16; c++)
          v += p[c * 16];
        const int row = r0 + k * R + r;
        if (row < r1)
          y[row] = v;
      }
    }
    return;
  }
  for (int k = 0; k < ks; k++) {
    const int s = k % S;
    if (MODE < 2 || k == 0)
      bar_wait(&full[s], (k / S) & 1);
    const unsigned char *st = ring + (MODE >= 2 ? 0 : s) * STAGE;
    for (int item = warp; item < (MODE == 4 ? 0 : ITEMS); item += W) {
      const int gp = item / 16, c = item % 16;
      const unsigned char *p0 = st + (gp * 16 + g) * RS, *p1 = p0 + 8 * RS;
      float acc0 = 0.f, acc2 = 0.f;
#pragma unroll
      for (int bb = 0; bb < 8; bb++) {
        const int b = c * 8 + bb;
        const uint4 xb = *(const uint4 *)(xs + 64 * b + 16 * t);
        const float cs = csum[b];
        float cc[4] = {cs, cs, cs, cs}, ch[4] = {0.f, 0.f, 0.f, 0.f};
        unsigned a0[4], a1[4];
        dec(lds_word(p0, b * 18 + 2 + 4 * t), a0);
        dec(lds_word(p1, b * 18 + 2 + 4 * t), a1);
        const unsigned lo[4] = {a0[0], a1[0], a0[1], a1[1]}, hi[4] = {a0[2], a1[2], a0[3], a1[3]};
        const unsigned xlo[2] = {xb.x, xb.y}, xhi[2] = {xb.z, xb.w};
        mma_bf16(cc, lo, xlo);
        mma_bf16(ch, hi, xhi);
        const float d0 = __half2float(__ushort_as_half((unsigned short)lds_u16(p0, b * 18)));
        const float d1 = __half2float(__ushort_as_half((unsigned short)lds_u16(p1, b * 18)));
        acc0 = fmaf(d0, cc[0] + ch[0], acc0);
        acc2 = fmaf(d1, cc[2] + ch[2], acc2);
      }
      if (t == 0) {
        float *pp = part + (s * ITEMS + item) * 16;
        pp[g] = acc0;
        pp[g + 8] = acc2;
      }
    }
    if (MODE < 2)
      bar_arrive(&empty[s]);
  }
}

/* gemv_mma for MM <= 8 rows of x: B column g is x row g (row 0 again for g
 * >= MM, never stored), C starts at -136 times each row's block sum, every C
 * element of a lane is a result (rows g, g + 8; x rows 2t, 2t + 1); partial
 * sums per item, x row and weight row, added by the producer warp. */
template <int MM, int W, int G, int S>
__global__ void __launch_bounds__((W + 1) * 32) gemv_mma8(const unsigned char *__restrict__ w,
                                                          const __nv_bfloat16 *__restrict__ x,
                                                          float *__restrict__ y) {
  constexpr int R = 16 * G, STAGE = R * RS, ITEMS = G * 16, XR = 128 * 64 + 64;
  extern __shared__ __align__(128) unsigned char sm[];
  unsigned char *ring = sm;
  unsigned char *xs = sm + S * STAGE;            /* 8 rows of XR bytes */
  float *csum = (float *)(xs + 8 * XR);          /* [128][8] */
  float *part = csum + 128 * 8;                  /* [S][ITEMS][8][16] */
  unsigned long long *full = (unsigned long long *)(part + S * ITEMS * 128);
  unsigned long long *empty = full + S;
  asm volatile("griddepcontrol.launch_dependents;");
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int g = lane / 4, t = lane % 4;
  const int r0 = (int)((long)N * blockIdx.x / gridDim.x);
  const int r1 = (int)((long)N * (blockIdx.x + 1) / gridDim.x);
  const int ks = (r1 - r0 + R - 1) / R;
  if (warp == W && lane == 0)
    ring_init<R, S>(ring, w, full, empty, W * 32, r0, r1, S);
  asm volatile("griddepcontrol.wait;" ::: "memory");
  for (int base = 0; base < 8 * 512; base += blockDim.x) {
    const int it = base + threadIdx.x;
    const int m = it / 512, b = it % 512 / 4, tt = it % 4;
    float h = 0.f;
    if (it < 8 * 512) {
      uint4 pk = make_uint4(0, 0, 0, 0);
      if (m < MM) {
        const int e0 = m * K + b * 32 + 4 * tt;
        const int ord[8] = {0, 2, 16, 18, 1, 3, 17, 19};
        unsigned short v[8];
#pragma unroll
        for (int e = 0; e < 8; e++) {
          const __nv_bfloat16 xv = x[e0 + ord[e]];
          v[e] = __bfloat16_as_ushort(xv);
          h += __bfloat162float(xv);
        }
        pk.x = v[0] | (unsigned)v[1] << 16;
        pk.y = v[2] | (unsigned)v[3] << 16;
        pk.z = v[4] | (unsigned)v[5] << 16;
        pk.w = v[6] | (unsigned)v[7] << 16;
      }
      *(uint4 *)(xs + m * XR + 64 * b + 16 * tt) = pk;
    }
    h += __shfl_xor_sync(0xffffffffu, h, 1);
    h += __shfl_xor_sync(0xffffffffu, h, 2);
    if (it < 8 * 512 && tt == 0)
      csum[b * 8 + m] = -136.0f * h;
  }
  __syncthreads();
  if (warp == W) {
    for (int k = 0; k < ks; k++) {
      const int s = k % S;
      bar_wait(&empty[s], (k / S) & 1);
      if (k + S < ks && lane == 0)
        ring_issue<R, S>(ring, w, full, r0, r1, k + S);
      for (int o = lane; o < R * MM; o += 32) {
        const int r = o % R, m = o / R;
        const float *p = part + ((s * ITEMS + (r / 16) * 16) * 8 + m) * 16 + r % 16;
        float v = 0.f;
#pragma unroll
        for (int c = 0; c < 16; c++)
          v += p[c * 128];
        const int row = r0 + k * R + r;
        if (row < r1)
          y[(long)m * N + row] = v;
      }
    }
    return;
  }
  const unsigned char *xl = xs + (g < MM ? g : 0) * XR + 16 * t;
  for (int k = 0; k < ks; k++) {
    const int s = k % S;
    bar_wait(&full[s], (k / S) & 1);
    const unsigned char *st = ring + s * STAGE;
    for (int item = warp; item < ITEMS; item += W) {
      const int gp = item / 16, c = item % 16;
      const unsigned char *p0 = st + (gp * 16 + g) * RS, *p1 = p0 + 8 * RS;
      float acc[4] = {0.f, 0.f, 0.f, 0.f};
#pragma unroll
      for (int bb = 0; bb < 8; bb++) {
        const int b = c * 8 + bb;
        const uint4 xb = *(const uint4 *)(xl + 64 * b);
        const float2 cs = *(const float2 *)(csum + b * 8 + 2 * t);
        float cc[4] = {cs.x, cs.y, cs.x, cs.y}, ch[4] = {0.f, 0.f, 0.f, 0.f};
        unsigned a0[4], a1[4];
        dec(lds_word(p0, b * 18 + 2 + 4 * t), a0);
        dec(lds_word(p1, b * 18 + 2 + 4 * t), a1);
        const unsigned lo[4] = {a0[0], a1[0], a0[1], a1[1]}, hi[4] = {a0[2], a1[2], a0[3], a1[3]};
        const unsigned xlo[2] = {xb.x, xb.y}, xhi[2] = {xb.z, xb.w};
        mma_bf16(cc, lo, xlo);
        mma_bf16(ch, hi, xhi);
        const float d0 = __half2float(__ushort_as_half((unsigned short)lds_u16(p0, b * 18)));
        const float d1 = __half2float(__ushort_as_half((unsigned short)lds_u16(p1, b * 18)));
        acc[0] = fmaf(d0, cc[0] + ch[0], acc[0]);
        acc[1] = fmaf(d0, cc[1] + ch[1], acc[1]);
        acc[2] = fmaf(d1, cc[2] + ch[2], acc[2]);
        acc[3] = fmaf(d1, cc[3] + ch[3], acc[3]);
      }
      float *pp = part + (s * ITEMS + item) * 128;
      if (2 * t < MM) {
        pp[(2 * t) * 16 + g] = acc[0];
        pp[(2 * t) * 16 + g + 8] = acc[2];
      }
      if (2 * t + 1 < MM) {
        pp[(2 * t + 1) * 16 + g] = acc[1];
        pp[(2 * t + 1) * 16 + g + 8] = acc[3];
      }
    }
    bar_arrive(&empty[s]);
  }
}

__global__ void rflush(const uint4 *__restrict__ p, long n16, unsigned *out) {
  unsigned acc = 0;
  for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < n16; i += (long)gridDim.x * blockDim.x) {
    const uint4 v = __ldg(p + i);
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x12345678u)
    out[0] = acc;
}

static float bf16r(float v) { return __bfloat162float(__float2bfloat16(v)); }

int main(int argc, char **argv) {
  const bool sweep = argc > 1 && !strcmp(argv[1], "sweep");
  int sms;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const long bytes = (long)N * RB;
  std::vector<unsigned char> hw(2 * bytes);
  unsigned st = 12345;
  auto rnd = [&]() { return st = st * 1664525u + 1013904223u; };
  for (long i = 0; i < 2 * bytes; i++)
    hw[i] = (unsigned char)(rnd() >> 24);
  for (long blk = 0; blk < 2L * N * (K / 32); blk++) {
    const __half h = __float2half(((rnd() >> 8) / 16777216.0f) * 0.02f + 0.001f);
    memcpy(&hw[blk * 18], &h, 2);
  }
  std::vector<__nv_bfloat16> hx(K);
  std::vector<float> xf(K);
  for (int i = 0; i < K; i++) {
    xf[i] = bf16r((rnd() >> 8) / 8388608.0f - 1.0f);
    hx[i] = __float2bfloat16(xf[i]);
  }
  /* float64 y of the 2 weights for `rows` rows of x (xs, row-major): [g][m][n] */
  auto reference = [&](const std::vector<float> &xs, int rows) {
    std::vector<double> r((size_t)2 * rows * N);
    std::vector<double> a(rows);
    for (int g = 0; g < 2; g++)
      for (int n = 0; n < N; n++) {
        std::fill(a.begin(), a.end(), 0.0);
        for (int b = 0; b < K / 32; b++) {
          const unsigned char *bl = &hw[(long)g * bytes + (long)n * RB + b * 18];
          __half h;
          memcpy(&h, bl, 2);
          const double d = __half2float(h);
          for (int j = 0; j < 16; j++) {
            const double lo = d * ((bl[2 + j] & 15) - 8), hi = d * ((bl[2 + j] >> 4) - 8);
            for (int m = 0; m < rows; m++)
              a[m] += lo * xs[m * K + b * 32 + j] + hi * xs[m * K + b * 32 + 16 + j];
          }
        }
        for (int m = 0; m < rows; m++)
          r[((size_t)g * rows + m) * N + n] = a[m];
      }
    return r;
  };
  const std::vector<double> ref = reference(xf, 1);
  unsigned char *dw;
  __nv_bfloat16 *dx;
  float *dy;
  CK(cudaMalloc(&dw, 2 * bytes));
  CK(cudaMalloc(&dx, K * 2));
  CK(cudaMalloc(&dy, 2 * N * 4));
  CK(cudaMemcpy(dw, hw.data(), 2 * bytes, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dx, hx.data(), K * 2, cudaMemcpyHostToDevice));
  cudaStream_t s;
  CK(cudaStreamCreate(&s));
  const size_t FLUSH = 256UL << 20;
  void *flushbuf;
  CK(cudaMalloc(&flushbuf, FLUSH));
  CK(cudaMemset(flushbuf, 0, FLUSH));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  /* median of 100 timed runs of enq() after 20 warm-up runs, each run
   * started by one of the methods: idle (the host waits for the last run, so
   * the device is idle when the start mark is recorded and the run's first
   * launch reaches it later), memset (256 MiB of zeros written first, as
   * triton's do_bench does: the device is busy at the start mark and the L2
   * holds dirty lines), readflush (256 MiB read first: busy, the L2 clean and
   * cold) */
  const char *meth[3] = {"idle", "memset", "readflush"};
  auto time1 = [&](int f, auto enq) {
    std::vector<float> t;
    for (int r = 0; r < 120; r++) {
      if (f == 1)
        CK(cudaMemsetAsync(flushbuf, 0, FLUSH, s));
      if (f == 2)
        rflush<<<sms * 8, 512, 0, s>>>((const uint4 *)flushbuf, FLUSH / 16, (unsigned *)dy);
      CK(cudaEventRecord(e0, s));
      enq();
      CK(cudaEventRecord(e1, s));
      CK(cudaEventSynchronize(e1));
      float ms;
      CK(cudaEventElapsedTime(&ms, e0, e1));
      if (r >= 20)
        t.push_back(ms * 1000);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  };
  auto time3 = [&](const char *label, double nbytes, auto enq) {
    for (int f = 0; f < (sweep ? 1 : 3); f++) {
      const float us = time1(f, enq);
      printf("%-34s %-9s: %7.2f us %5.0f GB/s\n", label, meth[f], us, nbytes / us / 1e3);
    }
  };
  /* one GEMV pair of kern (W consumer warps and a producer, grid workgroups)
   * over x (rows of it) into y, timed; then, where ref is given, y poisoned,
   * one pair, and its NMSE against ref */
  auto measure = [&](const char *label, auto kern, int W, int grid, int smem, const __nv_bfloat16 *x,
                     float *y, int rows, const std::vector<double> *ref) {
    CK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = grid;
    cfg.blockDim = (W + 1) * 32;
    cfg.dynamicSmemBytes = smem;
    cfg.stream = s;
    cudaLaunchAttribute at[1];
    at[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    at[0].val.programmaticStreamSerializationAllowed = 1;
    cfg.attrs = at;
    cfg.numAttrs = 1;
    const size_t ny = (size_t)2 * rows * N;
    auto pair = [&]() {
      CK(cudaLaunchKernelEx(&cfg, kern, (const unsigned char *)dw, x, y));
      CK(cudaLaunchKernelEx(&cfg, kern, (const unsigned char *)(dw + bytes), x, y + ny / 2));
    };
    time3(label, 2.0 * bytes, pair);
    if (ref == nullptr)
      return;
    CK(cudaMemset(y, 0xff, ny * 4));
    pair();
    CK(cudaDeviceSynchronize());
    std::vector<float> hy(ny);
    CK(cudaMemcpy(hy.data(), y, ny * 4, cudaMemcpyDeviceToHost));
    double num = 0, den = 0;
    for (size_t i = 0; i < ny; i++) {
      const double e = (double)hy[i] - (*ref)[i];
      num += e * e;
      den += (*ref)[i] * (*ref)[i];
    }
    const double nmse = num / den;
    printf("  nmse %.3g %s\n", nmse, std::isfinite(nmse) && nmse < 1e-10 ? "ok" : "FAIL");
  };
  auto run = [&](const char *name, auto kern, int W, int RPW, int S, int wgs, int smem) {
    int occ = 0;
    CK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, kern, (W + 1) * 32, smem));
    char label[96];
    snprintf(label, sizeof label, "%s W %d RPW/G %d S %d wg/SM %d", name, W, RPW, S, std::min(wgs, occ));
    measure(label, kern, W, sms * std::min(wgs, occ), smem, dx, dy, 1,
            strncmp(name, "gemv", 4) ? nullptr : &ref);
  };
#define RUN(M, W, RPW, S, H, WGS)                                                                 \
  run(M == 1 ? "gemv" : M == 4 ? "floor" : M ? "compute" : "read", gemv<M, W, RPW, S, H, CHN>, W, RPW, \
      S, WGS, S * W * RPW * RB + NU * XU + 16 * S)
#define RUNM(M, W, G, S, WGS)                                                                     \
  run(M == 1 ? "gemv mma" : M == 4 ? "floor mma" : "compute mma", gemv_mma<M, W, G, S>, W, G, S, WGS, \
      S * 16 * G * RS + 128 * 64 + 512 + S * G * 256 * 4 + 16 * S)
  if (argc > 1 && !strcmp(argv[1], "m8")) {
    /* 8 rows of x: the bulk ring with the tensor-core decode, against float64 */
    constexpr int MM = 8;
    std::vector<__nv_bfloat16> hx8((size_t)MM * K);
    std::vector<float> xf8((size_t)MM * K);
    for (int i = 0; i < MM * K; i++) {
      xf8[i] = bf16r((rnd() >> 8) / 8388608.0f - 1.0f);
      hx8[i] = __float2bfloat16(xf8[i]);
    }
    const std::vector<double> ref8 = reference(xf8, MM);
    __nv_bfloat16 *dx8;
    float *dy8;
    CK(cudaMalloc(&dx8, (size_t)MM * K * 2));
    CK(cudaMalloc(&dy8, (size_t)2 * MM * N * 4));
    CK(cudaMemcpy(dx8, hx8.data(), (size_t)MM * K * 2, cudaMemcpyHostToDevice));
    auto run8 = [&](const char *name, auto kern, int W, int G, int S) {
      const int smem = S * 16 * G * RS + 8 * (128 * 64 + 64) + 128 * 8 * 4 + S * G * 16 * 128 * 4 + 16 * S;
      char label[96];
      snprintf(label, sizeof label, "%s W %d G %d S %d smem %d", name, W, G, S, smem);
      measure(label, kern, W, sms, smem, dx8, dy8, MM, &ref8);
    };
    run8("gemv mma m8", gemv_mma8<8, 8, 1, 3>, 8, 1, 3);
    run8("gemv mma m8", gemv_mma8<8, 16, 1, 3>, 16, 1, 3);
    run8("gemv mma m8", gemv_mma8<8, 16, 1, 2>, 16, 1, 2);
    run8("gemv mma m8", gemv_mma8<8, 8, 1, 2>, 8, 1, 2);
    return 0;
  }
  if (sweep) {
    /* the designs, idle timing: FFMA chains 1 or 4 per half, ring shapes,
     * compute only (one stage loaded and reused), the floor (x staged, one
     * stage, no compute), the tensor-core consumer */
#define CHN 1
    RUN(1, 8, 2, 3, 0, 1);
    RUN(2, 8, 2, 3, 0, 1);
#undef CHN
#define CHN 4
    RUN(0, 8, 2, 3, 0, 1);
    RUN(0, 16, 1, 3, 0, 1);
    RUN(0, 4, 2, 4, 0, 2);
    RUN(4, 8, 2, 3, 0, 1);
    RUN(2, 8, 2, 3, 0, 1);
    RUN(2, 16, 1, 3, 0, 1);
    RUN(1, 8, 2, 3, 0, 1);
    RUN(1, 8, 2, 2, 0, 1);
    RUN(1, 16, 1, 3, 0, 1);
    RUN(1, 4, 2, 4, 0, 2);
    RUN(1, 4, 2, 4, 1, 2);
    RUN(1, 8, 1, 3, 0, 2);
    RUN(1, 8, 2, 4, 0, 1);
    RUNM(4, 16, 1, 3, 1);
    RUNM(2, 16, 1, 3, 1);
    RUNM(2, 8, 1, 2, 1);
    RUNM(1, 16, 1, 3, 1);
    RUNM(1, 16, 1, 2, 1);
    RUNM(1, 8, 1, 2, 1);
#undef CHN
    return 0;
  }
  /* the timing methods: the bulk read and the GEMV pair, a coalesced read of
   * the pair's bytes (rflush over each weight), a coalesced read of the bf16
   * 14336x4096 weight (117 MB), and the two copy yardsticks */
#define CHN 4
  RUN(0, 8, 2, 3, 0, 1);
  RUN(1, 8, 2, 3, 0, 1);
#undef CHN
  time3("coalesced read 2 x 33 MB", 2.0 * bytes, [&]() {
    rflush<<<sms * 8, 512, 0, s>>>((const uint4 *)dw, bytes / 16, (unsigned *)dy);
    rflush<<<sms * 8, 512, 0, s>>>((const uint4 *)(dw + bytes), bytes / 16, (unsigned *)dy);
  });
  time3("coalesced read 14336x4096 bf16", 14336.0 * 4096 * 2, [&]() {
    rflush<<<sms * 8, 512, 0, s>>>((const uint4 *)flushbuf + (64 << 20) / 16, 14336L * 4096 * 2 / 16,
                                   (unsigned *)dy);
  });
  for (long rows : {4096L, 16384L}) {
    const size_t cb = rows * 8192 * 2;
    void *ca, *cbuf;
    CK(cudaMalloc(&ca, cb));
    CK(cudaMalloc(&cbuf, cb));
    CK(cudaMemset(ca, 1, cb));
    char label[64];
    snprintf(label, sizeof label, "copy %ldx8192 bf16 (read+write)", rows);
    time3(label, 2.0 * cb, [&]() { CK(cudaMemcpyAsync(cbuf, ca, cb, cudaMemcpyDeviceToDevice, s)); });
    CK(cudaFree(ca));
    CK(cudaFree(cbuf));
  }
  return 0;
}
