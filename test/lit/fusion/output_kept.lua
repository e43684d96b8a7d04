-- a value that is also a model output is written, not fused away; its
-- consumer reads it back from the output buffer.
-- RUN: %kgen --arch gfx1100 --emit=table %s -o - | FileCheck %s
-- CHECK: {"output_kept_silu_{{[0-9a-f]+}}",
-- CHECK: {"output_kept_scale_{{[0-9a-f]+}}",
-- CHECK-LABEL: static const kgrt_step_arg_t s1_args[3] = {
-- CHECK-NEXT: {KGRT_SPACE_OUTPUT, 0, 0,
-- CHECK-NEXT: {KGRT_SPACE_OUTPUT, 1, 0,
local x = input("x", f32, { 64 })
local s = silu(x)
output("s", s)
output("y", s * 2.0)
