-- conv2d: float operands only.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = input("x", i32, { 1, 4, 8, 8 })
local w = weight("w", i32, { 8, 4, 3, 3 })
-- CHECK: conv2d_int.lua:[[@LINE+1]]: error: conv2d: x must be f32, f16 or bf16, got i32
output("y", conv2d(x, w))
