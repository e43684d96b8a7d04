-- binary ops on both targets, with an operand broadcast over leading dims: a
-- row vector whose length is a multiple of VEC is read with vector loads at
-- i % C; one that is not, element by element; a scalar at i % 1.
-- RUN: %kgen --arch gfx1100 --emit=hip %s -o - | FileCheck %s
-- RUN: %kgen --arch gfx942 --emit=hip %s -o - | FileCheck %s
-- RUN: %kgen --arch gfx1100 --emit=asm %s -o - | FileCheck %s --check-prefix=W32
-- RUN: %kgen --arch gfx942 --emit=asm %s -o - | FileCheck %s --check-prefix=W64
-- CHECK-LABEL: binary_broadcast_sub_{{[0-9a-f]+}}(
-- CHECK: kg_ldv<8>(in0, i);
-- CHECK: kg_ldv<8>(in1, i % 1024L);
-- CHECK: (a0 - a1)
-- CHECK: kg_ld(in1, j % 1024L)
-- CHECK-LABEL: binary_broadcast_div_{{[0-9a-f]+}}(
-- CHECK: v1[u].v[k] = kg_ld(in1, (i + k) % 1001L);
-- CHECK: (a0 / a1)
-- CHECK-LABEL: binary_broadcast_min_{{[0-9a-f]+}}(
-- CHECK: kg_min(a0, a1)
-- CHECK-LABEL: binary_broadcast_max_{{[0-9a-f]+}}(
-- CHECK: kg_ld(in1, (i + k) % 1L)
-- CHECK: kg_max(a0, a1)
-- W32-LABEL: binary_broadcast_sub_{{[0-9a-f]+}}:
-- W32-COUNT-2: global_load_b128
-- W64-LABEL: binary_broadcast_sub_{{[0-9a-f]+}}:
-- W64-COUNT-2: global_load_dwordx4
local T = sym("T", 16)
local x = input("x", bf16, { T, 1024 })
local b = input("b", bf16, { 1024 })
local y = input("y", bf16, { T, 1001 })
local c = input("c", bf16, { 1001 })
local s = input("s", bf16, { 1 })
output("d", x - b)
output("q", y / c)
output("lo", min(y, c))
output("hi", max(x, s))
