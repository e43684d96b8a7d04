-- matmul, the GEMV path: up to 8 rows of x against w [N, K]; one workgroup per
-- 8 columns (4 waves of 2), 2 x 4 128-bit weight loads in flight per lane,
-- f32 sums in registers (no scratch) reduced across the wave. N = 14336 fills
-- both targets with whole columns per wave (no split K).
-- RUN: %kgen --arch gfx1100 --emit=hip %s -o - | FileCheck %s --check-prefixes=CHECK,W32
-- RUN: %kgen --arch gfx942 --emit=hip %s -o - | FileCheck %s --check-prefixes=CHECK,W64
-- RUN: %kgen --arch gfx1100 --emit=asm %s -o - | FileCheck %s --check-prefix=A32
-- RUN: %kgen --arch gfx942 --emit=asm %s -o - | FileCheck %s --check-prefix=A64
-- RUN: %kgen --arch gfx1100 --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- RUN: %kgen --arch gfx942 --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- W32: __launch_bounds__(128)
-- W64: __launch_bounds__(256)
-- CHECK-LABEL: matmul_gemv_matmul_{{[0-9a-f]+}}(KG_GLOBAL(const kg_bf16) x, KG_GLOBAL(const kg_bf16) w, KG_GLOBAL(kg_bf16) y, long M)
-- CHECK: const int kp = wave % 1;
-- CHECK: const long n0 = (long)blockIdx.x * 8 + (long)(wave / 1) * 2;
-- CHECK: float acc[2][8];
-- CHECK: kg_vec<kg_bf16, 8> wv[2][4];
-- CHECK: wv[c][u] = kg_ldv<8>(w, wrow[c]
-- CHECK: kg_ldv<8>(x, m * 4096L
-- W32: kg_wave_sum<32>(acc[c][m]);
-- W64: kg_wave_sum<64>(acc[c][m]);
-- CHECK: const long idx = m * 14336L + n0 + c;
-- CHECK: kg_st(y, idx, kg_from_f32<kg_bf16>(acc0));
-- the M = 1 GEMV over f32 rows of 4097 reads scalars; N = 37: 1 column per
-- workgroup, whose 16 waves split K (matmul_gemv_splitk.lua)
-- CHECK-LABEL: matmul_gemv_matmul_{{[0-9a-f]+}}(KG_GLOBAL(const float) x, KG_GLOBAL(const float) w, KG_GLOBAL(float) y, long M)
-- CHECK: constexpr int GW = 16 * {{32|64}};
-- CHECK: float acc[1][1];
-- CHECK: kg_ldv<1>(w,
-- A32-LABEL: matmul_gemv_matmul_{{[0-9a-f]+}}:
-- A32-COUNT-8: global_load_b128
-- A64-LABEL: matmul_gemv_matmul_{{[0-9a-f]+}}:
-- A64-COUNT-8: global_load_dwordx4
-- META: .name: matmul_gemv_matmul_{{[0-9a-f]+}}
-- META-NOT: .private_segment_fixed_size: {{[1-9]}}
-- META: .name: matmul_gemv_matmul_{{[0-9a-f]+}}
-- META-NOT: .private_segment_fixed_size: {{[1-9]}}
local T = sym("T", 8)
local x = input("x", bf16, { T, 4096 })
local w = weight("w", bf16, { 14336, 4096 })
output("y", matmul(x, w))
local v = input("v", f32, { 1, 4097 })
local u = weight("u", f32, { 37, 4097 })
output("z", matmul(v, u))
