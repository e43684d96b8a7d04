-- softmax with a scale: block max then block sum, at the target's wave size.
-- RUN: %kgen --arch gfx1100 --emit=hip %s -o - | FileCheck %s --check-prefixes=CHECK,W32
-- RUN: %kgen --arch gfx942 --emit=hip %s -o - | FileCheck %s --check-prefixes=CHECK,W64
-- CHECK-LABEL: softmax_softmax_{{[0-9a-f]+}}(KG_GLOBAL(const float) x, KG_GLOBAL(float) y)
-- CHECK: kg_to_f32(v.v[k]) * 0.125f
-- W32: kg_block_max<32, 256>(m)
-- W32: kg_block_sum<32, 256>(s)
-- W64: kg_block_max<64, 256>(m)
-- W64: kg_block_sum<64, 256>(s)
local T = sym("T", 8)
local x = input("x", f32, { T, 8192 })
output("p", softmax(x, { scale = 0.125 }))
