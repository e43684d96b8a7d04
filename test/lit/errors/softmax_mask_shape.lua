-- softmax: a mask that is not a suffix of x's shape.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local T = sym("T", 8)
local x = input("x", f16, { 4, T, 64 })
local m = input("m", f16, { 5, 64 })
-- CHECK: softmax_mask_shape.lua:[[@LINE+1]]: error: softmax: mask shape [5, 64] must equal the trailing dims of x [4, T, 64]
output("y", softmax(x, m))
