-- conv2d: layout is "nchw" or "nhwc".
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = input("x", f16, { 1, 4, 8, 8 })
local w = weight("w", f16, { 8, 4, 3, 3 })
-- CHECK: conv2d_layout.lua:[[@LINE+1]]: error: conv2d: attribute layout must be "nchw" or "nhwc", got nhcw
output("y", conv2d(x, w, { layout = "nhcw" }))
