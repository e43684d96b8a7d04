-- conv2d: the kernel (with its dilation) must fit in the padded input.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s < %t.log
local x = input("x", f32, { 1, 4, 4, 4 })
local w = weight("w", f32, { 8, 4, 3, 3 })
-- CHECK: conv2d_output_size.lua:[[@LINE+1]]: error: conv2d: the output would be empty: input 4x4, padding 0x0, kernel 3x3, dilation 2x2
output("y", conv2d(x, w, { dilation = 2 }))
