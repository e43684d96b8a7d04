-- all_gather concatenates along a constant first dim.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
ranks(2)
local T = sym("T", 8)
local x = input("x", f32, { T, 64 })
-- CHECK: all_gather_sym.lua:[[@LINE+1]]: error: all_gather: x's dim 1 must be a constant, got [T, 64]
output("y", all_gather(x))
