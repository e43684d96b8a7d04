-- an unknown op is a call of nil, at the model's line.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = input("x", f32, { 4 })
-- CHECK: unknown_op.lua:[[@LINE+1]]: error: attempt to call a nil value (global 'swizzle')
output("y", swizzle(x))
