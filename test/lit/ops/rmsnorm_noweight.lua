-- rmsnorm without a weight, on a row that is not a multiple of the vector (VEC 1).
-- RUN: %kgen --arch gfx1100 --emit=hip %s -o - | FileCheck %s --check-prefixes=CHECK,W32
-- RUN: %kgen --arch gfx942 --emit=hip %s -o - | FileCheck %s --check-prefixes=CHECK,W64
-- CHECK-LABEL: rmsnorm_noweight_rmsnorm_{{[0-9a-f]+}}(KG_GLOBAL(const kg_bf16) x, KG_GLOBAL(kg_bf16) y)
-- CHECK: kg_ldv<1>(x, base + c)
-- W32: kg_block_sum<32, 512>
-- W64: kg_block_sum<64, 512>
-- CHECK-NOT: kg_to_f32(g.v[k])
local x = input("x", bf16, { 5, 4097 })
output("y", rmsnorm(x))
