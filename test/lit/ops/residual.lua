-- rmsnorm_residual and layernorm_residual: h = x + r rounded to x's dtype is
-- stored (the second result); rmsnorm keeps the row (4096 = 2 strides) in
-- registers for the output pass, layernorm's later passes read h back; no
-- scratch.
-- RUN: %kgen --arch gfx1100 --emit=hip %s -o - | FileCheck %s --check-prefixes=CHECK,W32
-- RUN: %kgen --arch gfx942 --emit=hip %s -o - | FileCheck %s --check-prefixes=CHECK,W64
-- RUN: %kgen --arch gfx1100 --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- RUN: %kgen --arch gfx942 --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- RUN: %kgen --arch gfx1100 --emit=asm %s -o - | FileCheck %s --check-prefix=ASM32
-- RUN: %kgen --arch gfx942 --emit=asm %s -o - | FileCheck %s --check-prefix=ASM64
-- CHECK: KG_INLINE kg_vec<T, N> kg_residual_add(
-- CHECK-LABEL: residual_rmsnorm_residual_{{[0-9a-f]+}}(KG_GLOBAL(const kg_f16) x, KG_GLOBAL(const kg_f16) r, KG_GLOBAL(const kg_f16) w, KG_GLOBAL(kg_f16) y, KG_GLOBAL(kg_f16) h)
-- CHECK: row[it] = kg_residual_add<8, kg_f16, kg_f16>(x, r, h, base + c)
-- W32: ss = kg_block_sum<32, 512>(ss);
-- W64: ss = kg_block_sum<64, 512>(ss);
-- CHECK: const kg_vec<kg_f16, 8> v = row[it];
-- CHECK-LABEL: residual_layernorm_residual_{{[0-9a-f]+}}(KG_GLOBAL(const kg_f16) x, KG_GLOBAL(const kg_f16) r, KG_GLOBAL(const kg_f16) w, KG_GLOBAL(const kg_f16) b, KG_GLOBAL(kg_f16) y, KG_GLOBAL(kg_f16) h)
-- CHECK: kg_residual_add<8, kg_f16, kg_f16>(x, r, h, base + c)
-- W32: kg_row_stats<32, 512, 8, 4096>(h, base, mean, 1e-05f, shift, rstd);
-- W64: kg_row_stats<64, 512, 8, 4096>(h, base, mean, 1e-05f, shift, rstd);
-- CHECK: kg_ldv<8>(h, base + c)
-- META: .name: residual_rmsnorm_residual_{{[0-9a-f]+}}
-- META-NOT: .private_segment_fixed_size: {{[1-9]}}
-- META: .name: residual_layernorm_residual_{{[0-9a-f]+}}
-- META-NOT: .private_segment_fixed_size: {{[1-9]}}
-- ASM32-LABEL: residual_rmsnorm_residual_{{[0-9a-f]+}}:
-- ASM32: global_load_b128
-- ASM32: global_store_b128
-- ASM64-LABEL: residual_rmsnorm_residual_{{[0-9a-f]+}}:
-- ASM64: global_load_dwordx4
-- ASM64: global_store_dwordx4
local T = sym("T", 16)
local x = input("x", f16, { T, 4096 })
local r = input("r", f16, { T, 4096 })
local w = weight("w", f16, { 4096 })
local b = weight("b", f16, { 4096 })
local y, h = rmsnorm_residual(x, r, w)
output("y", y)
local y2, h2 = layernorm_residual(h, r, w, b)
output("y2", y2)
output("h2", h2)
