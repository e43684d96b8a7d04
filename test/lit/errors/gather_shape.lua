-- gather: idx must match x outside dim.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = input("x", f32, { 4, 6 })
local i = input("i", i32, { 3, 2 })
-- CHECK: gather_shape.lua:[[@LINE+1]]: error: gather: idx shape [3, 2] does not match x [4, 6] outside dim 1
output("y", gather(x, i))
