-- cast f32 -> f16 -> bf16: each cast rounds (kg_round) even inside one fused kernel.
-- RUN: %kgen --arch gfx1100 --emit=hip %s -o - | FileCheck %s
-- RUN: %kgen --arch gfx942 --emit=hip %s -o - | FileCheck %s
-- CHECK-LABEL: cast_cast_cast_{{[0-9a-f]+}}(KG_GLOBAL(const float) in0, KG_GLOBAL(kg_bf16) out, long n)
-- CHECK: kg_ldv<4>(in0, i)
-- CHECK: kg_from_f32<kg_bf16>(kg_round<kg_bf16>(kg_round<kg_f16>(a0)))
local x = input("x", f32, { 3, 1000 })
output("y", cast(cast(x, f16), { to = bf16 }))
