-- reduce: every op's result expression and dtype; keepdim and a 1-D x only
-- change the result's shape (rows = numel(x) / last dim in every case).
-- RUN: %kgen --arch gfx1100 --emit=hip %s -o - | FileCheck %s
-- RUN: %kgen --arch gfx942 --emit=hip %s -o - | FileCheck %s
-- RUN: rm -rf %t; %kgen --arch gfx942 %s -o %t > /dev/null
-- RUN: FileCheck %s --check-prefix=IO < %t/reduce_ops.c
-- CHECK-LABEL: reduce_ops_sum_{{[0-9a-f]+}}(KG_GLOBAL(const float) x, KG_GLOBAL(float) y)
-- CHECK: kg_from_f32<float>(acc.v)
-- CHECK-LABEL: reduce_ops_mean_{{[0-9a-f]+}}(KG_GLOBAL(const float) x, KG_GLOBAL(float) y)
-- CHECK: kg_from_f32<float>(acc.v * (1.0f / 1000))
-- CHECK-LABEL: reduce_ops_amax_{{[0-9a-f]+}}(KG_GLOBAL(const kg_bf16) x, KG_GLOBAL(kg_bf16) y)
-- CHECK: kg_red_init<KG_RED_MAX>()
-- CHECK-LABEL: reduce_ops_amin_{{[0-9a-f]+}}(KG_GLOBAL(const kg_bf16) x, KG_GLOBAL(kg_bf16) y)
-- CHECK: kg_red_init<KG_RED_MIN>()
-- CHECK-LABEL: reduce_ops_argmin_{{[0-9a-f]+}}(KG_GLOBAL(const kg_bf16) x, KG_GLOBAL(int) y)
-- CHECK: kg_red_init<KG_RED_ARGMIN>()
-- CHECK: acc.i
-- IO: {"s", KGRT_DTYPE_F32, 2, {{[{]}}{4, -1}, {6, -1}}, 0, 0, 0},
-- IO: {"m", KGRT_DTYPE_F32, 3, {{[{]}}{4, -1}, {6, -1}, {1, -1}}, 0, 0, 0},
-- IO: {"a", KGRT_DTYPE_BF16, 1, {{[{]}}{1, -1}}, 0, 0, 0},
-- IO: {"b", KGRT_DTYPE_BF16, 1, {{[{]}}{1, -1}}, 0, 0, 0},
-- IO: {"i", KGRT_DTYPE_I32, 1, {{[{]}}{1, -1}}, 0, 0, 0},
local x = input("x", f32, { 4, 6, 1000 })
local z = input("z", bf16, { 77 })
output("s", sum(x))
output("m", mean(x, { keepdim = true }))
output("a", amax(z))
output("b", amin(z))
output("i", argmin(z))
