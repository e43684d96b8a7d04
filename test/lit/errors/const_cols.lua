-- row ops need a constant last dim.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local T = sym("T", 8)
local x = input("x", f32, { 4, T })
-- CHECK: const_cols.lua:[[@LINE+1]]: error: softmax: the last dim must be a constant, got T
output("y", softmax(x))
