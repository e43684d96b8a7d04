-- clamp: the bounds are float literals compared in float, not fmin/fmax, so
-- a NaN compares false and stays NaN; either bound alone, and in a chain
-- the clamped expression is its producer's (one kernel).
-- RUN: %kgen --arch gfx1100 --emit=hip %s -o - | FileCheck %s
-- RUN: %kgen --arch gfx942 --emit=hip %s -o - | FileCheck %s
-- CHECK-LABEL: clamp_clamp_{{[0-9a-f]+}}(
-- CHECK: kg_from_f32<kg_bf16>((a0 < -1.5f ? -1.5f : (a0 > 0.75f ? 0.75f : a0)))
-- CHECK-LABEL: clamp_exp_clamp_{{[0-9a-f]+}}(
-- CHECK: kg_from_f32<kg_bf16>((kg_exp(a0) > 6.0f ? 6.0f : kg_exp(a0)))
-- CHECK-LABEL: clamp_clamp_{{[0-9a-f]+}}(
-- CHECK: kg_from_f32<kg_bf16>((a0 < 0.0f ? 0.0f : a0))
-- CHECK-NOT: kg_min
-- CHECK-NOT: kg_max
local x = input("x", bf16, { 4, 64 })
output("a", clamp(x, { min = -1.5, max = 0.75 }))
output("b", clamp(exp(x), { max = 6 }))
output("c", clamp(x, { min = 0 }))
