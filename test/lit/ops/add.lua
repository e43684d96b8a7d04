-- add: a map kernel over T x 1024 f16, specialised per target.
-- RUN: %kgen --arch gfx1100 --emit=hip %s -o - | FileCheck %s --check-prefixes=CHECK,W32
-- RUN: %kgen --arch gfx942 --emit=hip %s -o - | FileCheck %s --check-prefixes=CHECK,W64
-- W32: target gfx1100 (amdgcn, wave 32)
-- W64: target gfx942 (amdgcn, wave 64)
-- CHECK-LABEL: add_add_{{[0-9a-f]+}}(KG_GLOBAL(const kg_f16) in0, KG_GLOBAL(const kg_f16) in1, KG_GLOBAL(kg_f16) out, long n)
-- CHECK: v0[u] = kg_ldv<8>(in0, i);
-- CHECK: r.v[k] = kg_from_f32<kg_f16>((a0 + a1));
local T = sym("T", 64)
local a = input("a", f16, { T, 1024 })
local b = input("b", f16, { T, 1024 })
output("y", add(a, b))
