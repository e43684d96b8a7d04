-- an unknown op is an error at the model's line that says so and points to
-- --list-ops (not Lua's "attempt to call a nil value").
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = input("x", f32, { 4 })
-- CHECK: unknown_op.lua:[[@LINE+1]]: error: swizzle is not an op or a global (kgen --list-ops lists the ops)
output("y", swizzle(x))
