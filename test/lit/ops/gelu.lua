-- gelu (tanh form) compiles for both targets without device libraries.
-- RUN: %kgen --arch gfx1100 --emit=asm %s -o - | FileCheck %s --check-prefixes=ASM
-- RUN: %kgen --arch gfx942 --emit=asm %s -o - | FileCheck %s --check-prefixes=ASM
-- RUN: %kgen --arch gfx942 --emit=hip %s -o - | FileCheck %s --check-prefixes=HIP
-- HIP: kg_gelu(a0)
-- ASM-LABEL: gelu_gelu_{{[0-9a-f]+}}:
-- ASM: v_exp_f32
-- ASM: s_endpgm
-- ASM-NOT: __ocml
local x = input("x", f32, { 4097 })
output("y", gelu(x))
