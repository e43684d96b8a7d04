-- gather: only dim -1 and 0 are implemented.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = input("x", f32, { 4, 5, 6 })
local i = input("i", i32, { 4, 5, 6 })
-- CHECK: gather_dim.lua:[[@LINE+1]]: error: gather: attribute dim must be -1 (the last dim) or 0, got 1
output("y", gather(x, i, { dim = 1 }))
