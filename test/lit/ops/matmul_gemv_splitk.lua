-- matmul, the GEMV path with split K: N = 16 (a router) and N = 64 would give
-- far fewer than 4 workgroups per compute unit with whole columns per wave
-- (targets/*.lua cus), so the waves of a workgroup share its 2 columns and
-- split each row of w (16 waves of 32 on gfx1100, 8 of 64 on gfx942: a
-- vector of each row per lane at K = 4096 bf16). Each wave reduces its sums,
-- puts them in LDS, and the first wave adds the parts in wave order and runs
-- the epilogue (bias for the second matmul) once per output; no atomics.
-- Weights are read with 128-bit loads. The plan runs the split GEMV for
-- T <= 8 and the GEMM above.
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
-- CHECK-LABEL: matmul_gemv_splitk_matmul_gemv_{{[0-9a-f]+}}(KG_GLOBAL(const kg_bf16) x, KG_GLOBAL(const kg_bf16) w, KG_GLOBAL(kg_bf16) y, long M)
-- W32: const int kp = wave % 16;
-- W64: const int kp = wave % 8;
-- W32: constexpr int GW = 16 * 32;
-- W64: constexpr int GW = 8 * 64;
-- CHECK: const long n0 = (long)blockIdx.x * 2 + (long)(wave / {{16|8}}) * 2;
-- CHECK: wv[c] = kg_ldv<8>(w, wrow[c] + (long)i * 8);
-- CHECK: __shared__ float part[512 / {{32|64}}][2][8];
-- CHECK: part[wave][c][m] = s;
-- CHECK: __syncthreads();
-- CHECK: if (kp == 0 && c < 2 && m < M && n0 + c < 16) {
-- CHECK-NEXT: float acc0 = part[wave][c][m];
-- W32-NEXT: for (int j = 1; j < 16; ++j) {
-- W64-NEXT: for (int j = 1; j < 8; ++j) {
-- CHECK-NEXT: acc0 += part[wave + j][c][m];
-- CHECK: kg_st(y, idx, kg_from_f32<kg_bf16>(acc0));
-- CHECK-LABEL: matmul_gemv_splitk_matmul_gemm_{{[0-9a-f]+}}(
-- K = 14336 (1792 vectors a row), 16 waves: 3 vectors per lane in one step on
-- gfx1100 (512 lanes), 1 on gfx942 (1024 lanes), then the rest
-- CHECK-LABEL: matmul_gemv_splitk_matmul_add_gemv_{{[0-9a-f]+}}(KG_GLOBAL(const kg_f16) x, KG_GLOBAL(const kg_f16) w,
-- W32: const int FULL = KV / (GW * 3) * (GW * 3);
-- W64: const int FULL = KV / (GW * 1) * (GW * 1);
-- CHECK: for (int j = 1; j < 16; ++j) {
-- CHECK: const float a2 = kg_to_f32(kg_ld(e2, idx % 64L));
-- CHECK-SAME: kg_st(y, idx, kg_from_f32<kg_f16>((acc0 + a2)));
-- A32-LABEL: matmul_gemv_splitk_matmul_gemv_{{[0-9a-f]+}}:
-- A32-COUNT-2: global_load_b128
-- A32: ds_store_b32
-- A32: s_barrier
-- A32: ds_load
-- A32-LABEL: matmul_gemv_splitk_matmul_add_gemv_{{[0-9a-f]+}}:
-- A32-COUNT-6: global_load_b128
-- A32: s_barrier
-- A64-LABEL: matmul_gemv_splitk_matmul_gemv_{{[0-9a-f]+}}:
-- A64-COUNT-2: global_load_dwordx4
-- A64: ds_write_b32
-- A64: s_barrier
-- A64: ds_read
-- A64-LABEL: matmul_gemv_splitk_matmul_add_gemv_{{[0-9a-f]+}}:
-- A64-COUNT-8: global_load_dwordx4
-- A64: s_barrier
-- NOATOM-NOT: atomic
-- META: .name: matmul_gemv_splitk_matmul_gemv_{{[0-9a-f]+}}
-- META-NOT: .private_segment_fixed_size: {{[1-9]}}
-- META: .name: matmul_gemv_splitk_matmul_add_gemv_{{[0-9a-f]+}}
-- META-NOT: .private_segment_fixed_size: {{[1-9]}}
-- the plan: the split GEMV over 16 columns, 2 per workgroup, for T <= 8; the GEMM above
-- TABLE-LABEL: static const kgrt_step_t steps[3] = {
-- TABLE-NEXT: {0, {16, {-1, -1, -1, -1}}, 2, 1, {1, {0, -1, -1, -1}}, 0LL, 8LL, s0_args, 0, 0, -1},
-- TABLE-NEXT: {1, {1, {0, -1, -1, -1}}, 128, 1, {1, {0, -1, -1, -1}}, 9LL, 9223372036854775807LL, s1_args, 0, 0, -1},
-- TABLE-NEXT: {2, {64, {-1, -1, -1, -1}}, 2, 1, {0, {-1, -1, -1, -1}}, 0LL, 0LL, s2_args, 0, 0, -1},
local T = sym("T", 64)
local x = input("x", bf16, { T, 4096 })
local w = weight("w", bf16, { 16, 4096 })
output("y", matmul(x, w))
local v = input("v", f16, { 8, 14336 })
local u = weight("u", f16, { 64, 14336 })
local b = weight("b", f16, { 64 })
output("z", add(matmul(v, u), b))
