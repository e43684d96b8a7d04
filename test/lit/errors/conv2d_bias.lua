-- conv2d: the bias is one value per output channel.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = input("x", f16, { 1, 8, 6, 6 })
local w = weight("w", f16, { 16, 8, 3, 3 })
local b = weight("b", f16, { 8 })
-- CHECK: conv2d_bias.lua:[[@LINE+1]]: error: conv2d: bias must be [16] (Cout), got [8]
output("y", conv2d(x, w, b, { padding = 1 }))
