-- conv2d: only the batch may be a sym.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local S = sym("S", 64)
local x = input("x", f16, { 1, 4, S, 8 })
local w = weight("w", f16, { 8, 4, 3, 3 })
-- CHECK: conv2d_sym.lua:[[@LINE+1]]: error: conv2d: x must have constant C, H, W, got [1, 4, S, 8]
output("y", conv2d(x, w))
