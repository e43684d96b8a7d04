-- log_softmax: f - max - log(sum exp(f - max)), with a scale; the online
-- max/sum at the target's wave size; 128-bit loads; no scratch.
-- RUN: %kgen --arch gfx1100 --emit=hip %s -o - | FileCheck %s --check-prefixes=CHECK,W32
-- RUN: %kgen --arch gfx942 --emit=hip %s -o - | FileCheck %s --check-prefixes=CHECK,W64
-- RUN: %kgen --arch gfx1100 --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- RUN: %kgen --arch gfx942 --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- RUN: %kgen --arch gfx1100 --emit=asm %s -o - | FileCheck %s --check-prefix=ASM32
-- RUN: %kgen --arch gfx942 --emit=asm %s -o - | FileCheck %s --check-prefix=ASM64
-- CHECK-LABEL: log_softmax_log_softmax_{{[0-9a-f]+}}(KG_GLOBAL(const kg_f16) x, KG_GLOBAL(kg_f16) y)
-- CHECK: const float f = kg_to_f32(v.v[k]) * 0.25f;
-- W32: kg_block_max<32, 256>(m)
-- W32: kg_block_sum<32, 256>(s)
-- W64: kg_block_max<64, 256>(m)
-- W64: kg_block_sum<64, 256>(s)
-- CHECK: const float log_sum = kg_log(sum);
-- CHECK-NOT: inv_sum
-- CHECK: f == -__builtin_inff() ? f : (f - row_max) - log_sum
-- META: .name: log_softmax_log_softmax_{{[0-9a-f]+}}
-- META-NOT: .private_segment_fixed_size: {{[1-9]}}
-- ASM32-LABEL: log_softmax_log_softmax_{{[0-9a-f]+}}:
-- ASM32: global_load_b128
-- ASM32: global_store_b128
-- ASM64-LABEL: log_softmax_log_softmax_{{[0-9a-f]+}}:
-- ASM64: global_load_dwordx4
-- ASM64: global_store_dwordx4
local T = sym("T", 8)
local x = input("x", f16, { T, 32000 })
output("lp", log_softmax(x, 0.25))
