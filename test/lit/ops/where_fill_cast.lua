-- where, fill, affine and cast to and from i32 on both targets.
-- RUN: %kgen --arch gfx1100 --emit=hip %s -o - | FileCheck %s
-- RUN: %kgen --arch gfx942 --emit=hip %s -o - | FileCheck %s
-- CHECK-LABEL: where_fill_cast_where_{{[0-9a-f]+}}(KG_GLOBAL(const int) in0, KG_GLOBAL(const float) in1, KG_GLOBAL(const float) in2, KG_GLOBAL(float) out, long n)
-- CHECK: (a0 != 0.0f ? a1 : a2)
-- CHECK-LABEL: where_fill_cast_fill_{{[0-9a-f]+}}(KG_GLOBAL(float) out, long n)
-- CHECK: kg_from_f32<float>(0.5f)
-- CHECK-LABEL: where_fill_cast_affine_cast_{{[0-9a-f]+}}(KG_GLOBAL(const float) in0, KG_GLOBAL(int) out, long n)
-- CHECK: kg_from_f32<int>(kg_round<int>((a0 * 2.0f + -1.0f)))
-- CHECK-LABEL: where_fill_cast_cast_{{[0-9a-f]+}}(KG_GLOBAL(const int) in0, KG_GLOBAL(kg_f16) out, long n)
-- CHECK: kg_from_f32<kg_f16>(kg_round<kg_f16>(a0))
local T = sym("T", 16)
local m = input("m", i32, { T, 64 })
local a = input("a", f32, { T, 64 })
local b = input("b", f32, { 64 })
output("w", where(m, a, b))
output("f", fill { shape = { T, 64 }, value = 0.5, dtype = f32 })
output("i", cast(affine(a, { mul = 2, add = -1 }), i32))
output("h", cast(m, f16))
