-- upsample: 2x nearest and bilinear (align_corners=False); one workgroup per
-- output row, VEC inputs in, two 128-bit stores out; no scratch.
-- RUN: %kgen --arch gfx1100 --emit=hip %s -o - | FileCheck %s
-- RUN: %kgen --arch gfx942 --emit=hip %s -o - | FileCheck %s
-- RUN: %kgen --arch gfx1100 --emit=asm %s -o - | FileCheck %s --check-prefix=ASM32
-- RUN: %kgen --arch gfx942 --emit=asm %s -o - | FileCheck %s --check-prefix=ASM64
-- RUN: %kgen --arch gfx1100 --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- RUN: %kgen --arch gfx942 --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- CHECK-LABEL: upsample_upsample_{{[0-9a-f]+}}(KG_GLOBAL(const kg_f16) x, KG_GLOBAL(kg_f16) y)
-- CHECK: const long img = row / (2 * 32);
-- CHECK: const long src = (img * 32 + ky) * 64;
-- CHECK: hi.v[e] = v.v[(e + 8) / 2];
-- CHECK: kg_stv<8>(y, dst + 2 * c + 8, hi);
-- CHECK-LABEL: upsample_upsample_{{[0-9a-f]+}}(KG_GLOBAL(const kg_f16) x, KG_GLOBAL(kg_f16) y)
-- CHECK: const long far = (img * 32 + fy) * 64;
-- CHECK: float m[8 + 2];
-- CHECK: const float o = 0.75f * m[k + 1] + 0.25f * ((e & 1) ? m[k + 2] : m[k]);
-- ASM32-LABEL: upsample_upsample_{{[0-9a-f]+}}:
-- ASM32: global_load_b128
-- ASM32: global_store_b128
-- ASM32-LABEL: upsample_upsample_{{[0-9a-f]+}}:
-- ASM32: global_load_b128
-- ASM32: global_store_b128
-- ASM64-LABEL: upsample_upsample_{{[0-9a-f]+}}:
-- ASM64: global_load_dwordx4
-- ASM64: global_store_dwordx4
-- ASM64-LABEL: upsample_upsample_{{[0-9a-f]+}}:
-- ASM64: global_load_dwordx4
-- ASM64: global_store_dwordx4
-- META: .name: upsample_upsample_{{[0-9a-f]+}}
-- META-NOT: .private_segment_fixed_size: {{[1-9]}}
-- META: .name: upsample_upsample_{{[0-9a-f]+}}
-- META-NOT: .private_segment_fixed_size: {{[1-9]}}
local N = sym("N", 4)
local x = input("x", f16, { N, 3, 32, 64 })
output("near", upsample(x))
output("bilin", upsample(x, { mode = "bilinear" }))
