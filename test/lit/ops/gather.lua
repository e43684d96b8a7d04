-- gather along the last dim and along dim 0: one workgroup per result row,
-- indices read 128 bits at a time, out-of-range indices give 0; no scratch.
-- RUN: %kgen --arch gfx1100 --emit=hip %s -o - | FileCheck %s
-- RUN: %kgen --arch gfx942 --emit=hip %s -o - | FileCheck %s
-- RUN: %kgen --arch gfx1100 --emit=asm %s -o - | FileCheck %s --check-prefix=ASM32
-- RUN: %kgen --arch gfx942 --emit=asm %s -o - | FileCheck %s --check-prefix=ASM64
-- RUN: %kgen --arch gfx1100 --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- RUN: %kgen --arch gfx942 --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- CHECK-LABEL: gather_gather_{{[0-9a-f]+}}(KG_GLOBAL(const float) x, KG_GLOBAL(const int) idx, KG_GLOBAL(float) y, long limit)
-- CHECK: const kg_vec<int, 4> iv = kg_ldv<4>(idx, base + c);
-- CHECK: if (k >= 0 && k < limit)
-- CHECK-NEXT: r.v[q] = kg_ld(x, row * 1000L + k);
-- CHECK-LABEL: gather_gather_{{[0-9a-f]+}}(KG_GLOBAL(const kg_f16) x
-- CHECK: r.v[q] = kg_ld(x, (long)k * 64L + col);
-- ASM32-LABEL: gather_gather_{{[0-9a-f]+}}:
-- ASM32: global_load_b128
-- ASM64-LABEL: gather_gather_{{[0-9a-f]+}}:
-- ASM64: global_load_dwordx4
-- META: .name: gather_gather_{{[0-9a-f]+}}
-- META-NOT: .private_segment_fixed_size: {{[1-9]}}
-- META: .name: gather_gather_{{[0-9a-f]+}}
-- META-NOT: .private_segment_fixed_size: {{[1-9]}}
local T = sym("T", 64)
local V = sym("V", 50000)
local x = input("x", f32, { T, 1000 })
local idx = input("idx", i32, { T, 40 })
output("g", gather(x, idx))
local table = input("table", f16, { V, 64 })
local rows = input("rows", i32, { T, 64 })
output("g0", gather(table, rows, { dim = 0 }))
