-- matmul with w [K, N] (w_layout = "kn"), the GEMV path (templates/gemv_kn.hip):
-- threads across n, each reading 8 columns w[k, n .. n + 8) per 128-bit load
-- for each of its rows; 8 threads per 128-byte piece of a row, so the 4 waves
-- of a workgroup take 16 (wave32) or 32 (wave64) slices of K, whose sums are
-- added through LDS, one row of x at a time, in slice order; no atomics. x is
-- read in vectors of 8 (4 for a gate/up pair). The plan runs it for T <= 8
-- and the GEMM above; with x of 1 or 3 rows, only it. N = 33 reads scalars.
-- RUN: %kgen --arch gfx1100 --emit=hip %s -o - | FileCheck %s --check-prefixes=CHECK,W32
-- RUN: %kgen --arch gfx942 --emit=hip %s -o - | FileCheck %s --check-prefixes=CHECK,W64
-- RUN: %kgen --arch gfx1100 --emit=asm %s -o - | FileCheck %s --check-prefix=A32
-- RUN: %kgen --arch gfx942 --emit=asm %s -o - | FileCheck %s --check-prefix=A64
-- RUN: %kgen --arch gfx1100 --emit=asm %s -o - | FileCheck %s --check-prefix=NOATOM
-- RUN: %kgen --arch gfx942 --emit=asm %s -o - | FileCheck %s --check-prefix=NOATOM
-- RUN: %kgen --arch gfx1100 --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- RUN: %kgen --arch gfx942 --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- RUN: %kgen --arch gfx1100 --emit=table %s -o - | FileCheck %s --check-prefix=TABLE
-- RUN: %kgen --arch gfx942 --emit=table %s -o - | FileCheck %s --check-prefix=TABLE
-- W32: __launch_bounds__(128)
-- W64: __launch_bounds__(256)
-- CHECK-LABEL: matmul_gemv_kn_matmul_gemv_kn_{{[0-9a-f]+}}(KG_GLOBAL(const kg_bf16) x, KG_GLOBAL(const kg_bf16) w, KG_GLOBAL(kg_bf16) y, long M)
-- CHECK: const int ks = t / 8, cv = (t % 8) * 8;
-- CHECK: const long n = (long)blockIdx.x * 64 + cv;
-- CHECK: float acc[8][8];
-- CHECK: kg_vec<kg_bf16, 8> wv[1][8];
-- W32: wv[u][r] = kg_ldv<8>(w, ((long)(base + u * 16 + ks) * 8 + r) * 4096 + wn);
-- W64: wv[u][r] = kg_ldv<8>(w, ((long)(base + u * 32 + ks) * 8 + r) * 4096 + wn);
-- CHECK: kg_ldv<8>(x, m * 4096L + (long)(base + u * {{16|32}} + ks) * 8);
-- W32: __shared__ float part[16][64];
-- W64: __shared__ float part[32][64];
-- CHECK: part[ks][cv + e] = acc[m][e];
-- CHECK: __syncthreads();
-- CHECK: float acc0 = part[0][c];
-- W32-NEXT: for (int j = 1; j < 16; ++j) {
-- W64-NEXT: for (int j = 1; j < 32; ++j) {
-- CHECK-NEXT: acc0 += part[j][c];
-- CHECK: kg_st(y, idx, kg_from_f32<kg_bf16>(acc0));
-- CHECK-LABEL: matmul_gemv_kn_matmul_gemm_{{[0-9a-f]+}}(
-- N = 33, K = 47 (f32): scalars, 32 threads across n
-- CHECK-LABEL: matmul_gemv_kn_matmul_{{[0-9a-f]+}}(KG_GLOBAL(const float) x, KG_GLOBAL(const float) w, KG_GLOBAL(float) y, long M)
-- CHECK: const int ks = t / 32, cv = (t % 32) * 1;
-- CHECK: float acc[1][1];
-- CHECK: wv[r] = kg_ldv<1>(w, ((long)b * 1 + r) * 33 + wn);
-- the SwiGLU pair: two weights, x in vectors of 4
-- CHECK-LABEL: matmul_gemv_kn_matmul_silu_matmul_gemv_kn_{{[0-9a-f]+}}(KG_GLOBAL(const kg_f16) x, KG_GLOBAL(const kg_f16) w, KG_GLOBAL(const kg_f16) w1, KG_GLOBAL(kg_f16) y, long M)
-- CHECK: float acc_up[3][8];
-- CHECK: wv1[u][r] = kg_ldv<8>(w1, ((long)(base + u * {{16|32}} + ks) * 4 + r) * 80 + wn);
-- CHECK: kg_ldv<4>(x, m * 136L
-- CHECK: acc1 += part_up[j][c];
-- CHECK: kg_st(y, idx, kg_from_f32<kg_f16>({{.*}}acc0{{.*}}acc1{{.*}}));
-- A32-LABEL: matmul_gemv_kn_matmul_gemv_kn_{{[0-9a-f]+}}:
-- A32-COUNT-8: global_load_b128
-- A32: ds_store_b128
-- A32: s_barrier
-- A32: ds_load
-- A32-LABEL: matmul_gemv_kn_matmul_silu_matmul_gemv_kn_{{[0-9a-f]+}}:
-- A32-COUNT-8: global_load_b128
-- A64-LABEL: matmul_gemv_kn_matmul_gemv_kn_{{[0-9a-f]+}}:
-- A64-COUNT-8: global_load_dwordx4
-- A64: ds_write_b128
-- A64: s_barrier
-- A64: ds_read
-- A64-LABEL: matmul_gemv_kn_matmul_silu_matmul_gemv_kn_{{[0-9a-f]+}}:
-- A64-COUNT-8: global_load_dwordx4
-- NOATOM-NOT: atomic
-- META: .name: matmul_gemv_kn_matmul_gemv_kn_{{[0-9a-f]+}}
-- META-NOT: .private_segment_fixed_size: {{[1-9]}}
-- META: .name: matmul_gemv_kn_matmul_{{[0-9a-f]+}}
-- META-NOT: .private_segment_fixed_size: {{[1-9]}}
-- META: .name: matmul_gemv_kn_matmul_silu_matmul_gemv_kn_{{[0-9a-f]+}}
-- META-NOT: .private_segment_fixed_size: {{[1-9]}}
-- the plan: the GEMV over 4096 columns, 64 per workgroup, when T <= 8; the GEMM when T >= 9
-- TABLE-LABEL: static const kgrt_step_t steps[4] = {
-- TABLE-NEXT: {0, {4096, {-1, -1, -1, -1}}, 64, 1, {1, {0, -1, -1, -1}}, 0LL, 8LL, s0_args, 0, 0, -1},
-- TABLE-NEXT: {1, {1, {0, -1, -1, -1}}, 128, 32, {1, {0, -1, -1, -1}}, 9LL, 9223372036854775807LL, s1_args, 0, 0, -1},
-- TABLE-NEXT: {2, {33, {-1, -1, -1, -1}}, 32, 1, {0, {-1, -1, -1, -1}}, 0LL, 0LL, s2_args, 0, 0, -1},
-- TABLE-NEXT: {3, {80, {-1, -1, -1, -1}}, 64, 1, {0, {-1, -1, -1, -1}}, 0LL, 0LL, s3_args, 0, 0, -1},
local T = sym("T", 64)
local x = input("x", bf16, { T, 4096 })
local w = weight("w", bf16, { 4096, 4096 })
output("y", matmul(x, w, { w_layout = "kn" }))
local v = input("v", f32, { 1, 47 })
local u = weight("u", f32, { 47, 33 })
output("z", matmul(v, u, { w_layout = "kn" }))
local a = input("a", f16, { 3, 136 })
local wg = weight("wg", f16, { 136, 80 })
local wu = weight("wu", f16, { 136, 80 })
output("h", mul(silu(matmul(a, wg, { w_layout = "kn" })), matmul(a, wu, { w_layout = "kn" })))
