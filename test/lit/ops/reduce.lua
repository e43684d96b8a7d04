-- reduce: one workgroup per row, (value, first index) partials merged across
-- the workgroup at the target's wave size; 128-bit loads; no scratch.
-- RUN: %kgen --arch gfx1100 --emit=hip %s -o - | FileCheck %s --check-prefixes=CHECK,W32
-- RUN: %kgen --arch gfx942 --emit=hip %s -o - | FileCheck %s --check-prefixes=CHECK,W64
-- RUN: %kgen --arch gfx1100 --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- RUN: %kgen --arch gfx942 --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- RUN: %kgen --arch gfx1100 --emit=asm %s -o - | FileCheck %s --check-prefix=ASM32
-- RUN: %kgen --arch gfx942 --emit=asm %s -o - | FileCheck %s --check-prefix=ASM64
-- CHECK: enum { KG_RED_SUM, KG_RED_MAX, KG_RED_MIN, KG_RED_ARGMAX, KG_RED_ARGMIN };
-- CHECK-LABEL: reduce_sum_{{[0-9a-f]+}}(KG_GLOBAL(const kg_f16) x, KG_GLOBAL(kg_f16) y)
-- CHECK: const long base = (long)blockIdx.x * 4096;
-- CHECK: kg_ldv<8>(x, base + c)
-- CHECK: kg_red_step<KG_RED_SUM>(acc, kg_to_f32(v.v[k]), (int)c + k)
-- W32: kg_block_reduce<KG_RED_SUM, 32, 256>(acc)
-- W64: kg_block_reduce<KG_RED_SUM, 64, 256>(acc)
-- CHECK: kg_st(y, (long)blockIdx.x, kg_from_f32<kg_f16>(acc.v));
-- CHECK-LABEL: reduce_argmax_{{[0-9a-f]+}}(KG_GLOBAL(const kg_f16) x, KG_GLOBAL(int) y)
-- W32: kg_block_reduce<KG_RED_ARGMAX, 32, 256>(acc)
-- W64: kg_block_reduce<KG_RED_ARGMAX, 64, 256>(acc)
-- CHECK: kg_st(y, (long)blockIdx.x, acc.i);
-- META: .name: reduce_sum_{{[0-9a-f]+}}
-- META-NOT: .private_segment_fixed_size: {{[1-9]}}
-- META: .name: reduce_argmax_{{[0-9a-f]+}}
-- META-NOT: .private_segment_fixed_size: {{[1-9]}}
-- ASM32-LABEL: reduce_sum_{{[0-9a-f]+}}:
-- ASM32: global_load_b128
-- ASM32-LABEL: reduce_argmax_{{[0-9a-f]+}}:
-- ASM32: global_load_b128
-- ASM64-LABEL: reduce_sum_{{[0-9a-f]+}}:
-- ASM64: global_load_dwordx4
-- ASM64-LABEL: reduce_argmax_{{[0-9a-f]+}}:
-- ASM64: global_load_dwordx4
local T = sym("T", 16)
local x = input("x", f16, { T, 4096 })
output("s", sum(x))
output("i", argmax(x))
