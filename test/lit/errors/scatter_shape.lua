-- scatter_add: idx and src must have one shape.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = input("x", f32, { 4, 6 })
local i = input("i", i32, { 4, 2 })
local s = input("s", f32, { 4, 3 })
-- CHECK: scatter_shape.lua:[[@LINE+1]]: error: scatter_add: idx shape [4, 2] does not match src [4, 3]
output("y", scatter_add(x, i, s))
