-- rmsnorm: one workgroup per row; the reduction is specialised to the wave.
-- RUN: %kgen --arch gfx1100 --emit=hip %s -o - | FileCheck %s --check-prefixes=CHECK,W32
-- RUN: %kgen --arch gfx942 --emit=hip %s -o - | FileCheck %s --check-prefixes=CHECK,W64
-- CHECK-LABEL: rmsnorm_rmsnorm_{{[0-9a-f]+}}(KG_GLOBAL(const kg_f16) x, KG_GLOBAL(const kg_f16) w, KG_GLOBAL(kg_f16) y)
-- CHECK: const long base = (long)blockIdx.x * 4096;
-- CHECK: kg_ldv<8>(x, base + c)
-- W32: ss = kg_block_sum<32, 512>(ss);
-- W64: ss = kg_block_sum<64, 512>(ss);
-- CHECK: kg_rsqrt(ss * (1.0f / 4096) + 1e-06f)
local T = sym("T", 16)
local x = input("x", f16, { T, 4096 })
local w = weight("w", f16, { 4096 })
output("y", rmsnorm(x, w, { eps = 1e-6 }))
