-- mul in f32 (VEC 4) and the * operator on tensors.
-- RUN: %kgen --arch gfx1100 --emit=hip %s -o - | FileCheck %s
-- RUN: %kgen --arch gfx942 --emit=hip %s -o - | FileCheck %s
-- CHECK-LABEL: mul_mul_{{[0-9a-f]+}}(KG_GLOBAL(const float) in0, KG_GLOBAL(const float) in1, KG_GLOBAL(float) out, long n)
-- CHECK: kg_ldv<4>(in0, i)
-- CHECK: kg_from_f32<float>((a0 * a1))
local a = input("a", f32, { 100 })
local b = input("b", f32, { 100 })
output("y", a * b)
