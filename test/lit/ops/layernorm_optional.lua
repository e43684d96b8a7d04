-- layernorm with a weight and no bias, and with neither; a row that is not a
-- multiple of the vector (VEC 1).
-- RUN: %kgen --arch gfx1100 --emit=hip %s -o - | FileCheck %s --check-prefixes=CHECK,W32
-- RUN: %kgen --arch gfx942 --emit=hip %s -o - | FileCheck %s --check-prefixes=CHECK,W64
-- CHECK-LABEL: layernorm_optional_layernorm_{{[0-9a-f]+}}(KG_GLOBAL(const float) x, KG_GLOBAL(const float) w, KG_GLOBAL(float) y)
-- CHECK: * rstd * kg_to_f32(g.v[k]));
-- CHECK-LABEL: layernorm_optional_layernorm_{{[0-9a-f]+}}(KG_GLOBAL(const kg_f16) x, KG_GLOBAL(kg_f16) y)
-- CHECK: kg_ldv<1>(x, base + c)
-- W32: kg_block_sum<32, 512>(s)
-- W64: kg_block_sum<64, 512>(s)
-- CHECK-NOT: g.v[k]
-- CHECK: (kg_to_f32(v.v[k]) - mean - shift) * rstd);
local x = input("x", f32, { 3, 768 })
local w = weight("w", f32, { 768 })
output("a", layernorm(x, w))
local z = input("z", f16, { 5, 4097 })
output("b", layernorm(z))
