-- conv2d: w's second dim must be C / groups of x.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = input("x", f16, { 1, 16, 8, 8 })
local w = weight("w", f16, { 32, 16, 3, 3 })
-- CHECK: conv2d_channels.lua:[[@LINE+1]]: error: conv2d: channel mismatch: x [1, 16, 8, 8] has C = 16, so w [32, 16, 3, 3] needs C / groups = 8, got 16
output("y", conv2d(x, w, { groups = 2 }))
