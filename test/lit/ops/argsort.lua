-- argsort: stable ranks against LDS tiles of order keys; no scratch.
-- RUN: %kgen --arch gfx1100 --emit=hip %s -o - | FileCheck %s --check-prefix=CHECK
-- RUN: %kgen --arch gfx942 --emit=hip %s -o - | FileCheck %s
-- RUN: %kgen --arch gfx1100 --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- RUN: %kgen --arch gfx942 --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- CHECK-LABEL: argsort_argsort_{{[0-9a-f]+}}(KG_GLOBAL(const kg_f16) x, KG_GLOBAL(int) y)
-- CHECK: key[g] = i < 4097 ? kg_order_key(kg_to_f32(kg_ld(x, base + i))) : 0u;
-- CHECK: rank[g] += (kj < key[g]) | ((kj == key[g]) & (j0 + j < i));
-- CHECK-LABEL: argsort_argsort_{{[0-9a-f]+}}(KG_GLOBAL(const float) x, KG_GLOBAL(int) y)
-- CHECK: ~kg_order_key(
-- META: .name: argsort_argsort_{{[0-9a-f]+}}
-- META-NOT: .private_segment_fixed_size: {{[1-9]}}
-- META: .name: argsort_argsort_{{[0-9a-f]+}}
-- META-NOT: .private_segment_fixed_size: {{[1-9]}}
local T = sym("T", 8)
local x = input("x", f16, { T, 4097 })
output("i", argsort(x))
local z = input("z", f32, { 5, 100 })
output("d", argsort(z, { descending = true }))
