-- srht: out cannot exceed P, the last dim padded to a power of two.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = input("x", f32, { 2, 100 })
-- CHECK: srht_out_over.lua:[[@LINE+1]]: error: srht: attribute out must be at most 128 (the last dim 100 padded to a power of two), got 129
output("y", srht(x, { out = 129, seed = 1 }))
