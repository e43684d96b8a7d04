-- upsample: an unknown mode is refused.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = input("x", f16, { 1, 3, 8, 8 })
-- CHECK: upsample_mode.lua:[[@LINE+1]]: error: upsample: attribute mode must be "nearest" or "bilinear", got bicubic
output("y", upsample(x, { mode = "bicubic" }))
