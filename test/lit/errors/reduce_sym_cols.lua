-- reduce: the reduced (last) dim must be a constant.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local T = sym("T", 8)
local x = input("x", f32, { 4, T })
-- CHECK: reduce_sym_cols.lua:[[@LINE+1]]: error: amax: the last dim must be a constant, got T
output("y", amax(x))
