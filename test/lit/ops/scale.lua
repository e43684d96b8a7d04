-- scale: the factor is a float literal in the kernel; x * 2.5 is the same op.
-- RUN: %kgen --arch gfx1100 --emit=hip %s -o - | FileCheck %s
-- RUN: %kgen --arch gfx942 --emit=hip %s -o - | FileCheck %s
-- CHECK-LABEL: scale_scale_{{[0-9a-f]+}}(
-- CHECK: kg_from_f32<kg_bf16>((a0 * 0.125f))
-- CHECK-LABEL: scale_scale_{{[0-9a-f]+}}(
-- CHECK: kg_from_f32<kg_bf16>((a0 * 2.5f))
local x = input("x", bf16, { 4, 64 })
output("a", scale(x, 0.125))
output("b", x * 2.5)
