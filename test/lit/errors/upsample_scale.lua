-- upsample: only 2x is implemented.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = input("x", f16, { 1, 3, 8, 8 })
-- CHECK: upsample_scale.lua:[[@LINE+1]]: error: upsample: attribute scale must be 2 (only 2x is implemented), got 3
output("y", upsample(x, { scale = 3 }))
