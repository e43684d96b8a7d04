-- srht: the row (padded to a power of two) must fit 16384 floats of LDS.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = input("x", f32, { 2, 16385 })
-- CHECK: srht_cols.lua:[[@LINE+1]]: error: srht: the last dim must be at most 16384 (the transform is held in LDS), got 16385
output("y", srht(x, { out = 8 }))
