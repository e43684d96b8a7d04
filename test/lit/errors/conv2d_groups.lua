-- conv2d: groups must divide both C and Cout.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = input("x", f32, { 1, 12, 8, 8 })
local w = weight("w", f32, { 10, 3, 3, 3 })
-- CHECK: conv2d_groups.lua:[[@LINE+1]]: error: conv2d: groups = 4 must divide C = 12 and Cout = 10
output("y", conv2d(x, w, { groups = 4 }))
