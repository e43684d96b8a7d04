-- srht: the last dim must be a constant.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local N = sym("N", 64)
local x = input("x", f32, { 2, N })
-- CHECK: srht_const_cols.lua:[[@LINE+1]]: error: srht: the last dim must be a constant, got N
output("y", srht(x, { out = 8 }))
