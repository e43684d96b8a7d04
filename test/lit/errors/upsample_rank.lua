-- upsample: x must be NCHW.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = input("x", f16, { 3, 8, 8 })
-- CHECK: upsample_rank.lua:[[@LINE+1]]: error: upsample: x must be [N, C, H, W], got [3, 8, 8]
output("y", upsample(x))
