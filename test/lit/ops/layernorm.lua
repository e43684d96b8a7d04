-- layernorm: the mean, then the variance about it (kg_row_stats: two passes,
-- no E[x^2] - E[x]^2), then the output; 128-bit loads; no scratch.
-- RUN: %kgen --arch gfx1100 --emit=hip %s -o - | FileCheck %s --check-prefixes=CHECK,W32
-- RUN: %kgen --arch gfx942 --emit=hip %s -o - | FileCheck %s --check-prefixes=CHECK,W64
-- RUN: %kgen --arch gfx1100 --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- RUN: %kgen --arch gfx942 --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- RUN: %kgen --arch gfx1100 --emit=asm %s -o - | FileCheck %s --check-prefix=ASM32
-- RUN: %kgen --arch gfx942 --emit=asm %s -o - | FileCheck %s --check-prefix=ASM64
-- CHECK: KG_INLINE void kg_row_stats(
-- CHECK-LABEL: layernorm_layernorm_{{[0-9a-f]+}}(KG_GLOBAL(const kg_bf16) x, KG_GLOBAL(const kg_bf16) w, KG_GLOBAL(const kg_bf16) b, KG_GLOBAL(kg_bf16) y)
-- CHECK: kg_ldv<8>(x, base + c)
-- W32: const float mean = kg_block_sum<32, 512>(s) * (1.0f / 4096);
-- W64: const float mean = kg_block_sum<64, 512>(s) * (1.0f / 4096);
-- W32: kg_row_stats<32, 512, 8, 4096>(x, base, mean, 1e-06f, shift, rstd);
-- W64: kg_row_stats<64, 512, 8, 4096>(x, base, mean, 1e-06f, shift, rstd);
-- CHECK: (kg_to_f32(v.v[k]) - mean - shift) * rstd * kg_to_f32(g.v[k]) + kg_to_f32(a.v[k])
-- META: .name: layernorm_layernorm_{{[0-9a-f]+}}
-- META-NOT: .private_segment_fixed_size: {{[1-9]}}
-- ASM32-LABEL: layernorm_layernorm_{{[0-9a-f]+}}:
-- ASM32: global_load_b128
-- ASM32: global_store_b128
-- ASM64-LABEL: layernorm_layernorm_{{[0-9a-f]+}}:
-- ASM64: global_load_dwordx4
-- ASM64: global_store_dwordx4
local T = sym("T", 16)
local x = input("x", bf16, { T, 4096 })
local w = weight("w", bf16, { 4096 })
local b = weight("b", bf16, { 4096 })
output("y", layernorm(x, w, b, { eps = 1e-6 }))
