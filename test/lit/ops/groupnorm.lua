-- groupnorm on NCHW: one workgroup per (n, group), a row of C/G * H * W
-- contiguous elements; per-channel weight and bias; no scratch.
-- RUN: %kgen --arch gfx1100 --emit=hip %s -o - | FileCheck %s --check-prefixes=CHECK,W32
-- RUN: %kgen --arch gfx942 --emit=hip %s -o - | FileCheck %s --check-prefixes=CHECK,W64
-- RUN: %kgen --arch gfx1100 --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- RUN: %kgen --arch gfx942 --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- RUN: %kgen --arch gfx1100 --emit=asm %s -o - | FileCheck %s --check-prefix=ASM32
-- RUN: %kgen --arch gfx942 --emit=asm %s -o - | FileCheck %s --check-prefix=ASM64
-- CHECK-LABEL: groupnorm_groupnorm_{{[0-9a-f]+}}(KG_GLOBAL(const kg_f16) x, KG_GLOBAL(const kg_f16) w, KG_GLOBAL(const kg_f16) b, KG_GLOBAL(kg_f16) y)
-- CHECK: const long base = (long)blockIdx.x * 40960;
-- W32: kg_row_stats<32, 512, 8, 40960>(x, base, mean, 1e-05f, shift, rstd);
-- W64: kg_row_stats<64, 512, 8, 40960>(x, base, mean, 1e-05f, shift, rstd);
-- CHECK: const long ch0 = (long)(blockIdx.x % 32) * 10;
-- CHECK: const long ch = ch0 + (c + k) / 4096;
-- CHECK: kg_to_f32(kg_ld(w, ch)){{.*}}kg_to_f32(kg_ld(b, ch))
-- CHECK-LABEL: groupnorm_groupnorm_{{[0-9a-f]+}}(KG_GLOBAL(const float) x, KG_GLOBAL(float) y)
-- CHECK: const long ch0 = (long)(blockIdx.x % 2) * 3;
-- CHECK: const long ch = ch0 + (c + k) / 49;
-- META: .name: groupnorm_groupnorm_{{[0-9a-f]+}}
-- META-NOT: .private_segment_fixed_size: {{[1-9]}}
-- META: .name: groupnorm_groupnorm_{{[0-9a-f]+}}
-- META-NOT: .private_segment_fixed_size: {{[1-9]}}
-- ASM32-LABEL: groupnorm_groupnorm_{{[0-9a-f]+}}:
-- ASM32: global_load_b128
-- ASM32: global_store_b128
-- ASM64-LABEL: groupnorm_groupnorm_{{[0-9a-f]+}}:
-- ASM64: global_load_dwordx4
-- ASM64: global_store_dwordx4
local N = sym("N", 4)
local x = input("x", f16, { N, 320, 64, 64 })
local w = weight("w", f16, { 320 })
local b = weight("b", f16, { 320 })
output("y", groupnorm(x, w, b, { groups = 32 }))
local z = input("z", f32, { 2, 6, 7, 7 })
output("z2", groupnorm(z, { groups = 2, eps = 1e-6 }))
