-- a value used twice is computed once into the arena, not recomputed.
-- RUN: %kgen --arch gfx942 --emit=table %s -o - | FileCheck %s
-- CHECK: {"multi_use_silu_{{[0-9a-f]+}}",
-- CHECK: {"multi_use_mul_{{[0-9a-f]+}}",
-- CHECK-LABEL: s0_args[3] = {
-- CHECK: {KGRT_SPACE_INPUT, 0, 0,
-- CHECK-NEXT: {KGRT_SPACE_ARENA, 0, 0,
local x = input("x", f32, { 64 })
local s = silu(x)
output("y", mul(s, s))
