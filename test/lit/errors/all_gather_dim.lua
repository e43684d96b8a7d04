-- all_gather along a later dim needs the dims before it to be 1 (the ranks'
-- buffers one after another are then the result).
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
ranks(2)
local x = input("x", f32, { 2, 64 })
-- CHECK: all_gather_dim.lua:[[@LINE+1]]: error: all_gather: x's dims before dim 2 must be 1, got [2, 64]
output("y", all_gather(x, { dim = 2 }))
